#ifndef PERCUSSION_CORE_PETSC_ACCESS_H
#define PERCUSSION_CORE_PETSC_ACCESS_H

#include <deal.II/base/types.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <petscmat.h>

#include <vector>

/**
 * What the layers that work on deal.II's PETSc wrappers with PETSc calls share: the PETSc handles
 * of the wrappers, a matrix's identity, and the two vector operations the time schemes and the
 * contact step both do on DoF and contact-column vectors kept from step to step.
 */
namespace percussion::PetscAccess
{
  /// The PETSc handles of deal.II's wrappers (whose own accessors are not const).
  Vec petsc(const dealii::PETScWrappers::MPI::Vector &v);
  Mat petsc(const dealii::PETScWrappers::MPI::SparseMatrix &m);
  /// The PETSc object id of @p m: a reassembled matrix (e.g. a new H) is a new object.
  PetscObjectId object_id(const dealii::PETScWrappers::MPI::SparseMatrix &m);

  /// x = 0 on @p dofs.
  void zero(dealii::PETScWrappers::MPI::Vector &x, const std::vector<dealii::types::global_dof_index> &dofs);

  /// Reinitialises @p x with the partition of @p like unless it has it already (work vectors kept
  /// from step to step keep their values).
  void reinit_like(dealii::PETScWrappers::MPI::Vector &x, const dealii::PETScWrappers::MPI::Vector &like,
                   MPI_Comm communicator);
} // namespace percussion::PetscAccess

#endif
