#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/scaled_solve.h>
#include <percussion/contact_solvers/solve.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_check.h>
#include <percussion/contact_solvers/distributed_sweeps.h>
#include <percussion/time_integration/frictional_contact_step.h>
#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/time_integration/system_algebra.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace percussion::TimeIntegration
{
  using ContactSolvers::gather_own;
  using ContactSolvers::gather_whole;
  using ContactSolvers::plain_all_gather;
  using dealii::PETScWrappers::MPI::Vector;
  using SystemAlgebra::reinit_like;

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
      keep_own_history(points);
    // Columns for all candidates are worth computing only if H did not change at this step and
    // the previous one (body pairs, curved obstacles change it every step).
    operator_moves = operator_changed && previous_operator_changed;
    previous_operator_changed = operator_changed;

    // u_free = Hᵀ v_free + w (column partition of H: reallocated only when that changes).
    reinit_like(u_free, w, communicator);
    H.Tvmult(u_free, integrator.new_velocity());
    u_free += w;

    // The threshold of a lasting contact: the previous step's largest normal impulse, all ranks.
    lasting_impulse = lasting_threshold();

    // Phase 1: which contacts enter the problem, each rank its own.
    const std::vector<ActiveContact> &own = select_own(points, u_k, w, integrator.time_step(), result.in_problem);
    // The contacts in lasting contact at this step (the law's lasting part whole), for the
    // adaptive projection metric. (An impulse of round-off size decides nothing: runs on
    // different rank counts choose the same metric.)
    const ContactOperators::LawStep law_step{dim, theta, integrator.time_step(), lasting_impulse};
    lasting_own_keys.clear();
    for (const ActiveContact &a : own)
      if (law_step.lasting_share(a) == 1.0)
        lasting_own_keys.push_back(a.key);
    std::sort(lasting_own_keys.begin(), lasting_own_keys.end());
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
    // Phases 2–4: the operator, the scheme's law, the contact solve.
    if (!probed_operator)
      result.solver = solve_dense(integrator, H, *active, active_points, u_k.size() / d, theta, exponent);
    else
      result.solver = solve_probed(integrator, H, own, theta, exponent, result);
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
      {
        delassus.apply(active_points, impulse, generalized_impulse, correction);
        integrator.apply_impulse(generalized_impulse, correction);
      }
    else
      integrator.apply_impulse(probed->generalized_impulse(), probed->response());

    // The positive-work report and the stick/slip classification treat velocities below the
    // solver's accuracy as zero, and works below the round-off of the step's energy flow.
    const double velocity_noise = velocity_noise_of(*active, first, last, exponent);
    const double energy_noise = 1e4 * std::numeric_limits<double>::epsilon() * energy_scale;

    // Phase 5: works and states.
    // (The probed operator runs in 2D/3D only, where the law's dimension is the body's: its W p is
    // in works_and_states()'s layout.)
    works_and_states(*active, first, last, impulse, theta, velocity_noise, energy_noise, result,
                     probed_operator ? &probed->last_exact_product() : nullptr);
    result.dissipated_energy = dissipated_energy(points);
    return result;
  }

  ContactSolvers::SolverResult FrictionalContactStep::solve_dense(TimeIntegrator &integrator,
                                                                  const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                                  const std::vector<ActiveContact> &active,
                                                                  const std::vector<unsigned long long> &active_points,
                                                                  const unsigned long long n_candidates,
                                                                  const double theta, int &exponent)
  {
    // Phase 2: Ŵ⁻¹H and W for the active contacts; phase 3: the scheme's law; phase 4: the
    // contact solve.
    delassus.ensure(integrator, H, active_points, n_candidates, operator_moves);
    if (probed)
      probed->forget_last_product(); // the impulse vectors will be this path's
    last_solve_distributed = false;
    assemble_law(active, theta, integrator.time_step());
    return ContactSolvers::solve_scaled(problem, reaction, local_velocity, options, exponent);
  }

  ContactSolvers::SolverResult FrictionalContactStep::solve_probed(TimeIntegrator &integrator,
                                                                   const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                                   const std::vector<ActiveContact> &own,
                                                                   const double theta, int &exponent,
                                                                   ContactStepResult &result)
  {
    // Phases 2–4 with the probed operator; it leaves Hp and 𝒯Hp of its iterate.
    assemble_law(own, theta, integrator.time_step(), false);
    last_solve_distributed = true;
    result.probed_operator = true;
    ProbedSolveCounts counts;
    const ContactSolvers::SolverResult solved =
      probed->solve(integrator, H, u_free, own, local_law->operator_factor(theta), problem, reaction, local_velocity,
                    last_partition, exponent, options, counts);
    result.exact_products = counts.exact_products;
    result.probing_solves = counts.probing_solves;
    return solved;
  }

  void FrictionalContactStep::keep_own_history(const std::vector<OwnedContactPoint> &points)
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

  double FrictionalContactStep::lasting_threshold() const
  {
    double largest = 0;
    for (const auto &[key, impulse] : previous_impulse)
      if (!impulse.empty())
        largest = std::max(largest, impulse[0]);
    return 1e-6 * dealii::Utilities::MPI::max(largest, communicator);
  }

  double FrictionalContactStep::velocity_noise_of(const std::vector<ActiveContact> &active, const unsigned int first,
                                                  const unsigned int last, const int exponent) const
  {
    // What the law's velocities are known to: the solver stops when the natural-map residual of
    // the scaled problem is below tolerance × max(‖q‖, ‖r'‖, ‖u‖) (the FCLIB measure, r' the scaled
    // impulses), so a velocity of the law is exact to that, and the step's velocities set a floor;
    // ten times this is the noise. (Norms and maxima over the ranks' own contacts.)
    const unsigned int d = dim, ld = local_dimension();
    double squares[3] = {0, 0, 0}, largest_velocity = 0;
    for (unsigned int i = ld * first; i < ld * last; ++i)
      {
        squares[0] += problem.q[i] * problem.q[i];
        squares[1] += std::ldexp(reaction[i], -exponent) * std::ldexp(reaction[i], -exponent);
        squares[2] += local_velocity[i] * local_velocity[i];
      }
    for (unsigned int a = first; a < last; ++a)
      for (unsigned int k = 0; k < d; ++k)
        largest_velocity = std::max({largest_velocity, std::abs(active[a].u_k[k]), std::abs(active[a].u_free[k])});
    const int ierr = MPI_Allreduce(MPI_IN_PLACE, squares, 3, MPI_DOUBLE, MPI_SUM, communicator);
    AssertThrowMPI(ierr);
    const double velocity_scale = std::max({std::sqrt(squares[0]), std::sqrt(squares[1]), std::sqrt(squares[2]),
                                            dealii::Utilities::MPI::max(largest_velocity, communicator)});
    return 10 * parameters.tolerance * velocity_scale;
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
    if (!probed)
      probed = std::make_unique<ProbedDelassusSolver>(dim, parameters.probed_operator_max_iterations, communicator);
    probed->set_dof_positions(first_owned_dof, std::move(positions), parameters.probing_radius_for(has_body_pair),
                              node_spacing);
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
    return probed->approximation().n_probings() > 0 &&
           delassus.columns_to_compute(integrator, H, active_points, n_candidates, operator_moves) >
             parameters.probed_operator_threshold;
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

    // The adaptive metric: a contact that lands (not in lasting contact at this step: it
    // touched down within the step or the step before, or the active set missed it) beside one
    // that carries load (in lasting contact, closed) is corrected as the step's impulse response
    // moves the body (𝒯, local): its penetration is what the impact law leaves within a step
    // (h(1 − θ)|u_N,k|), what an earlier impulse would have prevented. Otherwise (a first
    // landing, or the drift of contacts in lasting contact under load) the quasi-static metric
    // moves the body as a whole where it can and as a static load would where it cannot. The
    // quasi-static metric alone lifts a loaded body off its support to correct a contact that
    // lands beside it, and the load then does its work into that gap again (doc/contact.md,
    // "Position projection").
    bool impulse_metric = integrator.projection_is_impulse_response();
    if (!impulse_metric && parameters.projection_metric == "adaptive")
      {
        bool impact = false, loaded = false;
        for (unsigned int i = 0; i < points.size(); ++i)
          {
            const bool lasting =
              std::binary_search(lasting_own_keys.begin(), lasting_own_keys.end(), points[i].key);
            impact = impact || (end_gap[i] < -tolerance && !lasting);
            loaded = loaded || (end_gap[i] < tolerance && lasting);
          }
        impulse_metric = dealii::Utilities::MPI::logical_or(impact, communicator) &&
                         dealii::Utilities::MPI::logical_or(loaded, communicator);
      }
    result.impulse_metric = impulse_metric;
    // A metric of its own (quasi-static): its columns are made for this projection's contacts
    // only and not kept. Projections are rare (impact steps), and columns kept from an earlier
    // projection would make a run resumed from a checkpoint differ from the uninterrupted one in
    // the last bits (another set of right-hand sides per solve).
    if (!impulse_metric)
      projection_columns = std::make_unique<DelassusColumns>(d, parameters.delassus_column_limit, communicator,
                                                             DelassusColumns::Response::projection);
    DelassusColumns &columns = impulse_metric ? delassus : *projection_columns;
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
        const Vector &response = last_solve_distributed && dim > 1 && (impulse_metric || many)
                                   ? project_distributed(integrator, H, local, result)
                                   : project_dense(integrator, H, columns, local, w.size() / d, impulse_metric, result);
        result.energy_change += integrator.correct_displacement(response);

        // The gaps after the pass, for every candidate.
        H.Tvmult(gap_increment, response);
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

  const Vector &FrictionalContactStep::project_distributed(TimeIntegrator &integrator,
                                                          const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                          std::vector<ActiveContact> &local,
                                                          PositionProjectionResult &result)
  {
    const unsigned int d = dim;
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
    ProbedSolveCounts counts;
    int exponent = 0;
    // The step's product stays the next step's warm start (the projection changes q, not the
    // step's impulses): without it, every step after a projection takes one more exact product.
    probed->set_aside_last_product();
    result.solver = probed->solve(integrator, H, u_free, local, 1.0, lcp, impulses, velocities, partition,
                                  exponent, options, counts);
    // The probed solver's response holds 𝒯Hλ of the accepted iterate.
    reinit_like(correction, integrator.displacement(), communicator);
    correction = probed->response();
    probed->restore_last_product();
    return correction;
  }

  const Vector &FrictionalContactStep::project_dense(TimeIntegrator &integrator,
                                                    const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                    DelassusColumns &columns, const std::vector<ActiveContact> &local,
                                                    const unsigned long long n_candidates,
                                                    const bool impulse_metric, PositionProjectionResult &result)
  {
    const unsigned int d = dim;
    std::vector<ActiveContact> projected;
    all_gather_sorted(local, projected, communicator);
    const unsigned int n = projected.size();
    std::vector<unsigned long long> projected_points(n);
    for (unsigned int a = 0; a < n; ++a)
      projected_points[a] = projected[a].point;
    columns.ensure(integrator, H, projected_points, n_candidates,
                   operator_moves || !impulse_metric);

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
    if (probed)
      probed->forget_last_product(); // its vectors are no longer the last accepted Hp and 𝒯Hp
    return correction;
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
