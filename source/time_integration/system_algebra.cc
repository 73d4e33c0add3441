#include <deal.II/base/mpi.h>

#include <percussion/core/petsc_check.h>
#include <percussion/time_integration/system_algebra.h>

namespace percussion::TimeIntegration::SystemAlgebra
{
  MatHandle scaled_sum(const LinearElastodynamicSystem &system, const double mass_factor, const double stiffness_factor)
  {
    // K's pattern holds M's (M couples a component with itself only: ElasticBody::setup()).
    MatHandle result;
    PERCUSSION_PETSC_CALL(MatDuplicate(petsc(*system.stiffness), MAT_COPY_VALUES, result.out()));
    PERCUSSION_PETSC_CALL(MatScale(result, stiffness_factor));
    PERCUSSION_PETSC_CALL(MatAXPY(result, mass_factor, petsc(*system.mass), SUBSET_NONZERO_PATTERN));
    return result;
  }

  double eliminate(Mat matrix, const Dofs &dofs)
  {
    VecHandle diagonal_entries;
    PERCUSSION_PETSC_CALL(MatCreateVecs(matrix, diagonal_entries.out(), nullptr));
    PERCUSSION_PETSC_CALL(MatGetDiagonal(matrix, diagonal_entries));
    PetscReal diagonal = 1;
    PERCUSSION_PETSC_CALL(VecNorm(diagonal_entries, NORM_INFINITY, &diagonal));
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

  namespace
  {
    /// Names VectorBase's protected handle and state to take their member pointers (which any
    /// VectorBase object accepts); nothing else uses this class.
    struct VectorInternals : dealii::PETScWrappers::MPI::Vector
    {
      static void swap(dealii::PETScWrappers::VectorBase &a, dealii::PETScWrappers::VectorBase &b)
      {
        constexpr auto handle = &VectorInternals::vector;
        constexpr auto last_action = &VectorInternals::last_action;
        std::swap(a.*handle, b.*handle);
        std::swap(a.*last_action, b.*last_action);
      }
    };
  } // namespace

  void swap_storage(Vector &a, Vector &b)
  {
    int same_communicator = MPI_UNEQUAL;
    const int error = MPI_Comm_compare(a.get_mpi_communicator(), b.get_mpi_communicator(), &same_communicator);
    AssertThrowMPI(error);
    AssertThrow(!a.has_ghost_elements() && !b.has_ghost_elements() && a.size() == b.size() &&
                  a.local_range() == b.local_range() &&
                  (same_communicator == MPI_IDENT || same_communicator == MPI_CONGRUENT),
                dealii::ExcMessage("swap_storage() exchanges vectors of one partition only."));
    VectorInternals::swap(a, b);
  }

  void inner_products(const std::initializer_list<std::pair<const Vector *, const Vector *>> pairs, double *results,
                      MPI_Comm communicator)
  {
    std::size_t k = 0;
    for (const auto &[a, b] : pairs)
      {
        const PetscScalar *x = nullptr, *y = nullptr;
        PetscInt n = 0;
        PERCUSSION_PETSC_CALL(VecGetLocalSize(petsc(*a), &n));
        PERCUSSION_PETSC_CALL(VecGetArrayRead(petsc(*a), &x));
        if (b == a)
          y = x;
        else
          PERCUSSION_PETSC_CALL(VecGetArrayRead(petsc(*b), &y));
        // Four partial sums: independent additions the processor overlaps.
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        PetscInt i = 0;
        for (; i + 3 < n; i += 4)
          {
            s0 += x[i] * y[i];
            s1 += x[i + 1] * y[i + 1];
            s2 += x[i + 2] * y[i + 2];
            s3 += x[i + 3] * y[i + 3];
          }
        for (; i < n; ++i)
          s0 += x[i] * y[i];
        if (b != a)
          PERCUSSION_PETSC_CALL(VecRestoreArrayRead(petsc(*b), &y));
        PERCUSSION_PETSC_CALL(VecRestoreArrayRead(petsc(*a), &x));
        results[k++] = (s0 + s1) + (s2 + s3);
      }
    if (dealii::Utilities::MPI::n_mpi_processes(communicator) > 1)
      {
        const int count = static_cast<int>(pairs.size());
        const int error = MPI_Allreduce(MPI_IN_PLACE, results, count, MPI_DOUBLE, MPI_SUM, communicator);
        AssertThrowMPI(error);
      }
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
    system.apply_mass(result, v);
    result *= system.rayleigh_alpha;
    if (system.rayleigh_beta != 0)
      {
        system.apply_stiffness(work, v);
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
    system.apply_stiffness(work, q);
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
    MatHandle rotated;
    PERCUSSION_PETSC_CALL(MatDuplicate(B, MAT_COPY_VALUES, rotated.out()));
    frames->rotate_rows(rotated, true);
    solve(rotated, X);
    frames->rotate_rows(X, false);
  }
} // namespace percussion::TimeIntegration::SystemAlgebra
