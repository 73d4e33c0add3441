// Requirement: the discrete energy balance (56) of the theta-scheme holds to round-off for every
// theta, with damping, time-dependent loads and prescribed boundary motion; theta = 1/2 conserves
// the energy of the undamped, unloaded system, theta = 1 dissipates it.
#define BOOST_TEST_MODULE energy_balance
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <cmath>

using percussion::testing::run_simulation;

namespace
{
  const std::string free_box_3d = percussion::testing::free_box_3d_text(2);

  std::string loaded_problem(const unsigned int dim, const unsigned int degree, const double theta)
  {
    const std::string d = std::to_string(dim);
    std::string corner = dim == 1 ? "1" : dim == 2 ? "1, 0.3" : "1, 0.3, 0.3";
    std::string subdivisions = dim == 1 ? "12" : dim == 2 ? "6, 2" : "5, 2, 2";
    std::string load = dim == 1 ? "0.3*sin(7*t)" : dim == 2 ? "0.3*sin(7*t); 0.1*t" : "0.3*sin(7*t); 0.1*t; -0.2";
    std::string body = dim == 1 ? "0.5*x*cos(3*t)" : dim == 2 ? "0.5*x*cos(3*t); 0" : "0.5*x*cos(3*t); 0; 0.1";
    std::string motion = dim == 1   ? "0.02*sin(5*t)"
                         : dim == 2 ? "0.02*sin(5*t); 0.01*t*t"
                                    : "0.02*sin(5*t); 0.01*t*t; 0";
    std::string velocity = dim == 1 ? "x" : dim == 2 ? "x; -y" : "x; -y; z";
    std::ostringstream text;
    text << "set Dimension = " << d << "\n"
         << "subsection Mesh\n set Type = box\n set Upper corner = " << corner
         << "\n set Subdivisions = " << subdivisions << "\n set Finite element degree = " << degree << "\nend\n"
         << "subsection Materials\n set Young's modulus = 50\n set Poisson's ratio = 0.25\n set Density = 3\nend\n"
         << "subsection Damping\n set Mass proportional coefficient = 0.3\n"
         << " set Stiffness proportional coefficient = 0.002\nend\n"
         << "subsection Loads\n set Gravity = 0.5, -1, 0.3\n set Body force = " << body
         << "\n set Traction boundary ids = 1\n set Traction = " << load << "\nend\n"
         << "subsection Boundary conditions\n set Prescribed displacement boundary ids = 0\n"
         << " set Prescribed displacement = " << motion << "\nend\n"
         << "subsection Initial conditions\n set Velocity = " << velocity << "\nend\n"
         << "subsection Time integration\n set Theta = " << theta
         << "\n set Time step = 0.01\n set End time = 1\nend\n";
    return text.str();
  }
} // namespace

BOOST_AUTO_TEST_CASE(theta_half_conserves_energy_over_1000_steps)
{
  const auto simulator = run_simulation<3>(free_box_3d + " set Theta = 0.5\nend\n", "energy_half");
  const auto energy = simulator->statistics().column("total_energy");
  BOOST_REQUIRE_EQUAL(energy.size(), 1001u);
  double worst = 0;
  for (const double e : energy)
    worst = std::max(worst, std::abs(e / energy[0] - 1));
  BOOST_TEST_MESSAGE("max |E_k/E_0 - 1| = " << worst);
  BOOST_TEST(worst <= 1e-10);
  // The scheme's numerical dissipation term vanishes identically for theta = 1/2.
  BOOST_TEST(std::abs(simulator->energy_audit().numerical_dissipation()) <= 1e-14 * energy[0]);
}

BOOST_AUTO_TEST_CASE(theta_one_dissipates_exactly_its_numerical_dissipation)
{
  const auto simulator = run_simulation<3>(free_box_3d + " set Theta = 1\nend\n", "energy_one");
  const auto energy = simulator->statistics().column("total_energy");
  const auto dissipation = simulator->statistics().column("numerical_dissipation");
  for (std::size_t k = 1; k < energy.size(); ++k)
    {
      BOOST_TEST(energy[k] < energy[k - 1]);
      // E_0 − E_k equals the cumulated (θ − ½)[‖Δv‖²_M + ‖Δq‖²_K] of eq. (56).
      BOOST_TEST(std::abs((energy[0] - energy[k]) - dissipation[k]) <= 1e-11 * energy[0]);
    }
  BOOST_TEST(energy.back() < 0.9 * energy.front()); // a tangible loss, not round-off
}

BOOST_AUTO_TEST_CASE(balance_residual_is_round_off_for_every_theta_with_damping_and_loads)
{
  for (const double theta : {0.0, 0.25, 0.5, 0.75, 1.0})
    {
      const auto s1 = run_simulation<1>(loaded_problem(1, 1, theta), "balance_1d");
      const auto s2 = run_simulation<2>(loaded_problem(2, 2, theta), "balance_2d");
      const auto s3 = run_simulation<3>(loaded_problem(3, 1, theta), "balance_3d");
      for (const auto *audit : {&s1->energy_audit(), &s2->energy_audit(), &s3->energy_audit()})
        {
          BOOST_TEST_MESSAGE("theta = " << theta << ": max relative step residual "
                                        << audit->max_relative_step_residual());
          BOOST_TEST(audit->max_relative_step_residual() <= 1e-11);
          // The loads, damping and supports really did work, so the balance is not trivial.
          BOOST_TEST(std::abs(audit->external_work()) > 1e-3 * std::abs(audit->initial_energy()));
          BOOST_TEST(audit->damping_work() < 0);
        }
    }
}
