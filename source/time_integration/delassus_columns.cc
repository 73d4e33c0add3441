#include <deal.II/base/mpi.h>

#include <percussion/core/petsc_check.h>
#include <percussion/time_integration/delassus_columns.h>
#include <percussion/time_integration/system_algebra.h>
#include <percussion/time_integration/time_integrator.h>

#include <algorithm>
#include <numeric>

namespace percussion::TimeIntegration
{
  DelassusColumns::DelassusColumns(const unsigned int dim, const unsigned int column_limit, MPI_Comm communicator,
                                   const Response response)
    : dim(dim)
    , column_limit(column_limit)
    , communicator(communicator)
    , response(response)
  {}

  DelassusColumns::~DelassusColumns()
  {
    release();
  }

  void DelassusColumns::release()
  {
    if (B != nullptr)
      MatDestroy(&B);
    if (X != nullptr)
      MatDestroy(&X);
    if (p_columns != nullptr)
      VecDestroy(&p_columns);
  }

  bool DelassusColumns::ensure(TimeIntegrator &integrator, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                               const std::vector<unsigned long long> &needed, const unsigned long long n_candidates,
                               const bool operator_moves)
  {
    if (covers(integrator, H, needed))
      return false;
    const PetscObjectId id = SystemAlgebra::object_id(H);
    // Columns for all candidates pay off only if H stays fixed for a while; when it changes from
    // step to step (body pairs, curved obstacles), compute the needed ones only.
    std::vector<unsigned long long> columns;
    if (columns_to_compute(integrator, H, needed, n_candidates, operator_moves) == dim * n_candidates)
      {
        columns.resize(n_candidates);
        std::iota(columns.begin(), columns.end(), 0ull);
      }
    else
      columns = needed;
    compute(integrator, H, columns);
    operator_id = id;
    response_version = integrator.operator_version();
    return true;
  }

  unsigned long long DelassusColumns::columns_to_compute(const TimeIntegrator &integrator,
                                                         const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                         const std::vector<unsigned long long> &needed,
                                                         const unsigned long long n_candidates,
                                                         const bool operator_moves) const
  {
    if (covers(integrator, H, needed))
      return 0;
    return !operator_moves && dim * n_candidates <= column_limit ? dim * n_candidates : dim * needed.size();
  }

  bool DelassusColumns::covers(const TimeIntegrator &integrator, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                               const std::vector<unsigned long long> &needed) const
  {
    bool covered = SystemAlgebra::object_id(H) == operator_id && integrator.operator_version() == response_version;
    for (std::size_t a = 0; covered && a < needed.size(); ++a)
      covered = block(needed[a]) >= 0;
    return covered;
  }

