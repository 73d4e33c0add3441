#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>
#include <percussion/contact_solvers/one_contact_solver.h>

#include <cmath>

namespace percussion::ContactSolvers
{
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
    for (int sweep = 0; sweep < max_sweeps; ++sweep)
      {
        for (int a = 0; a < m; ++a)
          {
            // q̃_a = q_a + Σ_{b≠a} W_ab r_b with the latest r_b (Gauss–Seidel ordering).
            double q_local[3];
            for (int i = 0; i < d; ++i)
              q_local[i] = problem_.q[a * d + i];
            W_.add_off_diagonal_row(a, r.data(), q_local);
            solve_one_contact(d, problem_.mu[a], W_.diagonal_block(a), q_local, &r[a * d]);
          }
        W_.multiply(r.data(), u.data());
        for (int i = 0; i < problem_.size(); ++i)
          u[i] += problem_.q[i];
        result.iterations = sweep + 1;
        result.error      = compute_error(problem_, r, u);
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
