#include <percussion/contact_solvers/scaled_solve.h>
#include <percussion/contact_solvers/solve.h>

#include <cmath>

namespace percussion::ContactSolvers
{
  double diagonal_sum(const LocalProblem &problem)
  {
    double diagonal = 0;
    const int n = problem.size();
    if (problem.storage == MatrixStorage::dense)
      for (int i = 0; i < n; ++i)
        diagonal += std::abs(problem.W_dense(i, i));
    else
      for (int i = 0; i < problem.W_sparse.rows; ++i)
        for (int k = problem.W_sparse.row_start[i]; k < problem.W_sparse.row_start[i + 1]; ++k)
          if (problem.W_sparse.column_index[k] == i)
            diagonal += std::abs(problem.W_sparse.values[k]);
    return diagonal;
  }

  int scaling_exponent(const double diagonal, const int n)
  {
    return diagonal > 0 && std::isfinite(diagonal) ? -std::ilogb(diagonal / n) : 0;
  }

  int scaling_exponent(const LocalProblem &problem)
  {
    return scaling_exponent(diagonal_sum(problem), problem.size());
  }

  SolverResult solve_scaled(LocalProblem &problem, std::vector<double> &r, std::vector<double> &u,
                            const SolverOptions &options, int &exponent)
  {
    exponent = scaling_exponent(problem);
    const auto scale = [&](const int e) {
      for (double &x : problem.W_dense.values)
        x = std::ldexp(x, e);
      for (double &x : problem.W_sparse.values)
        x = std::ldexp(x, e);
      for (double &x : r)
        x = std::ldexp(x, -e);
    };
    scale(exponent);
    const SolverResult result = solve(problem, r, u, options);
    scale(-exponent);
    return result;
  }
} // namespace percussion::ContactSolvers
