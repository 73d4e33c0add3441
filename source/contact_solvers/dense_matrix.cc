#include <percussion/contact_solvers/dense_matrix.h>

namespace percussion::ContactSolvers
{
  void DenseMatrix::multiply_add(const double *x, double *y) const
  {
    for (int i = 0; i < rows; ++i)
      {
        const double *row = &values[static_cast<std::size_t>(i) * cols];
        double sum = 0.0;
        for (int j = 0; j < cols; ++j)
          sum += row[j] * x[j];
        y[i] += sum;
      }
  }
} // namespace percussion::ContactSolvers
