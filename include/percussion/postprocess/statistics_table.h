#ifndef PERCUSSION_POSTPROCESS_STATISTICS_TABLE_H
#define PERCUSSION_POSTPROCESS_STATISTICS_TABLE_H

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace percussion::Postprocess
{
  /**
   * Rewrites the CSV file @p file_name with its header line and the rows whose first field (a step
   * number) is at most @p last_step, through a temporary file and a rename. @throws InputError if
   * the header is not @p expected_header or a row does not start with a step number.
   */
  void keep_rows_up_to_step(const std::string &file_name, const std::string &expected_header, unsigned int last_step);

  /**
   * One row per time step with stable column names, kept in memory and written (on rank 0) to a CSV
   * file. Rows are flushed to the file at every add_row() call that follows an output step and on
   * destruction, so an interrupted run keeps what it computed.
   */
  class StatisticsTable
  {
  public:
    explicit StatisticsTable(std::vector<std::string> column_names);
    ~StatisticsTable();

    /**
     * Opens (truncates) @p file_name for writing and writes the header; only where @p write is true.
     * With @p resume_after_step (a resumed run): keeps the rows of an existing @p file_name whose first column (the
     * step) is at most @p last_step, drops the later ones (a run killed after its last checkpoint
     * wrote them) and appends from there; a missing file is started with its header. @throws
     * InputError if the file's header is not this table's (another kind of run wrote it).
     */
    void open(const std::string &file_name, bool write, std::optional<unsigned int> resume_after_step = std::nullopt);
    void add_row(const std::vector<double> &values);
    void flush();

    /**
     * Whether the rows are also kept in memory, for row() and column() (the default: programs and
     * tests that read a run's table back). A run of the `percussion` executable keeps none: its
     * memory must not grow with the number of steps (a million steps of 31 columns would be 250 MB).
     */
    void keep_rows_in_memory(bool keep) { keep_rows = keep; }

    const std::vector<std::string> &columns() const { return names; }
    /// The rows added so far (also those not kept in memory).
    std::size_t n_rows() const { return added; }
    /// @throws std::logic_error if the rows are not kept in memory.
    const std::vector<double> &row(std::size_t i) const;
    /// The values of column @p name over all rows. @throws std::out_of_range for an unknown name,
    /// std::logic_error if the rows are not kept in memory.
    std::vector<double> column(const std::string &name) const;

  private:
    /// The header line (the column names, comma-separated).
    std::string header() const;

    std::vector<std::string> names;
    std::vector<std::vector<double>> rows;
    bool keep_rows = true;
    std::size_t added = 0;
    std::FILE *file = nullptr;
    std::string buffer;
  };
} // namespace percussion::Postprocess

#endif
