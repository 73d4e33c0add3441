#include <percussion/core/petsc_check.h>

#include <string>

namespace percussion
{
  void check_petsc(const PetscErrorCode error_code, const char *call, const char *file, const int line)
  {
    if (error_code == 0)
      return;
    const char *text = nullptr;
    PetscErrorMessage(error_code, &text, nullptr);
    throw SolverError(std::string("PETSc call ") + call + " failed with error " + std::to_string(error_code) + " (" +
                      (text ? text : "unknown") + ") at " + file + ":" + std::to_string(line));
  }
} // namespace percussion
