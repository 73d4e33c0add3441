#include <percussion/contact_solvers/block_linear_solver.h>

#include <algorithm>
#include <cmath>

#include <klu.h>

namespace percussion::ContactSolvers
{
  struct BlockLinearSolver::KluData
  {
    klu_common common;
    klu_symbolic *symbolic = nullptr;
    klu_numeric *numeric = nullptr;
  };

  BlockLinearSolver::BlockLinearSolver(const BlockDelassus &pattern, bool use_dense)
    : pattern_(pattern)
    , use_dense_(use_dense)
    , n_(pattern.d * pattern.m)
  {
    if (use_dense_)
      {
        lu_.assign(static_cast<std::size_t>(n_) * n_, 0.0);
        pivots_.assign(n_, 0);
        return;
      }
    // Scalar CSR pattern of J: block row a, component ci spans the blocks of row a in column order,
    // so the column indices come out sorted.
    const int d = pattern.d;
    csr_start_.assign(n_ + 1, 0);
    for (int a = 0; a < pattern.m; ++a)
      for (int ci = 0; ci < d; ++ci)
        {
          const int i = a * d + ci;
          for (int k = pattern.block_row_start[a]; k < pattern.block_row_start[a + 1]; ++k)
            for (int cj = 0; cj < d; ++cj)
              csr_column_.push_back(pattern.block_column[k] * d + cj);
          csr_start_[i + 1] = static_cast<int>(csr_column_.size());
        }
    csr_values_.assign(csr_column_.size(), 0.0);
    klu_ = std::make_unique<KluData>();
    klu_defaults(&klu_->common);
    // The CSR arrays of J are the CSC arrays of Jᵀ; KLU analyses Jᵀ and klu_tsolve solves with J.
    klu_->symbolic = klu_analyze(n_, csr_start_.data(), csr_column_.data(), &klu_->common);
  }

  BlockLinearSolver::~BlockLinearSolver()
  {
    if (klu_)
      {
        if (klu_->numeric)
          klu_free_numeric(&klu_->numeric, &klu_->common);
        if (klu_->symbolic)
          klu_free_symbolic(&klu_->symbolic, &klu_->common);
      }
  }

  bool BlockLinearSolver::factorize(const std::vector<double> &block_values, double shift)
  {
    const int d = pattern_.d;
    const int dd = d * d;
    if (use_dense_)
      {
        std::fill(lu_.begin(), lu_.end(), 0.0);
        for (int a = 0; a < pattern_.m; ++a)
          for (int k = pattern_.block_row_start[a]; k < pattern_.block_row_start[a + 1]; ++k)
            {
              const int b = pattern_.block_column[k];
              for (int i = 0; i < d; ++i)
                for (int j = 0; j < d; ++j)
                  lu_[static_cast<std::size_t>(a * d + i) * n_ + b * d + j] =
                    block_values[static_cast<std::size_t>(k) * dd + i * d + j];
            }
        double max_abs = 0.0;
        for (int i = 0; i < n_; ++i)
          {
            lu_[static_cast<std::size_t>(i) * n_ + i] += shift;
          }
        for (double v : lu_)
          max_abs = std::max(max_abs, std::abs(v));
        const double tiny = 1e-14 * std::max(max_abs, 1e-300);
        // Right-looking LU with partial pivoting; the inner loop runs along contiguous rows.
        for (int k = 0; k < n_; ++k)
          {
            int p = k;
            double best = std::abs(lu_[static_cast<std::size_t>(k) * n_ + k]);
            for (int i = k + 1; i < n_; ++i)
              if (std::abs(lu_[static_cast<std::size_t>(i) * n_ + k]) > best)
                {
                  best = std::abs(lu_[static_cast<std::size_t>(i) * n_ + k]);
                  p = i;
                }
            if (!(best > tiny))
              return false;
            pivots_[k] = p;
            if (p != k)
              std::swap_ranges(lu_.begin() + static_cast<std::size_t>(k) * n_,
                               lu_.begin() + static_cast<std::size_t>(k + 1) * n_,
                               lu_.begin() + static_cast<std::size_t>(p) * n_);
            const double *rowk = &lu_[static_cast<std::size_t>(k) * n_];
            const double inv = 1.0 / rowk[k];
            for (int i = k + 1; i < n_; ++i)
              {
                double *rowi = &lu_[static_cast<std::size_t>(i) * n_];
                const double l = rowi[k] * inv;
                rowi[k] = l;
                if (l != 0.0)
                  for (int j = k + 1; j < n_; ++j)
                    rowi[j] -= l * rowk[j];
              }
          }
        return true;
      }

    std::size_t pos = 0;
    for (int a = 0; a < pattern_.m; ++a)
      for (int ci = 0; ci < d; ++ci)
        for (int k = pattern_.block_row_start[a]; k < pattern_.block_row_start[a + 1]; ++k)
          for (int cj = 0; cj < d; ++cj)
            {
              double v = block_values[static_cast<std::size_t>(k) * dd + ci * d + cj];
              if (pattern_.block_column[k] == a && ci == cj)
                v += shift;
              csr_values_[pos++] = v;
            }
    if (klu_->numeric)
      klu_free_numeric(&klu_->numeric, &klu_->common);
    if (!klu_->symbolic)
      return false;
    klu_->numeric =
      klu_factor(csr_start_.data(), csr_column_.data(), csr_values_.data(), klu_->symbolic, &klu_->common);
    if (!klu_->numeric || klu_->common.status != KLU_OK)
      return false;
    // KLU accepts tiny pivots; a reciprocal pivot growth / condition estimate this small means the
    // Newton direction would be garbage, so report singularity and let the caller shift.
    klu_rcond(klu_->symbolic, klu_->numeric, &klu_->common);
    if (!(klu_->common.rcond > 1e-14))
      return false;
    return true;
  }

  void BlockLinearSolver::solve(double *x) const
  {
    if (use_dense_)
      {
        for (int k = 0; k < n_; ++k)
          if (pivots_[k] != k)
            std::swap(x[k], x[pivots_[k]]);
        for (int i = 0; i < n_; ++i)
          {
            const double *row = &lu_[static_cast<std::size_t>(i) * n_];
            double s = x[i];
            for (int j = 0; j < i; ++j)
              s -= row[j] * x[j];
            x[i] = s;
          }
        for (int i = n_ - 1; i >= 0; --i)
          {
            const double *row = &lu_[static_cast<std::size_t>(i) * n_];
            double s = x[i];
            for (int j = i + 1; j < n_; ++j)
              s -= row[j] * x[j];
            x[i] = s / row[i];
          }
        return;
      }
    klu_tsolve(klu_->symbolic, klu_->numeric, n_, 1, x, &klu_->common);
  }
} // namespace percussion::ContactSolvers
