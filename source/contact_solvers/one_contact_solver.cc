#include <percussion/contact_solvers/alart_curnier_function.h>
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/one_contact_solver.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace percussion::ContactSolvers
{
  namespace
  {
    void velocity(int d, const double *W, const double *q, const double *r, double *u)
    {
      for (int i = 0; i < d; ++i)
        {
          u[i] = q[i];
          for (int j = 0; j < d; ++j)
            u[i] += W[i * d + j] * r[j];
        }
    }

    double contact_residual(int d, double mu, const double *W, const double *q, const double *r)
    {
      double u[3];
      velocity(d, W, q, r, u);
      return std::sqrt(squared_contact_residual(d, mu, r, u));
    }

    bool in_cone(int d, double mu, const double *r)
    {
      const double t = d == 3 ? std::hypot(r[1], r[2]) : std::abs(r[1]);
      return r[0] >= 0.0 && t <= mu * r[0] * (1.0 + 1e-14);
    }

    /** The one-contact problem u = W r + q, r ∈ K_μ, with the scales max |q_i| and max |W_ij|. */
    struct OneContactProblem
    {
      int d;
      double mu;
      const double *W;
      const double *q;
      double qscale;
      double wscale;
    };

    /** The iterate with the smallest residual so far. */
    struct BestIterate
    {
      double r[3];
      double residual;

      /** Keeps @p candidate if its residual is smaller. */
      void offer(int d, const double *candidate, double candidate_residual)
      {
        if (candidate_residual < residual)
          {
            residual = candidate_residual;
            std::copy(candidate, candidate + d, r);
          }
      }
    };

    /** Stick: u = 0, r = −W⁻¹q, if W is regular and that r lies in the cone (then written to r). */
    bool try_stick(const OneContactProblem &c, double *r)
    {
      double rs[3];
      for (int i = 0; i < c.d; ++i)
        rs[i] = -c.q[i];
      if (solve_small_system(c.d, c.W, rs) && in_cone(c.d, c.mu, rs))
        {
          for (int i = 0; i < c.d; ++i)
            r[i] = rs[i];
          return true;
        }
      return false;
    }

    /**
     * 2D sliding: r_T = s μ r_N with s = ±1 opposite to the sliding velocity, u_N = 0. Writes r and
     * returns true for the direction s whose sliding velocity has the consistent sign.
     */
    bool try_sliding_2d(const OneContactProblem &c, double *r)
    {
      const double *W = c.W, *q = c.q;
      const double mu = c.mu;
      for (double s : {-1.0, 1.0})
        {
          const double denominator = W[0] + s * mu * W[1];
          if (!(denominator > 0.0))
            continue;
          const double rn = -q[0] / denominator; // > 0 since q_N < 0
          const double ut = (W[2] + s * mu * W[3]) * rn + q[1];
          if (s * ut <= 1e-14 * (c.qscale + c.wscale * rn))
            {
              r[0] = rn;
              r[1] = s * mu * rn;
              return true;
            }
        }
      return false;
    }

    /**
     * Damped Alart–Curnier Newton on the d × d system from r (40 iterations at most, Armijo
     * backtracking on ‖Φ‖²; a fixed-point step where J is singular). Stops when the line search fails.
     * The iterates are offered to @p best.
     */
    void damped_newton(const OneContactProblem &c, double *r, BestIterate &best)
    {
      const int d = c.d;
      const double mu = c.mu, *W = c.W, *q = c.q;
      const double rho_n = W[0] > 1e-300 ? 1.0 / W[0] : (c.wscale > 0.0 ? 1.0 / c.wscale : 1.0);
      const double wt = d == 3 ? 0.5 * (W[4] + W[8]) : W[3];
      const double rho_t = wt > 1e-300 ? 1.0 / wt : rho_n;

      double u[3], phi[3], G[9], J[9], dr[3], trial[3], ut[3], phit[3];
      auto psi_of = [&](const double *rr, double *ph) {
        velocity(d, W, q, rr, ut);
        alart_curnier_contact(d, mu, rho_n, rho_t, rr, ut, ph, nullptr);
        double s = 0.0;
        for (int i = 0; i < d; ++i)
          s += ph[i] * ph[i];
        return s;
      };
      for (int iteration = 0; iteration < 40; ++iteration)
        {
          velocity(d, W, q, r, u);
          alart_curnier_contact(d, mu, rho_n, rho_t, r, u, phi, G);
          double psi = 0.0;
          for (int i = 0; i < d; ++i)
            psi += phi[i] * phi[i];
          if (std::sqrt(psi) <= 1e-15 * (c.qscale * rho_n + 1e-300))
            break;
          // J = I − G + G diag(ρ) W
          for (int i = 0; i < d; ++i)
            for (int j = 0; j < d; ++j)
              {
                double gw = 0.0;
                for (int k = 0; k < d; ++k)
                  gw += G[i * d + k] * (k == 0 ? rho_n : rho_t) * W[k * d + j];
                J[i * d + j] = (i == j ? 1.0 : 0.0) - G[i * d + j] + gw;
              }
          for (int i = 0; i < d; ++i)
            dr[i] = -phi[i];
          if (!solve_small_system(d, J, dr))
            {
              // Singular Newton matrix: take a fixed-point (projection) step instead.
              for (int i = 0; i < d; ++i)
                dr[i] = -phi[i];
            }
          double alpha = 1.0;
          bool accepted = false;
          for (int ls = 0; ls < 20; ++ls, alpha *= 0.5)
            {
              for (int i = 0; i < d; ++i)
                trial[i] = r[i] + alpha * dr[i];
              if (psi_of(trial, phit) <= (1.0 - 1e-4 * alpha) * psi)
                {
                  accepted = true;
                  break;
                }
            }
          if (!accepted)
            break;
          std::copy(trial, trial + d, r);
          best.offer(d, r, contact_residual(d, mu, W, q, r));
        }
    }

    /**
     * 200 projected fixed-point iterations r ← P_K(r − ρ ũ) from r, ρ = 1 / max |W_ij|; the final
     * iterate is offered to @p best.
     */
    void projected_fixed_point(const OneContactProblem &c, double *r, BestIterate &best)
    {
      const int d = c.d;
      const double mu = c.mu, *W = c.W, *q = c.q;
      const double rho = 1.0 / std::max(c.wscale, 1e-300);
      double u[3];
      for (int iteration = 0; iteration < 200; ++iteration)
        {
          double x[3];
          velocity(d, W, q, r, u);
          const double utn = d == 3 ? std::hypot(u[1], u[2]) : std::abs(u[1]);
          x[0] = r[0] - rho * (u[0] + mu * utn);
          for (int i = 1; i < d; ++i)
            x[i] = r[i] - rho * u[i];
          project_onto_coulomb_cone(d, mu, x, r);
        }
      best.offer(d, r, contact_residual(d, mu, W, q, r));
    }
  } // namespace

  double solve_one_contact(int d, double mu, const double *W, const double *q, double *r)
  {
    double qscale = 0.0, wscale = 0.0;
    for (int i = 0; i < d; ++i)
      qscale = std::max(qscale, std::abs(q[i]));
    for (int i = 0; i < d * d; ++i)
      wscale = std::max(wscale, std::abs(W[i]));
    const OneContactProblem contact{d, mu, W, q, qscale, wscale};

    // Take-off: r = 0 is a solution iff the free normal velocity is non-negative (ũ ∈ K* then).
    if (q[0] >= 0.0)
      {
        for (int i = 0; i < d; ++i)
          r[i] = 0.0;
        return 0.0;
      }
    if (try_stick(contact, r))
      return contact_residual(d, mu, W, q, r);
    if (d == 2 && try_sliding_2d(contact, r))
      return contact_residual(d, mu, W, q, r);

    // General case: damped Alart–Curnier Newton on the d × d system.
    BestIterate best;
    std::copy(r, r + d, best.r);
    best.residual = contact_residual(d, mu, W, q, r);
    damped_newton(contact, r, best);

    // Last resort when Newton stalls: projected fixed-point iterations r ← P_K(r − ρ ũ).
    if (best.residual > 1e-12 * (qscale + 1e-300))
      {
        std::copy(best.r, best.r + d, r);
        projected_fixed_point(contact, r, best);
      }
    std::copy(best.r, best.r + d, r);
    return best.residual;
  }
} // namespace percussion::ContactSolvers
