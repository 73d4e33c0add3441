#include <deal.II/base/mpi.h>

#include <percussion/core/blocked_matrix_product.h>
#include <percussion/core/petsc_check.h>

#include <algorithm>
#include <vector>

namespace percussion
{
  BlockedMatrixProduct::BlockedMatrixProduct(const dealii::PETScWrappers::MPI::SparseMatrix &matrix,
                                             const unsigned int block_size)
    : original(const_cast<dealii::PETScWrappers::MPI::SparseMatrix &>(matrix).petsc_matrix())
    , blocked(block_copy(original, block_size))
  {
  }

  MatHandle BlockedMatrixProduct::block_copy(Mat original, const unsigned int block_size)
  {
    MPI_Comm communicator = PetscObjectComm(reinterpret_cast<PetscObject>(original));
    const PetscInt bs = block_size;
    PetscInt row_begin, row_end, column_begin, column_end, rows, columns;
    PERCUSSION_PETSC_CALL(MatGetOwnershipRange(original, &row_begin, &row_end));
    PERCUSSION_PETSC_CALL(MatGetOwnershipRangeColumn(original, &column_begin, &column_end));
    PERCUSSION_PETSC_CALL(MatGetSize(original, &rows, &columns));
    const bool whole_blocks = bs > 1 && row_begin % bs == 0 && row_end % bs == 0 && column_begin % bs == 0 &&
                              column_end % bs == 0 && rows % bs == 0 && columns % bs == 0;
    if (dealii::Utilities::MPI::min(whole_blocks ? 1 : 0, communicator) == 0)
      return MatHandle();

    // Per block row: its distinct block columns, on and off this rank's column range (the
    // preallocation of the block format), and how full they are.
    const PetscInt block_rows = (row_end - row_begin) / bs;
    std::vector<PetscInt> diagonal_blocks(block_rows, 0), off_diagonal_blocks(block_rows, 0), block_columns;
    double stored[2] = {0, 0}; // entries of A, entries of the blocks they lie in
    for (PetscInt I = 0; I < block_rows; ++I)
      {
        block_columns.clear();
        for (PetscInt k = 0; k < bs; ++k)
          {
            const PetscInt row = row_begin + I * bs + k;
            PetscInt n;
            const PetscInt *cols;
            PERCUSSION_PETSC_CALL(MatGetRow(original, row, &n, &cols, nullptr));
            for (PetscInt j = 0; j < n; ++j)
              block_columns.push_back(cols[j] / bs);
            stored[0] += n;
            PERCUSSION_PETSC_CALL(MatRestoreRow(original, row, &n, &cols, nullptr));
          }
        std::sort(block_columns.begin(), block_columns.end());
        block_columns.erase(std::unique(block_columns.begin(), block_columns.end()), block_columns.end());
        for (const PetscInt J : block_columns)
          ++(J * bs >= column_begin && J * bs < column_end ? diagonal_blocks[I] : off_diagonal_blocks[I]);
        stored[1] += static_cast<double>(block_columns.size()) * bs * bs;
      }
    dealii::Utilities::MPI::sum(dealii::ArrayView<const double>(stored, 2), communicator,
                                dealii::ArrayView<double>(stored, 2));
    if (stored[0] < 2.0 / 3.0 * stored[1])
      return MatHandle();

    MatHandle blocked;
    PERCUSSION_PETSC_CALL(MatCreate(communicator, blocked.out()));
    PERCUSSION_PETSC_CALL(MatSetSizes(blocked, row_end - row_begin, column_end - column_begin, rows, columns));
    PERCUSSION_PETSC_CALL(MatSetType(blocked, MATBAIJ));
    PERCUSSION_PETSC_CALL(MatSetBlockSize(blocked, bs));
    PERCUSSION_PETSC_CALL(
      MatXAIJSetPreallocation(blocked, bs, diagonal_blocks.data(), off_diagonal_blocks.data(), nullptr, nullptr));
    PERCUSSION_PETSC_CALL(MatSetOption(blocked, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
    for (PetscInt row = row_begin; row < row_end; ++row)
      {
        PetscInt n;
        const PetscInt *cols;
        const PetscScalar *values;
        PERCUSSION_PETSC_CALL(MatGetRow(original, row, &n, &cols, &values));
        PERCUSSION_PETSC_CALL(MatSetValues(blocked, 1, &row, n, cols, values, INSERT_VALUES));
        PERCUSSION_PETSC_CALL(MatRestoreRow(original, row, &n, &cols, &values));
      }
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(blocked, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(blocked, MAT_FINAL_ASSEMBLY));
    return blocked;
  }

  void BlockedMatrixProduct::vmult(dealii::PETScWrappers::MPI::Vector &dst,
                                   const dealii::PETScWrappers::MPI::Vector &src) const
  {
    // (deal.II's vectors hand out their Vec as const only.)
    PERCUSSION_PETSC_CALL(MatMult(blocked ? blocked.get() : original, const_cast<Vec>(static_cast<const Vec &>(src)),
                                  const_cast<Vec>(static_cast<const Vec &>(dst))));
  }
} // namespace percussion
