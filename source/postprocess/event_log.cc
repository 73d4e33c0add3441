#include <percussion/core/exceptions.h>
#include <percussion/postprocess/event_log.h>

#include <algorithm>

namespace percussion::Postprocess
{
  EventLog::~EventLog()
  {
    if (file != nullptr)
      std::fclose(file);
  }

  void EventLog::open(const std::string &file_name, const bool write)
  {
    if (!write)
      return;
    file = std::fopen(file_name.c_str(), "w");
    if (file == nullptr)
      throw InputError("Parameter 'Output/Directory': cannot write '" + file_name + "'.");
    std::fputs("step,time,event,contacts,value,detail\n", file);
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
