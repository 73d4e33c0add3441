#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/distributed_sweeps.h>
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/contact_solvers/scaled_solve.h>
#include <percussion/contact_solvers/solve.h>
#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_access.h>
#include <percussion/core/petsc_check.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace percussion::ContactStep
{
  using ContactSolvers::gather_own;
  using ContactSolvers::gather_whole;
  using ContactSolvers::plain_all_gather;
  using dealii::PETScWrappers::MPI::Vector;
  using PetscAccess::reinit_like;

  FrictionalContactStep::FrictionalContactStep(const ContactDynamicsParameters &parameters,
                                               const ContactLaws::ContactLaw law, const unsigned int dim,
                                               const double gap_prediction_factor, MPI_Comm communicator)
    : parameters(parameters)
    , local_law(ContactLaws::make_local_law(law))
    , dim(dim)
    , rule{gap_prediction_factor, local_law->takes_every_candidate()}
    , communicator(communicator)
    , dense(dim, parameters.delassus_column_limit, communicator, DelassusColumns::Response::impulse,
            parameters.body_compliance)
    , projector(parameters, dim, communicator)
    , contact_history(communicator)
  {
    options.solver = parameters.solver;
    options.tolerance = parameters.tolerance;
    options.max_iterations = parameters.max_iterations;
  }

  const std::vector<ActiveContact> &FrictionalContactStep::select_own(const std::vector<OwnedContactPoint> &points,
                                                                      const Vector &u_k, const Vector &w,
                                                                      const double time_step,
                                                                      std::vector<bool> &in_problem)
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
        contact_history.copy_warm_start(a.key, a.warm_start);
        local.push_back(a);
      }
    return local;
  }

  void FrictionalContactStep::pose_law(const std::vector<ActiveContact> &held, const double theta,
                                       const double time_step)
  {
    const unsigned int n = held.size();
    // In 1D the contact problem is frictionless and normal only; it is posed exactly as a 2D
    // problem with μ = 0 and a decoupled tangential row (the dense operator's W_TT = W_NN), and
    // q_T = 0, which forces r_T = 0.
    const unsigned int ld = local_dimension();
    ContactSolvers::LocalProblem &problem = solution.problem;
    problem = ContactSolvers::LocalProblem();
    problem.dimension = ld;
    problem.number_of_contacts = n;
    problem.q.assign(ld * n, 0.0);
    problem.mu.resize(n);
    for (unsigned int a = 0; a < n; ++a)
      problem.mu[a] = dim == 1 ? 0.0 : held[a].mu;
    // The laws differ only here and in the factor of W (doc/contact.md).
    const ContactLaws::LawStep step{dim, theta, time_step, contact_history.lasting_impulse()};
    for (unsigned int a = 0; a < n; ++a)
      local_law->pose(held[a], step, &problem.q[ld * a]);
    solution.reaction.assign(ld * n, 0.0);
    for (unsigned int a = 0; a < n; ++a)
      std::copy_n(held[a].warm_start.begin(), ld, solution.reaction.begin() + ld * a);
  }

  ContactStepResult FrictionalContactStep::solve(SchemeInterface &scheme,
                                                 const dealii::PETScWrappers::MPI::SparseMatrix &H, const Vector &w,
                                                 const bool operator_changed,
                                                 const std::vector<OwnedContactPoint> &points, const Vector &u_k,
                                                 const double energy_scale)
  {
    const unsigned int d = dim;
    // θ of the Frémond law, and the weight of u_{k+θ} in the contact work of the scheme's energy
    // balance (θ for Moreau–Jean, ½ for the generalized-α family).
    const double theta = scheme.contact_work_weight(), h = scheme.time_step();
    ContactStepResult result = start_step(scheme, H, w, operator_changed, points);

    // Phase 1: which contacts enter the problem, each rank its own.
    const std::vector<ActiveContact> &own = select_own(points, u_k, w, h, result.in_problem);
    const unsigned long long n_total = count_selected(points, own, theta, h, result);
    if (n_total == 0)
      {
        contact_history.forget_impulses(); // no contact carries an impulse into the next step
        result.dissipated_energy = dissipated_energy(points);
        return result;
      }

    // Phases 2–4: the operator, the scheme's law, the contact solve.
    const OperatorContext context{scheme, H, u_free, u_k.size() / d, operator_moves()};
    DelassusOperator *chosen = &choose_operator(context, own, n_total);
    const std::vector<ActiveContact> *held_contacts = chosen->is_distributed() ? &own : &scratch.gathered;
    pose_law(*held_contacts, theta, h);
    OperatorSolveCounts counts;
    result.solver =
      chosen->solve(context, *held_contacts, local_law->operator_factor(theta), solution, options, counts);
    if (result.solver.status != ContactSolvers::SolverStatus::converged && chosen->is_distributed() &&
        parameters.delassus_operator == DelassusOperatorChoice::automatic &&
        n_total * d <= parameters.delassus_column_limit)
      {
        // The automatic choice's probed operator did not meet the law where the exact columns are
        // affordable: the same problem with the dense W (bodies in contact with each other: the
        // dumped problems of such steps solve in a few Newton iterations with the exact W).
        all_gather_sorted(own, scratch.gathered, communicator);
        last_solve_distributed = false;
        probed->forget_warm_start();
        chosen = &dense;
        held_contacts = &scratch.gathered;
        pose_law(*held_contacts, theta, h);
        result.probed_error = result.solver.error;
        result.solver =
          dense.solve(context, *held_contacts, local_law->operator_factor(theta), solution, options, counts);
        result.dense_fallback = true;
      }
    DelassusOperator &delassus_operator = *chosen;
    const std::vector<ActiveContact> &held = *held_contacts;
    result.solved = true;
    result.probed_operator = delassus_operator.is_distributed();
    result.exact_products = counts.exact_products;
    result.probing_solves = counts.probing_solves;
    result.column_solves = counts.column_solves;

    // The impulse, and phase 5: works and states.
    const auto [first, last] = own_range(held);
    const std::vector<double> impulse = apply_impulse(context, delassus_operator, held, first, last);
    works_and_states(delassus_operator, held, first, last, impulse, theta, velocity_noise_of(held, first, last),
                     1e4 * std::numeric_limits<double>::epsilon() * energy_scale, result);
    result.held_per_rank =
      delassus_operator.is_distributed()
        ? dealii::Utilities::MPI::max(static_cast<unsigned int>(solution.partition.n_local()), communicator)
        : static_cast<unsigned int>(held.size());
    result.dissipated_energy = dissipated_energy(points);
    return result;
  }

  ContactStepResult FrictionalContactStep::start_step(SchemeInterface &scheme,
                                                      const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                      const Vector &w, const bool operator_changed,
                                                      const std::vector<OwnedContactPoint> &points)
  {
    const unsigned int d = dim;
    ContactStepResult result;
    result.state.assign(points.size(), ContactState::open);
    result.impulse.assign(d * points.size(), 0.0);
    result.velocity.assign(d * points.size(), 0.0);
    contact_history.start_step(points, operator_changed);

    // u_free = Hᵀ v_free + w (column partition of H: reallocated only when that changes).
    reinit_like(u_free, w, communicator);
    H.Tvmult(u_free, scheme.new_velocity());
    u_free += w;
    // A state that has blown up reaches the contact problem first: it is a numerical failure of
    // the step, not bad input of the contact solver.
    if (const double largest = u_free.linfty_norm(); !std::isfinite(largest))
      throw SolverError(
        "The free velocity at the contact points is not finite in the step from t = " + std::to_string(scheme.time()) +
        " (step " + std::to_string(scheme.step_number() + 1) + "): the state has blown up.");

    // The threshold of a lasting contact: the previous step's largest normal impulse, all ranks.
    contact_history.take_lasting_threshold();
    return result;
  }

  unsigned long long FrictionalContactStep::count_selected(const std::vector<OwnedContactPoint> &points,
                                                           const std::vector<ActiveContact> &own, const double theta,
                                                           const double time_step, ContactStepResult &result)
  {
    // The contacts in lasting contact at this step (the law's lasting part whole), for the
    // adaptive projection metric.
    contact_history.note_lasting_contacts(own, {dim, theta, time_step, contact_history.lasting_impulse()});
    unsigned int left_out = 0;
    for (unsigned int i = 0; i < points.size(); ++i)
      left_out += (points[i].gap < 0 && !result.in_problem[i]) ? 1 : 0;
    result.n_penetrated_left_out = dealii::Utilities::MPI::sum(left_out, communicator);
    const unsigned long long n_total =
      dealii::Utilities::MPI::sum(static_cast<unsigned long long>(own.size()), communicator);
    result.n_active = static_cast<unsigned int>(n_total);
    return n_total;
  }

  DelassusOperator &FrictionalContactStep::choose_operator(const OperatorContext &context,
                                                           const std::vector<ActiveContact> &own,
                                                           const unsigned long long n_total)
  {
    // The probed operator where the count decides it (many contacts: the problem stays
    // distributed), else the problem is small enough to gather on every rank, and the remaining
    // rule (uses_probed_operator()) looks at the whole active set.
    bool take_probed = choose_probed_by_count(context.scheme, n_total);
    if (!take_probed)
      {
        all_gather_sorted(own, scratch.gathered, communicator);
        scratch.active_points.clear();
        for (const ActiveContact &c : scratch.gathered)
          scratch.active_points.push_back(c.point);
        take_probed = uses_probed_operator(context, scratch.active_points);
      }
    last_solve_distributed = take_probed;
    last_active_count = n_total;
    if (take_probed)
      return *probed;
    if (probed)
      probed->forget_warm_start(); // the step's impulse vectors will be the dense operator's
    return dense;
  }

  std::pair<unsigned int, unsigned int> FrictionalContactStep::own_range(const std::vector<ActiveContact> &held) const
  {
    // This rank's contacts among the held ones: sorted by point, each rank owning a contiguous
    // range of points in rank order.
    const int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
    const auto owned_by_me = [rank](const ActiveContact &c) { return c.owner_rank == rank; };
    const unsigned int first = std::find_if(held.begin(), held.end(), owned_by_me) - held.begin();
    const unsigned int last = std::find_if_not(held.begin() + first, held.end(), owned_by_me) - held.begin();
    Assert(std::none_of(held.begin() + last, held.end(), owned_by_me), dealii::ExcInternalError());
    return {first, last};
  }

  std::vector<double> FrictionalContactStep::apply_impulse(const OperatorContext &context,
                                                           DelassusOperator &delassus_operator,
                                                           const std::vector<ActiveContact> &held,
                                                           const unsigned int first, const unsigned int last)
  {
    const unsigned int d = dim, ld = local_dimension(), n_held = held.size();
    // The impulses in the body's dimension (drops the 1D embedding's zero tangential component).
    std::vector<double> impulse(d * n_held);
    for (unsigned int a = 0; a < n_held; ++a)
      for (unsigned int k = 0; k < d; ++k)
        impulse[d * a + k] = solution.reaction[ld * a + k];
    contact_history.keep_impulses(held, first, last, solution.reaction, ld);
    const Vector *generalized_impulse = nullptr, *response = nullptr;
    delassus_operator.impulse_vectors(context, held, impulse, generalized_impulse, response);
    context.scheme.apply_impulse(*generalized_impulse, *response);
    return impulse;
  }

  double FrictionalContactStep::velocity_noise_of(const std::vector<ActiveContact> &active, const unsigned int first,
                                                  const unsigned int last) const
  {
    // What the law's velocities are known to: the solver stops when the natural-map residual of
    // the scaled problem is below tolerance × max(‖q‖, ‖r'‖, ‖u‖) (the FCLIB measure, r' the scaled
    // impulses), so a velocity of the law is exact to that, and the step's velocities set a floor;
    // ten times this is the noise. (Norms and maxima over the ranks' own contacts.)
    const unsigned int d = dim, ld = local_dimension();
    const std::vector<double> &q = solution.problem.q, &r = solution.reaction, &u = solution.velocity;
    const int exponent = solution.exponent;
    double squares[3] = {0, 0, 0}, largest_velocity = 0;
    for (unsigned int i = ld * first; i < ld * last; ++i)
      {
        squares[0] += q[i] * q[i];
        squares[1] += std::ldexp(r[i], -exponent) * std::ldexp(r[i], -exponent);
        squares[2] += u[i] * u[i];
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

  void FrictionalContactStep::set_dof_positions(const dealii::types::global_dof_index first_owned_dof,
                                                std::vector<std::array<double, 3>> positions, const double node_spacing,
                                                const bool has_body_pair)
  {
    if (dim == 1 || parameters.delassus_operator == DelassusOperatorChoice::dense)
      return;
    if (!probed)
      probed = std::make_unique<ProbedDelassusOperator>(dim, parameters.probed_operator_max_iterations, communicator);
    probed->set_dof_positions(first_owned_dof, std::move(positions), parameters.probing_radius_for(has_body_pair),
                              node_spacing);
    body_pairs = has_body_pair;
  }

  bool FrictionalContactStep::choose_probed_by_count(const SchemeInterface &scheme,
                                                     const unsigned long long n_active) const
  {
    if (!probed)
      return false;
    if (parameters.delassus_operator == DelassusOperatorChoice::probed)
      return true;
    if (parameters.delassus_operator != DelassusOperatorChoice::automatic)
      return false;
    if (compliance_keeps_w_sparse(scheme))
      return false;
    if (dim * n_active > parameters.probed_operator_threshold)
      return true;
    // H moves (body pairs): the dense path computes all dim × active columns at every step,
    // unless it keeps the bodies' compliances (then W costs no solve, only the probed threshold
    // above applies). Measured (3D patch tests of regression.mortar_contact, 10 steps, the probing included): 108
    // columns (Q1, 36 slave nodes) 17.5 ms dense / 12.3 ms probed per contact step, 363 columns (Q2)
    // 1.0 s / 0.22 s; the brick_stack example's 3–27 columns 26 ms dense / 84 ms probed.
    return operator_moves() && !dense.columns().uses_body_compliance(scheme) &&
           dim * n_active > parameters.moving_operator_threshold;
  }

  bool FrictionalContactStep::compliance_keeps_w_sparse(const SchemeInterface &scheme) const
  {
    // H moves and the bodies' compliances give W without a solve, block-sparse by body while no
    // body's support is large: the dense operator's problem then grows with the contacts like the
    // bodies they touch, whatever their number (posed sparse, DenseDelassusOperator).
    const DelassusColumns &columns = dense.columns();
    return operator_moves() && columns.uses_body_compliance(scheme) && !columns.body_compliance_overflowed() &&
           columns.largest_body_support() <= parameters.probed_operator_threshold;
  }

  bool FrictionalContactStep::uses_probed_operator(const OperatorContext &context,
                                                   const std::vector<unsigned long long> &active_points) const
  {
    if (!probed || parameters.delassus_operator != DelassusOperatorChoice::automatic)
      return choose_probed_by_count(context.scheme, active_points.size());
    if (compliance_keeps_w_sparse(context.scheme))
      return false;
    if (choose_probed_by_count(context.scheme, active_points.size()))
      return true;
    // Fewer contacts, but G is probed already (the body touched with many contacts before): keep
    // it where the dense path would compute more columns than the threshold's worth (measured at
    // 16 × 16 × 8 cells as the box lifts off with 52 contacts left: the columns for all 289
    // candidates took 2.7 s, a probed step 20 ms); with few new columns the dense path is the
    // cheaper one (a brick stack with 1–9 contacts between bodies: 26 ms per step dense, 84 ms
    // probed, whose W_s = HᵀGH is rebuilt over all candidates whenever H moves).
    if (probed->approximation().n_probings() == 0)
      return false;
    // An active set shrinking after a probed step on a fixed H: the body lifts off, the set
    // changes from step to step and is gone a few steps later. Dense columns, an investment that
    // pays where they serve many steps, would serve those few only (measured on the 32 × 32 × 16
    // landing: 84 contacts left, 252 columns in 1.59 s, 17 free-velocity solves, where a probed
    // step costs 2 exact products); once the set stops shrinking (a body coming to rest), the
    // dense path's one-off columns serve every later step. Columns already kept cost nothing:
    // then the dense path is the cheaper one. (Where H moves, the dense columns are computed at
    // every step anyway and choose_probed_by_count() weighs them per step.)
    const unsigned long long columns = dense.columns().columns_to_compute(context.scheme, context.H, active_points,
                                                                          context.n_candidates, context.operator_moves);
    if (!context.operator_moves && last_solve_distributed && active_points.size() < last_active_count && columns > 0)
      return true;
    return columns > parameters.probed_operator_threshold;
  }

  void FrictionalContactStep::works_and_states(const DelassusOperator &delassus_operator,
                                               const std::vector<ActiveContact> &active, const unsigned int first,
                                               const unsigned int last, const std::vector<double> &impulse,
                                               const double theta, const double velocity_noise,
                                               const double energy_noise, ContactStepResult &result)
  {
    // The law's velocities: u_{k+1} = u_free + W p, u_{k+θ} = (1−θ)u_k + θu_{k+1}, and the works
    // of (59): normal and tangential parts, and the obstacles' part −wᵀp. Each rank its own
    // contacts; the totals are summed over the ranks at the end.
    const unsigned int d = dim;
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
            delassus_operator.add_product(active, a, first, i, impulse, u_next[i]);
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
        contact_history.add_work(active[a].key, normal + tangential);

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

    sum_over_ranks(result);
  }

  void FrictionalContactStep::sum_over_ranks(ContactStepResult &result) const
  {
    if (dealii::Utilities::MPI::n_mpi_processes(communicator) == 1)
      return;
    double sums[7] = {result.work_normal,
                      result.work_tangential,
                      result.obstacle_work,
                      result.normal_impulse,
                      static_cast<double>(result.n_stick),
                      static_cast<double>(result.n_slip),
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

  PositionProjectionResult
  FrictionalContactStep::project_positions(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                           const Vector &w, const std::vector<OwnedContactPoint> &points,
                                           const Vector &displacement_increment, const bool project,
                                           const double tolerance, const double allowed_energy)
  {
    // A position-level law keeps the gaps itself: its positions are only checked.
    const ProjectionContext step{dense,  probed.get(), last_solve_distributed,        operator_moves(),
                                 u_free, options,      contact_history.lasting_keys()};
    return projector.project(scheme, H, w, points, displacement_increment, project && is_velocity_level(), tolerance,
                             allowed_energy, step);
  }

  FrictionalContactStep::History FrictionalContactStep::history(const SchemeInterface &scheme) const
  {
    History history = contact_history.record();
    history.support_batches = dense.columns().support_batches(scheme);
    return history;
  }

  void FrictionalContactStep::whole_last_problem(ContactSolvers::LocalProblem &whole, std::vector<double> &r,
                                                 std::vector<double> &u) const
  {
    if (!last_solve_distributed)
      {
        whole = solution.problem;
        r = solution.reaction;
        u = solution.velocity;
        return;
      }
    const int ld = static_cast<int>(local_dimension());
    whole = gather_whole(solution.problem, solution.partition, communicator);
    r = gather_own(solution.reaction, ld, solution.partition, communicator);
    u = gather_own(solution.velocity, ld, solution.partition, communicator);
  }

} // namespace percussion::ContactStep
