#include <percussion/contact_solvers/local_problem.h>

#include <percussion/core/exceptions.h>

#include <cmath>
#include <string>

namespace percussion::ContactSolvers
{
  void LocalProblem::multiply_add_W(const double *x, double *y) const
  {
    if (storage == MatrixStorage::dense)
      W_dense.multiply_add(x, y);
    else
      W_sparse.multiply_add(x, y);
  }

  void LocalProblem::compute_velocity(const std::vector<double> &r, std::vector<double> &u) const
  {
    u = q;
    if (size() > 0)
      multiply_add_W(r.data(), u.data());
  }

  namespace
  {
    void check_finite(const std::vector<double> &v, const std::string &context, const char *name)
    {
      for (std::size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
          throw InputError(context + ": " + name + "[" + std::to_string(i) + "] is not finite");
    }
  } // namespace

  void validate(const LocalProblem &p, const std::string &context)
  {
    if (p.dimension != 2 && p.dimension != 3)
      throw InputError(context + ": dimension must be 2 or 3, not " + std::to_string(p.dimension));
    if (p.number_of_contacts < 0)
      throw InputError(context + ": negative number of contacts");
    const std::size_t n = p.size();
    if (p.q.size() != n)
      throw InputError(context + ": q has " + std::to_string(p.q.size()) +
                       " entries, expected d*m = " + std::to_string(n));
    if (p.mu.size() != static_cast<std::size_t>(p.number_of_contacts))
      throw InputError(context + ": mu has " + std::to_string(p.mu.size()) +
                       " entries, expected m = " + std::to_string(p.number_of_contacts));
    for (std::size_t a = 0; a < p.mu.size(); ++a)
      if (!(p.mu[a] >= 0.0) || !std::isfinite(p.mu[a]))
        throw InputError(context + ": mu[" + std::to_string(a) + "] = " + std::to_string(p.mu[a]) +
                         " (friction coefficients must be finite and >= 0)");
    check_finite(p.q, context, "q");
    if (p.storage == MatrixStorage::dense)
      {
        if (static_cast<std::size_t>(p.W_dense.rows) != n || static_cast<std::size_t>(p.W_dense.cols) != n ||
            p.W_dense.values.size() != n * n)
          throw InputError(context + ": W is " + std::to_string(p.W_dense.rows) + " x " +
                           std::to_string(p.W_dense.cols) + ", expected " + std::to_string(n) + " x " +
                           std::to_string(n));
        check_finite(p.W_dense.values, context, "W");
      }
    else
      {
        const CsrMatrix &W = p.W_sparse;
        if (static_cast<std::size_t>(W.rows) != n || static_cast<std::size_t>(W.cols) != n)
          throw InputError(context + ": W is " + std::to_string(W.rows) + " x " + std::to_string(W.cols) +
                           ", expected " + std::to_string(n) + " x " + std::to_string(n));
        if (W.row_start.size() != n + 1 || W.row_start[0] != 0)
          throw InputError(context + ": W row pointer has the wrong length or does not start at 0");
        for (std::size_t i = 0; i < n; ++i)
          if (W.row_start[i + 1] < W.row_start[i])
            throw InputError(context + ": W row pointer decreases at row " + std::to_string(i));
        const std::size_t nnz = W.row_start[n];
        if (W.column_index.size() < nnz || W.values.size() < nnz)
          throw InputError(context + ": W has fewer column indices or values than its row pointer says (" +
                           std::to_string(nnz) + ")");
        for (std::size_t k = 0; k < nnz; ++k)
          {
            if (W.column_index[k] < 0 || static_cast<std::size_t>(W.column_index[k]) >= n)
              throw InputError(context + ": W column index " + std::to_string(W.column_index[k]) + " out of range");
            if (!std::isfinite(W.values[k]))
              throw InputError(context + ": W value " + std::to_string(k) + " is not finite");
          }
      }
  }
} // namespace percussion::ContactSolvers
