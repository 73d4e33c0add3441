#ifndef PERCUSSION_POSTPROCESS_PROGRESS_REPORTER_H
#define PERCUSSION_POSTPROCESS_PROGRESS_REPORTER_H

#include <deal.II/base/timer.h>

#include <percussion/postprocess/postprocessor.h>

#include <ostream>

namespace percussion::Postprocess
{
  /// A progress line (step, time, wall time, ETA) on rank 0 every @p interval wall seconds.
  class ProgressReporter : public Postprocessor
  {
  public:
    /// @p total_steps = 0: the number of steps is not known in advance (adaptive steps): the line
    /// shows the time against @p end_time and the ETA follows the time already integrated from
    /// @p start_time.
    ProgressReporter(std::ostream &out, bool active, double interval_seconds, unsigned int total_steps,
                     double start_time = 0, double end_time = 0);
    /// update() after a completed step (StepView::Occasion::step).
    void execute(const StepView &view) override;
    /// The last line, at the end of the run.
    void finish(const StepView &view) override { finish(view.step(), view.time()); }
    void update(unsigned int step, double time);
    void finish(unsigned int step, double time);
    double wall_time() const { return timer.wall_time(); }

  private:
    void print(unsigned int step, double time);
    std::ostream &out;
    bool active;
    double interval, next_report;
    unsigned int total;
    double start_time, end_time;
    dealii::Timer timer;
  };
} // namespace percussion::Postprocess

#endif
