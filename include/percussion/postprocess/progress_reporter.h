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
    ProgressReporter(std::ostream &out, bool active, double interval_seconds, unsigned int total_steps);
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
    dealii::Timer timer;
  };
} // namespace percussion::Postprocess

#endif
