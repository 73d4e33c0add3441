#ifndef PERCUSSION_CORE_ITERATION_MATRIX_SOLVER_H
#define PERCUSSION_CORE_ITERATION_MATRIX_SOLVER_H

#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/linear_solver_parameters.h>
#include <percussion/core/petsc_handle.h>

#include <petscksp.h>

#include <memory>
#include <string>
#include <vector>

namespace percussion
{
  /**
   * Solves with a scheme's iteration matrix, e.g. Ŵ = M + hθC + h²θ²K of the Moreau–Jean scheme
   * (doc/theory.md, "Eliminating q"), which is symmetric positive definite and constant while the
   * step size is constant.
   *
   * The direct path drives PETSc's KSP itself (KSPPREONLY + PCCHOLESKY with MUMPS) and keeps the
   * factor: set_matrix() factorises once, every solve() is a forward/backward substitution. This
   * avoids deal.II 9.4's SparseDirectMUMPS, which refactorises after any compress() and does not
   * report failed factorisations (doc/user_guide.md, "Linear solver"). Failures (MUMPS INFOG(1) < 0, CG not
   * converged, non-finite results) throw SolverError.
   *
   * On one MPI rank and below LinearSolverParameters::native_cholesky_dof_limit, the direct path
   * uses PETSc's own sparse Cholesky (nested-dissection ordering) instead of MUMPS: same factor,
   * much smaller fixed cost per solve, which is what small (1D, coarse 2D) models spend their
   * time in.
   *
   * The iterative path is CG with Jacobi, hypre BoomerAMG, PETSc GAMG or Trilinos ML (the two
   * smoothed-aggregation methods with the near-null space of set_near_null_space()), warm-started
   * from the vector passed in. ML runs on a copy of the matrix in Trilinos' Epetra format and is
   * applied inside PETSc's CG through a shell preconditioner.
   */
  class IterationMatrixSolver
  {
  public:
    IterationMatrixSolver(const LinearSolverParameters &parameters, MPI_Comm communicator);
    /// Defined where TrilinosML is complete.
    ~IterationMatrixSolver();
    IterationMatrixSolver(const IterationMatrixSolver &) = delete;
    IterationMatrixSolver &operator=(const IterationMatrixSolver &) = delete;

    /**
     * Uses @p matrix (global size @p n_dofs) from now on and factorises it (direct path) or sets
     * up the preconditioner (CG path). The matrix must stay alive and unchanged until the next call.
     */
    void set_matrix(Mat matrix, unsigned int n_dofs);

    /**
     * The near-null space of the operator for the smoothed-aggregation preconditioners ('gamg', 'ml'): for
     * elasticity the rigid-body modes (ElasticBody::rigid_body_modes()). Orthonormalised
     * here; attached to the matrix at the next set_matrix(). Ignored by the other solvers.
     * @p block_size: the number of consecutive DoFs of one node (the dimension when the DoFs are
     * numbered node by node, 1 otherwise), for nodal aggregation, and for the CG path's operator,
     * which is then multiplied through its block copy (BlockedMatrixProduct) with any
     * preconditioner.
     */
    void set_near_null_space(const std::vector<dealii::PETScWrappers::MPI::Vector> &modes, unsigned int block_size = 1);

    /// Solves Ŵ x = b. For CG, x on entry is the initial guess.
    void solve(const dealii::PETScWrappers::MPI::Vector &b, dealii::PETScWrappers::MPI::Vector &x);

    /**
     * Solves Ŵ X = B for the columns of the dense matrix B (MATDENSE, rows distributed like Ŵ):
     * one sweep through the stored factor for all right-hand sides (MUMPS multiple-RHS solve).
     * CG solves each column to the relative residual @p relative_tolerance where it is larger than
     * the configured 'Tolerance' (for approximations; 0: the configured one).
     */
    void solve(Mat B, Mat X, double relative_tolerance = 0);

    /// "direct (MUMPS Cholesky)" or "cg + jacobi" etc.
    std::string description() const;
    bool is_direct() const { return use_direct; }
    /// Iterations of the last solve (1 for the direct solver).
    unsigned int last_iterations() const { return iterations; }
    /// Wall time of the last set_matrix() (factorisation or preconditioner set-up).
    double setup_seconds() const { return last_setup_seconds; }
    /**
     * MiB the direct path's factor keeps, over all ranks: MUMPS' memory of the factorisation
     * (INFOG(22), MUMPS users' guide §5), or the stored entries and their indices of PETSc's own
     * Cholesky; 0 for CG.
     */
    double factor_memory_mib() const { return factor_mib; }

  private:
    /// Trilinos ML on an Epetra copy of the matrix (defined in the .cc: no Trilinos headers here).
    struct TrilinosML;
    void set_up_trilinos_ml(Mat matrix, PC pc);
    /// The direct path's factorisation: PETSc's own Cholesky or MUMPS, chosen by set_matrix().
    void set_up_factorisation(PC pc);
    /// The CG path: the preconditioner, the tolerances and the warm start.
    void set_up_cg(Mat matrix, PC pc);
    /// @throws SolverError when the factorisation of the direct path failed.
    void check_factorisation(PC pc) const;
    /// What factor_memory_mib() reports, measured after the factorisation. Collective.
    double measure_factor_memory(PC pc) const;
    /**
     * The MUMPS path of solve(B, X): when B is sparse (at most one entry in
     * sparse_right_hand_side_density nonzero), solves with B handed to MUMPS as a sparse right-hand
     * side, whose forward substitution MUMPS restricts to the factor's parts that the nonzeros reach.
     * @return false (nothing done) for a denser B. Collective.
     */
    bool solve_with_sparse_right_hand_sides(Mat B, Mat X);
    /// B is solved as sparse where at most one entry in this many is nonzero.
    static constexpr std::size_t sparse_right_hand_side_density = 10;

    LinearSolverParameters parameters;
    MPI_Comm communicator;
    /// The choices of @p parameters, read once by the constructor ('auto' preconditioner: Jacobi).
    LinearSolverType solver_type;
    PreconditionerType preconditioner;
    DirectSolverPackage direct_package;
    /// Declared before the KSP, whose shell preconditioner refers to it without a reference count:
    /// the KSP goes first.
    std::unique_ptr<TrilinosML> trilinos_ml;
    KspHandle ksp;
    MatNullSpaceHandle near_null_space;
    unsigned int node_block_size = 1;
    /// The orthonormalised near-null space's locally owned entries, mode after mode (for ML).
    std::vector<double> near_null_space_values;
    unsigned int near_null_space_dimension = 0;
    bool use_direct = true;
    bool use_native_cholesky = false;
    unsigned int iterations = 0;
    double last_setup_seconds = 0;
    double factor_mib = 0;
  };
} // namespace percussion

#endif
