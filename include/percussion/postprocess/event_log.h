#ifndef PERCUSSION_POSTPROCESS_EVENT_LOG_H
#define PERCUSSION_POSTPROCESS_EVENT_LOG_H

#include <percussion/postprocess/postprocessor_interface.h>

#include <cstdio>
#include <optional>
#include <string>

namespace percussion::Postprocess
{
  /**
   * `events.csv`: one row per event a user should know of, written (on rank 0) and flushed as it
   * happens, so that a killed run keeps them: `step,time,event,contacts,value,detail` with
   *   contact_not_solved     contacts = active contacts, value = residual reached, detail = status and
   *                          what the 'Non-convergence policy' did (continued / stopped);
   *   positive_contact_work  contacts = how many, value = the largest work, detail = where;
   *   position_projection    contacts = projected contacts, value = the energy added (beyond the loads' work),
   *                          detail = solved / not solved;
   *   fclib_dump             detail = the file written;
   *   interrupted            detail = the signal.
   * count() is the number of events so far (the statistics column `events`).
   *
   * A postprocessor of the run's list that records nothing per step: the Simulator and its parts
   * add() events as they happen, and the file is written only where 'Output/Postprocessors' lists
   * `events` (the count is kept either way).
   */
  class EventLog : public Postprocessor
  {
  public:
    EventLog() = default;
    ~EventLog() override;
    EventLog(const EventLog &) = delete;
    EventLog &operator=(const EventLog &) = delete;

    /// Opens (truncates) @p file_name and writes the header, where @p write is true. A resumed run
    /// gives @p resume_after_step and the @p events_so_far of its checkpoint: the file keeps its rows
    /// up to that step (keep_rows_up_to_step()) and the count goes on from there.
    void open(const std::string &file_name, bool write, std::optional<unsigned int> resume_after_step = std::nullopt,
              unsigned int events_so_far = 0);
    /// Records an event (every rank counts it; the writing rank writes it).
    void add(unsigned int step, double time, const std::string &event, unsigned int contacts, double value,
             const std::string &detail);
    unsigned int count() const { return n_events; }

  private:
    std::FILE *file = nullptr;
    unsigned int n_events = 0;
  };
} // namespace percussion::Postprocess

#endif
