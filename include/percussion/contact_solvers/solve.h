#ifndef PERCUSSION_CONTACT_SOLVERS_SOLVE_H
#define PERCUSSION_CONTACT_SOLVERS_SOLVE_H

#include <percussion/contact_solvers/global_problem.h>
#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/solver_options.h>

#include <optional>
#include <string>
#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * Solve the local problem (local_problem.h) with the solver options.solver (SolverKind).
   *
   * @param r_inout  warm start on entry (resized to zeros if its size is not d m), the best
   *                 reactions found on exit (the iterate with the smallest error);
   * @param u_out    u = W r + q at the returned r.
   *
   * Never throws on non-convergence: see SolverResult::status. Throws percussion::InputError on an
   * unknown solver name or an inconsistent problem (validate()). Zero contacts: converged at once.
   */
  SolverResult solve(const LocalProblem &problem, std::vector<double> &r_inout, std::vector<double> &u_out,
                     const SolverOptions &options = SolverOptions());

  /**
   * Solve a global problem by condensation to local form (condense_to_local()) and solve() above.
   * On exit v_out = M⁻¹(H r + f), u_out = Hᵀ v + w. The time of the condensation is included
   * in SolverResult::seconds.
   */
  SolverResult solve(const GlobalProblem &problem, std::vector<double> &r_inout, std::vector<double> &v_out,
                     std::vector<double> &u_out, const SolverOptions &options = SolverOptions());

  /** The names of the solvers (SolverKind), in the order of the enum. */
  std::vector<std::string> available_solvers();

  /** The solver named @p name (one of available_solvers()); std::nullopt for any other name. */
  std::optional<SolverKind> solver_kind_from_name(const std::string &name);

  /** The name of @p kind (one of available_solvers()). */
  std::string to_string(SolverKind kind);
} // namespace percussion::ContactSolvers

#endif
