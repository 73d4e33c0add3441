#ifndef PERCUSSION_CORE_BLOCKED_MATRIX_PRODUCT_H
#define PERCUSSION_CORE_BLOCKED_MATRIX_PRODUCT_H

#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/petsc_handle.h>

#include <petscmat.h>

namespace percussion
{
  /**
   * The product y = A x of a matrix assembled in deal.II's (PETSc AIJ) format, taken from a copy of
   * A in PETSc's block format (BAIJ) with the nodes' dim × dim blocks when that pays: a vector
   * field's stiffness couples every component of two nodes, so each of its blocks is dense and the
   * block format reads one column index per block instead of one per entry, and its product kernel
   * works on whole blocks. Measured on the 3D ball of benchmarks/impact_3d, 1 rank, K's product
   * within benchmarks/floor's bare step: 11 451 DoFs 1.69 → 1.35 ms, 1 551 DoFs 0.198 → 0.172 ms;
   * in a loop of 200 products 1.56 → 0.45 ms and 0.053 → 0.026 ms (doc/architecture.md, core/).
   * Both products sum each row's entries by increasing column; the unit test checks that they
   * agree to round-off.
   *
   * The copy is made when every rank's rows and columns are whole blocks of @p block_size and
   * at least 2/3 of the entries of the blocks A touches are stored in A: a consistent mass matrix
   * (one entry per block row and node pair) would store 3 times its values in blocks and stays
   * with A. Otherwise, and for @p block_size 1, the product is A's own. A must not change after
   * construction (the bodies' M and K do not).
   */
  class BlockedMatrixProduct
  {
  public:
    BlockedMatrixProduct(const dealii::PETScWrappers::MPI::SparseMatrix &matrix, unsigned int block_size);

    /// @p dst = A @p src (vectors of A's row and column partition).
    void vmult(dealii::PETScWrappers::MPI::Vector &dst, const dealii::PETScWrappers::MPI::Vector &src) const;

    /// Whether the products run on the block copy (otherwise on A itself).
    bool is_blocked() const { return static_cast<bool>(blocked); }

    /**
     * The block copy of @p matrix as described above (collective), or an empty handle where it
     * would not pay. The CG path's operator is one (IterationMatrixSolver).
     */
    static MatHandle block_copy(Mat matrix, unsigned int block_size);

  private:
    Mat original;      ///< A, the caller's
    MatHandle blocked; ///< A's block copy, or empty where A's own product serves
  };
} // namespace percussion

#endif
