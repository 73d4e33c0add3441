// Requirement: the SystemAlgebra helpers that every time integrator uses with
// the matrices of LinearElastodynamicSystem and its Dirichlet DoFs do what
// include/percussion/time_integration/system_algebra.h documents, checked on a 3-DoF system given
// directly as PETSc matrices (no mesh, no simulation) against dense values computed by hand:
//  - scaled_sum() is the new matrix aM + bK (also for b = 0) and leaves M and K unchanged;
//  - eliminate() zeroes the rows and columns of the Dirichlet DoFs, puts the largest |diagonal
//    entry| of the matrix on their diagonal and returns it; the other entries are unchanged;
//    zero_rows() zeroes only the rows; zero() zeroes only the listed vector entries;
//  - lift() turns f into the right-hand side f − A x_c (x_c = g on the Dirichlet DoFs), with
//    d·g on the Dirichlet rows, so that the solve with the eliminated matrix returns the solution
//    of the full system A x = f + R with x = g on the Dirichlet DoFs and R = 0 elsewhere;
//    with a null matrix and zero values it only zeroes those rows, like solve_eliminated();
//  - inner_product() (the support-reaction work) is Σ over the listed DoFs of a_i b_i, here the
//    work of the reactions R = A x − f of the lifted solve;
//  - damping() is C v = αMv + βKv (also for β = 0) and smooth_force() is f − Kq − Cv (also
//    without f);
//  - inner_products() are the pairs' dot products; swap_storage() exchanges two vectors'
//    contents exactly and refuses vectors of different partitions.
#define BOOST_TEST_MODULE time_integration_system_algebra
#include "../../mpi_test_fixture.h"

#include "small_system_tools.h"

#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/linear_solver_parameters.h>
#include <percussion/time_integration/system_algebra.h>

#include <petscmat.h>

#include <algorithm>
#include <cmath>
#include <string>

using namespace small_system;
using namespace percussion;
using namespace percussion::TimeIntegration;

namespace
{
  // The 3-DoF test system: M and K symmetric positive definite (diagonally dominant), every entry
  // non-zero (full common sparsity pattern, as scaled_sum() requires), with Rayleigh damping and a
  // force.
  const Dense mass{{4.0, 1.0, 0.5}, {1.0, 3.0, 0.25}, {0.5, 0.25, 2.0}};
  const Dense stiffness{{200.0, -100.0, 10.0}, {-100.0, 300.0, -120.0}, {10.0, -120.0, 150.0}};
  const double alpha = 0.3, beta = 2e-3;
  const DVec force{1.0, -0.5, 2.0};
  const DVec q{0.01, -0.02, 0.03}, v{0.5, -0.2, 0.8};
  // The factors of an iteration matrix aM + bK (a Moreau–Jean Ŵ = (1 + hθα)M + (hθβ + h²θ²)K).
  const double a = 1.7, b = 0.04;

  // Tolerance, relative to the size of the quantity (or of the terms summed into it): every value
  // here is a product or sum of at most a few dozen floating-point operations on entries of size
  // 0.1–300, so the round-off is a few ulps, ~1e-15 relative; the solves are Cholesky factorisations
  // of 1–2 × 1–2 blocks with condition numbers below 100, i.e. ≤ ~1e-14. 1e-13 leaves an order of
  // margin, while any wrong term (a missing lift, a wrong sign or factor, the wrong diagonal) changes
  // the result by far more than 1e-4 relative with these values.
  const double tolerance = 1e-13;

  LinearSolverParameters direct_solver()
  {
    LinearSolverParameters p;
    p.type = LinearSolverType::direct; // a stored Cholesky factor: exact to round-off
    return p;
  }

  /// The entries of a (small, one-process) PETSc matrix.
  Dense entries(Mat A)
  {
    PetscInt rows, columns;
    MatGetSize(A, &rows, &columns);
    Dense D(rows, DVec(columns));
    for (PetscInt i = 0; i < rows; ++i)
      for (PetscInt j = 0; j < columns; ++j)
        {
          PetscScalar x;
          MatGetValues(A, 1, &i, 1, &j, &x);
          D[i][j] = x;
        }
    return D;
  }

  double max_abs(const Dense &A)
  {
    double m = 0;
    for (const auto &row : A)
      for (const double x : row)
        m = std::max(m, std::abs(x));
    return m;
  }

