#ifndef PERCUSSION_SIMULATOR_EARLY_STOP_H
#define PERCUSSION_SIMULATOR_EARLY_STOP_H

#include <percussion/postprocess/event_log.h>
#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/vtu_output.h>
#include <percussion/simulator/checkpointer.h>
#include <percussion/simulator/contact_reporting.h>
#include <percussion/simulator/energy_guard.h>
#include <percussion/simulator/run_report.h>
#include <percussion/time_integration/time_integrator.h>

#include <functional>

#include <mpi.h>

namespace percussion
{
  /**
   * What a run leaves behind when it stops before its end time, so that it can be looked at and
   * resumed (doc/user_guide.md, "Checkpoints and restart"): after SIGTERM/SIGINT (a scheduler's end
   * of slot, Ctrl-C) the step's output and a checkpoint, then Interrupted; after a numerical
   * failure (SolverError) the last good step's output, a checkpoint where a policy stopped the run
   * after accepting its step, and the log's line on where to go on from.
   */
  template <int dim>
  class EarlyStop
  {
  public:
    /// The parts of the run an early stop writes or reads.
    struct RunParts
    {
      /// Runs the postprocessors on the present state for an occasion (Simulator::record()).
      std::function<void(Postprocess::StepView::Occasion)> record;
      Postprocess::PostprocessorList &postprocessors;
      /// solution.pvd and contact.pvd, finished before the run stops.
      Postprocess::VtuOutput<dim> &vtu;
      Postprocess::EventLog &events;
      const TimeIntegration::TimeIntegrator &integrator;
      Checkpointer<dim> &checkpointer;
      const RunReport<dim> &report;
      const EnergyGuard &energy_guard;
      const ContactReporting &contact_reporting;
      /// Whether the steps are adaptive (an interrupted run then says where it stopped by time).
      bool adaptive;
    };

    EarlyStop(RunParts parts, MPI_Comm communicator);

    /// Whether a policy (energy creation, or the contact non-convergence policy) ended the run; its
    /// step was accepted and audited.
    bool stopped_by_policy() const;
    /**
     * After a step (@p nominal_steps from the start) that a SIGTERM/SIGINT came during, unless it is
     * the @p last_step: an `interrupted` event, the step's output, a checkpoint unless one was just
     * written (@p checkpoint_written), then throws Interrupted. Nothing otherwise. Collective.
     */
    void stop_if_interrupted(unsigned int nominal_steps, bool last_step, bool checkpoint_written);
    /**
     * After a SolverError in the step after @p nominal_steps − 1: the last good step's output (the
     * integrator throws before it accepts a bad state; a policy that stops after accepting its step
     * gives that step its row and a checkpoint), and the log's line (RunReport::write_failure()).
     * Collective.
     */
    void save_after_failed_step(unsigned int nominal_steps);

  private:
    RunParts parts;
    MPI_Comm communicator;
  };
} // namespace percussion

#endif
