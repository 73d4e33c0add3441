// One time step of the Simulator: the loop's body (do_time_step), the step's phases in their order
// with the retry policy's verdicts between them (advance), and the phases themselves: the
// integrator's parts, the contact geometry, the contact problem, the end-of-step gaps and
// projection, the reports.
#include <deal.II/base/utilities.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/simulator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

namespace percussion
{
  using namespace dealii;

  namespace
  {
    // The phases are timed with steady_clock, which costs no system call (deal.II's Timer also
    // reads the CPU time, a getrusage() call each time).
    using Clock = std::chrono::steady_clock;
    double seconds_since(const Clock::time_point start)
    {
      return std::chrono::duration<double>(Clock::now() - start).count();
    }
  } // namespace

  template <int dim>
  void Simulator<dim>::do_time_step(const unsigned int k)
  {
    const RunTimings before = run_timings;
    const auto start = Clock::now();
    advance(0);
    const bool last = adaptive ? adaptive_run_finished() : k + 1 == parameters.time.n_steps();
    record(step_view(Postprocess::StepView::Occasion::step, last, seconds_since(start), &before));
    const bool checkpointed = checkpointer->write_if_due(k + 1);
    stop_if_interrupted(k + 1, last, checkpointed);
  }

  template <int dim>
  void Simulator<dim>::advance(const unsigned int level)
  {
    // One step of the scheme, with the frictional contact problem between its parts
    // (doc/architecture.md, "One time step with contact").
    if (retry_policy.keeps_state_before_step())
      step_snapshots.save(level, *time_integrator, saved_values(), contact_step.get());
    try
      {
        if (geometry)
          update_contact_geometry();
        if (level == 0 && adaptive)
          choose_step_size();
        compute_free_velocity();
        if (geometry && !solve_contact_problem_or_halve(level))
          return;
        end_step();
      }
    catch (const EnergyCreated &)
      {
        if (retry_policy.after_energy_created(level) == StepRetryPolicy::Verdict::stop)
          throw;
        // The step is accepted and audited when the guard finds the energy it created: the state
        // before it is put back, and the step is made again in halves. (A failure of the halves
        // that the policy does not take up goes on from this handler to the caller.)
        const double h = time_integrator->time_step();
        const unsigned int step = time_integrator->step_number();
        const double t = time_integrator->time();
        restore_state(level);
        std::ostringstream h_text;
        h_text << "h = " << h << " -> two steps of h/2 (energy created)";
        events.add(step, t, "retry_half_steps", 0, 0.0, h_text.str());
        advance_in_halves(level);
      }
  }

  template <int dim>
  void Simulator<dim>::advance_in_halves(const unsigned int level)
  {
    const double h = time_integrator->time_step();
    time_integrator->set_time_step(h / 2);
    advance(level + 1);
    advance(level + 1);
    time_integrator->set_time_step(h);
  }

  template <int dim>
  bool Simulator<dim>::solve_contact_problem_or_halve(const unsigned int level)
  {
    solve_contact_problem();
    const auto unsolved = [this]() {
      return contact_result.solved && contact_result.solver.status != ContactSolvers::SolverStatus::converged;
    };
    if (retry_policy.after_contact_problem(unsolved(), false, level) == StepRetryPolicy::Verdict::accept)
      return true;
    // The scheme has not finished the step (its state is still that of t_k), and the attempt's
    // per-contact dissipation is taken back.
    const unsigned int step = time_integrator->step_number() + 1;
    const double t = time_integrator->time() + time_integrator->time_step();
    std::ostringstream h_text;
    h_text << "h = " << time_integrator->time_step();
    events.add(step, t, "retry_nsgs", contact_result.n_active, contact_result.solver.error,
               h_text.str() + "; " + ContactSolvers::to_string(contact_result.solver.status));
    contact_step->discard_last_solve();
    {
      SolverOptionsOverride retry_options(contact_step->solver_options());
      retry_options.options.solver = ContactSolvers::SolverKind::nsgs;
      retry_options.options.max_iterations = 10 * retry_options.configured.max_iterations;
      // (The retry's free-velocity solve is not counted in the phase's timing.)
      time_integrator->compute_free_velocity();
      solve_contact_problem();
    }
    if (retry_policy.after_contact_problem(unsolved(), true, level) != StepRetryPolicy::Verdict::halve)
      return true;
    events.add(step, t, "retry_half_steps", contact_result.n_active, contact_result.solver.error,
               h_text.str() + " -> two steps of h/2");
    contact_step->discard_last_solve();
    advance_in_halves(level);
    return false;
  }

  template <int dim>
  void Simulator<dim>::compute_free_velocity()
  {
    const auto start = Clock::now();
    time_integrator->compute_free_velocity();
    run_timings.free_velocity += seconds_since(start);
  }