  void DelassusColumns::compute(TimeIntegrator &integrator, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                const std::vector<unsigned long long> &column_points)
  {
    release();
    points = column_points;
    position.assign(points.empty() ? 0 : *std::max_element(points.begin(), points.end()) + 1, -1);
    for (unsigned int i = 0; i < points.size(); ++i)
      position[points[i]] = static_cast<int>(i);
    const PetscInt n_columns = dim * points.size();

    Mat h = const_cast<dealii::PETScWrappers::MPI::SparseMatrix &>(H).petsc_matrix();
    PetscInt row_begin, row_end, n_rows;
    PERCUSSION_PETSC_CALL(MatGetOwnershipRange(h, &row_begin, &row_end));
    PERCUSSION_PETSC_CALL(MatGetSize(h, &n_rows, nullptr));
    const PetscInt n_local = row_end - row_begin;
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, n_local, PETSC_DECIDE, n_rows, n_columns, nullptr, &B));
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, n_local, PETSC_DECIDE, n_rows, n_columns, nullptr, &X));
    PERCUSSION_PETSC_CALL(MatCreateVecs(X, &p_columns, nullptr));

    // B = H restricted to the cached columns, with the Dirichlet rows zero (an impulse does not act
    // on a prescribed DoF: the support takes it). Remember the entries for W_c = BᵀX.
    const auto &constrained = integrator.constrained_dofs();
    struct Entry
    {
      PetscInt local_row, column;
      double value;
    };
    std::vector<Entry> entries;
    for (PetscInt r = row_begin; r < row_end; ++r)
      {
        if (std::binary_search(constrained.begin(), constrained.end(), static_cast<dealii::types::global_dof_index>(r)))
          continue;
        PetscInt n;
        const PetscInt *columns;
        const PetscScalar *values;
        PERCUSSION_PETSC_CALL(MatGetRow(h, r, &n, &columns, &values));
        for (PetscInt k = 0; k < n; ++k)
          {
            const int b = block(columns[k] / dim);
            if (b < 0 || values[k] == 0.0)
              continue;
            entries.push_back({r - row_begin, static_cast<PetscInt>(dim * b + columns[k] % dim), values[k]});
          }
        PERCUSSION_PETSC_CALL(MatRestoreRow(h, r, &n, &columns, &values));
      }
    for (const Entry &e : entries)
      PERCUSSION_PETSC_CALL(MatSetValue(B, e.local_row + row_begin, e.column, e.value, INSERT_VALUES));
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));

    if (response == Response::impulse)
      integrator.impulse_response(B, X);
    else
      integrator.projection_response(B, X);

    // W_c = BᵀX: B has a few entries per column, so sum only over them; then add the ranks' parts.
    delassus.assign(static_cast<std::size_t>(n_columns) * n_columns, 0.0);
    const PetscScalar *x;
    PetscInt lda;
    PERCUSSION_PETSC_CALL(MatDenseGetLDA(X, &lda));
    PERCUSSION_PETSC_CALL(MatDenseGetArrayRead(X, &x));
    for (const Entry &e : entries)
      for (PetscInt j = 0; j < n_columns; ++j)
        delassus[e.column * n_columns + j] += e.value * x[e.local_row + j * lda];
    PERCUSSION_PETSC_CALL(MatDenseRestoreArrayRead(X, &x));
    dealii::Utilities::MPI::sum(delassus, communicator, delassus);
    if (response == Response::projection || integrator.impulse_response_is_symmetric())
      for (PetscInt i = 0; i < n_columns; ++i)
        for (PetscInt j = 0; j < i; ++j)
          {
            const double mean = 0.5 * (delassus[i * n_columns + j] + delassus[j * n_columns + i]);
            delassus[i * n_columns + j] = delassus[j * n_columns + i] = mean;
          }
  }

  void DelassusColumns::apply(const std::vector<unsigned long long> &impulse_points, const std::vector<double> &impulse,
                              dealii::PETScWrappers::MPI::Vector &generalized_impulse,
                              dealii::PETScWrappers::MPI::Vector &response)
  {
    PetscInt begin, end;
    PERCUSSION_PETSC_CALL(VecGetOwnershipRange(p_columns, &begin, &end));
    PetscScalar *p_array;
    PERCUSSION_PETSC_CALL(VecGetArray(p_columns, &p_array));
    std::fill(p_array, p_array + (end - begin), 0.0);
    for (std::size_t a = 0; a < impulse_points.size(); ++a)
      for (unsigned int k = 0; k < dim; ++k)
        if (const PetscInt i = dim * block(impulse_points[a]) + k; i >= begin && i < end)
          p_array[i - begin] = impulse[dim * a + k];
    PERCUSSION_PETSC_CALL(VecRestoreArray(p_columns, &p_array));
    PERCUSSION_PETSC_CALL(MatMult(B, p_columns, SystemAlgebra::petsc(generalized_impulse)));
    PERCUSSION_PETSC_CALL(MatMult(X, p_columns, SystemAlgebra::petsc(response)));
  }
} // namespace percussion::TimeIntegration
