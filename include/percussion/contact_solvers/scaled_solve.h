#ifndef PERCUSSION_CONTACT_SOLVERS_SCALED_SOLVE_H
#define PERCUSSION_CONTACT_SOLVERS_SCALED_SOLVE_H

#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/solver_options.h>

#include <vector>

namespace percussion::ContactSolvers
{
  /// Σ |W_ii| over the rows of W that @p problem holds (dense or sparse W).
  double diagonal_sum(const LocalProblem &problem);

  /// The power of two that brings the mean diagonal of W (Σ |W_ii| = @p diagonal over @p n rows)
  /// near 1 (0 for a zero or non-finite diagonal).
  int scaling_exponent(double diagonal, int n);

  /// e with 2^e W of unit mean |diagonal| (0 for a zero or non-finite diagonal), dense or sparse W.
  int scaling_exponent(const LocalProblem &problem);

  /**
   * Solves @p problem (dense W) for impulses scaled by a power of two s ≈ 1/mean(diag W):
   * the solver's error measure is relative to max(‖q‖, ‖r‖, ‖u‖), which mixes impulses and
   * velocities; with r' = r/s and W' = sW both are velocities of comparable size, so the law's
   * velocities are met to the tolerance times the velocity scale, not times the impulses.
   * Powers of two scale exactly: @p problem, the warm start and the result are the unscaled ones.
   * @p exponent receives the scaling's: W' = 2^exponent W and r' = 2^-exponent r.
   */
  SolverResult solve_scaled(LocalProblem &problem, std::vector<double> &r, std::vector<double> &u,
                            const SolverOptions &options, int &exponent);
} // namespace percussion::ContactSolvers

#endif
