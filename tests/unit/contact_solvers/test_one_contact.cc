// One-contact problems with analytic solutions, in 2D and 3D, for every solver name:
// take-off, stick, slide (direction and magnitude), μ = 0, grazing.
#define BOOST_TEST_MODULE contact_solvers.one_contact
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/one_contact_solver.h>
#include <percussion/contact_solvers/solve.h>

#include <boost/test/unit_test.hpp>

#include "complementarity_check.h"

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

  /** Solve with every solver (dense and sparse storage) and compare r, u with the exact values. */
  void check_all_solvers(const LocalProblem &p, const std::vector<double> &r_exact, const std::vector<double> &u_exact)
  {
    for (const std::string &name : available_solvers())
      for (bool sparse : {false, true})
        {
          BOOST_TEST_CONTEXT("solver " << name << (sparse ? " sparse" : " dense"))
          {
            LocalProblem problem = p;
            if (sparse)
              {
                problem.storage = MatrixStorage::sparse;
                problem.W_sparse.rows = problem.W_sparse.cols = p.size();
                problem.W_sparse.row_start = {0};
                for (int i = 0; i < p.size(); ++i)
                  {
                    for (int j = 0; j < p.size(); ++j)
                      if (p.W_dense(i, j) != 0.0)
                        {
                          problem.W_sparse.column_index.push_back(j);
                          problem.W_sparse.values.push_back(p.W_dense(i, j));
                        }
                    problem.W_sparse.row_start.push_back(static_cast<int>(problem.W_sparse.values.size()));
                  }
                problem.W_dense = DenseMatrix();
              }
            SolverOptions options;
            options.solver = *solver_kind_from_name(name);
            options.tolerance = 1e-12;
            std::vector<double> r, u;
            const SolverResult result = solve(problem, r, u, options);
            BOOST_TEST(to_string(result.status) == "converged");
            BOOST_TEST(result.error <= 1e-12);
            for (int i = 0; i < p.size(); ++i)
              {
                BOOST_CHECK_SMALL(r[i] - r_exact[i], 1e-10);
                BOOST_CHECK_SMALL(u[i] - u_exact[i], 1e-10);
              }
            check_coulomb_solution(problem, r, u, 1e-10);
          }
        }
    // The Gauss–Seidel sub-solver alone, from a wrong start.
    std::vector<double> r(p.size(), 0.37);
    const double residual = solve_one_contact(p.dimension, p.mu[0], p.W_dense.values.data(), p.q.data(), r.data());
    BOOST_TEST(residual <= 1e-12);
    for (int i = 0; i < p.size(); ++i)
      BOOST_CHECK_SMALL(r[i] - r_exact[i], 1e-10);
  }

  const std::vector<double> I3 = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const std::vector<double> I2 = {1, 0, 0, 1};
} // namespace

BOOST_AUTO_TEST_CASE(take_off_3d)
{
  // q_N > 0: the contact opens, r = 0, u = q.
  check_all_solvers(one_contact(3, 0.5, I3, {1.0, 0.5, -0.2}), {0, 0, 0}, {1.0, 0.5, -0.2});
}

BOOST_AUTO_TEST_CASE(stick_3d)
{
  // W = I, q = (−1, 0.1, 0.2), μ = 0.5: r = −q = (1, −0.1, −0.2) is inside the cone, u = 0.
  check_all_solvers(one_contact(3, 0.5, I3, {-1.0, 0.1, 0.2}), {1.0, -0.1, -0.2}, {0, 0, 0});
}

BOOST_AUTO_TEST_CASE(slide_3d_direction_and_magnitude)
{
  // W = I, q = (−1, 3, 4), μ = 0.5: r_N = 1, r_T = −μ r_N q_T/‖q_T‖ = (−0.3, −0.4), u = (0, 2.7, 3.6).
  check_all_solvers(one_contact(3, 0.5, I3, {-1.0, 3.0, 4.0}), {1.0, -0.3, -0.4}, {0.0, 2.7, 3.6});
}

BOOST_AUTO_TEST_CASE(slide_3d_coupled_block)
{
  // W = [[2, .5, 0], [.5, 1, 0], [0, 0, 1]], q = (−1, 2, 0), μ = 0.5. Sliding along +t1:
  // r_T1 = −μ r_N, u_N = 2 r_N + .5 r_T1 − 1 = 0 → r_N = 1/1.75; u_T1 = (.5 − μ) r_N + 2 = 2 > 0.
  const double rn = 1.0 / 1.75;
  check_all_solvers(one_contact(3, 0.5, {2, 0.5, 0, 0.5, 1, 0, 0, 0, 1}, {-1.0, 2.0, 0.0}), {rn, -0.5 * rn, 0.0},
                    {0.0, 2.0, 0.0});
}

BOOST_AUTO_TEST_CASE(frictionless_3d)
{
  // μ = 0: r_T = 0, r_N = 1 closes the gap, the tangential velocity is free.
  check_all_solvers(one_contact(3, 0.0, I3, {-1.0, 3.0, -2.0}), {1.0, 0.0, 0.0}, {0.0, 3.0, -2.0});
}

BOOST_AUTO_TEST_CASE(grazing_3d)
{
  // q_N = 0 with tangential motion: r = 0 (take-off and sliding coincide at zero force).
  check_all_solvers(one_contact(3, 0.5, I3, {0.0, 1.0, 0.0}), {0, 0, 0}, {0.0, 1.0, 0.0});
  // Stick exactly on the cone boundary: W = I, q = (−1, 0.5, 0), μ = 0.5 → r = (1, −0.5, 0), u = 0.
  check_all_solvers(one_contact(3, 0.5, I3, {-1.0, 0.5, 0.0}), {1.0, -0.5, 0.0}, {0, 0, 0});
}

BOOST_AUTO_TEST_CASE(take_off_2d)
{
  check_all_solvers(one_contact(2, 0.9, I2, {0.5, -3.0}), {0, 0}, {0.5, -3.0});
}

BOOST_AUTO_TEST_CASE(stick_2d)
{
  check_all_solvers(one_contact(2, 0.5, I2, {-1.0, 0.2}), {1.0, -0.2}, {0, 0});
}

BOOST_AUTO_TEST_CASE(slide_2d_both_directions)
{
  // W = I, q = (−2, ±3), μ = 0.5: r = (2, ∓1), u = (0, ±2).
  check_all_solvers(one_contact(2, 0.5, I2, {-2.0, 3.0}), {2.0, -1.0}, {0.0, 2.0});
  check_all_solvers(one_contact(2, 0.5, I2, {-2.0, -3.0}), {2.0, 1.0}, {0.0, -2.0});
  // Coupled block W = [[2, .5], [.5, 1]], q = (−1, 2), μ = .5: as in 3D, r_N = 1/1.75, u_T = 2.
  const double rn = 1.0 / 1.75;
  check_all_solvers(one_contact(2, 0.5, {2, 0.5, 0.5, 1}, {-1.0, 2.0}), {rn, -0.5 * rn}, {0.0, 2.0});
}

BOOST_AUTO_TEST_CASE(frictionless_and_grazing_2d)
{
  check_all_solvers(one_contact(2, 0.0, I2, {-1.0, 3.0}), {1.0, 0.0}, {0.0, 3.0});
  check_all_solvers(one_contact(2, 0.3, I2, {0.0, -1.0}), {0.0, 0.0}, {0.0, -1.0});
}
