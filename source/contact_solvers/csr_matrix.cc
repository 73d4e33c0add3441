#include <percussion/contact_solvers/csr_matrix.h>

#include <percussion/core/exceptions.h>

#include <algorithm>
#include <numeric>
#include <string>

namespace percussion::ContactSolvers
{
  void CsrMatrix::multiply_add(const double *x, double *y) const
  {
    for (int i = 0; i < rows; ++i)
      {
        double sum = 0.0;
        for (int k = row_start[i]; k < row_start[i + 1]; ++k)
          sum += values[k] * x[column_index[k]];
        y[i] += sum;
      }
  }

  void CsrMatrix::transpose_multiply_add(const double *x, double *y) const
  {
    for (int i = 0; i < rows; ++i)
      for (int k = row_start[i]; k < row_start[i + 1]; ++k)
        y[column_index[k]] += values[k] * x[i];
  }

  CsrMatrix CsrMatrix::transpose() const
  {
    CsrMatrix t;
    t.rows = cols;
    t.cols = rows;
    t.row_start.assign(cols + 1, 0);
    const int nnz = number_of_entries();
    for (int k = 0; k < nnz; ++k)
      ++t.row_start[column_index[k] + 1];
    std::partial_sum(t.row_start.begin(), t.row_start.end(), t.row_start.begin());
    t.column_index.resize(nnz);
    t.values.resize(nnz);
    std::vector<int> next(t.row_start.begin(), t.row_start.end() - 1);
    // Rows are visited in increasing order, so the columns of the transpose come out sorted.
    for (int i = 0; i < rows; ++i)
      for (int k = row_start[i]; k < row_start[i + 1]; ++k)
        {
          const int pos = next[column_index[k]]++;
          t.column_index[pos] = i;
          t.values[pos] = values[k];
        }
    return t;
  }

  CsrMatrix CsrMatrix::from_triplets(int n_rows, int n_cols, const std::vector<int> &row_of,
                                     const std::vector<int> &col_of, const std::vector<double> &vals, const char *what)
  {
    if (row_of.size() != vals.size() || col_of.size() != vals.size())
      throw InputError(std::string(what) + ": triplet arrays have different lengths");
    CsrMatrix a;
    a.rows = n_rows;
    a.cols = n_cols;
    a.row_start.assign(n_rows + 1, 0);
    for (std::size_t k = 0; k < vals.size(); ++k)
      {
        if (row_of[k] < 0 || row_of[k] >= n_rows || col_of[k] < 0 || col_of[k] >= n_cols)
          throw InputError(std::string(what) + ": entry " + std::to_string(k) + " at (" + std::to_string(row_of[k]) +
                           ", " + std::to_string(col_of[k]) + ") is outside the " + std::to_string(n_rows) + " x " +
                           std::to_string(n_cols) + " matrix");
        ++a.row_start[row_of[k] + 1];
      }
    std::partial_sum(a.row_start.begin(), a.row_start.end(), a.row_start.begin());
    std::vector<int> cols(vals.size());
    std::vector<double> values(vals.size());
    std::vector<int> next(a.row_start.begin(), a.row_start.end() - 1);
    for (std::size_t k = 0; k < vals.size(); ++k)
      {
        const int pos = next[row_of[k]]++;
        cols[pos] = col_of[k];
        values[pos] = vals[k];
      }
    // Sort each row and merge duplicates (triplet files may repeat an entry to be summed).
    std::vector<int> new_start(n_rows + 1, 0);
    std::vector<std::pair<int, double>> row;
    for (int i = 0; i < n_rows; ++i)
      {
        row.clear();
        for (int k = a.row_start[i]; k < a.row_start[i + 1]; ++k)
          row.emplace_back(cols[k], values[k]);
        std::sort(row.begin(), row.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
        for (std::size_t k = 0; k < row.size(); ++k)
          {
            if (!a.column_index.empty() && static_cast<int>(a.column_index.size()) > new_start[i] &&
                a.column_index.back() == row[k].first)
              a.values.back() += row[k].second;
            else
              {
                a.column_index.push_back(row[k].first);
                a.values.push_back(row[k].second);
              }
          }
        new_start[i + 1] = static_cast<int>(a.column_index.size());
      }
    a.row_start = std::move(new_start);
    return a;
  }
} // namespace percussion::ContactSolvers
