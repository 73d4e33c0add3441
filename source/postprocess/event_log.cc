#include <percussion/core/exceptions.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/postprocess/statistics_table.h>

#include <algorithm>
#include <filesystem>

namespace percussion::Postprocess
{
  EventLog::~EventLog()
  {
    if (file != nullptr)
      std::fclose(file);
  }

  void EventLog::open(const std::string &file_name, const bool write,
                      const std::optional<unsigned int> resume_after_step, const unsigned int events_so_far)
  {
    n_events = events_so_far;
    if (!write)
      return;
    const char *header = "step,time,event,contacts,value,detail";
    const bool append = resume_after_step && std::filesystem::exists(file_name);
    if (append)
      keep_rows_up_to_step(file_name, header, *resume_after_step);
    file = std::fopen(file_name.c_str(), append ? "a" : "w");
    if (file == nullptr)
      throw InputError("Parameter 'Output/Directory': cannot write '" + file_name + "'.");
    if (!append)
      std::fprintf(file, "%s\n", header);
    std::fflush(file);
  }

  void EventLog::add(const unsigned int step, const double time, const std::string &event, const unsigned int contacts,
                     const double value, const std::string &detail)
  {
    ++n_events;
    if (file == nullptr)
      return;
    // The detail is free text: quoted, with its quotes doubled (RFC 4180).
    std::string quoted = "\"";
    for (const char c : detail)
      quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    quoted += "\"";
    std::fprintf(file, "%u,%.17g,%s,%u,%.17g,%s\n", step, time, event.c_str(), contacts, value, quoted.c_str());
    std::fflush(file);
  }
} // namespace percussion::Postprocess
