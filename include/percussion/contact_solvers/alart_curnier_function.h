#ifndef PERCUSSION_CONTACT_SOLVERS_ALART_CURNIER_FUNCTION_H
#define PERCUSSION_CONTACT_SOLVERS_ALART_CURNIER_FUNCTION_H

#include <cmath>

namespace percussion::ContactSolvers
{
  /**
   * One contact's Alart–Curnier function (Alart & Curnier 1991; Acary, Brémond & Huber 2018):
   * y = r − diag(ρ_N, ρ_T, ρ_T) u, s = max(0, y_N),
   * Φ_N = r_N − s, Φ_T = r_T − P_{D(μ s)}(y_T), D(s) the disc (interval in 2D) of radius s.
   * If G ≠ nullptr it receives an element of the generalised Jacobian ∂P/∂y (d × d, row-major),
   * so that ∂Φ/∂r = I − G (I − diag(ρ) ∂u/∂r).
   */
  inline void alart_curnier_contact(int d, double mu, double rho_n, double rho_t, const double *r, const double *u,
                                    double *phi, double *G)
  {
    const double yn = r[0] - rho_n * u[0];
    const double s = yn > 0.0 ? yn : 0.0;
    double yt[2];
    for (int i = 1; i < d; ++i)
      yt[i - 1] = r[i] - rho_t * u[i];
    const double ty = d == 3 ? std::hypot(yt[0], yt[1]) : std::abs(yt[0]);
    const double radius = mu * s;
    phi[0] = r[0] - s;
    const bool inside = ty <= radius;
    if (inside)
      for (int i = 1; i < d; ++i)
        phi[i] = r[i] - yt[i - 1];
    else
      for (int i = 1; i < d; ++i)
        phi[i] = r[i] - radius * yt[i - 1] / ty;
    if (G)
      {
        for (int i = 0; i < d * d; ++i)
          G[i] = 0.0;
        G[0] = yn > 0.0 ? 1.0 : 0.0;
        if (inside)
          {
            for (int i = 1; i < d; ++i)
              G[i * d + i] = 1.0;
          }
        else
          {
            // ty > radius ≥ 0, so ty > 0: the tangent direction is defined.
            double t[2];
            for (int i = 0; i < d - 1; ++i)
              t[i] = yt[i] / ty;
            const double c = radius / ty;
            for (int i = 1; i < d; ++i)
              {
                G[i * d] = yn > 0.0 ? mu * t[i - 1] : 0.0;
                for (int j = 1; j < d; ++j)
                  G[i * d + j] = c * ((i == j ? 1.0 : 0.0) - t[i - 1] * t[j - 1]);
              }
          }
      }
  }

  /** Solve the small d × d system A x = b (d ≤ 3, Gaussian elimination with partial pivoting). Returns false if
   * singular. */
  inline bool solve_small_system(int d, const double *A_in, double *x)
  {
    double A[9];
    for (int i = 0; i < d * d; ++i)
      A[i] = A_in[i];
    double scale = 0.0;
    for (int i = 0; i < d * d; ++i)
      scale = std::fmax(scale, std::abs(A[i]));
    if (!(scale > 0.0))
      return false;
    for (int k = 0; k < d; ++k)
      {
        int p = k;
        for (int i = k + 1; i < d; ++i)
          if (std::abs(A[i * d + k]) > std::abs(A[p * d + k]))
            p = i;
        if (!(std::abs(A[p * d + k]) > 1e-14 * scale))
          return false;
        if (p != k)
          {
            for (int j = 0; j < d; ++j)
              std::swap(A[k * d + j], A[p * d + j]);
            std::swap(x[k], x[p]);
          }
        for (int i = k + 1; i < d; ++i)
          {
            const double l = A[i * d + k] / A[k * d + k];
            for (int j = k; j < d; ++j)
              A[i * d + j] -= l * A[k * d + j];
            x[i] -= l * x[k];
          }
      }
    for (int i = d - 1; i >= 0; --i)
      {
        double s = x[i];
        for (int j = i + 1; j < d; ++j)
          s -= A[i * d + j] * x[j];
        x[i] = s / A[i * d + i];
      }
    return true;
  }
} // namespace percussion::ContactSolvers

#endif
