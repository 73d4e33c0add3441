#ifndef PERCUSSION_CORE_INTERRUPTION_H
#define PERCUSSION_CORE_INTERRUPTION_H

#include <mpi.h>

#include <csignal>
#include <stdexcept>
#include <string>

namespace percussion
{
  /**
   * The run was stopped by SIGTERM or SIGINT (what batch schedulers send at the end of a wall-time
   * slot, and Ctrl-C) after finishing a step and writing its output; signal() is the signal's
   * number (the driver exits with 128 + signal(), the shell convention).
   */
  class Interrupted : public std::runtime_error
  {
  public:
    Interrupted(const int signal_number, const std::string &message)
      : std::runtime_error(message)
      , number(signal_number)
    {
    }
    int signal() const { return number; }

  private:
    int number;
  };

  /**
   * While alive, SIGTERM and SIGINT only set a flag (the previous handlers are restored on
   * destruction): the time loop asks requested_signal() after every step and stops cleanly
   * instead of dying mid-step with half-written files.
   */
  class InterruptionGuard
  {
  public:
    InterruptionGuard();
    ~InterruptionGuard();
    InterruptionGuard(const InterruptionGuard &) = delete;
    InterruptionGuard &operator=(const InterruptionGuard &) = delete;

    /// The signal received on any rank of @p communicator since construction (0: none);
    /// collective, so that every rank stops after the same step.
    static int requested_signal(MPI_Comm communicator);
    /// "SIGTERM", "SIGINT" or "signal N".
    static std::string name(int signal_number);

  private:
    struct sigaction previous_term
    {
    }, previous_int{};
  };
} // namespace percussion

#endif
