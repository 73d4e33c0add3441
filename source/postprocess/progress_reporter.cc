#include <percussion/postprocess/progress_reporter.h>

#include <cstdio>

namespace percussion::Postprocess
{
  ProgressReporter::ProgressReporter(std::ostream &out, const bool active, const double interval_seconds,
                                     const unsigned int total_steps, const double start_time, const double end_time)
    : out(out)
    , active(active && interval_seconds > 0)
    , interval(interval_seconds)
    , next_report(interval_seconds)
    , total(total_steps)
    , start_time(start_time)
    , end_time(end_time)
  {
  }

  void ProgressReporter::execute(const StepView &view)
  {
    if (view.occasion == StepView::Occasion::step)
      update(view.step(), view.time());
  }

  void ProgressReporter::update(const unsigned int step, const double time)
  {
    if (!active || timer.wall_time() < next_report)
      return;
    print(step, time);
    next_report = timer.wall_time() + interval;
  }

  void ProgressReporter::finish(const unsigned int step, const double time)
  {
    if (active)
      print(step, time);
  }

  void ProgressReporter::print(const unsigned int step, const double time)
  {
    const double wall = timer.wall_time();
    char line[160];
    if (total > 0)
      {
        const double eta = step > 0 ? wall / step * (total - step) : 0.0;
        std::snprintf(line, sizeof(line), "step %u/%u  t = %.6g  wall %.1f s  ETA %.1f s  (%.0f steps/s)\n", step,
                      total, time, wall, eta, wall > 0 ? step / wall : 0.0);
      }
    else
      {
        // Steps of several sizes: the time integrated so far measures the progress.
        const double done = time - start_time;
        const double eta = done > 0 ? wall / done * (end_time - time) : 0.0;
        std::snprintf(line, sizeof(line), "step %u  t = %.6g/%.6g  wall %.1f s  ETA %.1f s  (%.0f steps/s)\n", step,
                      time, end_time, wall, eta, wall > 0 ? step / wall : 0.0);
      }
    out << line << std::flush;
  }
} // namespace percussion::Postprocess
