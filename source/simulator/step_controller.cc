#include <percussion/simulator/step_controller.h>

#include <sstream>

namespace percussion
{
  StepController::StepController(TimeIntegration::TimeIntegrator &integrator,
                                 ContactStep::FrictionalContactStep *contact_step,
                                 const ContactStep::ContactStepResult &contact_result,
                                 Postprocess::EventLog &events, const bool retry, const unsigned int max_halvings,
                                 Phases phases, const unsigned int max_energy_halvings)
    : integrator(integrator)
    , contact_step(contact_step)
    , contact_result(contact_result)
    , events(events)
    , retry(retry)
    , max_halvings(max_halvings)
    , phases(std::move(phases))
    , max_energy_halvings(max_energy_halvings)
  {}

  bool StepController::unsolved() const
  {
    return contact_result.solved && contact_result.solver.status != ContactSolvers::SolverStatus::converged;
  }

  void StepController::advance(const unsigned int halvings)
  {
    if (max_energy_halvings == 0)
      {
        attempt(halvings);
        return;
      }
    phases.save_state(halvings);
    try
      {
        attempt(halvings);
      }
    catch (const EnergyCreated &)
      {
        if (halvings >= max_energy_halvings)
          throw;
        // The step is accepted and audited when the guard finds the energy it created: the state
        // before it is put back, and the step is made again in halves (smaller steps resolve the
        // impact and its penetration better, and create less).
        const double h = integrator.time_step();
        const unsigned int step = integrator.step_number();
        const double t = integrator.time();
        phases.restore_state(halvings);
        std::ostringstream h_text;
        h_text << "h = " << h << " -> two steps of h/2 (energy created)";
        events.add(step, t, "retry_half_steps", 0, 0.0, h_text.str());
        advance_in_halves(halvings);
      }
  }

  void StepController::advance_in_halves(const unsigned int halvings)
  {
    const double h = integrator.time_step();
    integrator.set_time_step(h / 2);
    advance(halvings + 1);
    advance(halvings + 1);
    integrator.set_time_step(h);
  }

  void StepController::attempt(const unsigned int halvings)
  {
    // One step of the scheme, with the frictional contact problem between its parts
    // (doc/architecture.md, "One time step with contact").
    if (contact_step)
      phases.contact_geometry();
    if (halvings == 0 && phases.choose_step_size)
      phases.choose_step_size();
    phases.free_velocity();
    if (contact_step)
      phases.contact_problem();
    if (contact_step && unsolved() && retry)
      {
        // The scheme has not finished the step (its state is still that of t_k), and the attempt's
        // per-contact dissipation is taken back.
        const unsigned int step = integrator.step_number() + 1;
        const double t = integrator.time() + integrator.time_step();
        std::ostringstream h_text;
        h_text << "h = " << integrator.time_step();
        events.add(step, t, "retry_nsgs", contact_result.n_active, contact_result.solver.error,
                   h_text.str() + "; " + ContactSolvers::to_string(contact_result.solver.status));
        contact_step->discard_last_solve();
        {
          SolverOptionsOverride retry_options(contact_step->solver_options());
          retry_options.options.solver = ContactSolvers::SolverKind::nsgs;
          retry_options.options.max_iterations = 10 * retry_options.configured.max_iterations;
          // (The retry's free-velocity solve is not counted in the phase's timing.)
          integrator.compute_free_velocity();
          phases.contact_problem();
        }
        if (unsolved() && halvings < max_halvings)
          {
            events.add(step, t, "retry_half_steps", contact_result.n_active, contact_result.solver.error,
                       h_text.str() + " -> two steps of h/2");
            contact_step->discard_last_solve();
            advance_in_halves(halvings);
            return;
          }
      }
    phases.end_of_step();
  }
} // namespace percussion
