#ifndef PERCUSSION_CONTACT_SOLVERS_DENSE_MATRIX_H
#define PERCUSSION_CONTACT_SOLVERS_DENSE_MATRIX_H

#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * A dense matrix stored row by row (entry (i, j) at values[i * cols + j]).
   * Plain data: the time integrator fills it with the Delassus operator W = Hᵀ Ŵ⁻¹ H
   * of the active contacts (doc/theory.md, "Eliminating q").
   */
  struct DenseMatrix
  {
    int rows = 0;
    int cols = 0;
    std::vector<double> values;

    DenseMatrix() = default;
    DenseMatrix(int n_rows, int n_cols)
      : rows(n_rows)
      , cols(n_cols)
      , values(static_cast<std::size_t>(n_rows) * n_cols, 0.0)
    {
    }

    double &operator()(int i, int j) { return values[static_cast<std::size_t>(i) * cols + j]; }
    double operator()(int i, int j) const { return values[static_cast<std::size_t>(i) * cols + j]; }

    /** y += A x. */
    void multiply_add(const double *x, double *y) const;
  };
} // namespace percussion::ContactSolvers

#endif
