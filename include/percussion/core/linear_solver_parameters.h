#ifndef PERCUSSION_CORE_LINEAR_SOLVER_PARAMETERS_H
#define PERCUSSION_CORE_LINEAR_SOLVER_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <string>

namespace percussion
{
  /// `Linear solver/Type`: how the iteration matrix is solved.
  enum class LinearSolverType
  {
    /// Direct up to LinearSolverParameters::direct_solver_dof_limit DoFs, CG above.
    automatic,
    /// A Cholesky factor computed once per step size.
    direct,
    /// Preconditioned conjugate gradients.
    cg
  };

  /// `Linear solver/Preconditioner`: the preconditioner of CG.
  enum class PreconditionerType
  {
    /// Chosen by the Simulator from the Courant number.
    automatic,
    jacobi,
    /// hypre BoomerAMG.
    boomeramg,
    /// PETSc smoothed aggregation.
    gamg,
    /// Trilinos ML smoothed aggregation.
    ml
  };

  /// `Linear solver/Direct solver package`: which sparse Cholesky factorises the matrix.
  enum class DirectSolverPackage
  {
    /// PETSc's own on one rank up to LinearSolverParameters::native_cholesky_dof_limit DoFs, MUMPS otherwise.
    automatic,
    mumps,
    /// PETSc's own (one MPI rank only).
    petsc
  };

  /**
   * The choice called @p name ("auto", "direct", "cg") in the parameter file.
   * @throws InputError naming 'Linear solver/Type' for any other name.
   */
  LinearSolverType linear_solver_type_from_name(const std::string &name);
  /**
   * The choice called @p name ("auto", "jacobi", "boomeramg", "gamg", "ml") in the parameter file.
   * @throws InputError naming 'Linear solver/Preconditioner' for any other name.
   */
  PreconditionerType preconditioner_type_from_name(const std::string &name);
  /// The name of @p type in the parameter file.
  std::string preconditioner_type_name(PreconditionerType type);
  /**
   * The choice called @p name ("auto", "mumps", "petsc") in the parameter file.
   * @throws InputError naming 'Linear solver/Direct solver package' for any other name.
   */
  DirectSolverPackage direct_solver_package_from_name(const std::string &name);

  /**
   * `subsection Linear solver`: how the iteration matrix Ŵ = M + hθC + h²θ²K is solved.
   * See doc/user_guide.md, "Linear solver", for the measurements behind the defaults: a stored
   * MUMPS Cholesky (LDLᵀ) factor pays off for many solves per step and for small to medium
   * meshes; CG with Jacobi (or BoomerAMG) is as fast and much leaner from about 1e5 DoFs when Ŵ
   * is mass-dominated.
   */
  struct LinearSolverParameters
  {
    /// Direct (a Cholesky factor, computed once per step size), CG, or auto.
    LinearSolverType type = LinearSolverType::automatic;
    /// For CG; automatic is resolved by the Simulator from the Courant number.
    PreconditionerType preconditioner = PreconditionerType::automatic;
    /// auto: ml above this Courant number c h / Δx, jacobi below.
    double amg_courant_number = 8;
    /// Relative residual tolerance of CG.
    double tolerance = 1e-12;
    /// Iteration limit of CG; exceeding it is an error, never silent.
    unsigned int max_iterations = 2000;
    /// "auto" uses the direct solver up to this number of DoFs and CG above.
    unsigned int direct_solver_dof_limit = 150000;
    /// Factorisation package of the direct path.
    DirectSolverPackage direct_package = DirectSolverPackage::automatic;
    /// "auto" uses PETSc's own Cholesky on one rank up to this number of DoFs, MUMPS above
    /// (0 in the parameter file: chosen by dimension when the run's parameters are read).
    unsigned int native_cholesky_dof_limit = 20000;

    static void declare_parameters(dealii::ParameterHandler &prm);
    void parse_parameters(dealii::ParameterHandler &prm);
  };
} // namespace percussion

#endif
