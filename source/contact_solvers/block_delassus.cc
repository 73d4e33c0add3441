#include <percussion/contact_solvers/block_delassus.h>

#include <algorithm>

namespace percussion::ContactSolvers
{
  BlockDelassus::BlockDelassus(const LocalProblem &p)
    : d(p.dimension)
    , m(p.number_of_contacts)
  {
    const int dd = d * d;
    block_row_start.assign(m + 1, 0);
    diagonal_index.assign(m, -1);
    // slot_of[b] = position of block (a, b) in the current block row, -1 if not yet seen.
    std::vector<int> slot_of(m, -1);
    std::vector<int> columns;
    for (int a = 0; a < m; ++a)
      {
        columns.clear();
        columns.push_back(a); // the diagonal block is always stored
        slot_of[a] = 0;
        for (int ci = 0; ci < d; ++ci)
          {
            const int i = a * d + ci;
            if (p.storage == MatrixStorage::dense)
              {
                for (int j = 0; j < p.size(); ++j)
                  if (p.W_dense(i, j) != 0.0 && slot_of[j / d] < 0)
                    {
                      slot_of[j / d] = 1;
                      columns.push_back(j / d);
                    }
              }
            else
              for (int k = p.W_sparse.row_start[i]; k < p.W_sparse.row_start[i + 1]; ++k)
                {
                  const int b = p.W_sparse.column_index[k] / d;
                  if (slot_of[b] < 0)
                    {
                      slot_of[b] = 1;
                      columns.push_back(b);
                    }
                }
          }
        std::sort(columns.begin(), columns.end());
        const int first = static_cast<int>(block_column.size());
        for (std::size_t s = 0; s < columns.size(); ++s)
          {
            slot_of[columns[s]] = first + static_cast<int>(s);
            block_column.push_back(columns[s]);
          }
        diagonal_index[a] = slot_of[a];
        block_values.resize(block_column.size() * dd, 0.0);
        for (int ci = 0; ci < d; ++ci)
          {
            const int i = a * d + ci;
            if (p.storage == MatrixStorage::dense)
              {
                for (int j = 0; j < p.size(); ++j)
                  if (p.W_dense(i, j) != 0.0)
                    block_values[static_cast<std::size_t>(slot_of[j / d]) * dd + ci * d + j % d] += p.W_dense(i, j);
              }
            else
              for (int k = p.W_sparse.row_start[i]; k < p.W_sparse.row_start[i + 1]; ++k)
                {
                  const int j = p.W_sparse.column_index[k];
                  block_values[static_cast<std::size_t>(slot_of[j / d]) * dd + ci * d + j % d] += p.W_sparse.values[k];
                }
          }
        for (int b : columns)
          slot_of[b] = -1;
        block_row_start[a + 1] = static_cast<int>(block_column.size());
      }
  }

  double BlockDelassus::mean_positive_diagonal() const
  {
    double sum = 0.0;
    int count = 0;
    for (int a = 0; a < m; ++a)
      for (int i = 0; i < d; ++i)
        if (diagonal_block(a)[i * d + i] > 0.0)
          {
            sum += diagonal_block(a)[i * d + i];
            ++count;
          }
    return count > 0 ? sum / count : 1.0;
  }

  void BlockDelassus::multiply(const double *x, double *y) const
  {
    const int dd = d * d;
    for (int a = 0; a < m; ++a)
      {
        double acc[3] = {0.0, 0.0, 0.0};
        for (int k = block_row_start[a]; k < block_row_start[a + 1]; ++k)
          {
            const double *B = &block_values[static_cast<std::size_t>(k) * dd];
            const double *xb = &x[block_column[k] * d];
            for (int i = 0; i < d; ++i)
              for (int j = 0; j < d; ++j)
                acc[i] += B[i * d + j] * xb[j];
          }
        for (int i = 0; i < d; ++i)
          y[a * d + i] = acc[i];
      }
  }

  void BlockDelassus::add_off_diagonal_row(int a, const double *x, double *y_a) const
  {
    const int dd = d * d;
    for (int k = block_row_start[a]; k < block_row_start[a + 1]; ++k)
      {
        if (block_column[k] == a)
          continue;
        const double *B = &block_values[static_cast<std::size_t>(k) * dd];
        const double *xb = &x[block_column[k] * d];
        for (int i = 0; i < d; ++i)
          for (int j = 0; j < d; ++j)
            y_a[i] += B[i * d + j] * xb[j];
      }
  }
} // namespace percussion::ContactSolvers
