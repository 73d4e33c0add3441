#ifndef PERCUSSION_TESTS_CONTACT_SOLVERS_COMPLEMENTARITY_CHECK_H
#define PERCUSSION_TESTS_CONTACT_SOLVERS_COMPLEMENTARITY_CHECK_H

// Independent check of a solution (r, u) of the local problem, written from the Coulomb law itself
// (not from the solvers' error measure): u = W r + q, r ∈ K, u + μ‖u_T‖e_N ∈ K* (⇔ u_N ≥ 0),
// complementarity r·(u + μ‖u_T‖e_N) = 0, and on sliding contacts r_T = −μ r_N u_T/‖u_T‖.
// All with the tolerance tol times the scale s = max(‖q‖∞, ‖r‖∞, ‖u‖∞) (s² for the product), the
// same normalisation as the FCLIB measure, which is what the solvers guarantee.

#include <percussion/contact_solvers/local_problem.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

inline void check_coulomb_solution(const percussion::ContactSolvers::LocalProblem &p, const std::vector<double> &r,
                                   const std::vector<double> &u, double tol)
{
  const int d = p.dimension;
  BOOST_REQUIRE_EQUAL(static_cast<int>(r.size()), p.size());
  BOOST_REQUIRE_EQUAL(static_cast<int>(u.size()), p.size());
  std::vector<double> w;
  p.compute_velocity(r, w);
  double scale_u = 0.0, scale_r = 0.0;
  for (int i = 0; i < p.size(); ++i)
    {
      scale_u = std::max({scale_u, std::abs(p.q[i]), std::abs(u[i])});
      scale_r = std::max(scale_r, std::abs(r[i]));
    }
  scale_u = scale_r = std::max({scale_u, scale_r, 1e-300});
  for (int i = 0; i < p.size(); ++i)
    BOOST_CHECK_SMALL(u[i] - w[i], tol * scale_u);
  for (int a = 0; a < p.number_of_contacts; ++a)
    {
      const double *ra = &r[a * d];
      const double *ua = &u[a * d];
      const double mu = p.mu[a];
      const double rt = d == 3 ? std::hypot(ra[1], ra[2]) : std::abs(ra[1]);
      const double ut = d == 3 ? std::hypot(ua[1], ua[2]) : std::abs(ua[1]);
      BOOST_TEST_CONTEXT("contact " << a)
      {
        BOOST_CHECK_GE(ra[0], -tol * scale_r);          // r_N ≥ 0
        BOOST_CHECK_LE(rt, mu * ra[0] + tol * scale_r); // r ∈ K
        BOOST_CHECK_GE(ua[0], -tol * scale_u);          // ũ ∈ K*
        const double complementarity =
          ra[0] * (ua[0] + mu * ut) + (d == 3 ? ra[1] * ua[1] + ra[2] * ua[2] : ra[1] * ua[1]);
        BOOST_CHECK_SMALL(complementarity, tol * scale_r * scale_u);
        if (ut > 1e3 * tol * scale_u && ra[0] > tol * scale_r)
          for (int i = 1; i < d; ++i) // sliding: the friction force opposes the sliding velocity
            BOOST_CHECK_SMALL(ra[i] + mu * ra[0] * ua[i] / ut, 1e3 * tol * scale_r);
      }
    }
}

#endif
