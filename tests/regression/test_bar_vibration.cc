// Requirement: a fixed-free elastic bar vibrating in its first longitudinal mode has the analytic
// period T1 = 4L/c (c = sqrt(E/rho)) within 1 %, in 1D and as a 3D slender bar (nu = 0, so that
// the 3D bar has no lateral constraint and the 1D wave speed is exact).
#define BOOST_TEST_MODULE bar_vibration
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <cmath>

using percussion::testing::local_maxima_times;
using percussion::testing::run_simulation;

namespace
{
  // E = 4, rho = 1, L = 1: c = 2 and T1 = 2.
  constexpr double period = 2.0;

  const std::string common = R"(
set Function constants = L=1
subsection Materials
  set Young's modulus = 4
  set Poisson's ratio = 0
  set Density = 1
end
subsection Time integration
  set Theta = 0.5
  set Time step = 2.5e-3
  set End time = 2.6
end
)";

  template <int dim>
  double measured_period(const percussion::Simulator<dim> &simulator)
  {
    // Kinetic energy peaks twice per period (at T/4 and 3T/4 for a start from rest).
    const auto t = simulator.statistics().column("time");
    const auto kinetic = simulator.statistics().column("kinetic_energy");
    const auto peaks = local_maxima_times(t, kinetic);
    BOOST_REQUIRE(peaks.size() >= 2);
    return 2 * (peaks[1] - peaks[0]);
  }
} // namespace

BOOST_AUTO_TEST_CASE(first_period_of_a_1d_bar)
{
  const auto simulator = run_simulation<1>(std::string("set Dimension = 1\n") + common + R"(
subsection Mesh
  set Type = bar
  set Subdivisions = 100
end
subsection Boundary conditions
  set Fixed boundary ids = 0
end
subsection Initial conditions
  set Displacement = 0.01*sin(pi*x/(2*L))
end
)",
                                           "bar_1d");
  const double T = measured_period(*simulator);
  BOOST_TEST_MESSAGE("1D: measured period " << T << ", exact " << period);
  BOOST_TEST(std::abs(T - period) <= 0.01 * period);
}

BOOST_AUTO_TEST_CASE(first_period_of_a_3d_slender_bar)
{
  const auto simulator = run_simulation<3>(std::string("set Dimension = 3\n") + common + R"(
subsection Mesh
  set Type = bar
  set Length = 1
  set Width = 0.05
  set Subdivisions = 40
end
subsection Boundary conditions
  set Fixed boundary ids = 0
end
subsection Initial conditions
  set Displacement = 0.01*sin(pi*x/(2*L)); 0; 0
end
)",
                                           "bar_3d");
  const double T = measured_period(*simulator);
  BOOST_TEST_MESSAGE("3D: measured period " << T << ", exact " << period);
  BOOST_TEST(std::abs(T - period) <= 0.01 * period);
}