  /// max |A_ij − B_ij| / max |B_ij|.
  double relative_difference(const Dense &A, const Dense &B)
  {
    double d = 0;
    for (std::size_t i = 0; i < A.size(); ++i)
      for (std::size_t j = 0; j < A[i].size(); ++j)
        d = std::max(d, std::abs(A[i][j] - B[i][j]));
    return d / max_abs(B);
  }

  bool contains(const SystemAlgebra::Dofs &dofs, const std::size_t i)
  {
    return std::find(dofs.begin(), dofs.end(), i) != dofs.end();
  }

  PetscVector zeros(const unsigned int n = 3)
  {
    return petsc_vector(DVec(n, 0.0));
  }

  std::string dof_list(const SystemAlgebra::Dofs &dofs)
  {
    std::string s;
    for (const auto i : dofs)
      s += (s.empty() ? "" : ",") + std::to_string(i);
    return "{" + s + "}";
  }
} // namespace

BOOST_AUTO_TEST_CASE(scaled_sum_is_a_M_plus_b_K)
{
  const SmallSystem s(mass, stiffness, alpha, beta, force);
  for (const auto &[mass_factor, stiffness_factor] : {std::pair{a, b}, std::pair{2.5, 0.0}})
    {
      MatHandle S = SystemAlgebra::scaled_sum(s.system, mass_factor, stiffness_factor);
      const double error = relative_difference(entries(S), lin(mass_factor, mass, stiffness_factor, stiffness));
      BOOST_TEST(error <= tolerance, "scaled_sum(" << mass_factor << ", " << stiffness_factor << "): error " << error);
      BOOST_TEST_MESSAGE("scaled_sum(" << mass_factor << ", " << stiffness_factor << "): relative error " << error);
    }
  // A new matrix: M and K themselves are unchanged (exactly).
  BOOST_TEST(relative_difference(entries(SystemAlgebra::petsc(*s.petsc_M)), mass) == 0.0);
  BOOST_TEST(relative_difference(entries(SystemAlgebra::petsc(*s.petsc_K)), stiffness) == 0.0);
}

BOOST_AUTO_TEST_CASE(eliminate_zeroes_rows_and_columns_with_the_largest_diagonal)
{
  const SmallSystem s(mass, stiffness, alpha, beta, force);
  const Dense A = lin(a, mass, b, stiffness); // diagonal 14.8, 17.1, 9.4
  // {1}: the largest diagonal entry is the eliminated one; {0, 2}: it is the one that stays.
  for (const SystemAlgebra::Dofs &dofs : {SystemAlgebra::Dofs{1}, SystemAlgebra::Dofs{0, 2}})
    {
      BOOST_TEST_CONTEXT("Dirichlet DoFs " << dof_list(dofs))
      {
        MatHandle W = SystemAlgebra::scaled_sum(s.system, a, b);
        const Dense before = entries(W);
        const double diagonal = SystemAlgebra::eliminate(W, dofs);
        const double largest = std::max({std::abs(before[0][0]), std::abs(before[1][1]), std::abs(before[2][2])});
        BOOST_TEST(diagonal == largest); // the same entry, read back exactly
        BOOST_TEST(std::abs(diagonal - 17.1) <= tolerance * 17.1);
        const Dense after = entries(W);
        for (std::size_t i = 0; i < 3; ++i)
          for (std::size_t j = 0; j < 3; ++j)
            {
              // Exact: eliminated entries are set, the others are not touched.
              const double expected = contains(dofs, i) || contains(dofs, j) ? (i == j ? diagonal : 0.0) : before[i][j];
              BOOST_TEST(after[i][j] == expected, "entry (" << i << ", " << j << ")");
            }
        BOOST_TEST(relative_difference(before, A) <= tolerance);
      }
    }
}

