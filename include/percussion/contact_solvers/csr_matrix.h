#ifndef PERCUSSION_CONTACT_SOLVERS_CSR_MATRIX_H
#define PERCUSSION_CONTACT_SOLVERS_CSR_MATRIX_H

#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * A sparse matrix in compressed sparse row storage (the FCLIB `nz = -2` layout):
   * the entries of row i are values[k], columns column_index[k], for
   * row_start[i] <= k < row_start[i + 1]. Column indices need not be sorted; duplicates add up.
   */
  struct CsrMatrix
  {
    int rows = 0;
    int cols = 0;
    std::vector<int> row_start{0};
    std::vector<int> column_index;
    std::vector<double> values;

    int number_of_entries() const { return row_start.empty() ? 0 : row_start.back(); }

    /** y += A x. */
    void multiply_add(const double *x, double *y) const;

    /** y += Aᵀ x. */
    void transpose_multiply_add(const double *x, double *y) const;

    /** Aᵀ as a CSR matrix (columns sorted). */
    CsrMatrix transpose() const;

    /**
     * Build from (row, column, value) triplets; duplicates are summed, columns sorted.
     * Throws InputError naming @p what if an index is out of range.
     */
    static CsrMatrix from_triplets(int n_rows, int n_cols, const std::vector<int> &rows, const std::vector<int> &cols,
                                   const std::vector<double> &vals, const char *what = "matrix");
  };
} // namespace percussion::ContactSolvers

#endif
