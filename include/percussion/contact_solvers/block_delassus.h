#ifndef PERCUSSION_CONTACT_SOLVERS_BLOCK_DELASSUS_H
#define PERCUSSION_CONTACT_SOLVERS_BLOCK_DELASSUS_H

#include <percussion/contact_solvers/local_problem.h>

#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * W regrouped into d × d contact blocks (block CSR): the layout the solvers work on.
   * Block row a holds the blocks W_ab for the contacts b it couples with, columns sorted,
   * the diagonal block always present (zero if W has none). Block k's entries are
   * block_values[k d² .. (k+1) d²), row-major. A dense W gives all its non-zero blocks.
   */
  class BlockDelassus
  {
  public:
    explicit BlockDelassus(const LocalProblem &problem);

    int dimension() const { return d; }
    int number_of_contacts() const { return m; }
    int number_of_blocks() const { return static_cast<int>(block_column.size()); }

    /** y = W x. */
    void multiply(const double *x, double *y) const;

    /** y_a += Σ_{b ≠ a} W_ab x_b (the coupling seen by contact a in Gauss–Seidel). */
    void add_off_diagonal_row(int a, const double *x, double *y_a) const;

    const double *diagonal_block(int a) const
    {
      return &block_values[static_cast<std::size_t>(diagonal_index[a]) * d * d];
    }
    /// The mean of the positive diagonal entries of W (1 if there is none): the scale solvers fall
    /// back to for contacts whose diagonal block is zero or negative (redundant or degenerate rows).
    double mean_positive_diagonal() const;

    int d = 3;
    int m = 0;
    std::vector<int> block_row_start; ///< m + 1
    std::vector<int> block_column;    ///< contact index b of each block
    std::vector<int> diagonal_index;  ///< block index of W_aa
    std::vector<double> block_values;
  };
} // namespace percussion::ContactSolvers

#endif
