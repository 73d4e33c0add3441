#ifndef PERCUSSION_SIMULATOR_STEP_CONTROLLER_H
#define PERCUSSION_SIMULATOR_STEP_CONTROLLER_H

#include <percussion/contact_solvers/solver_options.h>
#include <percussion/core/exceptions.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/time_integration/time_integrator.h>

#include <functional>

namespace percussion
{
  /**
   * Replaces the contact solver's options for the time it lives (a retry with other settings) and
   * puts the configured ones back when it ends, also when the retry throws.
   */
  class SolverOptionsOverride
  {
  public:
    explicit SolverOptionsOverride(ContactSolvers::SolverOptions &options)
      : options(options)
      , configured(options)
    {}
    ~SolverOptionsOverride() { options = configured; }
    SolverOptionsOverride(const SolverOptionsOverride &) = delete;
    SolverOptionsOverride &operator=(const SolverOptionsOverride &) = delete;

    /// The options in force (to be changed).
    ContactSolvers::SolverOptions &options;
    /// The options as configured (restored at the end).
    const ContactSolvers::SolverOptions configured;
  };

  /**
   * Advances the run by one step of the nominal size. With 'Contact solver/Non-convergence policy'
   * = retry, a contact problem that is not solved is solved again with NSGS (and ten times the
   * iterations), and if that fails too the step is replaced by two steps of half the size (up to
   * 'Retry step halvings' times in a row), each of which may be retried the same way. Nothing of a
   * failed attempt is kept but its impulses, the retry's warm start. With 'Time integration/Energy
   * creation policy' = retry, a step whose end-of-step energy guard throws EnergyCreated is taken
   * back (Phases::restore_state) and replaced by two steps of half the size, up to @p
   * max_energy_halvings times in a row; past that the EnergyCreated goes on to the caller.
   */
  class StepController
  {
  public:
    /// The parts of one step, in the order a step runs them (Simulator).
    struct Phases
    {
      /// H(q_k), gaps and frames (with contact pairs).
      std::function<void()> contact_geometry;
      /// The scheme's free velocity.
      std::function<void()> free_velocity;
      /// The frictional contact problem and its impulse (with contact pairs).
      std::function<void()> contact_problem;
      /// The scheme's end of step, the end-of-step gaps, the energy audit and the reports.
      std::function<void()> end_of_step;
      /// Keeps the run's state before a step at halving level k (the energy guard's retry), and
      /// puts it back; empty where the energy creation policy is not retry.
      std::function<void(unsigned int)> save_state, restore_state;
      /// Adaptive steps: sets the step size from the contact geometry of q_k (after
      /// contact_geometry, before free_velocity); empty with a fixed step.
      std::function<void()> choose_step_size;
    };

    /**
     * @p contact_step: nullptr without contact pairs; @p contact_result: the result its phases
     * leave; @p retry: whether the non-convergence policy is retry, with at most @p max_halvings
     * halvings in a row.
     */
    StepController(TimeIntegration::TimeIntegrator &integrator, ContactStep::FrictionalContactStep *contact_step,
                   const ContactStep::ContactStepResult &contact_result, Postprocess::EventLog &events, bool retry,
                   unsigned int max_halvings, Phases phases, unsigned int max_energy_halvings = 0);

    /// One step of the present step size (of two halves, or more, where the retry policy halves it).
    void advance() { advance(0); }

  private:
    /// One step after @p halvings halvings of the nominal size, retried where it created energy.
    void advance(unsigned int halvings);
    /// The step's phases, with the contact retry policy's retries.
    void attempt(unsigned int halvings);
    /// Two steps of half the present size in place of one, at @p halvings + 1.
    void advance_in_halves(unsigned int halvings);
    /// Whether the step's contact problem was posed and not solved.
    bool unsolved() const;

    TimeIntegration::TimeIntegrator &integrator;
    ContactStep::FrictionalContactStep *contact_step;
    const ContactStep::ContactStepResult &contact_result;
    Postprocess::EventLog &events;
    bool retry;
    unsigned int max_halvings;
    Phases phases;
    unsigned int max_energy_halvings;
  };
} // namespace percussion

#endif