BOOST_AUTO_TEST_CASE(zero_rows_and_zero_vector_entries)
{
  const SmallSystem s(mass, stiffness, alpha, beta, force);
  const SystemAlgebra::Dofs dofs{0, 2};
  MatHandle W = SystemAlgebra::scaled_sum(s.system, a, b);
  const Dense before = entries(W);
  SystemAlgebra::zero_rows(W, dofs);
  const Dense after = entries(W);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      BOOST_TEST(after[i][j] == (contains(dofs, i) ? 0.0 : before[i][j]), "entry (" << i << ", " << j << ")");

  PetscVector x = petsc_vector(v);
  SystemAlgebra::zero(x, dofs);
  BOOST_TEST(to_std(x) == (DVec{0.0, v[1], 0.0}), boost::test_tools::per_element());
  SystemAlgebra::zero(x, {}); // no DoFs: unchanged
  BOOST_TEST(to_std(x) == (DVec{0.0, v[1], 0.0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(lifted_eliminated_solve_satisfies_the_full_system)
{
  const SmallSystem s(mass, stiffness, alpha, beta, force);
  const Dense A = lin(a, mass, b, stiffness);
  struct Case
  {
    SystemAlgebra::Dofs dofs;
    DVec values;
  };
  for (const Case &c : {Case{{1}, {0.05}}, Case{{0, 2}, {0.01, -0.02}}})
    {
      BOOST_TEST_CONTEXT("Dirichlet DoFs " << dof_list(c.dofs))
      {
        MatHandle full = SystemAlgebra::scaled_sum(s.system, a, b);
        MatHandle eliminated = SystemAlgebra::scaled_sum(s.system, a, b);
        const double diagonal = SystemAlgebra::eliminate(eliminated, c.dofs);

        // Hand: x_D = g, x_F = A_FF⁻¹(f_F − A_FD g); rhs_F = f_F − A_FD g, rhs_D = d g.
        DVec x_c(3, 0.0);
        for (std::size_t k = 0; k < c.dofs.size(); ++k)
          x_c[c.dofs[k]] = c.values[k];
        const DVec lifted = lin(1.0, force, -1.0, matvec(A, x_c));
        DVec rhs_hand = lifted;
        for (std::size_t k = 0; k < c.dofs.size(); ++k)
          rhs_hand[c.dofs[k]] = diagonal * c.values[k];
        std::vector<std::size_t> free;
        for (std::size_t i = 0; i < 3; ++i)
          if (!contains(c.dofs, i))
            free.push_back(i);
        Dense A_FF(free.size(), DVec(free.size()));
        DVec b_F(free.size());
        for (std::size_t i = 0; i < free.size(); ++i)
          {
            b_F[i] = lifted[free[i]];
            for (std::size_t j = 0; j < free.size(); ++j)
              A_FF[i][j] = A[free[i]][free[j]];
          }
        const DVec x_F = solve(A_FF, b_F);
        DVec x_hand = x_c;
        for (std::size_t i = 0; i < free.size(); ++i)
          x_hand[free[i]] = x_F[i];

        PetscVector prescribed = zeros(), work = zeros(), rhs = petsc_vector(force);
        SystemAlgebra::lift(full, c.values, c.dofs, diagonal, prescribed, work, rhs);
        BOOST_TEST(to_std(prescribed) == x_c, boost::test_tools::per_element());
        // Scale of the terms of f − A x_c.
        const double rhs_scale = norm(force) + norm(matvec(A, x_c)) + diagonal * norm(c.values);
        const double rhs_error = norm(lin(1.0, to_std(rhs), -1.0, rhs_hand)) / rhs_scale;
        BOOST_TEST(rhs_error <= tolerance);

        IterationMatrixSolver solver(direct_solver(), MPI_COMM_SELF);
        solver.set_matrix(eliminated, 3);
        PetscVector x = zeros();
        solver.solve(rhs, x);
        const DVec x_std = to_std(x);
        const double solution_error = relative_error(x_std, x_hand);
        BOOST_TEST(solution_error <= tolerance);
        // The full system: x = g on D, and A x = f off D (the residual there is round-off).
        for (std::size_t k = 0; k < c.dofs.size(); ++k)
          BOOST_TEST(std::abs(x_std[c.dofs[k]] - c.values[k]) <= tolerance * std::abs(c.values[k]));
        const DVec reaction = lin(1.0, matvec(A, x_std), -1.0, force);
        double off_dirichlet = 0;
        for (const auto i : free)
          off_dirichlet = std::max(off_dirichlet, std::abs(reaction[i]));
        const double residual_scale = max_abs(A) * norm(x_std) + norm(force);
        BOOST_TEST(off_dirichlet <= tolerance * residual_scale);

        // Support-reaction work: R = A x − f is the reaction, non-zero only on D; its work with
        // the velocity v is Σ_D R_i v_i (computed by PETSc: MatMult with the full matrix).
        PetscVector R = zeros();
        MatMult(full, SystemAlgebra::petsc(x), SystemAlgebra::petsc(R));
        R.add(-1.0, petsc_vector(force));
        const PetscVector velocity = petsc_vector(v);
        const DVec reaction_hand = lin(1.0, matvec(A, x_hand), -1.0, force);
        double work_hand = 0, work_scale = 0;
        for (const auto i : c.dofs)
          {
            work_hand += reaction_hand[i] * v[i];
            work_scale += std::abs(reaction_hand[i] * v[i]);
          }
        const double reaction_work = SystemAlgebra::inner_product(R, velocity, c.dofs, MPI_COMM_SELF);
        const double work_error = std::abs(reaction_work - work_hand) / work_scale;
        BOOST_TEST(work_error <= tolerance, "reaction work " << reaction_work << ", by hand " << work_hand);
        // With every DoF listed it is the full RᵀV, the same value up to the round-off residual off D.
        const double all_dofs = SystemAlgebra::inner_product(R, velocity, {0, 1, 2}, MPI_COMM_SELF);
        BOOST_TEST(std::abs(all_dofs - work_hand) <= tolerance * (work_scale + residual_scale * norm(v)));

        BOOST_TEST_MESSAGE("lift/solve, Dirichlet DoFs " << dof_list(c.dofs) << ": diagonal " << diagonal
                                                         << ", rhs error " << rhs_error << ", solution error "
                                                         << solution_error << ", max |A x − f| off D " << off_dirichlet
                                                         << ", reaction work error " << work_error);
      }
    }
}

BOOST_AUTO_TEST_CASE(zero_values_need_no_matrix_and_solve_eliminated_agrees)
{
  const SmallSystem s(mass, stiffness, alpha, beta, force);
  const Dense A = lin(a, mass, b, stiffness);
  const SystemAlgebra::Dofs dofs{1};
  MatHandle eliminated = SystemAlgebra::scaled_sum(s.system, a, b);
  const double diagonal = SystemAlgebra::eliminate(eliminated, dofs);
  IterationMatrixSolver solver(direct_solver(), MPI_COMM_SELF);
  solver.set_matrix(eliminated, 3);

  // lift(nullptr, 0, ...): rhs = f with 0 on D; x_c and work are not used.
  PetscVector unused_c = zeros(), unused_work = zeros(), rhs = petsc_vector(force);
  SystemAlgebra::lift(nullptr, {0.0}, dofs, diagonal, unused_c, unused_work, rhs);
  BOOST_TEST(to_std(rhs) == (DVec{force[0], 0.0, force[2]}), boost::test_tools::per_element());

  // Hand: x_1 = 0, [x_0, x_2] = A_FF⁻¹ [f_0, f_2].
  const DVec x_F = solve({{A[0][0], A[0][2]}, {A[2][0], A[2][2]}}, {force[0], force[2]});
  const DVec x_hand{x_F[0], 0.0, x_F[1]};

  PetscVector x = zeros();
  solver.solve(rhs, x);
  const double lifted_error = relative_error(to_std(x), x_hand);
  BOOST_TEST(lifted_error <= tolerance);

  // solve_eliminated: b is copied to scratch and zeroed on D; b itself is left as it was.
  const PetscVector f = petsc_vector(force);
  PetscVector scratch = zeros(), y = petsc_vector(v); // y: initial guess (ignored by the direct solver)
  SystemAlgebra::solve_eliminated(solver, f, y, dofs, scratch);
  BOOST_TEST(to_std(f) == force, boost::test_tools::per_element());
  BOOST_TEST(to_std(scratch) == (DVec{force[0], 0.0, force[2]}), boost::test_tools::per_element());
  const double eliminated_error = relative_error(to_std(y), x_hand);
  BOOST_TEST(eliminated_error <= tolerance);
  BOOST_TEST(to_std(y)[1] == 0.0);
  BOOST_TEST_MESSAGE("zero values: lifted solve error " << lifted_error << ", solve_eliminated error "
                                                        << eliminated_error);
}

BOOST_AUTO_TEST_CASE(inner_product_sums_over_the_listed_dofs)
{
  const PetscVector x = petsc_vector({1.5, -2.0, 0.25}), y = petsc_vector({4.0, 3.0, -8.0});
  // Exact: each product and the sum of two are exact in binary floating point.
  BOOST_TEST(SystemAlgebra::inner_product(x, y, {0, 2}, MPI_COMM_SELF) == 1.5 * 4.0 + 0.25 * -8.0);
  BOOST_TEST(SystemAlgebra::inner_product(x, y, {1}, MPI_COMM_SELF) == -6.0);
  BOOST_TEST(SystemAlgebra::inner_product(x, y, {}, MPI_COMM_SELF) == 0.0);
}

BOOST_AUTO_TEST_CASE(inner_products_and_swap_storage)
{
  // Five entries: the four-way partial sums and the remainder both take part.
  const DVec a{1.5, -2.0, 0.25, 3.0, -0.75}, b{0.5, 4.0, -1.0, 2.5, 8.0}, c{-3.0, 1.0, 2.0, 0.5, 1.25};
  PetscVector A = petsc_vector(a), B = petsc_vector(b), C = petsc_vector(c);
  double products[3];
  SystemAlgebra::inner_products({{&A, &B}, {&A, &A}, {&B, &C}}, products, MPI_COMM_SELF);
  BOOST_TEST(std::abs(products[0] - dot(a, b)) <= tolerance * (std::abs(dot(a, b)) + 10));
  BOOST_TEST(std::abs(products[1] - dot(a, a)) <= tolerance * dot(a, a));
  BOOST_TEST(std::abs(products[2] - dot(b, c)) <= tolerance * (std::abs(dot(b, c)) + 10));

  // swap_storage() exchanges the contents exactly; vectors of different partitions are refused.
  SystemAlgebra::swap_storage(A, C);
  BOOST_TEST((to_std(A) == c));
  BOOST_TEST((to_std(C) == a));
  A.add(1.0, B); // still usable: a + b where a was
  BOOST_TEST((to_std(A) == lin(1.0, c, 1.0, b)));
  PetscVector other = petsc_vector(DVec{1.0, 2.0, 3.0});
  BOOST_CHECK_THROW(SystemAlgebra::swap_storage(A, other), dealii::ExceptionBase);
  BOOST_TEST((to_std(other) == DVec{1.0, 2.0, 3.0}));
}

BOOST_AUTO_TEST_CASE(damping_and_smooth_force)
{
  for (const double stiffness_damping : {beta, 0.0})
    {
      BOOST_TEST_CONTEXT("beta = " << stiffness_damping)
      {
        const SmallSystem s(mass, stiffness, alpha, stiffness_damping, force);
        const Dense C = lin(alpha, mass, stiffness_damping, stiffness);
        const PetscVector q_petsc = petsc_vector(q), v_petsc = petsc_vector(v), f_petsc = petsc_vector(force);
        PetscVector result = zeros(), work = zeros();

        // C v = αMv + βKv; the scale of its terms is α‖Mv‖ + β‖Kv‖.
        SystemAlgebra::damping(s.system, v_petsc, result, work);
        const DVec Cv = matvec(C, v);
        const double Cv_scale = alpha * norm(matvec(mass, v)) + stiffness_damping * norm(matvec(stiffness, v));
        const double damping_error = norm(lin(1.0, to_std(result), -1.0, Cv)) / Cv_scale;
        BOOST_TEST(damping_error <= tolerance);

        // f − Kq − Cv, and −Kq − Cv without a force; relative to the size of the terms, since
        // they partly cancel.
        const DVec Kq = matvec(stiffness, q);
        const double scale = norm(force) + norm(Kq) + Cv_scale;
        SystemAlgebra::smooth_force(s.system, q_petsc, v_petsc, &f_petsc, result, work);
        const DVec expected = lin(1.0, lin(1.0, force, -1.0, Kq), -1.0, Cv);
        const double force_error = norm(lin(1.0, to_std(result), -1.0, expected)) / scale;
        BOOST_TEST(force_error <= tolerance);
        SystemAlgebra::smooth_force(s.system, q_petsc, v_petsc, nullptr, result, work);
        const DVec expected_unloaded = lin(-1.0, Kq, -1.0, Cv);
        const double unloaded_error = norm(lin(1.0, to_std(result), -1.0, expected_unloaded)) / scale;
        BOOST_TEST(unloaded_error <= tolerance);
        BOOST_TEST_MESSAGE("beta = " << stiffness_damping << ": C v error " << damping_error << ", f − Kq − Cv error "
                                     << force_error << ", −Kq − Cv error " << unloaded_error);
      }
    }
}
