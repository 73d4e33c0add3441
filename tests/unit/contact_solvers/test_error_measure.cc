// The FCLIB error measure and the cone projection against values computed by hand.
#define BOOST_TEST_MODULE contact_solvers.error_measure
#include <percussion/contact_solvers/error_measure.h>

#include <boost/test/unit_test.hpp>

#include <cmath>

using namespace percussion::ContactSolvers;

namespace
{
  LocalProblem one_contact(int d, double mu, std::vector<double> W, std::vector<double> q)
  {
    LocalProblem p;
    p.dimension = d;
    p.number_of_contacts = 1;
    p.W_dense = DenseMatrix(d, d);
    p.W_dense.values = std::move(W);
    p.q = std::move(q);
    p.mu = {mu};
    return p;
  }
} // namespace

BOOST_AUTO_TEST_CASE(projection_cases)
{
  double z[3];
  // Inside the cone: unchanged.
  const double inside[3] = {2.0, 0.3, -0.4};
  project_onto_coulomb_cone(3, 0.5, inside, z);
  BOOST_TEST(z[0] == 2.0);
  BOOST_TEST(z[1] == 0.3);
  BOOST_TEST(z[2] == -0.4);
  // In the polar cone: zero.
  const double polar[3] = {-2.0, 0.3, 0.4};
  project_onto_coulomb_cone(3, 0.5, polar, z);
  BOOST_TEST(z[0] == 0.0);
  BOOST_TEST(z[1] == 0.0);
  // Onto the boundary: x = (1, 3, 4), μ = 0.5, t = 5: z_N = (2.5 + 1)/1.25 = 2.8, z_T = 0.5·2.8·(0.6, 0.8).
  const double outside[3] = {1.0, 3.0, 4.0};
  project_onto_coulomb_cone(3, 0.5, outside, z);
  BOOST_TEST(z[0] == 2.8, boost::test_tools::tolerance(1e-14));
  BOOST_TEST(z[1] == 0.84, boost::test_tools::tolerance(1e-14));
  BOOST_TEST(z[2] == 1.12, boost::test_tools::tolerance(1e-14));
  // 2D, μ = 0: projection onto the half line r_T = 0.
  const double x2[2] = {1.0, -5.0};
  project_onto_coulomb_cone(2, 0.0, x2, z);
  BOOST_TEST(z[0] == 1.0);
  BOOST_TEST(z[1] == 0.0);
}

BOOST_AUTO_TEST_CASE(error_of_zero_reaction_under_penetration)
{
  // W = I, q = (−1, 0, 0), r = 0: ũ = (−1,0,0), x = r − ũ = (1,0,0) ∈ K, e = −x: abs = 1, norm = 1.
  const auto p = one_contact(3, 0.5, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {-1, 0, 0});
  BOOST_TEST(compute_error(p, {0, 0, 0}) == 1.0, boost::test_tools::tolerance(1e-15));
}

BOOST_AUTO_TEST_CASE(error_with_projection_onto_the_boundary)
{
  // W = 0, q = 0, r = (1, 1, 0), μ = 0.5: u = 0, x = r, P(x) = (1.2, 0.6, 0), e = (−0.2, 0.4, 0),
  // abs = √0.2, normalised by ‖r‖ = √2: error = √0.1.
  const auto p = one_contact(3, 0.5, std::vector<double>(9, 0.0), {0, 0, 0});
  BOOST_TEST(compute_error(p, {1, 1, 0}) == std::sqrt(0.1), boost::test_tools::tolerance(1e-14));
  // 2D analogue.
  const auto p2 = one_contact(2, 0.5, std::vector<double>(4, 0.0), {0, 0});
  BOOST_TEST(compute_error(p2, {1, 1}) == std::sqrt(0.1), boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(error_uses_the_de_saxce_velocity)
{
  // W = I, q = (0, 2, 0), μ = 0.5, r = 0: u = (0, 2, 0), ũ = (1, 2, 0), x = −ũ, μ‖x_T‖ = 1 ≤ −x_N = 1 → P = 0,
  // e = 0: r = 0 is the (take-off at grazing) solution; without the De Saxcé term it would not be.
  const auto p = one_contact(3, 0.5, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 2, 0});
  BOOST_TEST(compute_error(p, {0, 0, 0}) == 0.0);
  // The exact solution of a sliding case has error at rounding level; a perturbed one does not.
  const auto s = one_contact(3, 0.5, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {-1, 3, 4});
  BOOST_TEST(compute_error(s, {1, -0.3, -0.4}) < 1e-15);
  BOOST_TEST(compute_error(s, {1, -0.3, -0.41}) > 1e-3);
}

BOOST_AUTO_TEST_CASE(unnormalised_when_everything_vanishes)
{
  const auto p = one_contact(3, 0.5, std::vector<double>(9, 0.0), {0, 0, 0});
  BOOST_TEST(compute_error(p, {0, 0, 0}) == 0.0);
  // Tiny but non-zero: the max of the norms is below DBL_EPSILON, so the absolute residual is returned.
  const auto t = one_contact(3, 0.5, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {-1e-17, 0, 0});
  BOOST_TEST(compute_error(t, {0, 0, 0}) == 1e-17, boost::test_tools::tolerance(1e-12));
}
