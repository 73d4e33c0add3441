#include <percussion/core/petsc_access.h>
#include <percussion/core/petsc_check.h>

namespace percussion::PetscAccess
{
  using dealii::PETScWrappers::MPI::Vector;

  Vec petsc(const Vector &v)
  {
    return const_cast<Vec>(static_cast<const Vec &>(v));
  }

  Mat petsc(const dealii::PETScWrappers::MPI::SparseMatrix &m)
  {
    return const_cast<dealii::PETScWrappers::MPI::SparseMatrix &>(m).petsc_matrix();
  }

  PetscObjectId object_id(const dealii::PETScWrappers::MPI::SparseMatrix &m)
  {
    PetscObjectId id;
    PERCUSSION_PETSC_CALL(PetscObjectGetId(reinterpret_cast<PetscObject>(petsc(m)), &id));
    return id;
  }

  void zero(Vector &x, const std::vector<dealii::types::global_dof_index> &dofs)
  {
    const std::vector<double> zeros(dofs.size(), 0.0);
    if (!zeros.empty())
      x.set(dofs, zeros);
    x.compress(dealii::VectorOperation::insert);
  }

  void reinit_like(Vector &x, const Vector &like, MPI_Comm communicator)
  {
    // A PETSc vector owns one contiguous range: comparing the ranges compares the partitions,
    // without building their index sets at every step.
    if (x.size() != like.size() || x.local_range() != like.local_range())
      x.reinit(like.locally_owned_elements(), communicator);
  }
} // namespace percussion::PetscAccess
