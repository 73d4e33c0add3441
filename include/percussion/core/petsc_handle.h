#ifndef PERCUSSION_CORE_PETSC_HANDLE_H
#define PERCUSSION_CORE_PETSC_HANDLE_H

#include <petscksp.h>

#include <utility>

namespace percussion
{
  /**
   * Owns one PETSc object (a Mat, a Vec, a KSP, an index set, a scatter, a null space) and destroys
   * it when it goes (or is reset): the raw PETSc objects that deal.II's wrappers do not hold (dense
   * multiple-right-hand-side blocks, iteration matrices, products such as HᵀGH, rotation matrices,
   * solvers) clean themselves up on every path, exceptions included. Converts to the raw handle for
   * PETSc calls; out() gives the address a PETSc function creates the object at (after destroying
   * what it held), address() the one it reuses it at. Move-only.
   *
   * Only a named handle converts to the raw object: a temporary's (a function's returned handle)
   * would be destroyed at the end of the expression, so `Mat m = make_handle();` does not compile.
   *
   * A PETSc object that refers to another (a KSP to its operators) holds a reference of its own,
   * so either may go first; members are still declared referee first (the matrix before its
   * solver): the solver goes first, and the matrix's own handle drops the last reference.
   *
   * Header-only over PETSc's C API (no deal.II): the plain-data contact solvers use it too, through
   * the interface target percussion_petsc_handle.
   */
  template <typename Object, PetscErrorCode (*destroy)(Object *)>
  class PetscHandle
  {
  public:
    PetscHandle() = default;
    /// Takes ownership of @p object.
    explicit PetscHandle(Object object)
      : object(object)
    {
    }
    ~PetscHandle() { reset(); }
    PetscHandle(const PetscHandle &) = delete;
    PetscHandle &operator=(const PetscHandle &) = delete;
    PetscHandle(PetscHandle &&other) noexcept
      : object(std::exchange(other.object, nullptr))
    {
    }
    PetscHandle &operator=(PetscHandle &&other) noexcept
    {
      if (this != &other)
        {
          reset();
          object = std::exchange(other.object, nullptr);
        }
      return *this;
    }

    /// Destroys the object held (if any) and holds @p replacement instead.
    void reset(Object replacement = nullptr)
    {
      if (object != nullptr)
        destroy(&object); // (a destructor cannot report an error: PETSc's own report suffices)
      object = replacement;
    }
    /// The address to create a new object at: what was held is destroyed first.
    Object *out()
    {
      reset();
      return &object;
    }
    /// The address of the object held, for PETSc calls that reuse or replace it in place
    /// (MAT_REUSE_MATRIX).
    Object *address() { return &object; }
    /// The object held (still owned by the handle).
    Object get() const & { return object; }
    Object get() const && = delete;
    operator Object() const & { return object; }
    operator Object() const && = delete;
    explicit operator bool() const { return object != nullptr; }

  private:
    Object object = nullptr;
  };

  using MatHandle = PetscHandle<Mat, MatDestroy>;
  using VecHandle = PetscHandle<Vec, VecDestroy>;
  using KspHandle = PetscHandle<KSP, KSPDestroy>;
  using IsHandle = PetscHandle<IS, ISDestroy>;
  using VecScatterHandle = PetscHandle<VecScatter, VecScatterDestroy>;
  using MatNullSpaceHandle = PetscHandle<MatNullSpace, MatNullSpaceDestroy>;
} // namespace percussion

#endif
