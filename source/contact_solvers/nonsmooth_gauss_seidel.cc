#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>
#include <percussion/contact_solvers/one_contact_solver.h>

#include <cmath>

namespace percussion::ContactSolvers
{
  namespace
  {
    /// The exact error is computed when the predicted one is below this many tolerances.
    constexpr double predicted_check_factor = 3;
  } // namespace

  NonsmoothGaussSeidel::NonsmoothGaussSeidel(const LocalProblem &problem, const BlockDelassus &W)
    : problem_(problem), W_(W)
  {}

  SolverResult NonsmoothGaussSeidel::run(std::vector<double>                  &r,
                                         std::vector<double>                  &u,
                                         double                                tolerance,
                                         int                                   max_sweeps,
                                         std::chrono::steady_clock::time_point deadline) const
  {
    SolverResult result;
    const int    d = problem_.dimension;
    const int    m = problem_.number_of_contacts;
    // The exact error needs u = W r + q, a product with all of W that costs as much as the sweep.
    // It is computed on the first two sweeps, then only when the error predicted from the sweep's
    // change of the impulses, e ≈ κ‖Δr‖ (κ from the last exact check: both fall at the sweeps'
    // linear rate), is near the tolerance, every 8th sweep, on the last sweep and at the deadline.
    // Every exit thus reports the exact error. (The sweep's own velocities q̃_a + W_aa r_a are no
    // proxy: each contact's law holds exactly for them.)
    double kappa = 0; // exact error per unit change of r, from the last exact check
    int    last_check = -1;
    for (int sweep = 0; sweep < max_sweeps; ++sweep)
      {
        double change = 0;
        for (int a = 0; a < m; ++a)
          {
            // q̃_a = q_a + Σ_{b≠a} W_ab r_b with the latest r_b (Gauss–Seidel ordering).
            double q_local[3], previous[3];
            for (int i = 0; i < d; ++i)
              {
                q_local[i]  = problem_.q[a * d + i];
                previous[i] = r[a * d + i];
              }
            W_.add_off_diagonal_row(a, r.data(), q_local);
            solve_one_contact(d, problem_.mu[a], W_.diagonal_block(a), q_local, &r[a * d]);
            for (int i = 0; i < d; ++i)
              change += (r[a * d + i] - previous[i]) * (r[a * d + i] - previous[i]);
          }
        change            = std::sqrt(change);
        result.iterations = sweep + 1;
        const bool last   = sweep + 1 == max_sweeps || std::chrono::steady_clock::now() > deadline;
        const bool check  = sweep < 2 || last || sweep - last_check >= 8 || !std::isfinite(change) ||
                           !(kappa * change > predicted_check_factor * tolerance);
        if (check)
          {
            W_.multiply(r.data(), u.data());
            for (int i = 0; i < problem_.size(); ++i)
              u[i] += problem_.q[i];
            result.error = compute_error(problem_, r, u);
            last_check   = sweep;
            if (!std::isfinite(result.error))
              {
                result.status  = SolverStatus::failed;
                result.message = "nsgs: non-finite iterate";
                return result;
              }
            if (result.error <= tolerance)
              {
                result.status = SolverStatus::converged;
                return result;
              }
            kappa = change > 0 ? result.error / change : 0;
          }
        if (std::chrono::steady_clock::now() > deadline)
          {
            result.message = "nsgs: time limit";
            break;
          }
      }
    result.status = SolverStatus::not_converged;
    return result;
  }
} // namespace percussion::ContactSolvers
