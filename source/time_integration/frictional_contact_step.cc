#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/anderson_mixing.h>
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/scaled_solve.h>
#include <percussion/contact_solvers/solve.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_check.h>
#include <percussion/time_integration/distributed_sweeps.h>
#include <percussion/time_integration/frictional_contact_step.h>
#include <percussion/time_integration/plain_all_gather.h>
#include <percussion/time_integration/system_algebra.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

namespace percussion::TimeIntegration
{
  using dealii::PETScWrappers::MPI::Vector;

  namespace
  {

    /// The ranks' @p local contacts, then sorted by point index, so that every rank builds the
    /// same problem.
    void all_gather_sorted(const std::vector<ActiveContact> &local, std::vector<ActiveContact> &all,
                           MPI_Comm communicator)
    {
      plain_all_gather(local, all, communicator);
      std::sort(all.begin(), all.end(),
                [](const ActiveContact &a, const ActiveContact &b) { return a.point < b.point; });
    }

    /// The sum over the ranks of @p communicator for ContactSolvers::AndersonMixing (none on one rank).
    ContactSolvers::AndersonMixing::PartSum sum_over_ranks(MPI_Comm communicator)
    {
      if (dealii::Utilities::MPI::n_mpi_processes(communicator) == 1)
        return {};
      return [communicator](std::vector<double> &sums) {
        const int ierr =
          MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, communicator);
        AssertThrowMPI(ierr);
      };
    }

