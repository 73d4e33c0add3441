#ifndef PERCUSSION_CONTACT_SOLVERS_ONE_CONTACT_SOLVER_H
#define PERCUSSION_CONTACT_SOLVERS_ONE_CONTACT_SOLVER_H

namespace percussion::ContactSolvers
{
  /**
   * Solve the one-contact problem u = W r + q, K* ∋ u + (μ‖u_T‖,0,0) ⊥ r ∈ K (d = 2, 3), W the
   * d × d diagonal block: the sub-problem of nonsmooth Gauss–Seidel (Jean 1999; Acary et al. 2018).
   *
   * Take-off (q_N ≥ 0 ⇒ r = 0) and stick (r = −W⁻¹q ∈ K) are tested exactly; sliding is solved
   * exactly in 2D (r_T = ∓μ r_N, u_N = 0) and in 3D by a damped Alart–Curnier Newton iteration
   * on the d × d system, with projected fixed-point steps as a last resort.
   * @param r on entry the previous value (the Newton start), on exit the solution.
   * @return the one-contact natural-map residual ‖r − P_K(r − ũ)‖ at exit.
   */
  double solve_one_contact(int dimension, double mu, const double *W, const double *q, double *r);
} // namespace percussion::ContactSolvers

#endif
