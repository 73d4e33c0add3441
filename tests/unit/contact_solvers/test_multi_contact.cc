// Multi-contact problems checked by the Coulomb law itself (complementarity_check.h): random
// well-conditioned, singular (redundant contacts) and ill-conditioned Delassus operators, dense and
// sparse storage, extreme scales, zero contacts, warm start, limits and bad input.
#define BOOST_TEST_MODULE contact_solvers.multi_contact
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/global_problem.h>
#include <percussion/contact_solvers/solve.h>

#include <percussion/core/exceptions.h>

#include <boost/test/unit_test.hpp>

#include "complementarity_check.h"

#include <cmath>
#include <random>

using namespace percussion::ContactSolvers;

namespace
{
  /**
   * W = Hᵀ H with H (n_dof × d m) random: the Delassus operator of n_dof unit masses. With
   * n_dof < d m, W is singular (more contact unknowns than degrees of freedom: redundant contacts).
   */
  LocalProblem random_problem(int d, int m, int n_dof, unsigned seed, double mu_value = -1.0)
  {
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(0.1, 0.9);
    const int n = d * m;
    std::vector<double> H(static_cast<std::size_t>(n_dof) * n);
    for (double &h : H)
      h = normal(gen);
    LocalProblem p;
    p.dimension = d;
    p.number_of_contacts = m;
    p.W_dense = DenseMatrix(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        {
          double s = 0.0;
          for (int k = 0; k < n_dof; ++k)
            s += H[static_cast<std::size_t>(k) * n + i] * H[static_cast<std::size_t>(k) * n + j];
          p.W_dense(i, j) = s;
        }
    p.q.resize(n);
    for (int a = 0; a < m; ++a)
      {
        p.q[a * d] = normal(gen) - 0.5; // mostly approaching contacts
        for (int i = 1; i < d; ++i)
          p.q[a * d + i] = normal(gen);
        p.mu.push_back(mu_value >= 0.0 ? mu_value : uniform(gen));
      }
    return p;
  }

  LocalProblem to_sparse(const LocalProblem &p)
  {
    LocalProblem s = p;
    s.storage = MatrixStorage::sparse;
    s.W_sparse.rows = s.W_sparse.cols = p.size();
    s.W_sparse.row_start = {0};
    for (int i = 0; i < p.size(); ++i)
      {
        for (int j = 0; j < p.size(); ++j)
          if (p.W_dense(i, j) != 0.0)
            {
              s.W_sparse.column_index.push_back(j);
              s.W_sparse.values.push_back(p.W_dense(i, j));
            }
        s.W_sparse.row_start.push_back(static_cast<int>(s.W_sparse.values.size()));
      }
    s.W_dense = DenseMatrix();
    return s;
  }

  SolverResult solve_and_check(const LocalProblem &p, const std::string &solver, double tol, std::vector<double> &r)
  {
    SolverOptions options;
    options.solver = *solver_kind_from_name(solver);
    options.tolerance = tol;
    options.max_iterations = 20000;
    options.time_limit_seconds = 20.0;
    std::vector<double> u;
    const SolverResult result = solve(p, r, u, options);
    BOOST_TEST_CONTEXT("solver " << solver)
    {
      BOOST_TEST(to_string(result.status) == "converged");
      BOOST_TEST(result.error <= tol);
      // The reported error is that of the returned r.
      BOOST_TEST(compute_error(p, r) == result.error, boost::test_tools::tolerance(1e-6));
      check_coulomb_solution(p, r, u, 1e3 * tol);
    }
    return result;
  }
} // namespace

BOOST_AUTO_TEST_CASE(random_well_conditioned_3d_and_2d)
{
  for (int d : {2, 3})
    for (unsigned seed : {1u, 2u, 3u})
      {
        BOOST_TEST_CONTEXT("d = " << d << ", seed " << seed)
        {
          const LocalProblem p = random_problem(d, 12, 3 * d * 12, seed);
          for (const std::string &solver : available_solvers())
            {
              std::vector<double> r;
              solve_and_check(p, solver, 1e-10, r);
            }
          // Dense and sparse storage give the same solution (W positive definite: r unique).
          std::vector<double> r_dense, r_sparse;
          solve_and_check(p, "alart_curnier", 1e-12, r_dense);
          solve_and_check(to_sparse(p), "alart_curnier", 1e-12, r_sparse);
          for (std::size_t i = 0; i < r_dense.size(); ++i)
            BOOST_CHECK_SMALL(r_dense[i] - r_sparse[i], 1e-8);
        }
      }
}

BOOST_AUTO_TEST_CASE(singular_delassus_redundant_contacts)
{
  // 10 contacts in 3D on 12 degrees of freedom: W (30 × 30) has rank 12.
  for (unsigned seed : {4u, 5u})
    {
      const LocalProblem p = random_problem(3, 10, 12, seed);
      for (const std::string &solver : available_solvers())
        {
          std::vector<double> r;
          solve_and_check(p, solver, 1e-8, r);
        }
      std::vector<double> r;
      solve_and_check(to_sparse(p), "alart_curnier", 1e-8, r);
    }
  // The simplest redundancy: the same contact twice (two identical rows blocks of H).
  LocalProblem p;
  p.dimension = 3;
  p.number_of_contacts = 2;
  p.W_dense = DenseMatrix(6, 6);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 3; ++i)
        p.W_dense(3 * a + i, 3 * b + i) = 1.0;
  p.q = {-1.0, 0.2, 0.0, -1.0, 0.2, 0.0};
  p.mu = {0.5, 0.5};
  for (const std::string &solver : available_solvers())
    {
      std::vector<double> r;
      solve_and_check(p, solver, 1e-10, r);
      // Only the sum of the two reactions is determined: it must be (1, −0.2, 0).
      BOOST_CHECK_SMALL(r[0] + r[3] - 1.0, 1e-8);
      BOOST_CHECK_SMALL(r[1] + r[4] + 0.2, 1e-8);
    }
}

