#include <percussion/contact_solvers/alart_curnier_function.h>
#include <percussion/contact_solvers/alart_curnier_newton.h>
#include <percussion/contact_solvers/error_measure.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace percussion::ContactSolvers
{
  AlartCurnierNewton::AlartCurnierNewton(const LocalProblem &problem, const BlockDelassus &W, double rho_scale)
    : problem_(problem)
    , W_(W)
    , rho_(problem.size(), 1.0)
  {
    const int d = W.d;
    // A global fallback scale for contacts whose diagonal block is zero or negative (redundant or
    // degenerate rows).
    const double mean_diagonal = W.mean_positive_diagonal();
    for (int a = 0; a < W.m; ++a)
      {
        const double *B = W.diagonal_block(a);
        double wn = B[0];
        double wt = d == 3 ? 0.5 * (B[4] + B[8]) : B[3];
        // ρ ≈ 1/diag makes the augmented quantities r − ρu dimensionally and numerically balanced
        // (Acary, Brémond & Huber 2018 §5 recommend scaling ρ with the diagonal of W).
        if (!(wn > 1e-12 * mean_diagonal))
          wn = mean_diagonal;
        if (!(wt > 1e-12 * mean_diagonal))
          wt = wn;
        rho_[a * d] = rho_scale / wn;
        for (int i = 1; i < d; ++i)
          rho_[a * d + i] = rho_scale / wt;
      }
  }

  double AlartCurnierNewton::evaluate(const std::vector<double> &r, const std::vector<double> &u,
                                      std::vector<double> &phi, std::vector<double> *jacobian, double proximal) const
  {
    const int d = W_.d;
    const int dd = d * d;
    double psi = 0.0;
    double G[9];
    for (int a = 0; a < W_.m; ++a)
      {
        const double rn = rho_[a * d], rt = rho_[a * d + 1];
        alart_curnier_contact(d, problem_.mu[a], rn, rt, &r[a * d], &u[a * d], &phi[a * d], jacobian ? G : nullptr);
        for (int i = 0; i < d; ++i)
          psi += phi[a * d + i] * phi[a * d + i];
        if (!jacobian)
          continue;
        // Block row a of J = (I − G) δ_ab + G R W_ab.
        for (int k = W_.block_row_start[a]; k < W_.block_row_start[a + 1]; ++k)
          {
            const double *Wab = &W_.block_values[static_cast<std::size_t>(k) * dd];
            double *Jab = &(*jacobian)[static_cast<std::size_t>(k) * dd];
            for (int i = 0; i < d; ++i)
              for (int j = 0; j < d; ++j)
                {
                  double s = 0.0;
                  for (int l = 0; l < d; ++l)
                    s += G[i * d + l] * rho_[a * d + l] * Wab[l * d + j];
                  Jab[i * d + j] = s;
                }
            if (W_.block_column[k] == a)
              for (int i = 0; i < d; ++i)
                for (int j = 0; j < d; ++j)
                  Jab[i * d + j] += (i == j ? 1.0 : 0.0) - (1.0 - proximal) * G[i * d + j];
          }
      }
    return 0.5 * psi;
  }

  bool AlartCurnierNewton::prefers_dense_factorisation() const
  {
    const int n = problem_.size();
    return problem_.storage == MatrixStorage::dense
             ? n <= 4000
             : (n <= 120 || static_cast<double>(W_.number_of_blocks()) > 0.3 * W_.m * static_cast<double>(W_.m));
  }

  double AlartCurnierNewton::singular_shift_scale() const
  {
    double shift_scale = 0.0;
    for (double v : W_.block_values)
      shift_scale = std::max(shift_scale, std::abs(v));
    return std::max(shift_scale * (rho_.empty() ? 1.0 : *std::max_element(rho_.begin(), rho_.end())), 1.0);
  }

  bool AlartCurnierNewton::factorize_newton_matrix(BlockLinearSolver &linear_solver,
                                                   const std::vector<double> &jacobian, double shift_scale) const
  {
    bool factorised = linear_solver.factorize(jacobian);
    for (double shift = 1e-12 * shift_scale; !factorised && shift < 1e-2 * shift_scale; shift *= 100.0)
      factorised = linear_solver.factorize(jacobian, shift);
    return factorised;
  }

  double AlartCurnierNewton::line_search(const std::vector<double> &r, const std::vector<double> &u,
                                         const std::vector<double> &step, const std::vector<double> &W_step, double psi,
                                         LineSearchWorkspace &trial, bool &accepted) const
  {
    const int n = problem_.size();
    double alpha = 1.0, best_trial_psi = HUGE_VAL, best_alpha = 0.0;
    accepted = false;
    for (int ls = 0; ls < 30; ++ls, alpha *= 0.5)
      {
        for (int i = 0; i < n; ++i)
          {
            trial.r[i] = r[i] + alpha * step[i];
            trial.u[i] = u[i] + alpha * W_step[i];
          }
        const double psi_trial = evaluate(trial.r, trial.u, trial.phi, nullptr, 0.0);
        if (psi_trial < best_trial_psi)
          {
            best_trial_psi = psi_trial;
            best_alpha = alpha;
          }
        if (psi_trial <= (1.0 - 2e-4 * alpha) * psi)
          {
            accepted = true;
            return alpha;
          }
      }
    // Take the best step tried anyway (a non-monotone move that often leaves a kink of Φ); the
    // caller counts the failure so that it may switch to Gauss–Seidel.
    return best_alpha > 0.0 ? best_alpha : 1.0;
  }

  SolverResult AlartCurnierNewton::run(std::vector<double> &r, std::vector<double> &u, double tolerance,
                                       int max_iterations, std::chrono::steady_clock::time_point deadline,
                                       bool stall_exit, double proximal_factor, double proximal_cap, bool verbose) const
  {
    SolverResult result;
    const int n = problem_.size();
    BlockLinearSolver linear_solver(W_, prefers_dense_factorisation());

    std::vector<double> phi(n), step(n), W_step(n);
    LineSearchWorkspace trial{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
    std::vector<double> jacobian(W_.block_values.size());
    std::vector<double> best_r = r;
    double best_error = compute_error(problem_, r, u);
    double error = best_error;
    double milestone_error = best_error;
    int best_iteration = 0, line_search_failures = 0;
    const double shift_scale = singular_shift_scale();

    const int stall_window = 20;
    int iteration = 0;
    for (; iteration < max_iterations; ++iteration)
      {
        if (error <= tolerance)
          break;
        if (std::chrono::steady_clock::now() > deadline)
          {
            result.message = "newton: time limit";
            break;
          }
        const double proximal = std::min(proximal_cap, proximal_factor * error);
        const double psi = evaluate(r, u, phi, &jacobian, proximal);
        if (!factorize_newton_matrix(linear_solver, jacobian, shift_scale))
          {
            result.message = "newton: singular Newton matrix";
            break;
          }
        for (int i = 0; i < n; ++i)
          step[i] = -phi[i];
        linear_solver.solve(step.data());
        W_.multiply(step.data(), W_step.data());

        bool accepted = false;
        const double alpha = line_search(r, u, step, W_step, psi, trial, accepted);
        line_search_failures = accepted ? 0 : line_search_failures + 1;
        for (int i = 0; i < n; ++i)
          {
            r[i] += alpha * step[i];
            u[i] += alpha * W_step[i];
          }
        // Recompute u from r every iteration so that rounding does not accumulate in u.
        problem_.compute_velocity(r, u);
        error = compute_error(problem_, r, u);
        if (verbose)
          std::fprintf(stderr, "  newton it %3d  psi %.3e  alpha %.2e  error %.3e%s\n", iteration + 1, psi, alpha,
                       error, accepted ? "" : "  (line search failed)");
        if (!std::isfinite(error))
          {
            result.status = SolverStatus::failed;
            result.message = "newton: non-finite iterate";
            ++iteration;
            break;
          }
        if (error < best_error)
          {
            best_error = error;
            best_r = r;
          }
        if (error < 0.5 * milestone_error)
          {
            // Progress is measured against the error at the last halving, not step by step.
            milestone_error = error;
            best_iteration = iteration + 1;
          }
        if (stall_exit && (line_search_failures >= 5 || iteration + 1 - best_iteration >= stall_window))
          {
            result.message = "newton: stalled";
            ++iteration;
            break;
          }
      }
    result.iterations = iteration;
    if (!(error <= best_error))
      {
        r = best_r;
        problem_.compute_velocity(r, u);
        error = best_error;
      }
    result.error = error;
    if (result.status != SolverStatus::failed)
      result.status = error <= tolerance ? SolverStatus::converged : SolverStatus::not_converged;
    return result;
  }
} // namespace percussion::ContactSolvers
