#include <deal.II/base/mpi.h>

#include <percussion/core/petsc_check.h>
#include <percussion/time_integration/system_algebra.h>

namespace percussion::TimeIntegration::SystemAlgebra
{
  Vec petsc(const Vector &v) { return const_cast<Vec>(static_cast<const Vec &>(v)); }

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

  Mat scaled_sum(const LinearElastodynamicSystem &system, const double mass_factor, const double stiffness_factor)
  {
    // K's pattern holds M's (M couples a component with itself only: ElasticBody::setup()).
    Mat result;
    PERCUSSION_PETSC_CALL(MatDuplicate(petsc(*system.stiffness), MAT_COPY_VALUES, &result));
    PERCUSSION_PETSC_CALL(MatScale(result, stiffness_factor));
    PERCUSSION_PETSC_CALL(MatAXPY(result, mass_factor, petsc(*system.mass), SUBSET_NONZERO_PATTERN));
    return result;
  }

  double eliminate(Mat matrix, const Dofs &dofs)
  {
    Vec diagonal_entries;
    PERCUSSION_PETSC_CALL(MatCreateVecs(matrix, &diagonal_entries, nullptr));
    PERCUSSION_PETSC_CALL(MatGetDiagonal(matrix, diagonal_entries));
    PetscReal diagonal = 1;
    PERCUSSION_PETSC_CALL(VecNorm(diagonal_entries, NORM_INFINITY, &diagonal));
    PERCUSSION_PETSC_CALL(VecDestroy(&diagonal_entries));
    const std::vector<PetscInt> rows(dofs.begin(), dofs.end());
    PERCUSSION_PETSC_CALL(
      MatZeroRowsColumns(matrix, static_cast<PetscInt>(rows.size()), rows.data(), diagonal, nullptr, nullptr));
    return diagonal;
  }

  void zero_rows(Mat matrix, const Dofs &dofs)
  {
    const std::vector<PetscInt> rows(dofs.begin(), dofs.end());
    PERCUSSION_PETSC_CALL(MatZeroRows(matrix, static_cast<PetscInt>(rows.size()), rows.data(), 0.0, nullptr, nullptr));
  }

  void zero(Vector &x, const Dofs &dofs)
  {
    const std::vector<double> zeros(dofs.size(), 0.0);
    if (!zeros.empty())
      x.set(dofs, zeros);
    x.compress(dealii::VectorOperation::insert);
  }

  void reinit_like(Vector &x, const Vector &like, MPI_Comm communicator)
  {
    if (x.size() != like.size() || x.locally_owned_elements() != like.locally_owned_elements())
      x.reinit(like.locally_owned_elements(), communicator);
  }


  void lift(Mat full, const std::vector<double> &values, const Dofs &dofs, const double diagonal, Vector &x_c,
            Vector &work, Vector &rhs)
  {
    if (full != nullptr)
      {
        x_c = 0;
        if (!dofs.empty())
          x_c.set(dofs, values);
        x_c.compress(dealii::VectorOperation::insert);
        PERCUSSION_PETSC_CALL(MatMult(full, petsc(x_c), petsc(work)));
        rhs.add(-1.0, work);
      }
    std::vector<double> scaled(values);
    for (double &x : scaled)
      x *= diagonal;
    if (!dofs.empty())
      rhs.set(dofs, scaled);
    rhs.compress(dealii::VectorOperation::insert);
  }

  double inner_product(const Vector &a, const Vector &b, const Dofs &dofs, MPI_Comm communicator)
  {
    std::vector<double> a_c(dofs.size()), b_c(dofs.size());
    a.extract_subvector_to(dofs, a_c);
    b.extract_subvector_to(dofs, b_c);
    double local = 0;
    for (std::size_t i = 0; i < dofs.size(); ++i)
      local += a_c[i] * b_c[i];
    return dealii::Utilities::MPI::sum(local, communicator);
  }

  void solve_eliminated(IterationMatrixSolver &solver, const Vector &b, Vector &x, const Dofs &dofs, Vector &scratch)
  {
    scratch = b;
    zero(scratch, dofs);
    solver.solve(scratch, x);
  }

  void damping(const LinearElastodynamicSystem &system, const Vector &v, Vector &result, Vector &work)
  {
    system.mass->vmult(result, v);
    result *= system.rayleigh_alpha;
    if (system.rayleigh_beta != 0)
      {
        system.stiffness->vmult(work, v);
        result.add(system.rayleigh_beta, work);
      }
    if (system.kelvin_voigt != nullptr)
      {
        system.kelvin_voigt->vmult(work, v);
        result.add(1.0, work);
      }
  }

  void smooth_force(const LinearElastodynamicSystem &system, const Vector &q, const Vector &v, const Vector *force,
                    Vector &result, Vector &work)
  {
    damping(system, v, result, work);
    system.stiffness->vmult(work, q);
    result.add(1.0, work);
    if (force != nullptr)
      result.add(-1.0, *force);
    result *= -1.0;
  }
  void solve_in_frames(const BodyFrames *frames, Mat B, Mat X, const std::function<void(Mat, Mat)> &solve)
  {
    if (!frames || frames->all_identity())
      {
        solve(B, X);
        return;
      }
    // (The solve's right-hand sides in the frames: a copy, B is the caller's.)
    Mat rotated = nullptr;
    PERCUSSION_PETSC_CALL(MatDuplicate(B, MAT_COPY_VALUES, &rotated));
    frames->rotate_rows(rotated, true);
    solve(rotated, X);
    PERCUSSION_PETSC_CALL(MatDestroy(&rotated));
    frames->rotate_rows(X, false);
  }
} // namespace percussion::TimeIntegration::SystemAlgebra
