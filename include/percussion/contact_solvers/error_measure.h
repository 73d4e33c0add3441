#ifndef PERCUSSION_CONTACT_SOLVERS_ERROR_MEASURE_H
#define PERCUSSION_CONTACT_SOLVERS_ERROR_MEASURE_H

#include <percussion/contact_solvers/local_problem.h>

#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * Euclidean projection of x onto the Coulomb cone K = {z : ‖z_T‖ ≤ μ z_N} in dimension
   * 2 or 3 (normal first): 0 if μ‖x_T‖ ≤ −x_N, x if ‖x_T‖ ≤ μ x_N, otherwise
   * z_N = (μ‖x_T‖ + x_N)/(μ² + 1), z_T = μ z_N x_T/‖x_T‖ (FCLIB README, step 2).
   * x and z may alias.
   */
  void project_onto_coulomb_cone(int dimension, double mu, const double *x, double *z);

  /**
   * The normalised natural-map residual of FCLIB / Siconos 4.4 (`fc3d_compute_error`), Acary,
   * Brémond & Huber, "On solving contact problems with Coulomb friction: formulations and
   * numerical comparisons" (2018), §2:
   *
   *     e_a = r_a − P_{K_a}(r_a − ũ_a),  ũ_a = u_a + (μ_a‖u_{T,a}‖, 0, 0),  u = W r + q,
   *     error = sqrt(Σ_a ‖e_a‖²) / max(‖q‖, ‖r‖, ‖u‖)   (no division if the max ≤ DBL_EPSILON).
   *
   * Zero if and only if (r, u) solves the problem.
   */
  double compute_error(const LocalProblem &problem, const std::vector<double> &r);

  /** The same with u = W r + q already computed (no multiplication by W). */
  double compute_error(const LocalProblem &problem, const std::vector<double> &r, const std::vector<double> &u);

  /** ‖e_a‖² of one contact in dimension @p dimension (2 or 3) with impulse @p r and velocity @p u. */
  double squared_contact_residual(int dimension, double mu, const double *r, const double *u);

  /** The unnormalised residual sqrt(Σ_a ‖e_a‖²) for given r, u (u must equal W r + q). */
  double natural_map_residual(const LocalProblem &problem, const std::vector<double> &r, const std::vector<double> &u);

  /**
   * The sums behind compute_error() over the contacts first ≤ a < last: Σ‖e_a‖², Σ‖q_a‖², Σ‖r_a‖²,
   * Σ‖u_a‖². Sums of disjoint ranges add up (for a problem whose contacts are split among MPI
   * ranks); error_from_sums() of the sums over all contacts is compute_error().
   */
  struct ErrorSums
  {
    double residual = 0.0, q = 0.0, r = 0.0, u = 0.0;
  };
  ErrorSums error_sums(const LocalProblem &problem, const std::vector<double> &r, const std::vector<double> &u,
                       int first, int last);
  /** sqrt(residual) / max(sqrt(q), sqrt(r), sqrt(u)) (no division if the max ≤ DBL_EPSILON). */
  double error_from_sums(const ErrorSums &sums);
} // namespace percussion::ContactSolvers

#endif
