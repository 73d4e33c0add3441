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
   * Solve the local problem (local_problem.h) with the solver options.solver.
   *
   * @param r_inout  warm start on entry (resized to zeros if its size is not d m), the best
   *                 reactions found on exit (the iterate with the smallest error);
   * @param u_out    u = W r + q at the returned r.
   *
   * Never throws on non-convergence: see SolverResult::status. Throws percussion::InputError on an
   * unknown solver name or an inconsistent problem (validate()). Zero contacts: converged at once.
   */
  SolverResult solve(const LocalProblem  &problem,
                     std::vector<double> &r_inout,
                     std::vector<double> &u_out,
                     const SolverOptions &options = SolverOptions());

  /**
   * Solve a global problem by condensation to local form (condense_to_local()) and solve() above.
   * On exit v_out = M⁻¹(H r + f), u_out = Hᵀ v + w. The time of the condensation is included
   * in SolverResult::seconds.
   */
  SolverResult solve(const GlobalProblem &problem,
                     std::vector<double> &r_inout,
                     std::vector<double> &v_out,
                     std::vector<double> &u_out,
                     const SolverOptions &options = SolverOptions());

  /** The solvers that SolverOptions::solver names (see there). */
  enum class SolverKind
  {
    alart_curnier,      ///< "alart_curnier": Newton with the proximal-point and NSGS fallbacks
    alart_curnier_pure, ///< "alart_curnier_pure": the proximal Newton method alone
    proximal_point,     ///< "proximal_point": the proximal-point outer loop alone
    nsgs                ///< "nsgs": nonsmooth Gauss–Seidel
  };

  /** The names accepted by SolverOptions::solver. */
  std::vector<std::string> available_solvers();

  /** The solver named @p name (one of available_solvers()); std::nullopt for any other name. */
  std::optional<SolverKind> solver_kind_from_name(const std::string &name);
} // namespace percussion::ContactSolvers

#endif
