#ifndef PERCUSSION_CORE_WALL_CLOCK_H
#define PERCUSSION_CORE_WALL_CLOCK_H

#include <chrono>

namespace percussion
{
  /// The clock of the step phases' timings: steady_clock costs no system call (deal.II's Timer
  /// also reads the CPU time, a getrusage() call each time).
  using PhaseClock = std::chrono::steady_clock;

  /// Wall-clock seconds since @p start.
  inline double seconds_since(const PhaseClock::time_point start)
  {
    return std::chrono::duration<double>(PhaseClock::now() - start).count();
  }
} // namespace percussion

#endif
