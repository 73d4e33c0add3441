// The contact part of a run's steps: what the simulator does with the contact geometry and the
// frictional contact step in each step, in the order the step needs it, apart from the run loop
// that orders the step's phases and the reports that say what happened.
#include <deal.II/base/mpi.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/wall_clock.h>
#include <percussion/simulator/contact_stepping.h>
#include <percussion/time_integration/scheme.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  ContactStepping<dim>::ContactStepping(const RunParameters &parameters, const Body::ElasticBody<dim> &bodies,
                                        const ContactLaws::ContactLaw law, const double smallest_cell,
                                        RunTimings &timings, MPI_Comm communicator)
    : parameters(parameters)
    , bodies(bodies)
    , timings(timings)
    , communicator(communicator)
    , contact_geometry(std::make_unique<Geometry>(bodies.get_dof_handler(), parameters.contact))
    , contact_step(std::make_unique<ContactStep::FrictionalContactStep>(parameters.contact_solver, law, dim,
                                                                        parameters.contact.gap_prediction_factor,
                                                                        communicator))
    , tolerance(parameters.contact_solver.penetration_tolerance * smallest_cell)
  {
    // 'auto': the Moreau–Jean schemes (Schatzman–Paoli holds the gaps itself; the
    // generalized-α family splits positions into smooth and impulsive parts of its own).
    const bool moreau_jean = parameters.time.scheme == TimeIntegration::Scheme::moreau_jean_fremond ||
                             parameters.time.scheme == TimeIntegration::Scheme::moreau_jean_standard;
    const auto projection = parameters.contact_solver.position_projection;
    projects =
      contact_step->is_velocity_level() && (projection == ContactStep::PositionProjection::on ||
                                            (projection == ContactStep::PositionProjection::automatic && moreau_jean));
    contact_step->set_closed_gap_tolerance(1e-9 * smallest_cell);
    if (dim > 1 && parameters.contact_solver.delassus_operator != ContactStep::DelassusOperatorChoice::dense)
      {
        // The probed Delassus operator colours the contact DoFs by their reference positions
        // and measures its radius in node spacings.
        const IndexSet &owned = bodies.locally_owned_dofs();
        const bool has_body_pair = std::any_of(parameters.contact.pairs.begin(), parameters.contact.pairs.end(),
                                               [](const auto &pair) { return pair.has_master_surface(); });
        contact_step->set_dof_positions(owned.n_elements() > 0 ? *owned.begin() : 0, bodies.owned_dof_positions(),
                                        smallest_cell / std::sqrt(static_cast<double>(dim)) / parameters.mesh.fe_degree,
                                        has_body_pair);
      }
  }

  template <int dim>
  void ContactStepping<dim>::start(const PETScWrappers::MPI::Vector &q0)
  {
    // Checked before anything is written or factorised: bodies that start inside an obstacle or
    // each other are bad input.
    contact_geometry->update(q0, parameters.time.start_time);
    check_initial_overlap();
    displacement_increment.reinit(bodies.locally_owned_dofs(), communicator);
  }

  template <int dim>
  void ContactStepping<dim>::update_geometry(const TimeIntegration::TimeIntegrator &integrator)
  {
    // H(q_k), gaps and frames, and u_k = Hᵀv_k + w; the geometry imports ghost DoFs itself if it
    // needs them and keeps u_k: nothing is allocated here per step. (At step 0 start() has
    // computed the geometry of q_0 already.)
    const auto start = PhaseClock::now();
    displacement_increment = integrator.displacement(); // q_k, for the end-of-step gaps
    if (integrator.step_number() > 0)
      contact_geometry->update(integrator.displacement(), integrator.time());
    contact_points.clear();
    const auto n_dofs = bodies.get_dof_handler().n_dofs();
    for (const auto &point : contact_geometry->owned_points())
      {
        ContactStep::OwnedContactPoint p;
        p.global_index = point.global_index;
        p.key = static_cast<unsigned long long>(point.pair) * n_dofs + point.slave_dofs[0];
        p.mu = point.friction_coefficient;
        p.e = point.restitution_coefficient;
        p.gap = point.gap;
        for (unsigned int d = 0; d < dim; ++d)
          p.position[d] = point.position[d];
        contact_points.push_back(p);
      }
    timings.contact_geometry += seconds_since(start);
  }

  template <int dim>
  void ContactStepping<dim>::solve(TimeIntegration::TimeIntegrator &integrator, const Postprocess::EnergyAudit &audit)
  {
    const auto start = PhaseClock::now();
    auto &geometry = *contact_geometry;
    contact_result = ContactStep::ContactStepResult();
    if (geometry.n_global_points() > 0)
      contact_result =
        contact_step->solve(integrator, geometry.contact_operator(), geometry.obstacle_velocity_offset(),
                            geometry.operator_changed(), contact_points, geometry.local_velocity(integrator.velocity()),
                            std::max(audit.flow_scale(), std::abs(audit.total_energy())));
    else
      contact_step->forget_impulses();
    timings.contact_step += seconds_since(start);
    // (Without candidates on any rank the default result, empty per-point fields, is the step's.)
    if (contact_result.solved)
      timings.contact_solver += contact_result.solver.seconds;
  }

  template <int dim>
  bool ContactStepping<dim>::unsolved() const
  {
    return contact_result.solved && contact_result.solver.status != ContactSolvers::SolverStatus::converged;
  }

  template <int dim>
  void ContactStepping<dim>::solve_again_with_nsgs(TimeIntegration::TimeIntegrator &integrator,
                                                   const Postprocess::EnergyAudit &audit)
  {
    // The scheme has not finished the step (its state is still that of t_k). NSGS converges, if
    // slowly, where the Newton solvers stall.
    contact_step->discard_last_solve();
    SolverOptionsOverride retry_options(contact_step->solver_options());
    retry_options.options.solver = ContactSolvers::SolverKind::nsgs;
    retry_options.options.max_iterations = 10 * retry_options.configured.max_iterations;
    integrator.compute_free_velocity();
    solve(integrator, audit);
  }

  template <int dim>
  void ContactStepping<dim>::check_positions(TimeIntegration::TimeIntegrator &integrator,
                                             const Postprocess::EnergyAudit &audit)
  {
    // End-of-step gaps and, where a contact penetrates beyond the tolerance, the position
    // projection (velocity-level schemes hold velocities, not gaps).
    const auto start = PhaseClock::now();
    displacement_increment.sadd(-1.0, 1.0, integrator.displacement());
    projection_result = contact_step->project_positions(integrator, contact_geometry->contact_operator(),
                                                        contact_geometry->obstacle_velocity_offset(), contact_points,
                                                        displacement_increment, projects, tolerance,
                                                        allowed_projection_energy(integrator, audit));
    timings.projection += seconds_since(start);
  }

  template <int dim>
  double ContactStepping<dim>::end_of_step_min_gap() const
  {
    return contact_geometry->n_global_points() > 0 ? projection_result.min_gap : parameters.contact.search_distance;
  }

  template <int dim>
  double ContactStepping<dim>::allowed_projection_energy(const TimeIntegration::TimeIntegrator &integrator,
                                                         const Postprocess::EnergyAudit &audit) const
  {
    // The scale of the energies so far and of the step's new state.
    const auto &e = integrator.last_step_energy();
    const double scale =
      std::max(audit.guard_scale(), std::abs(e.kinetic_energy + e.strain_energy + e.viscoelastic_energy));
    // What the step took out before the projection (the impact's dissipation: an inelastic landing
    // loses ½ m u_N² where lifting its overshoot h(1 − θ)|u_N| costs m g h (1 − θ)|u_N|) may be
    // given back: the step as a whole still ends with no more energy than it was given.
    const auto &c = contact_result;
    const double dissipated = -audit.energy_created_by(e, {c.work_normal, c.work_tangential, c.obstacle_work});
    return parameters.contact_solver.projection_energy_tolerance * scale + std::max(0.0, dissipated);
  }

  template <int dim>
  double ContactStepping<dim>::smallest_candidate_gap() const
  {
    if (contact_geometry->n_global_points() == 0)
      return parameters.contact.search_distance;
    double smallest = std::numeric_limits<double>::infinity();
    for (const auto &point : contact_geometry->owned_points())
      smallest = std::min(smallest, point.gap);
    return Utilities::MPI::min(smallest, communicator);
  }

  template <int dim>
  double ContactStepping<dim>::closing_time(const TimeIntegration::TimeIntegrator &integrator) const
  {
    double closing = std::numeric_limits<double>::infinity();
    if (contact_geometry->n_global_points() == 0)
      return closing;
    // The shortest time in which an open candidate's gap closes at its present normal velocity
    // (u_N = ġ, normal first in u): the step is refined so that an impact starts at the finest
    // level.
    const auto &u = contact_geometry->local_velocity(integrator.velocity());
    const auto first = u.local_range().first;
    const auto &points = contact_geometry->owned_points();
    for (std::size_t i = 0; i < points.size(); ++i)
      if (const double u_n = u(first + dim * i); points[i].gap > 0 && u_n < 0)
        closing = std::min(closing, points[i].gap / -u_n);
    return Utilities::MPI::min(closing, communicator);
  }

  template <int dim>
  ContactObservation ContactStepping<dim>::observe(const double h) const
  {
    // The contacts active at the end of the step, as a count and an XOR of their keys' hashes
    // over all ranks: both are the same on any partition (a resumed run may have another one).
    ContactObservation observed;
    unsigned int hash = 0;
    double squares = 0;
    for (std::size_t i = 0; i < contact_result.state.size() && i < contact_points.size(); ++i)
      if (contact_result.state[i] != ContactStep::ContactState::open)
        {
          ++observed.n_active;
          const unsigned long long mixed = contact_points[i].key * 0x9E3779B97F4A7C15ULL;
          hash ^= static_cast<unsigned int>(mixed >> 32);
          squares += contact_result.impulse[dim * i] * contact_result.impulse[dim * i];
        }
    observed.n_active = Utilities::MPI::sum(observed.n_active, communicator);
    // (The norm of the contacts' normal forces: where they pass their load to one another.)
    observed.normal_force_norm = std::sqrt(Utilities::MPI::sum(squares, communicator)) / h;
    MPI_Allreduce(&hash, &observed.active_hash, 1, MPI_UNSIGNED, MPI_BXOR, communicator);
    // (The contact result's impulse is summed over the ranks already.)
    observed.normal_force = contact_result.normal_impulse / h;
    return observed;
  }

  template <int dim>
  void ContactStepping<dim>::check_initial_overlap() const
  {
    // The tolerance of the run's position projection: a start within it is a contact, not an overlap.
    const Contact::ContactPoint<dim> *deepest = nullptr;
    unsigned int n_overlapping = 0;
    for (const auto &point : contact_geometry->owned_points())
      if (point.gap < -tolerance)
        {
          ++n_overlapping;
          if (deepest == nullptr || point.gap < deepest->gap)
            deepest = &point;
        }
    n_overlapping = Utilities::MPI::sum(n_overlapping, communicator);
    if (n_overlapping == 0)
      return;
    // The rank of the deepest node (the lowest among equal gaps) describes it; every rank throws.
    struct
    {
      double gap;
      int rank;
    } local{deepest != nullptr ? deepest->gap : std::numeric_limits<double>::infinity(),
            static_cast<int>(Utilities::MPI::this_mpi_process(communicator))},
      global{};
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE_INT, MPI_MINLOC, communicator);
    const NodeLayout layout = bodies.node_layout(); // (collective: the body the node belongs to)
    std::string message;
    if (static_cast<int>(Utilities::MPI::this_mpi_process(communicator)) == global.rank)
      {
        const auto &pair = parameters.contact.pairs[deepest->pair];
        std::string body;
        for (std::size_t i = 0; i < layout.dofs.size(); ++i)
          if (layout.dofs[i][0] == deepest->slave_dofs[0])
            for (const unsigned int id : layout.body_materials[layout.body[i]])
              body += (body.empty() ? "" : ", ") + std::to_string(id);
        std::ostringstream text;
        text << pair.name << ": the slave surface (" << pair.slave_boundary.describe();
        if (!body.empty())
          text << ", the body of material id" << (body.find(',') == std::string::npos ? " " : "s ") << body;
        text << ") starts " << std::setprecision(3) << -deepest->gap << " m inside "
             << (pair.has_master_surface() ? "the master surface (" + pair.master_boundary.describe() + ")"
                                           : "the " + Contact::to_string(pair.type) + " obstacle")
             << " at t = " << parameters.time.start_time << ", its deepest node at (";
        for (unsigned int d = 0; d < dim; ++d)
          text << (d > 0 ? ", " : "") << std::setprecision(6) << deepest->position[d];
        text << "); " << n_overlapping << " slave node(s) of the contact pairs start deeper than the penetration "
             << "tolerance " << std::setprecision(3) << tolerance
             << " m ('Contact solver/Penetration tolerance' x the smallest cell diameter). Move the bodies apart "
             << "(the mesh, 'Initial conditions/Displacement' or the obstacle's 'Point'), or start them touching.";
        message = text.str();
      }
    throw InputError(Utilities::MPI::broadcast(communicator, message, global.rank));
  }

  template class ContactStepping<1>;
  template class ContactStepping<2>;
  template class ContactStepping<3>;
} // namespace percussion
