#ifndef PERCUSSION_CONTACT_SOLVERS_GLOBAL_PETSC_SOLVER_H
#define PERCUSSION_CONTACT_SOLVERS_GLOBAL_PETSC_SOLVER_H

#include <percussion/contact_solvers/global_problem.h>
#include <percussion/contact_solvers/solver_options.h>

#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * Semismooth Newton method on the global form (global_problem.h) that never forms W: the unknowns
   * are (v, r) and each step solves the sparse saddle-point system
   *
   *     [ M               −H                ] [dv]   [ 0  ]
   *     [ G R Hᵀ    I − (1 − η) G           ] [dr] = [ −Φ ],
   *
   * Φ the Alart–Curnier function of alart_curnier_newton.h evaluated at u = Hᵀ v + w (Alart &
   * Curnier 1991), η the proximal regularisation of that header, with a sparse direct solver
   * (PETSc KSPPREONLY + PCLU: PETSc's own LU with nested-dissection ordering, switching to MUMPS,
   * which pivots, if a factorisation fails). v starts as M⁻¹(H r + f), and every step
   * keeps M v = H r + f, so the Armijo line search on ½‖Φ‖² is that of the local method.
   * ρ per contact from the lumped approximation H_aᵀ diag(M)⁻¹ H_a of the diagonal block of W.
   * The stopping test is the FCLIB measure of the condensed problem (error_measure.h), evaluated
   * without W: u = Hᵀ v + w and q = Hᵀ M⁻¹ f + w (one extra solve with M).
   * Sequential (PETSC_COMM_SELF); initialises PETSc if nobody has (see PetscScope).
   *
   * On exit r, v, u as solve(GlobalProblem) (solve.h). Never throws on non-convergence.
   */
  SolverResult solve_global_petsc(const GlobalProblem &problem, std::vector<double> &r_inout,
                                  std::vector<double> &v_out, std::vector<double> &u_out,
                                  const SolverOptions &options = SolverOptions());

  /**
   * Initialises PETSc (and MPI) if they are not yet initialised and finalises them on destruction
   * in that case only; for programs that do not go through deal.II's MPI_InitFinalize.
   */
  class PetscScope
  {
  public:
    PetscScope(int *argc = nullptr, char ***argv = nullptr);
    ~PetscScope();
    PetscScope(const PetscScope &) = delete;
    PetscScope &operator=(const PetscScope &) = delete;

  private:
    bool initialised_here_ = false;
  };
} // namespace percussion::ContactSolvers

#endif
