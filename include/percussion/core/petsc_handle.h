#ifndef PERCUSSION_CORE_PETSC_HANDLE_H
#define PERCUSSION_CORE_PETSC_HANDLE_H

#include <petscmat.h>
#include <petscvec.h>

#include <utility>

namespace percussion
{
  /**
   * Owns one PETSc object (a Mat, a Vec) and destroys it when it goes (or is reset): the raw PETSc
   * objects that deal.II's wrappers do not hold (dense multiple-right-hand-side blocks, products
   * such as HᵀGH, rotation matrices) clean themselves up on every path, exceptions included.
   * Converts to the raw handle for PETSc calls; out() gives the address a PETSc function creates the
   * object at (after destroying what it held), address() the one it reuses it at. Move-only.
   */
  template <typename Object, PetscErrorCode (*destroy)(Object *)>
  class PetscHandle
  {
  public:
    PetscHandle() = default;
    /// Takes ownership of @p object.
    explicit PetscHandle(Object object)
      : object(object)
    {}
    ~PetscHandle() { reset(); }
    PetscHandle(const PetscHandle &) = delete;
    PetscHandle &operator=(const PetscHandle &) = delete;
    PetscHandle(PetscHandle &&other) noexcept
      : object(std::exchange(other.object, nullptr))
    {}
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
    Object get() const { return object; }
    operator Object() const { return object; }
    explicit operator bool() const { return object != nullptr; }

  private:
    Object object = nullptr;
  };

  using MatHandle = PetscHandle<Mat, MatDestroy>;
  using VecHandle = PetscHandle<Vec, VecDestroy>;
} // namespace percussion

#endif
