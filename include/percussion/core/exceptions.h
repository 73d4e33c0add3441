#ifndef PERCUSSION_CORE_EXCEPTIONS_H
#define PERCUSSION_CORE_EXCEPTIONS_H

#include <stdexcept>
#include <string>

namespace percussion
{
  /**
   * Bad input: a parameter, file or value the user supplied is malformed, missing or out of its
   * admissible range. The message names the parameter (with its subsection), the file or the
   * line, and says what is admissible. Thrown before any computation starts; the driver prints
   * the message and exits with a non-zero status.
   */
  class InputError : public std::runtime_error
  {
  public:
    explicit InputError(const std::string &message)
      : std::runtime_error(message)
    {
    }
  };

  /**
   * A numerical failure during a run (a factorisation that failed, a non-finite state).
   * Solver non-convergence of the contact solvers is reported through their status instead.
   */
  class SolverError : public std::runtime_error
  {
  public:
    explicit SolverError(const std::string &message)
      : std::runtime_error(message)
    {
    }
  };

  /// A step that created energy (the energy guard), where the policy may retry it with smaller
  /// steps; a SolverError where nothing retries it.
  class EnergyCreated : public SolverError
  {
  public:
    explicit EnergyCreated(const std::string &message)
      : SolverError(message)
    {
    }
  };
} // namespace percussion

#endif
