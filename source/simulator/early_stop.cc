// A run stopped early leaves the output of its last good step and a checkpoint behind, on every
// rank at once, so that a scheduler's end of slot or a solver failure costs no more than the steps
// since the last checkpoint.
#include <percussion/core/interruption.h>
#include <percussion/postprocess/statistics_output.h>
#include <percussion/simulator/early_stop.h>

namespace percussion
{
  template <int dim>
  EarlyStop<dim>::EarlyStop(RunParts run_parts, MPI_Comm communicator)
    : parts(std::move(run_parts))
    , communicator(communicator)
  {
  }

  template <int dim>
  bool EarlyStop<dim>::stopped_by_policy() const
  {
    return parts.energy_guard.stopped_the_run() || parts.contact_reporting.stopped_the_run();
  }

  template <int dim>
  void EarlyStop<dim>::stop_if_interrupted(const unsigned int nominal_steps, const bool last_step,
                                           const bool checkpoint_written)
  {
    // The signal is asked for on every rank at once, so that all stop after the same step.
    const int signal_number = InterruptionGuard::requested_signal(communicator);
    if (signal_number == 0 || last_step)
      return;
    const std::string signal_name = InterruptionGuard::name(signal_number);
    parts.events.add(parts.integrator.step_number(), parts.integrator.time(), "interrupted", 0, signal_number,
                     signal_name);
    parts.record(Postprocess::StepView::Occasion::last_state);
    parts.postprocessors.flush();
    if (!checkpoint_written)
      parts.checkpointer.write_on_signal(nominal_steps, signal_name);
    throw Interrupted(signal_number, parts.report.interruption_message(signal_name, parts.integrator, parts.adaptive));
  }

  template <int dim>
  void EarlyStop<dim>::save_after_failed_step(const unsigned int nominal_steps)
  {
    // The integrator throws before it accepts a bad state: what it holds is the last good one.
    // The non-convergence policy 'stop' throws after its step was accepted and audited: that step
    // gets its row and a checkpoint (a resumed run may try other solver settings).
    parts.record(stopped_by_policy() ? Postprocess::StepView::Occasion::stopped_after_step
                                     : Postprocess::StepView::Occasion::last_state);
    parts.vtu.finish_writing();
    parts.postprocessors.template find<Postprocess::StatisticsOutput>()->flush();
    // A step the energy guard stopped at created energy: no checkpoint is written after it (the
    // last one from before is what a resumed run starts from).
    if (stopped_by_policy() && !parts.energy_guard.stopped_the_run())
      parts.checkpointer.write_on_policy_stop(nominal_steps);
    parts.report.write_failure(parts.integrator, stopped_by_policy(), parts.checkpointer.last_checkpoint(),
                               parts.vtu.last_recorded_step());
  }

  template class EarlyStop<1>;
  template class EarlyStop<2>;
  template class EarlyStop<3>;
} // namespace percussion
