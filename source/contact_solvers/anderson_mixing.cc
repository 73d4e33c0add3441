#include <percussion/contact_solvers/anderson_mixing.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace percussion::ContactSolvers
{
  namespace
  {
    /**
     * Solves the m × m system @p A γ = @p gamma (row by row, overwritten) by Gaussian elimination
     * with partial pivoting; false for a zero pivot. m ≤ the mixing depth: small and dense.
     */
    bool eliminate(const std::size_t m, std::vector<double> &A, std::vector<double> &gamma)
    {
      for (std::size_t c = 0; c < m; ++c)
        {
          std::size_t p = c;
          for (std::size_t r = c + 1; r < m; ++r)
            if (std::abs(A[r * m + c]) > std::abs(A[p * m + c]))
              p = r;
          if (A[p * m + c] == 0.0)
            return false;
          for (std::size_t k = 0; k < m; ++k)
            std::swap(A[c * m + k], A[p * m + k]);
          std::swap(gamma[c], gamma[p]);
          for (std::size_t r = c + 1; r < m; ++r)
            {
              const double l = A[r * m + c] / A[c * m + c];
              for (std::size_t k = c; k < m; ++k)
                A[r * m + k] -= l * A[c * m + k];
              gamma[r] -= l * gamma[c];
            }
        }
      for (std::size_t c = m; c-- > 0;)
        {
          for (std::size_t k = c + 1; k < m; ++k)
            gamma[c] -= A[c * m + k] * gamma[k];
          gamma[c] /= A[c * m + c];
        }
      return true;
    }
  } // namespace

  AndersonMixing::AndersonMixing(const unsigned int depth, const std::size_t length, PartSum sum_over_parts)
    : depth(depth)
    , length(length)
    , sum_over_parts(std::move(sum_over_parts))
  {
  }

  void AndersonMixing::clear()
  {
    xs.clear();
    gs.clear();
  }

  void AndersonMixing::add(const std::vector<double> &x, const std::vector<double> &g)
  {
    xs.emplace_back(x.begin(), x.begin() + length);
    gs.emplace_back(g.begin(), g.begin() + length);
    if (xs.size() > depth + 1)
      {
        xs.erase(xs.begin());
        gs.erase(gs.begin());
      }
  }

  void AndersonMixing::mix(std::vector<double> &g) const
  {
    const std::size_t m = xs.size() - 1, n = length;
    if (m == 0)
      return;
    const auto f = [&](const std::size_t k, const std::size_t i) { return gs[k][i] - xs[k][i]; };
    // Normal equations (ΔFᵀΔF + λI) γ = ΔFᵀ f_last, m ≤ depth: small and dense.
    std::vector<double> A(m * m, 0.0), rhs(m, 0.0);
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t i = 0; i < n; ++i)
        {
          const double dj = f(j + 1, i) - f(j, i);
          rhs[j] += dj * f(m, i);
          for (std::size_t l = 0; l <= j; ++l)
            A[j * m + l] += dj * (f(l + 1, i) - f(l, i));
        }
    // The processes' parts of the inner products: every process then solves the same small system.
    if (sum_over_parts)
      {
        std::vector<double> sums(A);
        sums.insert(sums.end(), rhs.begin(), rhs.end());
        sum_over_parts(sums);
        std::copy(sums.begin(), sums.begin() + m * m, A.begin());
        std::copy(sums.begin() + m * m, sums.end(), rhs.begin());
      }
    double trace = 0;
    for (std::size_t j = 0; j < m; ++j)
      {
        for (std::size_t l = 0; l < j; ++l)
          A[l * m + j] = A[j * m + l];
        trace += A[j * m + j];
      }
    if (!(trace > 0))
      return;
    for (std::size_t j = 0; j < m; ++j)
      A[j * m + j] += 1e-12 * trace;
    std::vector<double> gamma = rhs;
    if (!eliminate(m, A, gamma))
      return;
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t i = 0; i < n; ++i)
        g[i] -= gamma[j] * (gs[j + 1][i] - gs[j][i]);
  }
} // namespace percussion::ContactSolvers
