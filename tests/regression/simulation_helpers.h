#ifndef PERCUSSION_TESTS_SIMULATION_HELPERS_H
#define PERCUSSION_TESTS_SIMULATION_HELPERS_H

#include <deal.II/base/utilities.h>

#include <percussion/simulator/run_parameters.h>
#include <percussion/simulator/simulator.h>

#include <memory>
#include <sstream>
#include <string>

namespace percussion::testing
{
  /// Parameter text with a fresh output directory (no VTU, no progress lines) appended.
  inline std::string with_quiet_output(const std::string &text, const std::string &directory)
  {
    return text + "\nsubsection Output\n  set Directory = " + directory +
           "\n  set VTU interval = 0\n  set Progress interval = 0\nend\n";
  }

  /// Runs a simulation described by parameter text on @p communicator; returns the finished simulator.
  template <int dim>
  std::unique_ptr<Simulator<dim>> run_simulation(const std::string &text, const std::string &directory,
                                                 MPI_Comm communicator = MPI_COMM_WORLD)
  {
    const RunParameters parameters = RunParameters::from_string(with_quiet_output(text, directory));
    std::ostringstream log;
    auto simulator = std::make_unique<Simulator<dim>>(parameters, communicator, log);
    simulator->run();
    return simulator;
  }

  /// Times of the local maxima of a sampled signal, refined by a parabola through three samples.
  inline std::vector<double> local_maxima_times(const std::vector<double> &t, const std::vector<double> &y)
  {
    std::vector<double> result;
    for (std::size_t i = 1; i + 1 < y.size(); ++i)
      if (y[i] > y[i - 1] && y[i] >= y[i + 1])
        {
          const double denominator = y[i - 1] - 2 * y[i] + y[i + 1];
          const double shift = denominator != 0 ? 0.5 * (y[i - 1] - y[i + 1]) / denominator : 0.0;
          result.push_back(t[i] + shift * (t[i + 1] - t[i]));
        }
    return result;
  }
} // namespace percussion::testing

#endif
