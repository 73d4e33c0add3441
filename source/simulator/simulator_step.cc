// One time step of the Simulator: the loop's body (do_time_step), and the step's phases in their
// order with the retry policy's verdicts between them (advance). The phases themselves belong to
// the integrator, ContactStepping, the audit, ContactReporting and EnergyGuard: this file only
// orders them, so that one step reads in one place.
#include <deal.II/base/utilities.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/wall_clock.h>
#include <percussion/simulator/simulator.h>

#include <chrono>
#include <limits>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  void Simulator<dim>::do_time_step(const unsigned int k)
  {
    const RunTimings before = run_timings;
    const auto start = PhaseClock::now();
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
      step_snapshots.save(level, *time_integrator, saved_values(), contact ? &contact->step() : nullptr);
    try
      {
        if (contact)
          contact->update_geometry(*time_integrator);
        if (level == 0 && adaptive)
          {
            // The finest level where an open candidate closes within two steps of the present size.
            adaptive->limit_to_closing(contact ? contact->closing_time(*time_integrator)
                                               : std::numeric_limits<double>::infinity());
            time_integrator->set_time_step(adaptive->step_size());
          }
        compute_free_velocity();
        if (contact && !solve_contact_problem_or_halve(level))
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
        energy_guard.take_back(step, t, h, time_integrator->time());
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
    contact->solve(*time_integrator, audit);
    if (retry_policy.after_contact_problem(contact->unsolved(), false, level) == StepRetryPolicy::Verdict::accept)
      return true;
    contact_reporting->report_retry(contact->result(), false);
    contact->solve_again_with_nsgs(*time_integrator, audit);
    if (retry_policy.after_contact_problem(contact->unsolved(), true, level) != StepRetryPolicy::Verdict::halve)
      return true;
    contact_reporting->report_retry(contact->result(), true);
    contact->discard_last_solve();
    advance_in_halves(level);
    return false;
  }

  template <int dim>
  void Simulator<dim>::compute_free_velocity()
  {
    const auto start = PhaseClock::now();
    time_integrator->compute_free_velocity();
    run_timings.free_velocity += seconds_since(start);
  }

  template <int dim>
  void Simulator<dim>::end_step()
  {
    auto &integrator = *time_integrator;
    integrator.finish_step();
    if (contact)
      {
        contact->check_positions(integrator, audit);
        contact_reporting->report_positions(contact->projection(), contact->end_of_step_min_gap());
      }
    const auto &c = last_contact_result();
    audit.add_step(integrator.last_step_energy(), {c.work_normal, c.work_tangential, c.obstacle_work});
    if (contact)
      contact_reporting->report_step(c);
    energy_guard.check(integrator);
    // Adaptive steps: whether a contact opened or closed in the step, and the error indicator
    // (the step's numerical dissipation over the energy scale), to the policy.
    if (adaptive)
      {
        ContactObservation observed = contact ? contact->observe(integrator.time_step()) : ContactObservation();
        observed.dissipated_fraction = integrator.last_step_energy().numerical_dissipation / audit.guard_scale();
        adaptive->step_done(integrator.time_step(), integrator.elapsed_nominal_steps(), observed);
      }
  }

  template <int dim>
  bool Simulator<dim>::adaptive_run_finished() const
  {
    return time_integrator->elapsed_nominal_steps() >= static_cast<double>(parameters.time.n_steps());
  }

  template <int dim>
  void Simulator<dim>::restore_state(const unsigned int level)
  {
    step_snapshots.restore(level, *time_integrator, saved_values(), contact ? &contact->step() : nullptr);
    // (The frames the next step starts from, as after a checkpoint.)
    if (system.frames)
      frames->frames_from_values();
  }

  // The step's members of Simulator, for the dimensions Simulator is instantiated for in
  // simulator.cc.
#define PERCUSSION_INSTANTIATE(dim)                                                                                    \
  template void Simulator<dim>::do_time_step(unsigned int);                                                            \
  template void Simulator<dim>::advance(unsigned int);                                                                 \
  template void Simulator<dim>::advance_in_halves(unsigned int);                                                       \
  template bool Simulator<dim>::solve_contact_problem_or_halve(unsigned int);                                          \
  template void Simulator<dim>::compute_free_velocity();                                                               \
  template void Simulator<dim>::end_step();                                                                            \
  template void Simulator<dim>::restore_state(unsigned int);                                                           \
  template bool Simulator<dim>::adaptive_run_finished() const;
  PERCUSSION_INSTANTIATE(1)
  PERCUSSION_INSTANTIATE(2)
  PERCUSSION_INSTANTIATE(3)
#undef PERCUSSION_INSTANTIATE
} // namespace percussion