  template <int dim>
  void Simulator<dim>::end_step()
  {
    auto &integrator = *time_integrator;
    integrator.finish_step();
    if (geometry)
      check_contact_positions();
    const auto &c = contact_result;
    audit.add_step(integrator.last_step_energy(), {c.work_normal, c.work_tangential, c.obstacle_work});
    if (geometry)
      contact_reporting->report_step(contact_result);
    energy_guard.check(*time_integrator);
    if (adaptive)
      note_step_for_adaptivity();
  }

  template <int dim>
  void Simulator<dim>::update_contact_geometry()
  {
    // H(q_k), gaps and frames, and u_k = Hᵀv_k + w; the geometry imports ghost DoFs itself if it
    // needs them and keeps u_k: nothing is allocated here per step. (At step 0 run() has computed
    // the geometry of q_0 already.)
    const auto start = Clock::now();
    const auto &integrator = *time_integrator;
    displacement_increment = integrator.displacement(); // q_k, for the end-of-step gaps
    if (integrator.step_number() > 0)
      geometry->update(integrator.displacement(), integrator.time());
    contact_points.clear();
    const auto n_dofs = bodies->get_dof_handler().n_dofs();
    for (const auto &point : geometry->owned_points())
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
    run_timings.contact_geometry += seconds_since(start);
  }

  template <int dim>
  void Simulator<dim>::solve_contact_problem()
  {
    const auto start = Clock::now();
    auto &integrator = *time_integrator;
    contact_result = ContactStep::ContactStepResult();
    if (geometry->n_global_points() > 0)
      contact_result = contact_step->solve(integrator, geometry->contact_operator(), geometry->obstacle_velocity_offset(),
                                           geometry->operator_changed(), contact_points,
                                           geometry->local_velocity(integrator.velocity()),
                                           std::max(audit.flow_scale(), std::abs(audit.total_energy())));
    else
      contact_step->forget_impulses();
    run_timings.contact_step += seconds_since(start);
    // (Without candidates on any rank the default result, empty per-point fields, is the step's.)
    if (contact_result.solved)
      run_timings.contact_solver += contact_result.solver.seconds;
  }

  template <int dim>
  void Simulator<dim>::check_contact_positions()
  {
    // End-of-step gaps and, where a contact penetrates beyond the tolerance, the position
    // projection (velocity-level schemes hold velocities, not gaps).
    const auto start = Clock::now();
    auto &integrator = *time_integrator;
    displacement_increment.sadd(-1.0, 1.0, integrator.displacement());
    projection_result = contact_step->project_positions(integrator, geometry->contact_operator(),
                                                        geometry->obstacle_velocity_offset(), contact_points,
                                                        displacement_increment, projects_positions,
                                                        penetration_tolerance, allowed_projection_energy());
    run_timings.projection += seconds_since(start);
    contact_reporting->report_positions(projection_result, geometry->n_global_points() > 0 ?
                                                             projection_result.min_gap :
                                                             parameters.contact.search_distance);
  }

  template <int dim>
  void Simulator<dim>::restore_state(const unsigned int level)
  {
    step_snapshots.restore(level, *time_integrator, saved_values(), contact_step.get());
    // (The frames the next step starts from, as after a checkpoint.)
    if (system.frames)
      frames->frames_from_values();
    energy_guard.take_back(time_integrator->time());
  }

  template <int dim>
  double Simulator<dim>::allowed_projection_energy() const
  {
    // The scale of the energies so far and of the step's new state.
    const auto &e = time_integrator->last_step_energy();
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
  double Simulator<dim>::smallest_candidate_gap() const
  {
    if (geometry->n_global_points() == 0)
      return parameters.contact.search_distance;
    double smallest = std::numeric_limits<double>::infinity();
    for (const auto &point : geometry->owned_points())
      smallest = std::min(smallest, point.gap);
    return Utilities::MPI::min(smallest, communicator);
  }

  // The step's members of Simulator, for the dimensions Simulator is instantiated for in
  // simulator.cc.
#define PERCUSSION_INSTANTIATE(dim) \
  template void Simulator<dim>::do_time_step(unsigned int); \
  template void Simulator<dim>::advance(unsigned int); \
  template void Simulator<dim>::advance_in_halves(unsigned int); \
  template bool Simulator<dim>::solve_contact_problem_or_halve(unsigned int); \
  template void Simulator<dim>::compute_free_velocity(); \
  template void Simulator<dim>::end_step(); \
  template void Simulator<dim>::update_contact_geometry(); \
  template void Simulator<dim>::solve_contact_problem(); \
  template void Simulator<dim>::check_contact_positions(); \
  template void Simulator<dim>::restore_state(unsigned int); \
  template double Simulator<dim>::allowed_projection_energy() const; \
  template double Simulator<dim>::smallest_candidate_gap() const;
  PERCUSSION_INSTANTIATE(1)
  PERCUSSION_INSTANTIATE(2)
  PERCUSSION_INSTANTIATE(3)
#undef PERCUSSION_INSTANTIATE
} // namespace percussion
