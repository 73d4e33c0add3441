#ifndef PERCUSSION_CORE_PETSC_CHECK_H
#define PERCUSSION_CORE_PETSC_CHECK_H

#include <percussion/core/exceptions.h>

#include <petscsys.h>

#include <string>

namespace percussion
{
  /// Throws SolverError with PETSc's message when @p error_code is not 0.
  void check_petsc(PetscErrorCode error_code, const char *call, const char *file, int line);
} // namespace percussion

/// Calls a PETSc function and turns a non-zero error code into a percussion::SolverError.
#define PERCUSSION_PETSC_CALL(call) ::percussion::check_petsc((call), #call, __FILE__, __LINE__)

#endif
