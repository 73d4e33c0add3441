#include <deal.II/base/timer.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/petsc_check.h>

#include <petscmat.h>

#include <cmath>
#include <string>

namespace percussion
{
  IterationMatrixSolver::IterationMatrixSolver(const LinearSolverParameters &parameters,
                                               MPI_Comm communicator)
    : parameters(parameters)
    , communicator(communicator)
  {
    PERCUSSION_PETSC_CALL(KSPCreate(communicator, &ksp));
  }

  IterationMatrixSolver::~IterationMatrixSolver()
  {
    if (ksp != nullptr)
      KSPDestroy(&ksp);
  }

  void IterationMatrixSolver::set_matrix(Mat matrix, const unsigned int n_dofs)
  {
    dealii::Timer timer;
    use_direct = parameters.type == "direct" ||
                 (parameters.type == "auto" && n_dofs <= parameters.direct_solver_dof_limit);

    // Ŵ is symmetric positive definite: telling PETSc lets MUMPS compute an LDLᵀ factor, which
    // stores half the entries of an LU factor (LINEAR_SOLVERS.md, item 2).
    PERCUSSION_PETSC_CALL(MatSetOption(matrix, MAT_SYMMETRIC, PETSC_TRUE));
    PERCUSSION_PETSC_CALL(MatSetOption(matrix, MAT_SPD, PETSC_TRUE));

    PERCUSSION_PETSC_CALL(KSPReset(ksp));
    PERCUSSION_PETSC_CALL(KSPSetOperators(ksp, matrix, matrix));
    PC pc;
    PERCUSSION_PETSC_CALL(KSPGetPC(ksp, &pc));
    if (use_direct)
      {
        PERCUSSION_PETSC_CALL(KSPSetType(ksp, KSPPREONLY));
        PERCUSSION_PETSC_CALL(PCSetType(pc, PCCHOLESKY));
        PERCUSSION_PETSC_CALL(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
        PERCUSSION_PETSC_CALL(PCFactorSetUpMatSolverType(pc));
        Mat factor;
        PERCUSSION_PETSC_CALL(PCFactorGetMatrix(pc, &factor));
        // Sequential analysis (ICNTL(28) = 1): Debian's parallel MUMPS fails the parallel analysis
        // with INFOG(1) = -38 (LINEAR_SOLVERS.md, item 4).
        PERCUSSION_PETSC_CALL(MatMumpsSetIcntl(factor, 28, 1));
        // Silence MUMPS' own printing.
        PERCUSSION_PETSC_CALL(MatMumpsSetIcntl(factor, 4, 0));
      }
    else
      {
        PERCUSSION_PETSC_CALL(KSPSetType(ksp, KSPCG));
        if (parameters.preconditioner == "boomeramg")
          {
            PERCUSSION_PETSC_CALL(PCSetType(pc, PCHYPRE));
            PERCUSSION_PETSC_CALL(PCHYPRESetType(pc, "boomeramg"));
          }
        else
          PERCUSSION_PETSC_CALL(PCSetType(pc, PCJACOBI));
        PERCUSSION_PETSC_CALL(KSPSetTolerances(ksp, parameters.tolerance, 0.0, PETSC_DEFAULT,
                                               parameters.max_iterations));
        PERCUSSION_PETSC_CALL(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
        PERCUSSION_PETSC_CALL(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
      }
    // The matrix does not change while h is constant: keep the factor / preconditioner.
    PERCUSSION_PETSC_CALL(KSPSetReusePreconditioner(ksp, PETSC_TRUE));
    PERCUSSION_PETSC_CALL(KSPSetUp(ksp));

    if (use_direct)
      {
        Mat factor;
        PERCUSSION_PETSC_CALL(PCFactorGetMatrix(pc, &factor));
        PetscInt infog1 = 0;
        PERCUSSION_PETSC_CALL(MatMumpsGetInfog(factor, 1, &infog1));
        if (infog1 < 0)
          {
            PetscInt infog2 = 0;
            MatMumpsGetInfog(factor, 2, &infog2);
            throw SolverError("MUMPS factorisation of the iteration matrix failed: INFOG(1) = " +
                              std::to_string(infog1) + ", INFOG(2) = " + std::to_string(infog2) +
                              " (see the MUMPS user guide).");
          }
        PCFailedReason reason;
        PERCUSSION_PETSC_CALL(PCGetFailedReason(pc, &reason));
        if (reason != PC_NOERROR)
          throw SolverError("The factorisation of the iteration matrix failed (PETSc PC reason " +
                            std::to_string(static_cast<int>(reason)) + ").");
      }
    last_setup_seconds = timer.wall_time();
  }

  void IterationMatrixSolver::solve(const dealii::PETScWrappers::MPI::Vector &b,
                                    dealii::PETScWrappers::MPI::Vector &x)
  {
    PERCUSSION_PETSC_CALL(KSPSolve(ksp, b, x));
    KSPConvergedReason reason;
    PERCUSSION_PETSC_CALL(KSPGetConvergedReason(ksp, &reason));
    PetscInt its = 0;
    PERCUSSION_PETSC_CALL(KSPGetIterationNumber(ksp, &its));
    iterations = use_direct ? 1 : static_cast<unsigned int>(its);
    if (reason < 0)
      {
        PetscReal residual = 0;
        KSPGetResidualNorm(ksp, &residual);
        throw SolverError("The linear solve with the iteration matrix did not converge (" +
                          description() + ", PETSc reason " + std::to_string(static_cast<int>(reason)) +
                          ", " + std::to_string(its) + " iterations, residual " +
                          std::to_string(residual) + ").");
      }
  }

  void IterationMatrixSolver::solve(Mat B, Mat X)
  {
    PERCUSSION_PETSC_CALL(KSPMatSolve(ksp, B, X));
    KSPConvergedReason reason;
    PERCUSSION_PETSC_CALL(KSPGetConvergedReason(ksp, &reason));
    if (reason < 0)
      throw SolverError("The multiple-right-hand-side solve with the iteration matrix did not converge (" +
                        description() + ", PETSc reason " + std::to_string(static_cast<int>(reason)) + ").");
  }

  std::string IterationMatrixSolver::description() const
  {
    if (use_direct)
      return "direct (MUMPS Cholesky, factorised once per step size)";
    return "cg + " + parameters.preconditioner;
  }
} // namespace percussion