BOOST_AUTO_TEST_CASE(ill_conditioned_delassus)
{
  // Stiff and soft contacts together: contact scales spread over 8 orders of magnitude.
  LocalProblem p = random_problem(3, 8, 36, 7);
  const int n = p.size();
  std::vector<double> s(n);
  for (int i = 0; i < n; ++i)
    s[i] = std::pow(10.0, -4.0 + 8.0 * (i / 3) / 7.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      p.W_dense(i, j) *= s[i] * s[j];
  for (int i = 0; i < n; ++i)
    p.q[i] *= s[i];
  // (The pure Newton method stalls near 2e-8 here; the default driver's NSGS phases finish the job.)
  for (const std::string &solver : {"alart_curnier", "nsgs"})
    {
      std::vector<double> r;
      solve_and_check(p, solver, 1e-10, r);
    }
}

BOOST_AUTO_TEST_CASE(extreme_scales)
{
  // r(αW, βq) = (β/α) r(W, q): solve at scales 1e±8 and compare with the unit-scale solution.
  // Small μ and a well-conditioned W so that the solution is unique (Coulomb problems with large μ
  // may have several solutions, and different solvers may find different ones).
  const LocalProblem base = random_problem(3, 10, 120, 11, 0.1);
  std::vector<double> r_base;
  solve_and_check(base, "alart_curnier", 1e-14, r_base);
  // The FCLIB measure normalises by max(‖q‖, ‖r‖, ‖u‖), which mixes force and velocity units: when
  // ‖r‖ and ‖u‖ differ by many orders of magnitude a small error admits a large relative error in r.
  // A tolerance of 1e-14 (reached by Newton's quadratic convergence) keeps the comparison meaningful.
  for (double alpha : {1e-8, 1.0, 1e8})
    for (double beta : {1e-8, 1.0, 1e8})
      {
        if (beta / alpha < 1e-12)
          continue; // r ~ 1e-16 ‖q‖: the measure then bounds r's relative error by only 1e-14·1e16

        BOOST_TEST_CONTEXT("alpha " << alpha << " beta " << beta)
        {
          LocalProblem p = base;
          for (double &w : p.W_dense.values)
            w *= alpha;
          for (double &q : p.q)
            q *= beta;
          for (const std::string &solver : {"alart_curnier", "alart_curnier_pure"})
            {
              std::vector<double> r;
              solve_and_check(p, solver, 1e-14, r);
              for (std::size_t i = 0; i < r.size(); ++i)
                // error ≤ 1e-14 bounds an r error on sliding contacts only by ~1e-14·max(‖q‖,‖u‖)/‖r‖·‖r‖,
                // i.e. ~1e-6 relative when u ~ 1e8 r (α = 1e8): the comparison allows 1e-5.
                BOOST_CHECK_SMALL(r[i] * alpha / beta - r_base[i], 1e-5);
            }
        }
      }
}

BOOST_AUTO_TEST_CASE(zero_contacts)
{
  LocalProblem p;
  p.dimension = 3;
  p.number_of_contacts = 0;
  std::vector<double> r{1.0}, u;
  const SolverResult result = solve(p, r, u);
  BOOST_TEST(to_string(result.status) == "converged");
  BOOST_TEST(r.empty());
  BOOST_TEST(u.empty());
  BOOST_TEST(result.error == 0.0);
}

BOOST_AUTO_TEST_CASE(warm_start_from_the_solution)
{
  const LocalProblem p = random_problem(3, 15, 60, 13);
  std::vector<double> r;
  solve_and_check(p, "alart_curnier", 1e-12, r);
  std::vector<double> u;
  SolverOptions options;
  options.tolerance = 1e-10;
  const SolverResult again = solve(p, r, u, options);
  BOOST_TEST(to_string(again.status) == "converged");
  BOOST_TEST(again.iterations == 0);
}

BOOST_AUTO_TEST_CASE(limits_are_respected_and_nothing_throws)
{
  const LocalProblem p = random_problem(3, 40, 60, 17);
  for (const std::string &solver : available_solvers())
    {
      std::vector<double> r, u;
      SolverOptions options;
      options.solver = *solver_kind_from_name(solver);
      options.tolerance = 1e-15;
      options.max_iterations = 2;
      SolverResult result;
      BOOST_CHECK_NO_THROW(result = solve(p, r, u, options));
      BOOST_TEST(to_string(result.status) == "not_converged");
      BOOST_TEST(result.error > 1e-15);
      BOOST_TEST(std::isfinite(result.error));
      BOOST_TEST(compute_error(p, r) == result.error, boost::test_tools::tolerance(1e-6));
    }
  // A tolerance of 0 cannot be met: the time limit stops the solver.
  std::vector<double> r, u;
  SolverOptions options;
  options.tolerance = 0.0;
  options.max_iterations = 1000000000;
  options.time_limit_seconds = 0.2;
  const SolverResult result = solve(p, r, u, options);
  BOOST_TEST(result.seconds < 2.0);
  BOOST_TEST(to_string(result.status) != "converged");
}

BOOST_AUTO_TEST_CASE(bad_input_is_reported)
{
  LocalProblem p = random_problem(3, 2, 6, 19);
  std::vector<double> r, u;
  SolverOptions options;
  BOOST_TEST(!solver_kind_from_name("no_such_solver"));
  options.solver = static_cast<SolverKind>(17); // not a solver
  BOOST_CHECK_THROW(solve(p, r, u, options), percussion::InputError);
  p.mu[1] = -0.1;
  BOOST_CHECK_THROW(solve(p, r, u), percussion::InputError);
  p.mu[1] = 0.1;
  p.q.pop_back();
  BOOST_CHECK_THROW(solve(p, r, u), percussion::InputError);
}

BOOST_AUTO_TEST_CASE(global_form_condensation)
{
  // M = diag(2, 4, 1, 1) (CSR), H (4 × 3) for one 3D contact: W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w, by hand.
  GlobalProblem g;
  g.dimension = 3;
  g.number_of_contacts = 1;
  g.M = CsrMatrix::from_triplets(4, 4, {0, 1, 2, 3}, {0, 1, 2, 3}, {2.0, 4.0, 1.0, 1.0});
  g.H = CsrMatrix::from_triplets(4, 3, {0, 1, 2, 3}, {0, 0, 1, 2}, {1.0, 2.0, 1.0, 1.0});
  g.f = {-4.0, 0.0, 3.0, 0.0};
  g.w = {0.5, 0.0, 0.0};
  g.mu = {0.3};
  const LocalProblem p = condense_to_local(g);
  std::vector<double> W(9, 0.0);
  for (int i = 0; i < 3; ++i)
    for (int k = p.W_sparse.row_start[i]; k < p.W_sparse.row_start[i + 1]; ++k)
      W[i * 3 + p.W_sparse.column_index[k]] = p.W_sparse.values[k];
  // Column 0 of H is (1, 2, 0, 0): W_00 = 1/2 + 4/4 = 1.5; columns 1, 2 are unit vectors on unit masses.
  const std::vector<double> W_exact = {1.5, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int i = 0; i < 9; ++i)
    BOOST_CHECK_SMALL(W[i] - W_exact[i], 1e-15);
  // q = Hᵀ M⁻¹ f + w = (−4/2 + 0, 3, 0) + (0.5, 0, 0) = (−1.5, 3, 0).
  BOOST_CHECK_SMALL(p.q[0] + 1.5, 1e-15);
  BOOST_CHECK_SMALL(p.q[1] - 3.0, 1e-15);
  BOOST_CHECK_SMALL(p.q[2], 1e-15);
  // Sliding along +t1: r_N = 1.5/1.5 = 1, r_T = (−0.3, 0); and the global solve agrees.
  std::vector<double> r, v, u;
  const SolverResult result = solve(g, r, v, u);
  BOOST_TEST(to_string(result.status) == "converged");
  BOOST_CHECK_SMALL(r[0] - 1.0, 1e-10);
  BOOST_CHECK_SMALL(r[1] + 0.3, 1e-10);
  BOOST_CHECK_SMALL(r[2], 1e-10);
  // M v = H r + f and u = Hᵀ v + w.
  BOOST_CHECK_SMALL(2.0 * v[0] - (r[0] - 4.0), 1e-10);
  BOOST_CHECK_SMALL(u[0], 1e-10);
  BOOST_CHECK_SMALL(u[1] - 2.7, 1e-10);
}
