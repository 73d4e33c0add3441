#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>
#include <percussion/contact_solvers/one_contact_solver.h>

#include <cmath>

namespace percussion::ContactSolvers
{
  bool ExactErrorSchedule::due(const int sweep, const double change, const double tolerance,
                               const bool last_sweep) const
  {
    // (3 tolerances: one sweep early at the sweeps' typical rate of 0.3 rather than one late.)
    return sweep < 2 || last_sweep || sweep - last_check_ >= 8 || !std::isfinite(change) ||
           !(kappa_ * change > 3 * tolerance);
  }

  void ExactErrorSchedule::checked(const int sweep, const double error, const double change)
  {
    last_check_ = sweep;
    kappa_ = change > 0 ? error / change : 0.0;
  }

  NonsmoothGaussSeidel::NonsmoothGaussSeidel(const LocalProblem &problem, const BlockDelassus &W)
    : problem_(problem)
    , W_(W)
  {
  }

  SolverResult NonsmoothGaussSeidel::run(std::vector<double> &r, std::vector<double> &u, double tolerance,
                                         int max_sweeps, std::chrono::steady_clock::time_point deadline) const
  {
    SolverResult result;
    const int d = problem_.dimension;
    const int m = problem_.number_of_contacts;
    // The exact error needs u = W r + q, a product with all of W that costs as much as the sweep.
    // It is computed on the first two sweeps, then only when the error predicted from the sweep's
    // change of the impulses, e ≈ κ‖Δr‖ (κ from the last exact check: both fall at the sweeps'
    // linear rate), is near the tolerance, every 8th sweep, on the last sweep and at the deadline.
    // Every exit thus reports the exact error. (The sweep's own velocities q̃_a + W_aa r_a are no
    // proxy: each contact's law holds exactly for them.)
    ExactErrorSchedule schedule;
    for (int sweep = 0; sweep < max_sweeps; ++sweep)
      {
        double change = 0;
        for (int a = 0; a < m; ++a)
          {
            // q̃_a = q_a + Σ_{b≠a} W_ab r_b with the latest r_b (Gauss–Seidel ordering).
            double q_local[3], previous[3];
            for (int i = 0; i < d; ++i)
              {
                q_local[i] = problem_.q[a * d + i];
                previous[i] = r[a * d + i];
              }
            W_.add_off_diagonal_row(a, r.data(), q_local);
            solve_one_contact(d, problem_.mu[a], W_.diagonal_block(a), q_local, &r[a * d]);
            for (int i = 0; i < d; ++i)
              change += (r[a * d + i] - previous[i]) * (r[a * d + i] - previous[i]);
          }
        change = std::sqrt(change);
        result.iterations = sweep + 1;
        const bool last = sweep + 1 == max_sweeps || std::chrono::steady_clock::now() > deadline;
        if (schedule.due(sweep, change, tolerance, last))
          {
            W_.multiply(r.data(), u.data());
            for (int i = 0; i < problem_.size(); ++i)
              u[i] += problem_.q[i];
            result.error = compute_error(problem_, r, u);
            if (!std::isfinite(result.error))
              {
                result.status = SolverStatus::failed;
                result.message = "nsgs: non-finite iterate";
                return result;
              }
            if (result.error <= tolerance)
              {
                result.status = SolverStatus::converged;
                return result;
              }
            schedule.checked(sweep, result.error, change);
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
