#ifndef PERCUSSION_POSTPROCESS_POSTPROCESSOR_INTERFACE_H
#define PERCUSSION_POSTPROCESS_POSTPROCESSOR_INTERFACE_H

#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/core/body_frames.h>
#include <percussion/core/saved_value.h>
#include <percussion/time_integration/time_integrator.h>

#include <vector>

namespace percussion::Postprocess
{
  class EnergyAudit;
  class EventLog;

  /**
   * The state a postprocessor records, as the Simulator sees it after a step (or before the first
   * one): the integrator's fields and clock, the energy audit, the step's contact problem and
   * position check, the bodies' rigid motions and the event count.
   */
  struct StepView
  {
    /// Why the postprocessors run.
    enum class Occasion
    {
      initial_state,      ///< the state before the first step of a run that is not resumed
      step,               ///< after a completed step
      stopped_after_step, ///< the step the contact 'Non-convergence policy' = stop accepted, then stopped at
      last_state          ///< an interrupted or failed run: only what has not recorded this state yet
    };
    /// Wall-clock seconds of the step's phases (step_timings.csv).
    struct PhaseSeconds
    {
      double contact_geometry = 0, free_velocity = 0, contact_step = 0, contact_solver = 0, projection = 0;
    };

    Occasion occasion;
    /// Whether this is the run's last step (Occasion::step).
    bool last_step;
    const TimeIntegration::TimeIntegrator &integrator;
    const EnergyAudit &audit;
    /// The step's contact result (empty without contact) and end-of-step position check.
    const ContactStep::ContactStepResult &contact;
    const ContactStep::PositionProjectionResult &projection;
    /// The contact candidates over all ranks (0 without contact pairs).
    double contact_candidates;
    /// The smallest end-of-step gap (the initial gaps before the first step).
    double min_gap;
    /// The rigid motion of each body (2D/3D; empty in 1D).
    const std::vector<RigidMotion> &rigid_motions;
    const EventLog &events;
    /// The step's wall-clock seconds, in all and by phase (Occasion::step).
    double step_seconds;
    PhaseSeconds phases;

    unsigned int step() const { return integrator.step_number(); }
    double time() const { return integrator.time(); }
    /// Whether the occasion adds a row of the state to the tables (all but Occasion::last_state).
    bool adds_rows() const { return occasion != Occasion::last_state; }
  };

  /**
   * One output of a run (a table, the VTU records, the progress line, ...). The Simulator holds them
   * in a PostprocessorList and runs them, in the list's order, after every step and on the
   * occasions of StepView::Occasion.
   */
  class Postprocessor
  {
  public:
    virtual ~Postprocessor() = default;
    /// Records what this output keeps of @p view. Collective. By default nothing: the energy audit
    /// books a step as it ends (before the energy guard judges it) and the event log writes an
    /// event as it happens; the others read them through the StepView.
    virtual void execute(const StepView &view) { (void)view; }
    /// Puts what is buffered on disk (the run goes on).
    virtual void flush() {}
    /// At the end of a run that reached its end time: the last of the output (e.g. a record written
    /// in the background) is on disk after this. By default flush().
    virtual void finish(const StepView &view)
    {
      (void)view;
      flush();
    }
    /// The scalars of this postprocessor's state that a checkpoint keeps and that a step taken back
    /// is restored to (none by default: a table's rows are its files').
    virtual SavedValues saved_values() { return {}; }
  };

} // namespace percussion::Postprocess

#endif
