#include <percussion/core/exceptions.h>
#include <percussion/postprocess/statistics_table.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace percussion::Postprocess
{
  StatisticsTable::StatisticsTable(std::vector<std::string> column_names)
    : names(std::move(column_names))
  {}

  StatisticsTable::~StatisticsTable()
  {
    flush();
    if (file != nullptr)
      std::fclose(file);
  }

  void StatisticsTable::open(const std::string &file_name, const bool write)
  {
    if (!write)
      return;
    file = std::fopen(file_name.c_str(), "w");
    if (file == nullptr)
      throw InputError("Cannot write the statistics file '" + file_name + "': " + std::strerror(errno));
    for (std::size_t i = 0; i < names.size(); ++i)
      std::fprintf(file, "%s%s", i ? "," : "", names[i].c_str());
    std::fprintf(file, "\n");
    std::fflush(file);
  }

  void StatisticsTable::add_row(const std::vector<double> &values)
  {
    if (values.size() != names.size())
      throw std::logic_error("StatisticsTable: a row has " + std::to_string(values.size()) +
                             " values for " + std::to_string(names.size()) + " columns.");
    rows.push_back(values);
    if (file == nullptr)
      return;
    char number[32];
    for (std::size_t i = 0; i < values.size(); ++i)
      {
        // 17 significant digits: the file reproduces the doubles exactly.
        const int n = std::snprintf(number, sizeof(number), i ? ",%.17g" : "%.17g", values[i]);
        buffer.append(number, n);
      }
    buffer.push_back('\n');
    if (buffer.size() > (1u << 16))
      flush();
  }

  void StatisticsTable::flush()
  {
    if (file == nullptr || buffer.empty())
      return;
    std::fwrite(buffer.data(), 1, buffer.size(), file);
    std::fflush(file);
    buffer.clear();
  }

  std::vector<double> StatisticsTable::column(const std::string &name) const
  {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end())
      throw std::out_of_range("StatisticsTable: no column '" + name + "'.");
    const std::size_t c = it - names.begin();
    std::vector<double> values;
    values.reserve(rows.size());
    for (const auto &r : rows)
      values.push_back(r[c]);
    return values;
  }
} // namespace percussion::Postprocess
