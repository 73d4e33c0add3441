#ifndef PERCUSSION_POSTPROCESS_STATISTICS_OUTPUT_H
#define PERCUSSION_POSTPROCESS_STATISTICS_OUTPUT_H

#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/statistics_table.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace percussion::Postprocess
{
  /**
   * `statistics.csv`: one row per recorded state with the stable columns of doc/user_guide.md
   * (clock, energies and works of the audit, linear and contact solver, contact counts and forces,
   * the rigid kinetic energy split, the smallest gap, the event count).
   */
  class StatisticsOutput : public Postprocessor
  {
  public:
    /// Opens @p file_name (written where @p write is true; a resumed run keeps the rows up to
    /// @p resume_after_step, StatisticsTable::open()) with the columns of row(@p present) (their
    /// names do not depend on the state); @p keep_rows: StatisticsTable::keep_rows_in_memory().
    StatisticsOutput(const StepView &present, const std::string &file_name, bool write,
                     std::optional<unsigned int> resume_after_step, bool keep_rows);
    /// Adds the row of @p view (all occasions but StepView::Occasion::last_state).
    void execute(const StepView &view) override;
    void flush() override { statistics.flush(); }

    const StatisticsTable &table() const { return statistics; }
    /// The column names with the values of @p view, in the file's order.
    static std::vector<std::pair<const char *, double>> row(const StepView &view);

  private:
    StatisticsTable statistics;
    std::vector<double> values; ///< the row being written (kept: no allocation per step)
  };

  /// `step_timings.csv`: the wall-clock seconds of every step and of its phases.
  class StepTimingsOutput : public Postprocessor
  {
  public:
    /// Opens @p file_name as StatisticsOutput does.
    StepTimingsOutput(const std::string &file_name, bool write, std::optional<unsigned int> resume_after_step,
                      bool keep_rows);
    /// Adds the row of a completed step (StepView::Occasion::step).
    void execute(const StepView &view) override;
    void flush() override { timings.flush(); }

  private:
    StatisticsTable timings;
  };
} // namespace percussion::Postprocess

#endif
