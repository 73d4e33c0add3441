#ifndef PERCUSSION_POSTPROCESS_STATISTICS_TABLE_H
#define PERCUSSION_POSTPROCESS_STATISTICS_TABLE_H

#include <cstdio>
#include <string>
#include <vector>

namespace percussion::Postprocess
{
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

    /// Opens (truncates) @p file_name for writing and writes the header; only where @p write is true.
    void open(const std::string &file_name, bool write);
    void add_row(const std::vector<double> &values);
    void flush();

    const std::vector<std::string> &columns() const { return names; }
    std::size_t n_rows() const { return rows.size(); }
    const std::vector<double> &row(std::size_t i) const { return rows[i]; }
    /// The values of column @p name over all rows. @throws std::out_of_range for an unknown name.
    std::vector<double> column(const std::string &name) const;

  private:
    std::vector<std::string> names;
    std::vector<std::vector<double>> rows;
    std::FILE *file = nullptr;
    std::string buffer;
  };
} // namespace percussion::Postprocess

#endif
