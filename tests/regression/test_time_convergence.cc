// Requirement: on a smooth problem the theta-scheme converges in time with order 2 for theta = 1/2
// and order 1 for theta = 1 (errors against a run with a 64 times smaller step on the same mesh).
#define BOOST_TEST_MODULE time_convergence
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <cmath>

namespace
{
  std::vector<double> errors(const double theta)
  {
    return percussion::testing::time_convergence_errors("  set Theta = " + std::to_string(theta) + "\n");
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