    /// Reinitialise @p x with the partition of @p like unless it has it already.
    void reinit_like(dealii::PETScWrappers::MPI::Vector &x, const dealii::PETScWrappers::MPI::Vector &like,
                     MPI_Comm communicator)
    {
      if (x.size() != like.size() || x.locally_owned_elements() != like.locally_owned_elements())
        x.reinit(like.locally_owned_elements(), communicator);
    }
  } // namespace

  FrictionalContactStep::FrictionalContactStep(const ContactDynamicsParameters &parameters, const ContactLaw law,
                                               const unsigned int dim, const double gap_prediction_factor,
                                               MPI_Comm communicator)
    : parameters(parameters)
    , local_law(make_local_law(law))
    , dim(dim)
    , rule{gap_prediction_factor, local_law->takes_every_candidate()}
    , communicator(communicator)
    , delassus(dim, parameters.delassus_column_limit, communicator)
  {
    options.solver = parameters.solver;
    options.tolerance = parameters.tolerance;
    options.max_iterations = parameters.max_iterations;
  }

  const std::vector<ActiveContact> &FrictionalContactStep::select_own(const std::vector<OwnedContactPoint> &points,
                                                                      const Vector &u_k, const Vector &w,
                                                                      const double time_step, std::vector<bool> &in_problem)
  {
    // (The buffers are members: a step with a few contacts allocates nothing here.)
    const unsigned int d = dim;
    auto &owned_columns = scratch.columns;
    auto &uk_values = scratch.u_k, &ufree_values = scratch.u_free, &w_values = scratch.w;
    owned_columns.clear();
    for (const OwnedContactPoint &point : points)
      for (unsigned int k = 0; k < d; ++k)
        owned_columns.push_back(d * point.global_index + k);
    uk_values.resize(owned_columns.size());
    ufree_values.resize(owned_columns.size());
    w_values.resize(owned_columns.size());
    u_k.extract_subvector_to(owned_columns, uk_values);
    u_free.extract_subvector_to(owned_columns, ufree_values);
    w.extract_subvector_to(owned_columns, w_values);

    const int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
    auto &local = scratch.local;
    local.clear();
    in_problem.assign(points.size(), false);
    for (unsigned int i = 0; i < points.size(); ++i)
      {
        if (!rule.enters(points[i].gap, uk_values[d * i], ufree_values[d * i], time_step))
          continue;
        in_problem[i] = true;
        ActiveContact a;
        a.point = points[i].global_index;
        a.key = points[i].key;
        a.mu = points[i].mu;
        a.e = points[i].e;
        a.gap = points[i].gap;
        a.owner_rank = rank;
        a.owner_index = static_cast<int>(i);
        for (unsigned int k = 0; k < d; ++k)
          {
            a.u_k[k] = uk_values[d * i + k];
            a.u_free[k] = ufree_values[d * i + k];
            a.w[k] = w_values[d * i + k];
          }
        a.position = points[i].position;
        // Warm start from the previous step's impulse of the same contact (kept by its owner).
        if (const auto it = previous_impulse.find(a.key); it != previous_impulse.end())
          std::copy(it->second.begin(), it->second.end(), a.warm_start.begin());
        local.push_back(a);
      }
    return local;
  }

  void FrictionalContactStep::assemble_law(const std::vector<ActiveContact> &active, const double theta,
                                           const double time_step, const bool dense_operator)
  {
    const unsigned int n = active.size(), d = dim;
    // In 1D the contact problem is frictionless and normal only; it is posed exactly as a 2D
    // problem with μ = 0 and a decoupled tangential row (W_TT = W_NN, q_T = 0), which forces r_T = 0.
    const unsigned int ld = local_dimension();
    problem = ContactSolvers::LocalProblem();
    problem.dimension = ld;
    problem.number_of_contacts = n;
    problem.storage = dense_operator ? ContactSolvers::MatrixStorage::dense : ContactSolvers::MatrixStorage::sparse;
    if (dense_operator)
      problem.W_dense = ContactSolvers::DenseMatrix(ld * n, ld * n);
    problem.q.assign(ld * n, 0.0);
    problem.mu.resize(n);
    for (unsigned int a = 0; a < n; ++a)
      problem.mu[a] = dim == 1 ? 0.0 : active[a].mu;
    // The laws differ only here (doc/contact.md): the factor of W and the shift of b.
    const double factor = local_law->operator_factor(theta);
    const ContactOperators::LawStep step{dim, theta, time_step, lasting_impulse};
    for (unsigned int a = 0; a < n; ++a)
      {
        for (unsigned int b = 0; dense_operator && b < n; ++b)
          for (unsigned int i = 0; i < d; ++i)
            for (unsigned int j = 0; j < d; ++j)
              problem.W_dense(ld * a + i, ld * b + j) = factor * delassus.entry(active[a].point, i, active[b].point, j);
        if (dim == 1 && dense_operator)
          problem.W_dense(ld * a + 1, ld * a + 1) = problem.W_dense(ld * a, ld * a) > 0 ? problem.W_dense(ld * a, ld * a) : 1.0;
        local_law->pose(active[a], step, &problem.q[ld * a]);
      }
  }

  ContactStepResult FrictionalContactStep::solve(TimeIntegrator &integrator,
                                                 const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                 const Vector &w,
                                                 const bool operator_changed,
                                                 const std::vector<OwnedContactPoint> &points,
                                                 const Vector &u_k,
                                                 const double energy_scale)
  {
    const unsigned int d = dim;
    // θ of the Frémond law, and the weight of u_{k+θ} in the contact work of the scheme's energy
    // balance (θ for Moreau–Jean, ½ for the generalized-α family).
    const double theta = integrator.contact_work_weight();
    last_dissipation.clear();
    ContactStepResult result;
    result.state.assign(points.size(), ContactState::open);
    result.impulse.assign(d * points.size(), 0.0);
    result.velocity.assign(d * points.size(), 0.0);
    if (history_restored)
      {
        // A checkpoint's history holds every contact; a rank keeps its own (the owners of the
        // points do not change within a run).
        std::map<unsigned long long, std::vector<double>> own_impulses;
        std::map<unsigned long long, double> own_dissipation;
        for (const OwnedContactPoint &point : points)
          {
            if (const auto it = previous_impulse.find(point.key); it != previous_impulse.end())
              own_impulses.insert(*it);
            if (const auto it = dissipation_by_key.find(point.key); it != dissipation_by_key.end())
              own_dissipation.insert(*it);
          }
        previous_impulse = std::move(own_impulses);
        dissipation_by_key = std::move(own_dissipation);
        history_restored = false;
      }
    // Columns for all candidates are worth computing only if H did not change at this step and
    // the previous one (body pairs, curved obstacles change it every step).
    operator_moves = operator_changed && previous_operator_changed;
    previous_operator_changed = operator_changed;

    // u_free = Hᵀ v_free + w (column partition of H: reallocated only when that changes).
    reinit_like(u_free, w, communicator);
    H.Tvmult(u_free, integrator.new_velocity());
    u_free += w;

    // The threshold of a lasting contact: the previous step's largest normal impulse, all ranks.
    {
      double largest = 0;
      for (const auto &[key, impulse] : previous_impulse)
        if (!impulse.empty())
          largest = std::max(largest, impulse[0]);
      lasting_impulse = 1e-6 * dealii::Utilities::MPI::max(largest, communicator);
    }

    // Phase 1: which contacts enter the problem, each rank its own.
    const std::vector<ActiveContact> &own = select_own(points, u_k, w, integrator.time_step(), result.in_problem);
    unsigned int left_out = 0;
    for (unsigned int i = 0; i < points.size(); ++i)
      left_out += (points[i].gap < 0 && !result.in_problem[i]) ? 1 : 0;
    result.n_penetrated_left_out = dealii::Utilities::MPI::sum(left_out, communicator);
    const unsigned long long n_total =
      dealii::Utilities::MPI::sum(static_cast<unsigned long long>(own.size()), communicator);
    result.n_active = static_cast<unsigned int>(n_total);
    if (n_total == 0)
      {
        previous_impulse.clear(); // no contact carries an impulse into the next step
        result.dissipated_energy = dissipated_energy(points);
        return result;
      }

    // The path: the probed operator where the count decides it (many contacts: the problem stays
    // distributed), else the problem is small enough to gather on every rank, and the remaining
    // rule (uses_probed_operator()) looks at the whole active set.
    bool probed_operator = probed_operator_by_count(n_total);
    const std::vector<ActiveContact> *active = &own; // the contacts this rank holds
    std::vector<unsigned long long> active_points;
    if (!probed_operator)
      {
        all_gather_sorted(own, scratch.gathered, communicator);
        for (const ActiveContact &c : scratch.gathered)
          active_points.push_back(c.point);
        probed_operator = uses_probed_operator(integrator, H, active_points, u_k.size() / d);
        if (!probed_operator)
          active = &scratch.gathered;
      }
    // This rank's contacts in *active: sorted by point, each rank owning a contiguous range of
    // points in rank order.
    const int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
    const auto owned_by_me = [rank](const ActiveContact &c) { return c.owner_rank == rank; };
    const unsigned int first = std::find_if(active->begin(), active->end(), owned_by_me) - active->begin();
    const unsigned int last = std::find_if_not(active->begin() + first, active->end(), owned_by_me) - active->begin();
    Assert(std::none_of(active->begin() + last, active->end(), owned_by_me), dealii::ExcInternalError());
    const unsigned int n_held = active->size();
    const unsigned int ld = local_dimension();
    reaction.assign(ld * n_held, 0.0);
    for (unsigned int a = 0; a < n_held; ++a)
      std::copy_n((*active)[a].warm_start.begin(), ld, reaction.begin() + ld * a);
    int exponent = 0;
    reinit_like(generalized_impulse, integrator.new_velocity(), communicator);
    reinit_like(correction, integrator.new_velocity(), communicator);
    if (!probed_operator)
      {
        // Phase 2: Ŵ⁻¹H and W for the active contacts; phase 3: the scheme's law; phase 4: the
        // contact solve.
        delassus.ensure(integrator, H, active_points, u_k.size() / d, operator_moves);
        last_product.valid = false; // the impulse vectors will be this path's
        last_solve_distributed = false;
        assemble_law(*active, theta, integrator.time_step());
        result.solver = ContactSolvers::solve_scaled(problem, reaction, local_velocity, options, exponent);
      }
    else
      {
        // Phases 2–4 with the probed operator; it leaves Hp and 𝒯Hp of its iterate.
        assemble_law(own, theta, integrator.time_step(), false);
        result.solver =
          solve_with_probed_operator(integrator, H, own, theta, problem, reaction, local_velocity, last_partition, exponent, result);
      }
    result.solved = true;
    result.held_per_rank = probed_operator
                             ? dealii::Utilities::MPI::max(static_cast<unsigned int>(last_partition.n_local()), communicator)
                             : n_held;
    // The impulses in the body's dimension (drops the 1D embedding's zero tangential component).
    std::vector<double> impulse(d * n_held);
    for (unsigned int a = 0; a < n_held; ++a)
      for (unsigned int k = 0; k < d; ++k)
        impulse[d * a + k] = reaction[ld * a + k];
    previous_impulse.clear();
    for (unsigned int a = first; a < last; ++a)
      previous_impulse[(*active)[a].key].assign(reaction.begin() + ld * a, reaction.begin() + ld * (a + 1));

    // The impulse: Hp = B p and Ŵ⁻¹Hp = X p from the cached columns (no further solve), or the
    // probed operator's last exact product. The DoF partition is fixed for a run: the two vectors
    // are allocated once.
    if (!probed_operator)
      delassus.apply(active_points, impulse, generalized_impulse, correction);
    integrator.apply_impulse(generalized_impulse, correction);

    // What the law's velocities are known to: the solver stops when the natural-map residual of
    // the scaled problem is below tolerance × max(‖q‖, ‖r'‖, ‖u‖) (the FCLIB measure, r' the scaled
    // impulses), so a velocity of the law is exact to that, and the step's velocities set a floor.
    // The positive-work report and the stick/slip classification treat velocities below ten times
    // this as zero, and works below the round-off of the step's energy flow. (Norms and maxima over
    // the ranks' own contacts.)
    double squares[3] = {0, 0, 0}, largest_velocity = 0;
    for (unsigned int i = ld * first; i < ld * last; ++i)
      {
        squares[0] += problem.q[i] * problem.q[i];
        squares[1] += std::ldexp(reaction[i], -exponent) * std::ldexp(reaction[i], -exponent);
        squares[2] += local_velocity[i] * local_velocity[i];
      }
    for (unsigned int a = first; a < last; ++a)
      for (unsigned int k = 0; k < d; ++k)
        largest_velocity = std::max({largest_velocity, std::abs((*active)[a].u_k[k]), std::abs((*active)[a].u_free[k])});
    const int ierr = MPI_Allreduce(MPI_IN_PLACE, squares, 3, MPI_DOUBLE, MPI_SUM, communicator);
    AssertThrowMPI(ierr);
    const double velocity_scale = std::max({std::sqrt(squares[0]), std::sqrt(squares[1]), std::sqrt(squares[2]),
                                            dealii::Utilities::MPI::max(largest_velocity, communicator)});
    const double velocity_noise = 10 * parameters.tolerance * velocity_scale;
    const double energy_noise = 1e4 * std::numeric_limits<double>::epsilon() * energy_scale;

    // Phase 5: works and states.
    // (The probed operator runs in 2D/3D only, where the law's dimension is the body's: its W p is
    // in works_and_states()'s layout.)
    works_and_states(*active, first, last, impulse, theta, velocity_noise, energy_noise, result,
                     probed_operator ? &last_product.product : nullptr);
    result.dissipated_energy = dissipated_energy(points);
    return result;
  }

  void FrictionalContactStep::discard_last_solve()
  {
    for (const auto &[key, work] : last_dissipation)
      dissipation_by_key[key] += work;
    last_dissipation.clear();
  }

  void FrictionalContactStep::set_dof_positions(const dealii::types::global_dof_index first_owned_dof,
                                                std::vector<std::array<double, 3>> positions,
                                                const double node_spacing, const bool has_body_pair)
  {
    if (dim == 1 || parameters.delassus_operator == "dense")
      return;
    probed = std::make_unique<ProbedDelassus>(dim, parameters.probing_radius_for(has_body_pair), node_spacing,
                                              communicator);
    inner_blocks.reset(); // made from the blocks of the previous ProbedDelassus, if any
    probed->set_dof_positions(first_owned_dof, std::move(positions));
  }

  bool FrictionalContactStep::probed_operator_by_count(const unsigned long long n_active) const
  {
    if (!probed)
      return false;
    if (parameters.delassus_operator == "probed")
      return true;
    if (parameters.delassus_operator != "auto")
      return false;
    if (dim * n_active > parameters.probed_operator_threshold)
      return true;
    // H moves (body pairs): the dense path computes all dim × active columns at every step.
    // Measured (3D patch tests of regression.mortar_contact, 10 steps, the probing included): 108
    // columns (Q1, 36 slave nodes) 17.5 ms dense / 12.3 ms probed per contact step, 363 columns (Q2)
    // 1.0 s / 0.22 s; the brick_stack example's 3–27 columns 26 ms dense / 84 ms probed.
    return operator_moves && dim * n_active > parameters.moving_operator_threshold;
  }

  bool FrictionalContactStep::uses_probed_operator(const TimeIntegrator &integrator,
                                                   const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                   const std::vector<unsigned long long> &active_points,
                                                   const unsigned long long n_candidates) const
  {
    if (!probed || parameters.delassus_operator != "auto")
      return probed_operator_by_count(active_points.size());
    if (probed_operator_by_count(active_points.size()))
      return true;
    // Fewer contacts, but G is probed already (the body touched with many contacts before): keep
    // it where the dense path would compute more columns than the threshold's worth (measured at
    // 16 × 16 × 8 cells as the box lifts off with 52 contacts left: the columns for all 289
    // candidates took 2.7 s, a probed step 20 ms); with few new columns the dense path is the
    // cheaper one (a brick stack with 1–9 contacts between bodies: 26 ms per step dense, 84 ms
    // probed, whose W_s = HᵀGH is rebuilt over all candidates whenever H moves).
    return probed->n_probings() > 0 &&
           delassus.columns_to_compute(integrator, H, active_points, n_candidates, operator_moves) >
             parameters.probed_operator_threshold;
  }

  void FrictionalContactStep::impulse_on_dofs(TimeIntegrator &integrator,
                                              const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                              const std::vector<ActiveContact> &own, const std::vector<double> &r)
  {
    const unsigned int d = dim, ld = local_dimension();
    // p on H's columns (the owned active points), Hp with the Dirichlet rows zero (the support
    // takes an impulse there, as B of DelassusColumns): each rank writes only its own contacts'.
    reinit_like(impulse_columns, u_free, communicator);
    {
      PetscInt begin, end;
      PERCUSSION_PETSC_CALL(VecGetOwnershipRange(SystemAlgebra::petsc(impulse_columns), &begin, &end));
      PetscScalar *p;
      PERCUSSION_PETSC_CALL(VecGetArray(SystemAlgebra::petsc(impulse_columns), &p));
      std::fill(p, p + (end - begin), 0.0);
      for (unsigned int a = 0; a < own.size(); ++a)
        for (unsigned int k = 0; k < d; ++k)
          p[d * own[a].point + k - begin] = r[ld * a + k];
      PERCUSSION_PETSC_CALL(VecRestoreArray(SystemAlgebra::petsc(impulse_columns), &p));
    }
    H.vmult(generalized_impulse, impulse_columns);
    SystemAlgebra::zero(generalized_impulse, integrator.constrained_dofs());
  }

  void FrictionalContactStep::local_values_of(const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                              const std::vector<ActiveContact> &own,
                                              const dealii::PETScWrappers::MPI::Vector &x, std::vector<double> &z)
  {
    const unsigned int d = dim, ld = local_dimension();
    reinit_like(column_work, u_free, communicator);
    H.Tvmult(column_work, x);
    std::fill(z.begin(), z.end(), 0.0);
    PetscInt begin, end;
    PERCUSSION_PETSC_CALL(VecGetOwnershipRange(SystemAlgebra::petsc(column_work), &begin, &end));
    const PetscScalar *values;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(SystemAlgebra::petsc(column_work), &values));
    for (unsigned int a = 0; a < own.size(); ++a)
      for (unsigned int k = 0; k < d; ++k)
        z[ld * a + k] = values[d * own[a].point + k - begin];
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(SystemAlgebra::petsc(column_work), &values));
  }

  void FrictionalContactStep::exact_product(TimeIntegrator &integrator,
                                            const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                            const std::vector<ActiveContact> &own, const std::vector<double> &r,
                                            std::vector<double> &z)
  {
    impulse_on_dofs(integrator, H, own, r);
    integrator.impulse_response(generalized_impulse, correction);
    local_values_of(H, own, correction, z);
  }

  void FrictionalContactStep::approximate_product(TimeIntegrator &integrator,
                                                  const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                  const std::vector<ActiveContact> &own, const std::vector<double> &r,
                                                  std::vector<double> &z)
  {
    // generalized_impulse and correction hold the last accepted Hp and its exact 𝒯Hp; by
    // linearity 𝒯(Hp)_new = 𝒯(Hp)_old + 𝒯(Δ) with Δ the change of the generalized impulse (H moved
    // a little, the impulses changed), and G approximates 𝒯 on the contact DoFs, where Δ lives.
    reinit_like(impulse_change, generalized_impulse, communicator);
    reinit_like(response_change, generalized_impulse, communicator);
    impulse_change = generalized_impulse;
    impulse_on_dofs(integrator, H, own, r);
    impulse_change.sadd(-1.0, 1.0, generalized_impulse);
    probed->approximate_response(impulse_change, response_change);
    correction += response_change;
    local_values_of(H, own, correction, z);
  }

  ContactSolvers::SolverResult
  FrictionalContactStep::solve_with_probed_operator(TimeIntegrator &integrator,
                                                    const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                    const std::vector<ActiveContact> &own, const double theta,
                                                    ContactSolvers::LocalProblem &probed_problem,
                                                    std::vector<double> &impulses, std::vector<double> &velocities,
                                                    ContactPartition &partition, int &exponent,
                                                    ContactStepResult &result)
  {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const unsigned int ld = local_dimension();
    Assert(ld == dim, dealii::ExcInternalError()); // 2D/3D only (set_dof_positions())
    result.probed_operator = true;
    result.probing_solves = probed->ensure(integrator, H);
    const double factor = local_law->operator_factor(theta);
    // probed_problem: this rank's rows of A = f W_s (the approximation) in the local numbering of its own
    // and ghost contacts, b and μ of the law for its own contacts (zero for the ghosts, whose rows
    // it does not hold); the exact problem has the same b.
    std::vector<unsigned long long> own_points(own.size());
    for (unsigned int a = 0; a < own.size(); ++a)
      own_points[a] = own[a].point;
    probed->active_block(own_points, ld, factor, probed_problem.W_sparse, partition);
    last_solve_distributed = true;
    const int n_own = partition.n_own(), n_local = partition.n_local();
    const unsigned int n = ld * n_local, n_mine = ld * n_own;
    probed_problem.number_of_contacts = n_local;
    probed_problem.q.resize(n, 0.0);
    probed_problem.mu.resize(n_local, 0.0);
    const std::vector<double> b = probed_problem.q;
    const PetscObjectId h_id = SystemAlgebra::object_id(H);

    // The inner problems are solved with impulses scaled by a power of two (as solve_scaled()).
    // Their operator, its block form and the ghost exchange are made again only when the active
    // block or the scaling changed: in lasting contact on a fixed obstacle they are the last step's
    // (copying and re-blocking W_s cost about 10 ms per step at 1 089 contacts and R = 7).
    exponent = ContactSolvers::scaling_exponent(dealii::Utilities::MPI::sum(ContactSolvers::diagonal_sum(probed_problem), communicator),
                                static_cast<int>(ld * partition.n_total()));
    if (!inner_blocks || probed->block_version() != inner_block_version || exponent != inner_exponent)
      {
        inner_problem = probed_problem;
        for (double &x : inner_problem.W_sparse.values)
          x = std::ldexp(x, exponent);
        inner_blocks = std::make_unique<ContactSolvers::BlockDelassus>(inner_problem);
        inner_exchange = std::make_unique<ImpulseExchange>(partition, ld, communicator);
        inner_block_version = probed->block_version();
        inner_exponent = exponent;
      }
    inner_problem.q = probed_problem.q;
    inner_problem.mu = probed_problem.mu;
    ContactSolvers::LocalProblem &inner = inner_problem;
    // The own impulses are the warm start (solve()); the ghosts' come from their owners.
    impulses.resize(n, 0.0);
    inner_exchange->exchange(impulses);
    // The inner problems have a sparse, diagonally dominant W_s (mass-dominated Ŵ) and a warm start
    // from the last iterate: Gauss–Seidel sweeps solve them at a fraction of a Newton iteration's
    // sparse LU (measured: the contact step at 16 × 16 × 8 cells 38.6 → 17.4 ms, the same outer
    // iterations). Each rank sweeps its own contacts (distributed_sweeps.h). The configured solver
    // takes over, on the gathered problem, where the sweeps do not converge.
    ContactSolvers::SolverOptions inner_options = options;
    inner_options.tolerance = 0.1 * options.tolerance;
    const double sweeps_tolerance = inner_options.tolerance;
    const int max_sweeps = 200;

    ContactSolvers::SolverResult total;
    std::vector<double> z(n, 0.0), u(n, 0.0), scaled(n), inner_u, approximate(n), best_r, best_z, best_u;
    std::vector<double> history;
    ContactSolvers::AndersonMixing mixing(5, n_mine, sum_over_ranks(communicator));
    double best_error = std::numeric_limits<double>::infinity();
    std::string phases;
    for (unsigned int outer = 0;; ++outer)
      {
        // The exact velocities of the law at the iterate: u = f W p + b, W p from one solve. The
        // warm start is the last step's accepted impulse: with the same H (fixed obstacles), the
        // same contacts and the same impulses on every rank, its product is the last step's, and
        // Hp, 𝒯Hp are still in the work vectors.
        const bool previous_pair = outer == 0 && last_product.valid &&
                                   last_product.response_version == integrator.operator_version();
        bool approximate_start = false;
        if (on_every_rank(previous_pair && last_product.operator_id == h_id && last_product.points == own_points &&
                            last_product.reaction == impulses,
                          communicator))
          z = last_product.product;
        else if (on_every_rank(std::all_of(impulses.begin(), impulses.begin() + n_mine, [](const double x) { return x == 0.0; }),
                               communicator))
          {
            // No impulse (a cold start): W p = 0 without a solve.
            std::fill(z.begin(), z.end(), 0.0);
            generalized_impulse = 0;
            correction = 0;
          }
        else if (on_every_rank(previous_pair, communicator))
          {
            // H moved (a body pair) or the contacts or their impulses are not the last step's: the
            // warm start's product from the last accepted one and G applied to the change only
            // (approximate_product()), instead of a solve. It starts the iteration; the exact
            // products that follow decide convergence (slab at 16 × 16 × 8: 3.9 → 3.0 products).
            approximate_product(integrator, H, own, impulses, z);
            approximate_start = true;
          }
        else
          {
            exact_product(integrator, H, own, impulses, z);
            ++result.exact_products;
          }
        for (unsigned int i = 0; i < n; ++i)
          {
            u[i] = factor * z[i] + b[i];
            scaled[i] = std::ldexp(impulses[i], -exponent);
          }
        const double error = distributed_error(probed_problem, scaled, u, n_own, communicator);
        if (approximate_start)
          phases += "approximate-start "; // not an exact error: neither kept nor accepted
        else
          history.push_back(error);
        if (!approximate_start && error < best_error)
          {
            best_error = error;
            best_r = impulses;
            best_z = z;
            best_u = u;
            reinit_like(best_generalized_impulse, generalized_impulse, communicator);
            reinit_like(best_correction, correction, communicator);
            best_generalized_impulse = generalized_impulse;
            best_correction = correction;
          }
        if (!approximate_start && (!(error > options.tolerance) || history.size() >= parameters.probed_operator_max_iterations))
          break;
        // No progress over three outer iterations (a factor 2): the approximation is too coarse for
        // this problem; reported as not solved.
        if (history.size() >= 4 && !(error < 0.5 * history[history.size() - 4]))
          {
            phases += "stalled ";
            break;
          }
        // The inner problem: A = f W_s, b' = b + f z − f W_s p (so that it is exact at p), on the
        // own rows (W_s p reads the ghosts' impulses).
        std::fill(approximate.begin(), approximate.end(), 0.0);
        probed_problem.W_sparse.multiply_add(impulses.data(), approximate.data());
        for (unsigned int i = 0; i < n; ++i)
          inner.q[i] = b[i] + factor * z[i] - approximate[i];
        // The inner solution need not be more accurate than a tenth of the next exact error, about
        // ρ·error with ρ the outer iteration's contraction: the ratio of this step's last two
        // exact errors, or before the second 1e-6 (measured 4e-4, 1e-5 and 1e-6 at R = 5, 7, 9).
        const double contraction =
          history.size() >= 2 ? std::min(1e-3, history.back() / history[history.size() - 2]) : 1e-6;
        const double inner_tolerance = std::max(sweeps_tolerance, 0.1 * contraction * error);
        ContactSolvers::SolverResult r =
          distributed_sweeps(inner, *inner_blocks, *inner_exchange, scaled, inner_u, inner_tolerance, max_sweeps);
        total.iterations += r.iterations;
        if (r.status != ContactSolvers::SolverStatus::converged)
          {
            // The fallback solves the whole inner problem, gathered on every rank (the one place of
            // the probed path where a rank holds all contacts).
            const ContactSolvers::LocalProblem whole = gather_whole(inner, partition, communicator);
            std::vector<double> whole_r = gather_own(scaled, ld, partition, communicator), whole_u;
            r = ContactSolvers::solve(whole, whole_r, whole_u, inner_options);
            total.iterations += r.iterations;
            for (int a = 0; a < n_local; ++a)
              std::copy_n(&whole_r[ld * partition.global(a)], ld, &scaled[ld * a]);
          }
        // The outer iteration p ↦ Φ(p) (inner solution) is, once the contacts' states settle, a
        // linear stationary iteration; Anderson mixing of the last iterates (the nonlinear form of
        // GMRES) cuts the number of exact products. Restarted when the exact error grows; the mix
        // is projected back onto the Coulomb cones, and only the exact error decides convergence.
        // Each rank mixes its own impulses (inner products summed over the ranks), then the ghosts
        // get their owners' mixed values.
        if (history.size() >= 2 && error > history[history.size() - 2])
          mixing.clear();
        std::vector<double> next(n);
        for (unsigned int i = 0; i < n; ++i)
          next[i] = std::ldexp(scaled[i], exponent);
        mixing.add(impulses, next);
        mixing.mix(next);
        for (int a = 0; a < n_own; ++a)
          ContactSolvers::project_onto_coulomb_cone(ld, probed_problem.mu[a], &next[ld * a], &next[ld * a]);
        inner_exchange->exchange(next);
        impulses = next;
      }
    impulses = best_r;
    velocities = best_u;
    last_product = {true, h_id, integrator.operator_version(), own_points, best_r, best_z};
    std::swap(generalized_impulse, best_generalized_impulse);
    std::swap(correction, best_correction);
    total.error = best_error;
    total.status = best_error <= options.tolerance ? ContactSolvers::SolverStatus::converged
                                                   : ContactSolvers::SolverStatus::not_converged;
    total.message = "probed operator: " + std::to_string(result.exact_products) + " exact products, " +
                    std::to_string(result.probing_solves) + " probing solves " + phases;
    total.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return total;
  }

  void FrictionalContactStep::works_and_states(const std::vector<ActiveContact> &active, const unsigned int first,
                                               const unsigned int last, const std::vector<double> &impulse,
                                               const double theta, const double velocity_noise,
                                               const double energy_noise, ContactStepResult &result,
                                               const std::vector<double> *exact_product)
  {
    // The law's velocities: u_{k+1} = u_free + W p, u_{k+θ} = (1−θ)u_k + θu_{k+1}, and the works
    // of (59): normal and tangential parts, and the obstacles' part −wᵀp. Each rank its own
    // contacts; the totals are summed over the ranks at the end.
    const unsigned int d = dim, n_active = active.size();
    double largest_impulse = 0;
    for (unsigned int a = first; a < last; ++a)
      largest_impulse = std::max(largest_impulse, impulse[d * a]);
    largest_impulse = dealii::Utilities::MPI::max(largest_impulse, communicator);
    for (unsigned int a = first; a < last; ++a)
      {
        std::array<double, 3> u_next{}, u_theta{};
        for (unsigned int i = 0; i < d; ++i)
          {
            u_next[i] = active[a].u_free[i];
            if (exact_product != nullptr)
              u_next[i] += (*exact_product)[d * (a - first) + i];
            else
              for (unsigned int b = 0; b < n_active; ++b)
                for (unsigned int j = 0; j < d; ++j)
                  u_next[i] += delassus.entry(active[a].point, i, active[b].point, j) * impulse[d * b + j];
            u_theta[i] = (1 - theta) * active[a].u_k[i] + theta * u_next[i];
          }
        const double *p = &impulse[d * a];
        double normal = u_theta[0] * p[0], tangential = 0, p_t = 0, u_t = 0, obstacle = 0;
        for (unsigned int i = 1; i < d; ++i)
          {
            tangential += u_theta[i] * p[i];
            p_t += p[i] * p[i];
            const double slip = local_law->slides_at_weighted_velocity() ? u_theta[i] : u_next[i];
            u_t += slip * slip;
          }
        for (unsigned int i = 0; i < d; ++i)
          obstacle -= active[a].w[i] * p[i];
        result.work_normal += normal;
        result.work_tangential += tangential;
        result.obstacle_work += obstacle;
        dissipation_by_key[active[a].key] -= normal + tangential;
        last_dissipation.emplace_back(active[a].key, normal + tangential);

        // Positive work beyond what the solver tolerance (|u| error ≤ velocity_noise) and the
        // round-off of the step's energy flow can explain is reported with its location.
        double p_norm = 0;
        for (unsigned int i = 0; i < d; ++i)
          p_norm += p[i] * p[i];
        const double work = normal + tangential;
        result.normal_impulse += p[0];
        if (work > std::max(velocity_noise * std::sqrt(p_norm), energy_noise))
          {
            ++result.n_positive_work;
            if (work > result.largest_positive_work)
              {
                result.largest_positive_work = work;
                result.largest_positive_work_position = active[a].position;
              }
          }

        // Lemma 1: open, stick (inside the cone, or on it with a slip velocity the law cannot
        // tell from zero), slip.
        ContactState state = ContactState::open;
        if (p[0] > 1e-12 * largest_impulse && p[0] > 0)
          {
            const bool on_cone_boundary = std::sqrt(p_t) >= (1 - 1e-6) * active[a].mu * p[0];
            state = on_cone_boundary && std::sqrt(u_t) > velocity_noise ? ContactState::slip : ContactState::stick;
            if (state == ContactState::slip)
              ++result.n_slip;
            else
              ++result.n_stick;
          }
        const unsigned int i = active[a].owner_index;
        result.state[i] = state;
        for (unsigned int k = 0; k < d; ++k)
          {
            result.impulse[d * i + k] = p[k];
            result.velocity[d * i + k] = u_theta[k];
          }
      }

    // The step's totals: sums over the ranks, and the largest positive work with its place (the
    // first rank's on a tie, so that every rank reports the same).
    if (dealii::Utilities::MPI::n_mpi_processes(communicator) == 1)
      return;
    double sums[7] = {result.work_normal, result.work_tangential, result.obstacle_work, result.normal_impulse,
                      static_cast<double>(result.n_stick), static_cast<double>(result.n_slip),
                      static_cast<double>(result.n_positive_work)};
    const int ierr = MPI_Allreduce(MPI_IN_PLACE, sums, 7, MPI_DOUBLE, MPI_SUM, communicator);
    AssertThrowMPI(ierr);
    result.work_normal = sums[0];
    result.work_tangential = sums[1];
    result.obstacle_work = sums[2];
    result.normal_impulse = sums[3];
    result.n_stick = static_cast<unsigned int>(sums[4]);
    result.n_slip = static_cast<unsigned int>(sums[5]);
    result.n_positive_work = static_cast<unsigned int>(sums[6]);
    struct PositiveWork
    {
      double work;
      std::array<double, 3> position;
    };
    std::vector<PositiveWork> largest;
    plain_all_gather(std::vector<PositiveWork>{{result.largest_positive_work, result.largest_positive_work_position}},
                     largest, communicator);
    PositiveWork best = largest.front();
    for (const PositiveWork &candidate : largest)
      if (candidate.work > best.work)
        best = candidate;
    result.largest_positive_work = best.work;
    result.largest_positive_work_position = best.position;
  }

  PositionProjectionResult FrictionalContactStep::project_positions(TimeIntegrator &integrator,
                                                                    const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                                    const Vector &w,
                                                                    const std::vector<OwnedContactPoint> &points,
                                                                    const Vector &displacement_increment,
                                                                    const bool project, const double tolerance)
  {
    const unsigned int d = dim;
    const double h = integrator.time_step();
    PositionProjectionResult result;
    // g_{k+1} to first order: the gap's derivative is the normal row of Hᵀ (plus the obstacle's
    // motion h w_N): exact for planes, O(|Δq|²/R) for curved obstacles and master surfaces.
    reinit_like(gap_increment, w, communicator);
    H.Tvmult(gap_increment, displacement_increment);
    auto &normal_rows = scratch.columns;
    normal_rows.resize(points.size());
    for (unsigned int i = 0; i < points.size(); ++i)
      normal_rows[i] = d * points[i].global_index;
    auto &increments = scratch.u_k, &w_normal = scratch.w, &end_gap = scratch.u_free;
    increments.resize(points.size());
    w_normal.resize(points.size());
    end_gap.resize(points.size());
    gap_increment.extract_subvector_to(normal_rows, increments);
    w.extract_subvector_to(normal_rows, w_normal);
    double min_gap = std::numeric_limits<double>::infinity();
    for (unsigned int i = 0; i < points.size(); ++i)
      {
        end_gap[i] = points[i].gap + increments[i] + h * w_normal[i];
        min_gap = std::min(min_gap, end_gap[i]);
      }
    result.min_gap_before = result.min_gap = dealii::Utilities::MPI::min(min_gap, communicator);
    if (!project || !is_velocity_level() || !(result.min_gap_before < -tolerance))
      return result;

    // A metric of its own (quasi-static): its columns are made for this projection's contacts
    // only and not kept. Projections are rare (impact steps), and columns kept from an earlier
    // projection would make a run resumed from a checkpoint differ from the uninterrupted one in
    // the last bits (another set of right-hand sides per solve).
    if (!integrator.projection_is_impulse_response())
      projection_columns = std::make_unique<DelassusColumns>(d, parameters.delassus_column_limit, communicator,
                                                             DelassusColumns::Response::projection);
    DelassusColumns &columns = integrator.projection_is_impulse_response() ? delassus : *projection_columns;
    const int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
    // A pass may push a contact outside the problem below −tolerance through the coupling of W:
    // a few passes, each with the contacts then within the tolerance of penetration.
    for (unsigned int pass = 0; pass < 3 && result.min_gap < -tolerance; ++pass)
      {
        auto &local = scratch.local;
        local.clear();
        for (unsigned int i = 0; i < points.size(); ++i)
          if (end_gap[i] < tolerance)
            {
              ActiveContact a;
              a.point = points[i].global_index;
              a.key = points[i].key;
              a.gap = end_gap[i];
              a.owner_rank = rank;
              a.owner_index = static_cast<int>(i);
              a.position = points[i].position;
              local.push_back(a);
            }
        // (A metric of its own takes dense columns up to 'Delassus column limit' columns.)
        const bool many = dealii::Utilities::MPI::sum(static_cast<unsigned long long>(local.size()), communicator) * d >
                          parameters.delassus_column_limit;
        if (last_solve_distributed && dim > 1 && (integrator.projection_is_impulse_response() || many))
          {
            // Many contacts (the step's problem took the probed operator): the projection's
            // problem 0 ≤ g + W λ ⊥ λ ≥ 0 is the frictionless contact problem (μ = 0, b = (g, 0, 0),
            // factor 1) with W = Hᵀ𝒯H in the metric of the impulse response 𝒯 (Ŵ for
            // Moreau–Jean, also where 'Projection metric' is quasi-static but the projected contacts
            // need more than 'Delassus column limit' columns: dense columns of a metric of its own
            // for a thousand contacts would cost minutes and gigabytes per projection):
            // solved by the same distributed outer iteration, no dense column and no rank holding
            // all contacts. Its problem, impulses and partition are its own: the contact step's
            // stay for what reads them after the step (an FCLIB dump, whole_last_problem()).
            std::sort(local.begin(), local.end(),
                      [](const ActiveContact &x, const ActiveContact &y) { return x.point < y.point; });
            result.n_contacts = std::max(
              result.n_contacts, static_cast<unsigned int>(dealii::Utilities::MPI::sum(local.size(), communicator)));
            ContactSolvers::LocalProblem lcp;
            lcp.dimension = d;
            lcp.number_of_contacts = local.size();
            lcp.storage = ContactSolvers::MatrixStorage::sparse;
            lcp.q.assign(d * local.size(), 0.0);
            lcp.mu.assign(local.size(), 0.0);
            for (unsigned int a = 0; a < local.size(); ++a)
              lcp.q[d * a] = local[a].gap;
            std::vector<double> impulses(d * local.size(), 0.0), velocities;
            ContactPartition partition;
            ContactStepResult projection_step;
            int exponent = 0;
            result.solver = solve_with_probed_operator(integrator, H, local, 1.0, lcp, impulses, velocities, partition,
                                                       exponent, projection_step);
            // correction holds 𝒯Hλ of the accepted iterate.
            last_product.valid = false;
          }
        else
          {
            std::vector<ActiveContact> projected;
            all_gather_sorted(local, projected, communicator);
            const unsigned int n = projected.size();
            std::vector<unsigned long long> projected_points(n);
            for (unsigned int a = 0; a < n; ++a)
              projected_points[a] = projected[a].point;
            columns.ensure(integrator, H, projected_points, w.size() / d,
                           operator_moves || !integrator.projection_is_impulse_response());

            // 0 ≤ g + W_NN p̃ ⊥ p̃ ≥ 0 with W = Hᵀ𝒫⁻¹H of the scheme's metric, posed as a 2D
            // frictionless problem with a decoupled tangential row (as 1D contact is).
            ContactSolvers::LocalProblem lcp;
            lcp.dimension = 2;
            lcp.number_of_contacts = n;
            lcp.storage = ContactSolvers::MatrixStorage::dense;
            lcp.W_dense = ContactSolvers::DenseMatrix(2 * n, 2 * n);
            lcp.q.assign(2 * n, 0.0);
            lcp.mu.assign(n, 0.0);
            for (unsigned int a = 0; a < n; ++a)
              {
                for (unsigned int b = 0; b < n; ++b)
                  lcp.W_dense(2 * a, 2 * b) = columns.entry(projected[a].point, 0, projected[b].point, 0);
                lcp.W_dense(2 * a + 1, 2 * a + 1) = lcp.W_dense(2 * a, 2 * a) > 0 ? lcp.W_dense(2 * a, 2 * a) : 1.0;
                lcp.q[2 * a] = projected[a].gap;
              }
            std::vector<double> r(2 * n, 0.0), u;
            int exponent = 0;
            result.solver = ContactSolvers::solve_scaled(lcp, r, u, options, exponent);
            result.n_contacts = std::max(result.n_contacts, n);
            std::vector<double> impulse(d * n, 0.0);
            for (unsigned int a = 0; a < n; ++a)
              impulse[d * a] = r[2 * a];
            reinit_like(generalized_impulse, integrator.displacement(), communicator);
            reinit_like(correction, integrator.displacement(), communicator);
            columns.apply(projected_points, impulse, generalized_impulse, correction);
            last_product.valid = false; // the vectors no longer hold the contact step's Hp and 𝒯Hp
          }
        result.energy_change += integrator.correct_displacement(correction);

        // The gaps after the pass, for every candidate.
        H.Tvmult(gap_increment, correction);
        gap_increment.extract_subvector_to(normal_rows, increments);
        min_gap = std::numeric_limits<double>::infinity();
        for (unsigned int i = 0; i < points.size(); ++i)
          {
            end_gap[i] += increments[i];
            min_gap = std::min(min_gap, end_gap[i]);
          }
        result.min_gap = dealii::Utilities::MPI::min(min_gap, communicator);
      }
    return result;
  }

  FrictionalContactStep::History FrictionalContactStep::history() const
  {
    // Each rank holds its own contacts' history (after a restart possibly all of them, the same
    // on every rank, until the next solve()): the union.
    struct ImpulseRecord
    {
      unsigned long long key;
      unsigned int size;
      std::array<double, 3> impulse;
    };
    struct DissipationRecord
    {
      unsigned long long key;
      double energy;
    };
    std::vector<ImpulseRecord> impulses, all_impulses;
    for (const auto &[key, impulse] : previous_impulse)
      {
        ImpulseRecord record{key, static_cast<unsigned int>(impulse.size()), {}};
        std::copy_n(impulse.begin(), std::min<std::size_t>(impulse.size(), 3), record.impulse.begin());
        impulses.push_back(record);
      }
    std::vector<DissipationRecord> dissipation, all_dissipation;
    for (const auto &[key, energy] : dissipation_by_key)
      dissipation.push_back({key, energy});
    plain_all_gather(impulses, all_impulses, communicator);
    plain_all_gather(dissipation, all_dissipation, communicator);
    History history;
    for (const ImpulseRecord &record : all_impulses)
      history.impulses[record.key].assign(record.impulse.begin(), record.impulse.begin() + record.size);
    for (const DissipationRecord &record : all_dissipation)
      history.dissipation[record.key] = record.energy;
    return history;
  }

  void FrictionalContactStep::whole_last_problem(ContactSolvers::LocalProblem &whole, std::vector<double> &r,
                                                 std::vector<double> &u) const
  {
    if (!last_solve_distributed)
      {
        whole = problem;
        r = reaction;
        u = local_velocity;
        return;
      }
    const int ld = static_cast<int>(local_dimension());
    whole = gather_whole(problem, last_partition, communicator);
    r = gather_own(reaction, ld, last_partition, communicator);
    u = gather_own(local_velocity, ld, last_partition, communicator);
  }

  std::vector<double> FrictionalContactStep::dissipated_energy(const std::vector<OwnedContactPoint> &points) const
  {
    std::vector<double> energy(points.size(), 0.0);
    for (unsigned int i = 0; i < points.size(); ++i)
      if (const auto it = dissipation_by_key.find(points[i].key); it != dissipation_by_key.end())
        energy[i] = it->second;
    return energy;
  }
} // namespace percussion::TimeIntegration
