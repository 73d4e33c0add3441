#ifndef PERCUSSION_TIME_INTEGRATION_SYSTEM_ALGEBRA_H
#define PERCUSSION_TIME_INTEGRATION_SYSTEM_ALGEBRA_H

#include <deal.II/base/types.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/petsc_access.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>

#include <petscmat.h>

#include <functional>
#include <initializer_list>
#include <utility>

#include <vector>

/**
 * What every time integrator does with the matrices of LinearElastodynamicSystem and its Dirichlet
 * DoFs: build αM + βK, eliminate the Dirichlet rows and columns, solve with an eliminated matrix,
 * lift known values to the right-hand side, sum products over those DoFs (support-reaction work),
 * and evaluate the damping and smooth forces C v and f − K q − C v.
 */
namespace percussion::TimeIntegration::SystemAlgebra
{
  using Vector = dealii::PETScWrappers::MPI::Vector;
  using Dofs = std::vector<dealii::types::global_dof_index>;

  /// The PETSc handles, a matrix's identity, x = 0 on DoFs and the partition-keeping reinit, which
  /// the contact step shares (core/petsc_access.h).
  using PetscAccess::object_id;
  using PetscAccess::petsc;
  using PetscAccess::reinit_like;
  using PetscAccess::zero;

  /// A new matrix mass_factor·M + stiffness_factor·K, with the sparsity of K (which holds that of M).
  MatHandle scaled_sum(const LinearElastodynamicSystem &system, double mass_factor, double stiffness_factor);

  /**
   * Zeroes the rows and columns of @p dofs symmetrically, with the largest |diagonal entry| of
   * the matrix on their diagonal, so that the factorisation's pivoting is not disturbed; returns
   * that diagonal value.
   */
  double eliminate(Mat matrix, const Dofs &dofs);

  /// Zeroes the rows of @p dofs (their columns stay).
  void zero_rows(Mat matrix, const Dofs &dofs);

  /**
   * Exchanges the contents of @p a and @p b by exchanging their PETSc handles, in O(1). deal.II's
   * swap() copies the entries (VecSwap), which on a small model costs a step's mat-vec: the
   * integrators' step-to-step swaps (q ↔ q_new, …) use this one. Both must be non-ghosted
   * vectors of the same partition and communicator (checked).
   */
  void swap_storage(Vector &a, Vector &b);

  /**
   * The right-hand side of a system eliminated by eliminate() whose solution takes @p values on
   * @p dofs: rhs −= A·x_c with the unmodified matrix @p full (skipped when it is nullptr, i.e. all
   * values are 0) and x_c the vector of @p values; then rhs = @p diagonal × values on @p dofs.
   */
  void lift(Mat full, const std::vector<double> &values, const Dofs &dofs, double diagonal, Vector &x_c, Vector &work,
            Vector &rhs);

  /**
   * The inner products aᵢᵀbᵢ of the pairs @p pairs, into @p results (one per pair), with one
   * reduction over the ranks for all of them: a step's energy terms are a handful of products
   * whose separate reductions (and calls) cost more than their arithmetic on small models.
   */
  void inner_products(std::initializer_list<std::pair<const Vector *, const Vector *>> pairs, double *results,
                      MPI_Comm communicator);

  /// Σ over @p dofs (locally owned, all ranks summed) of a_i b_i.
  double inner_product(const Vector &a, const Vector &b, const Dofs &dofs, MPI_Comm communicator);

  /**
   * Solves A x = b with a matrix eliminated by eliminate() and zero values on @p dofs: @p b is
   * copied to @p scratch and zeroed there. @p x on entry is the initial guess (CG).
   */
  void solve_eliminated(IterationMatrixSolver &solver, const Vector &b, Vector &x, const Dofs &dofs, Vector &scratch);

  /// C v = α M v + β K v (+ the Kelvin–Voigt part) into @p result (@p work: scratch).
  void damping(const LinearElastodynamicSystem &system, const Vector &v, Vector &result, Vector &work);

  /**
   * X = 𝐑 S⁻¹ 𝐑ᵀ B for the columns @p B, with S⁻¹ applied by @p solve(B', X) and 𝐑 the rotations
   * of @p frames (large rotations: doc/theory.md, "Large rotations"); X = S⁻¹B where there are
   * no frames or all are the identity. B is not changed.
   */
  void solve_in_frames(const BodyFrames *frames, Mat B, Mat X, const std::function<void(Mat, Mat)> &solve);

  /// F = f − K q − C v into @p result (no f when @p force is nullptr; @p work: scratch).
  void smooth_force(const LinearElastodynamicSystem &system, const Vector &q, const Vector &v, const Vector *force,
                    Vector &result, Vector &work);
} // namespace percussion::TimeIntegration::SystemAlgebra

#endif
