#include <percussion/core/interruption.h>

namespace percussion
{
  namespace
  {
    // Written by the handler, read by the time loop: the only thing a handler may safely do.
    volatile std::sig_atomic_t received_signal = 0;

    extern "C" void record_signal(const int signal_number)
    {
      received_signal = signal_number;
    }
  } // namespace

  InterruptionGuard::InterruptionGuard()
  {
    received_signal = 0;
    struct sigaction action
    {
    };
    action.sa_handler = record_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART; // (a blocking MPI or file call is resumed, not failed)
    sigaction(SIGTERM, &action, &previous_term);
    sigaction(SIGINT, &action, &previous_int);
  }

  InterruptionGuard::~InterruptionGuard()
  {
    sigaction(SIGTERM, &previous_term, nullptr);
    sigaction(SIGINT, &previous_int, nullptr);
  }

  int InterruptionGuard::requested_signal(MPI_Comm communicator)
  {
    int local = static_cast<int>(received_signal), any = 0;
    MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, communicator);
    return any;
  }

  std::string InterruptionGuard::name(const int signal_number)
  {
    if (signal_number == SIGTERM)
      return "SIGTERM";
    if (signal_number == SIGINT)
      return "SIGINT";
    return "signal " + std::to_string(signal_number);
  }
} // namespace percussion
