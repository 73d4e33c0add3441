// Requirement: on a smooth problem the theta-scheme converges in time with order 2 for theta = 1/2
// and order 1 for theta = 1 (errors against a run with a 64 times smaller step on the same mesh).
#define BOOST_TEST_MODULE time_convergence
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <cmath>

using percussion::testing::run_simulation;

namespace
{
  std::string bar(const double theta, const double h)
  {
    std::ostringstream text;
    text.precision(17);
    text << R"(
set Dimension = 1
subsection Mesh
  set Type = bar
  set Subdivisions = 20
end
subsection Materials
  set Young's modulus = 1
  set Density = 1
end
subsection Damping
  set Stiffness proportional coefficient = 0.001
end
subsection Loads
  set Traction boundary ids = 1
  set Traction = 0.01*sin(2*t)
end
subsection Boundary conditions
  set Fixed boundary ids = 0
end
subsection Initial conditions
  set Displacement = 0.01*sin(pi*x/2)
  set Velocity = 0.02*x
end
subsection Time integration
  set Time step = )" << h << "\n  set Theta = " << theta << "\n  set End time = 1.28\nend\n";
    return text.str();
  }

  std::vector<double> errors(const double theta)
  {
    const auto reference = run_simulation<1>(bar(theta, 0.04 / 64), "convergence_reference");
    dealii::PETScWrappers::MPI::Vector q_ref = reference->integrator().displacement();
    std::vector<double> result;
    for (const double h : {0.04, 0.02, 0.01})
      {
        const auto simulator = run_simulation<1>(bar(theta, h), "convergence");
        BOOST_REQUIRE_CLOSE(simulator->integrator().time(), 1.28, 1e-10);
        dealii::PETScWrappers::MPI::Vector difference = simulator->integrator().displacement();
        difference -= q_ref;
        result.push_back(difference.l2_norm() / q_ref.l2_norm());
      }
    return result;
  }
} // namespace

BOOST_AUTO_TEST_CASE(order_two_for_theta_half)
{
  const auto e = errors(0.5);
  for (std::size_t i = 0; i + 1 < e.size(); ++i)
    {
      const double order = std::log2(e[i] / e[i + 1]);
      BOOST_TEST_MESSAGE("theta = 1/2: error " << e[i] << " -> " << e[i + 1] << ", order " << order);
      BOOST_TEST(order >= 1.8);
      BOOST_TEST(order <= 2.2);
    }
}

BOOST_AUTO_TEST_CASE(order_one_for_theta_one)
{
  const auto e = errors(1.0);
  for (std::size_t i = 0; i + 1 < e.size(); ++i)
    {
      const double order = std::log2(e[i] / e[i + 1]);
      BOOST_TEST_MESSAGE("theta = 1: error " << e[i] << " -> " << e[i + 1] << ", order " << order);
      BOOST_TEST(order >= 0.85);
      BOOST_TEST(order <= 1.15);
    }
}
