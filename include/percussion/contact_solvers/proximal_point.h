#ifndef PERCUSSION_CONTACT_SOLVERS_PROXIMAL_POINT_H
#define PERCUSSION_CONTACT_SOLVERS_PROXIMAL_POINT_H

#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/solver_options.h>

#include <chrono>
#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * Proximal-point outer loop for a singular or nearly singular W (rank-deficient Delassus
   * operators: more contact unknowns than body degrees of freedom, redundant contacts). The
   * proximal point method of Rockafellar ("Monotone operators and the proximal point algorithm",
   * SIAM J. Control Optim. 14, 1976) applied to the contact problem as in Siconos' PROX solver
   * (V. Acary, B. Brogliato, "Numerical Methods for Nonsmooth Dynamical Systems", Springer 2008,
   * §13; Acary, Brémond & Huber 2018, §6): with a positive diagonal metric D and a centre r_k,
   * the iterate r_{k+1} solves
   *
   *     u' = (W + α_k D) r + (q − α_k D r_k),                                        (P1)
   *     K*_a ∋ u'_a + (μ_a ‖u'_{T,a}‖, 0, 0) ⊥ r_a ∈ K_a,                              (P2)
   *
   * i.e. the original problem with u' = u + α_k D (r − r_k); a fixed point r_{k+1} = r_k solves
   * the original problem (u' = u). W + α_k D is regular whenever W is positive semidefinite, so
   * the sub-problem has a unique solution (for μ = 0; with friction the Coulomb law is not monotone
   * and uniqueness is only local) and the semismooth Newton method of alart_curnier_newton.h solves
   * it with nonsingular Newton matrices, warm started from r_k.
   *
   * D_a = the mean diagonal entry of the contact block W_aa (the global mean for degenerate
   * blocks), so that α is dimensionless. Adaptive α (as in Siconos PROX): after a sub-problem
   * solved in few Newton iterations α is divided by 10 (faster outer convergence, the outer
   * contraction factor on the range of W behaves like α D / (λ + α D)); after a failed one the
   * step is undone when it did not reduce the error and α is multiplied by 10.
   * Each sub-problem is first given a few NSGS sweeps (Jean 1999; nonsmooth_gauss_seidel.h), cheap
   * and effective on the well-conditioned W + α D; Newton finishes it if they do not.
   * The sub-problem tolerance is tied to the outer error (an inexact proximal point method,
   * Rockafellar's criterion (A) with summable errors) so that early outer steps stay cheap.
   */
  class ProximalPointSolver
  {
  public:
    ProximalPointSolver(const LocalProblem &problem, const BlockDelassus &W, const SolverOptions &options);

    /**
     * Outer proximal steps from r (in/out) until compute_error() ≤ @p tolerance, @p
     * max_newton_iterations Newton iterations have been spent over all sub-problems, or @p
     * deadline, or — if @p stall_steps > 0 — when the error has not halved in that many outer steps
     * (so that a driver can switch method). r is the best iterate on exit (smallest error on the original problem), u =
     * W r + q. SolverResult::iterations counts Newton iterations and NSGS sweeps (the Newton iterations alone in
     * *newton_iterations_out if given); message gives the outer steps and the final α.
     */
    SolverResult run(std::vector<double> &r, std::vector<double> &u, double tolerance, int max_newton_iterations,
                     std::chrono::steady_clock::time_point deadline, int stall_steps = 0,
                     int *newton_iterations_out = nullptr) const;

  private:
    /** Shift the sub-problem's matrix to W + α D and its free velocity to q − α D r_centre. */
    void set_proximal_term(double alpha, const std::vector<double> &r_centre) const;

    const LocalProblem &problem_;
    const BlockDelassus &W_;
    const SolverOptions options_;
    std::vector<double> metric_;           ///< D, d m entries (constant per contact)
    mutable LocalProblem shifted_;         ///< (P1): W + α D, q − α D r_k
    mutable BlockDelassus shifted_blocks_; ///< the same in block form
    std::vector<long> diagonal_entries_;   ///< index in shifted_'s storage of each diagonal entry
  };
} // namespace percussion::ContactSolvers

#endif
