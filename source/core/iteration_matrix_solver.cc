#include <deal.II/base/timer.h>

#include <percussion/core/blocked_matrix_product.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/petsc_check.h>

#include <Epetra_CrsMatrix.h>
#include <Epetra_Map.h>
#include <Epetra_MpiComm.h>
#include <Epetra_MultiVector.h>
#include <Teuchos_ParameterList.hpp>
#include <ml_MultiLevelPreconditioner.h>
#include <petscmat.h>

#include <cmath>
#include <limits>
#include <string>

namespace percussion
{
  struct IterationMatrixSolver::TrilinosML
  {
    std::unique_ptr<Epetra_MpiComm> comm;
    std::unique_ptr<Epetra_Map> map;
    std::unique_ptr<Epetra_CrsMatrix> matrix;
    /// ML keeps a pointer to the near-null space: it lives as long as the preconditioner.
    std::vector<double> null_space;
    std::unique_ptr<ML_Epetra::MultiLevelPreconditioner> preconditioner;

    /// y = ML⁻¹ x for PETSc's shell preconditioner: the vectors' local arrays viewed as Epetra
    /// vectors (same contiguous row distribution as PETSc's), no copy.
    static PetscErrorCode apply(PC pc, Vec x, Vec y)
    {
      void *context = nullptr;
      PetscCall(PCShellGetContext(pc, &context));
      const auto *ml = static_cast<const TrilinosML *>(context);
      const PetscScalar *x_values;
      PetscScalar *y_values;
      PetscCall(VecGetArrayRead(x, &x_values));
      PetscCall(VecGetArray(y, &y_values));
      const int n_local = ml->map->NumMyElements();
      int status = 0;
      {
        const Epetra_MultiVector X(View, *ml->map, const_cast<double *>(x_values), n_local, 1);
        Epetra_MultiVector Y(View, *ml->map, y_values, n_local, 1);
        status = ml->preconditioner->ApplyInverse(X, Y);
      }
      PetscCall(VecRestoreArrayRead(x, &x_values));
      PetscCall(VecRestoreArray(y, &y_values));
      return status == 0 ? 0 : PETSC_ERR_LIB;
    }
  };

  IterationMatrixSolver::IterationMatrixSolver(const LinearSolverParameters &parameters, MPI_Comm communicator)
    : parameters(parameters)
    , communicator(communicator)
    , solver_type(parameters.type)
    , preconditioner(parameters.preconditioner)
    , direct_package(parameters.direct_package)
  {
    // 'auto' is resolved by the caller, which knows the Courant number (Simulator); a solver made
    // without that knowledge uses Jacobi.
    if (preconditioner == PreconditionerType::automatic)
      preconditioner = PreconditionerType::jacobi;
    PERCUSSION_PETSC_CALL(KSPCreate(communicator, ksp.out()));
  }

  // (Here, where TrilinosML is complete.)
  IterationMatrixSolver::~IterationMatrixSolver() = default;

  void IterationMatrixSolver::set_near_null_space(const std::vector<dealii::PETScWrappers::MPI::Vector> &modes,
                                                  const unsigned int block_size)
  {
    node_block_size = block_size;
    near_null_space.reset();
    near_null_space_values.clear();
    near_null_space_dimension = 0;
    if (modes.empty())
      return;
    // MatNullSpaceCreate wants orthonormal vectors: modified Gram–Schmidt on copies (a mode that is
    // dependent on the others, e.g. a rotation on a 1D model, is dropped).
    std::vector<VecHandle> basis;
    for (const auto &mode : modes)
      {
        VecHandle v;
        PERCUSSION_PETSC_CALL(VecDuplicate(mode, v.out()));
        PERCUSSION_PETSC_CALL(VecCopy(mode, v));
        for (const VecHandle &b : basis)
          {
            PetscScalar dot;
            PERCUSSION_PETSC_CALL(VecDot(v, b, &dot));
            PERCUSSION_PETSC_CALL(VecAXPY(v, -dot, b));
          }
        PetscReal norm;
        PERCUSSION_PETSC_CALL(VecNorm(v, NORM_2, &norm));
        PetscReal original;
        PERCUSSION_PETSC_CALL(VecNorm(mode, NORM_2, &original));
        if (norm > 1e-10 * original && norm > 0)
          {
            PERCUSSION_PETSC_CALL(VecScale(v, 1.0 / norm));
            basis.push_back(std::move(v));
          }
      }
    // (The null space holds references of its own to the vectors.)
    const std::vector<Vec> vectors(basis.begin(), basis.end());
    PERCUSSION_PETSC_CALL(
      MatNullSpaceCreate(communicator, PETSC_FALSE, vectors.size(), vectors.data(), near_null_space.out()));
    for (const VecHandle &v : basis)
      {
        PetscInt n_local;
        const PetscScalar *values;
        PERCUSSION_PETSC_CALL(VecGetLocalSize(v, &n_local));
        PERCUSSION_PETSC_CALL(VecGetArrayRead(v, &values));
        near_null_space_values.insert(near_null_space_values.end(), values, values + n_local);
        PERCUSSION_PETSC_CALL(VecRestoreArrayRead(v, &values));
        ++near_null_space_dimension;
      }
  }

  namespace
  {
    /// The sequential diagonal block of @p matrix, marked symmetric positive definite: on one rank
    /// the distributed matrix's diagonal block is the whole matrix.
    Mat sequential_diagonal_block(Mat matrix)
    {
      PetscBool is_mpiaij = PETSC_FALSE;
      PERCUSSION_PETSC_CALL(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(matrix), MATMPIAIJ, &is_mpiaij));
      Mat diagonal_block = matrix;
      if (is_mpiaij)
        {
          Mat off_diagonal;
          const PetscInt *column_map;
          PERCUSSION_PETSC_CALL(MatMPIAIJGetSeqAIJ(matrix, &diagonal_block, &off_diagonal, &column_map));
        }
      PERCUSSION_PETSC_CALL(MatSetOption(diagonal_block, MAT_SYMMETRIC, PETSC_TRUE));
      PERCUSSION_PETSC_CALL(MatSetOption(diagonal_block, MAT_SPD, PETSC_TRUE));
      return diagonal_block;
    }
  } // namespace

  void IterationMatrixSolver::set_matrix(Mat matrix, const unsigned int n_dofs)
  {
    dealii::Timer timer;
    use_direct = solver_type == LinearSolverType::direct ||
                 (solver_type == LinearSolverType::automatic && n_dofs <= parameters.direct_solver_dof_limit);

    // Ŵ is symmetric positive definite: telling PETSc lets MUMPS compute an LDLᵀ factor, which
    // stores half the entries of an LU factor (doc/user_guide.md, "Linear solver").
    PERCUSSION_PETSC_CALL(MatSetOption(matrix, MAT_SYMMETRIC, PETSC_TRUE));
    PERCUSSION_PETSC_CALL(MatSetOption(matrix, MAT_SPD, PETSC_TRUE));

    PERCUSSION_PETSC_CALL(KSPReset(ksp));
    int n_ranks = 1;
    MPI_Comm_size(communicator, &n_ranks);
    // On one rank, PETSc's own sparse Cholesky on the sequential block beats MUMPS for small
    // matrices: MUMPS' fixed cost per solve (its solve phase set-up, about 0.5 ms) dominates a
    // back-substitution through a factor of a few thousand entries (the 1D impacting bar: 36 000
    // vs 1 650 steps/s). Above the limit, MUMPS' multifrontal factor is the faster one.
    use_native_cholesky =
      use_direct && n_ranks == 1 &&
      (direct_package == DirectSolverPackage::petsc ||
       (direct_package == DirectSolverPackage::automatic && n_dofs <= parameters.native_cholesky_dof_limit));
    if (direct_package == DirectSolverPackage::petsc && use_direct && n_ranks > 1)
      throw InputError("Parameter 'Linear solver/Direct solver package' = petsc works on one MPI rank only; "
                       "use mumps or auto with " +
                       std::to_string(n_ranks) + " ranks.");
    if (use_native_cholesky)
      matrix = sequential_diagonal_block(matrix);
    // CG multiplies with the operator at every iteration: through its block copy where the DoFs
    // are numbered by node (BlockedMatrixProduct), while the preconditioner is built from the
    // matrix itself (Jacobi, hypre and ML read the AIJ format). The KSP holds the copy.
    const MatHandle operator_matrix =
      use_direct ? MatHandle() : BlockedMatrixProduct::block_copy(matrix, node_block_size);
    PERCUSSION_PETSC_CALL(KSPSetOperators(ksp, operator_matrix ? operator_matrix.get() : matrix, matrix));
    PC pc;
    PERCUSSION_PETSC_CALL(KSPGetPC(ksp, &pc));
    if (use_direct)
      set_up_factorisation(pc);
    else
      set_up_cg(matrix, pc);
    // The matrix does not change while h is constant: keep the factor / preconditioner.
    PERCUSSION_PETSC_CALL(KSPSetReusePreconditioner(ksp, PETSC_TRUE));
    PERCUSSION_PETSC_CALL(KSPSetUp(ksp));
    check_factorisation(pc);
    last_setup_seconds = timer.wall_time();
    factor_mib = measure_factor_memory(pc);
  }

  double IterationMatrixSolver::measure_factor_memory(PC pc) const
  {
    if (!use_direct)
      return 0;
    Mat factor;
    PERCUSSION_PETSC_CALL(PCFactorGetMatrix(pc, &factor));
    if (!use_native_cholesky)
      {
        // (Already summed over the ranks by MUMPS.)
        PetscInt megabytes = 0;
        PERCUSSION_PETSC_CALL(MatMumpsGetInfog(factor, 22, &megabytes));
        return static_cast<double>(megabytes) * 1e6 / (1024.0 * 1024.0);
      }
    MatInfo info;
    PERCUSSION_PETSC_CALL(MatGetInfo(factor, MAT_GLOBAL_SUM, &info));
    return info.nz_used * static_cast<double>(sizeof(PetscScalar) + sizeof(PetscInt)) / (1024.0 * 1024.0);
  }

  void IterationMatrixSolver::set_up_factorisation(PC pc)
  {
    PERCUSSION_PETSC_CALL(KSPSetType(ksp, KSPPREONLY));
    PERCUSSION_PETSC_CALL(PCSetType(pc, PCCHOLESKY));
    if (use_native_cholesky)
      {
        PERCUSSION_PETSC_CALL(PCFactorSetMatSolverType(pc, MATSOLVERPETSC));
        PERCUSSION_PETSC_CALL(PCFactorSetMatOrderingType(pc, MATORDERINGND));
      }
    else
      {
        PERCUSSION_PETSC_CALL(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
        PERCUSSION_PETSC_CALL(PCFactorSetUpMatSolverType(pc));
        Mat factor;
        PERCUSSION_PETSC_CALL(PCFactorGetMatrix(pc, &factor));
        // Sequential analysis (ICNTL(28) = 1): Debian's parallel MUMPS fails the parallel
        // analysis with INFOG(1) = -38 (doc/user_guide.md, "Linear solver").
        PERCUSSION_PETSC_CALL(MatMumpsSetIcntl(factor, 28, 1));
        // Silence MUMPS' own printing.
        PERCUSSION_PETSC_CALL(MatMumpsSetIcntl(factor, 4, 0));
      }
  }

  void IterationMatrixSolver::set_up_cg(Mat matrix, PC pc)
  {
    PERCUSSION_PETSC_CALL(KSPSetType(ksp, KSPCG));
    switch (preconditioner)
      {
      case PreconditionerType::boomeramg:
        PERCUSSION_PETSC_CALL(PCSetType(pc, PCHYPRE));
        PERCUSSION_PETSC_CALL(PCHYPRESetType(pc, "boomeramg"));
        break;
      case PreconditionerType::gamg:
        // Smoothed aggregation needs the near-null space of elasticity (rigid-body modes):
        // with constants only its coarse spaces cannot represent rotations and the iteration
        // counts grow with the size.
        if (near_null_space != nullptr)
          PERCUSSION_PETSC_CALL(MatSetNearNullSpace(matrix, near_null_space));
        // Nodal aggregation: the DoFs of a node form a block (measured at 16 × 16 × 8 cells,
        // 10 × CFL: 27.5 → 19 iterations per solve).
        if (node_block_size > 1)
          PERCUSSION_PETSC_CALL(MatSetBlockSize(matrix, node_block_size));
        PERCUSSION_PETSC_CALL(PCSetType(pc, PCGAMG));
        // Tuning through PETSc's options (PETSC_OPTIONS="-pc_gamg_threshold 0.02 ..."),
        // read for this preconditioner only.
        PERCUSSION_PETSC_CALL(PCSetFromOptions(pc));
        break;
      case PreconditionerType::ml:
        set_up_trilinos_ml(matrix, pc);
        break;
      case PreconditionerType::jacobi:
      case PreconditionerType::automatic:
        PERCUSSION_PETSC_CALL(PCSetType(pc, PCJACOBI));
        break;
      }
    PERCUSSION_PETSC_CALL(KSPSetTolerances(ksp, parameters.tolerance, 0.0, PETSC_DEFAULT, parameters.max_iterations));
    PERCUSSION_PETSC_CALL(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    PERCUSSION_PETSC_CALL(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  }

  void IterationMatrixSolver::check_factorisation(PC pc) const
  {
    if (use_direct && !use_native_cholesky)
      {
        Mat factor;
        PERCUSSION_PETSC_CALL(PCFactorGetMatrix(pc, &factor));
        PetscInt infog1 = 0;
        PERCUSSION_PETSC_CALL(MatMumpsGetInfog(factor, 1, &infog1));
        if (infog1 < 0)
          {
            PetscInt infog2 = 0;
            MatMumpsGetInfog(factor, 2, &infog2);
            throw SolverError(
              "MUMPS factorisation of the iteration matrix failed: INFOG(1) = " + std::to_string(infog1) +
              ", INFOG(2) = " + std::to_string(infog2) + " (see the MUMPS user guide).");
          }
      }
    if (use_direct)
      {
        PCFailedReason reason;
        PERCUSSION_PETSC_CALL(PCGetFailedReason(pc, &reason));
        if (reason != PC_NOERROR)
          throw SolverError("The factorisation of the iteration matrix failed (PETSc PC reason " +
                            std::to_string(static_cast<int>(reason)) + ").");
      }
  }

  void IterationMatrixSolver::solve(const dealii::PETScWrappers::MPI::Vector &b, dealii::PETScWrappers::MPI::Vector &x)
  {
    PERCUSSION_PETSC_CALL(KSPSolve(ksp, b, x));
    KSPConvergedReason reason;
    PERCUSSION_PETSC_CALL(KSPGetConvergedReason(ksp, &reason));
    PetscInt its = 0;
    PERCUSSION_PETSC_CALL(KSPGetIterationNumber(ksp, &its));
    iterations = use_direct ? 1 : static_cast<unsigned int>(its);
    if (reason < 0)
      {
        PetscReal residual = 0;
        KSPGetResidualNorm(ksp, &residual);
        throw SolverError("The linear solve with the iteration matrix did not converge (" + description() +
                          ", PETSc reason " + std::to_string(static_cast<int>(reason)) + ", " + std::to_string(its) +
                          " iterations, residual " + std::to_string(residual) + ").");
      }
  }

  bool IterationMatrixSolver::solve_with_sparse_right_hand_sides(Mat B, Mat X)
  {
    PetscInt row_begin, row_end, n_rows, n_columns;
    PERCUSSION_PETSC_CALL(MatGetOwnershipRange(B, &row_begin, &row_end));
    PERCUSSION_PETSC_CALL(MatGetSize(B, &n_rows, &n_columns));
    const PetscInt n_local_rows = row_end - row_begin;
    const PetscScalar *b;
    PetscInt lda;
    PERCUSSION_PETSC_CALL(MatDenseGetLDA(B, &lda));
    PERCUSSION_PETSC_CALL(MatDenseGetArrayRead(B, &b));
    // The nonzeros per right-hand side (a row of Bᵀ), summed over the ranks: the preallocation of
    // Bᵀ on the rank that hands it to MUMPS, and the density that decides the path.
    std::vector<PetscInt> row_counts(n_columns, 0);
    for (PetscInt j = 0; j < n_columns; ++j)
      for (PetscInt i = 0; i < n_local_rows; ++i)
        if (b[i + j * lda] != 0.0)
          ++row_counts[j];
    const int ierr =
      MPI_Allreduce(MPI_IN_PLACE, row_counts.data(), static_cast<int>(n_columns), MPIU_INT, MPI_SUM, communicator);
    AssertThrowMPI(ierr);
    std::size_t n_nonzero = 0;
    for (const PetscInt count : row_counts)
      n_nonzero += count;
    // Dense right-hand sides gain nothing from the sparse format.
    if (n_nonzero * sparse_right_hand_side_density > static_cast<std::size_t>(n_rows) * n_columns)
      {
        PERCUSSION_PETSC_CALL(MatDenseRestoreArrayRead(B, &b));
        return false;
      }
    // Bᵀ, one row per right-hand side, wholly on rank 0: MUMPS takes a sparse right-hand side
    // centralised on its host, which PETSc reads from that rank's diagonal block.
    int rank = 0;
    MPI_Comm_rank(communicator, &rank);
    MatHandle Bt;
    PERCUSSION_PETSC_CALL(MatCreateAIJ(communicator, rank == 0 ? n_columns : 0, rank == 0 ? n_rows : 0, n_columns,
                                       n_rows, 0, rank == 0 ? row_counts.data() : nullptr, 0, nullptr, Bt.out()));
    for (PetscInt j = 0; j < n_columns; ++j)
      for (PetscInt i = 0; i < n_local_rows; ++i)
        if (b[i + j * lda] != 0.0)
          {
            const PetscInt row = row_begin + i;
            PERCUSSION_PETSC_CALL(MatSetValue(Bt, j, row, b[i + j * lda], INSERT_VALUES));
          }
    PERCUSSION_PETSC_CALL(MatDenseRestoreArrayRead(B, &b));
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(Bt, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(Bt, MAT_FINAL_ASSEMBLY));
    PC pc;
    PERCUSSION_PETSC_CALL(KSPGetPC(ksp, &pc));
    Mat factor;
    PERCUSSION_PETSC_CALL(PCFactorGetMatrix(pc, &factor));
    // Ŵ is symmetric: Ŵ⁻¹(Bᵀ)ᵀ is the solve with B.
    PERCUSSION_PETSC_CALL(MatMatTransposeSolve(factor, Bt, X));
    return true;
  }

  void IterationMatrixSolver::solve(Mat B, Mat X, const double relative_tolerance)
  {
    // MUMPS prunes the forward substitution of sparse right-hand sides (unit impulses, probes of
    // a few DoFs each) to the elimination tree's paths from their nonzeros to the root: the
    // probing of 1 089 contacts (612 probes of about 5 DoFs each, 32 × 32 × 16 cells) takes 21 % less
    // time with OpenBLAS and 30 % less with the reference BLAS than with dense right-hand sides.
    if (use_direct && !use_native_cholesky && solve_with_sparse_right_hand_sides(B, X))
      return;
    const bool loosened = !use_direct && relative_tolerance > parameters.tolerance;
    if (loosened)
      PERCUSSION_PETSC_CALL(KSPSetTolerances(ksp, relative_tolerance, 0.0, PETSC_DEFAULT, parameters.max_iterations));
    const PetscErrorCode solve_error = KSPMatSolve(ksp, B, X);
    // The configured tolerance again before anything can fail.
    if (loosened)
      PERCUSSION_PETSC_CALL(KSPSetTolerances(ksp, parameters.tolerance, 0.0, PETSC_DEFAULT, parameters.max_iterations));
    PERCUSSION_PETSC_CALL(solve_error);
    KSPConvergedReason reason;
    PERCUSSION_PETSC_CALL(KSPGetConvergedReason(ksp, &reason));
    if (reason < 0)
      throw SolverError("The multiple-right-hand-side solve with the iteration matrix did not converge (" +
                        description() + ", PETSc reason " + std::to_string(static_cast<int>(reason)) + ").");
  }

  void IterationMatrixSolver::set_up_trilinos_ml(Mat matrix, PC pc)
  {
    // An Epetra copy of the matrix (ML works on Epetra matrices; the copy is made once per step
    // size, like a factorisation), rows distributed as PETSc's: contiguous ranges in rank order.
    PetscInt n_global, row_begin, row_end;
    PERCUSSION_PETSC_CALL(MatGetSize(matrix, &n_global, nullptr));
    PERCUSSION_PETSC_CALL(MatGetOwnershipRange(matrix, &row_begin, &row_end));
    if (n_global > std::numeric_limits<int>::max())
      throw SolverError("Linear solver/Preconditioner = ml: " + std::to_string(n_global) +
                        " DoFs exceed Trilinos ML's 32-bit global indices; use gamg.");
    trilinos_ml = std::make_unique<TrilinosML>();
    auto &ml = *trilinos_ml;
    ml.comm = std::make_unique<Epetra_MpiComm>(communicator);
    const int n_local = static_cast<int>(row_end - row_begin);
    ml.map = std::make_unique<Epetra_Map>(static_cast<int>(n_global), n_local, 0, *ml.comm);
    std::vector<int> row_lengths(n_local);
    for (PetscInt r = row_begin; r < row_end; ++r)
      {
        PetscInt n;
        PERCUSSION_PETSC_CALL(MatGetRow(matrix, r, &n, nullptr, nullptr));
        row_lengths[r - row_begin] = static_cast<int>(n);
        PERCUSSION_PETSC_CALL(MatRestoreRow(matrix, r, &n, nullptr, nullptr));
      }
    ml.matrix = std::make_unique<Epetra_CrsMatrix>(Copy, *ml.map, row_lengths.data(), true);
    std::vector<int> indices;
    for (PetscInt r = row_begin; r < row_end; ++r)
      {
        PetscInt n;
        const PetscInt *columns;
        const PetscScalar *values;
        PERCUSSION_PETSC_CALL(MatGetRow(matrix, r, &n, &columns, &values));
        indices.assign(columns, columns + n);
        const int status =
          ml.matrix->InsertGlobalValues(static_cast<int>(r), static_cast<int>(n), values, indices.data());
        PERCUSSION_PETSC_CALL(MatRestoreRow(matrix, r, &n, &columns, &values));
        if (status < 0)
          throw SolverError("Copying the iteration matrix to Trilinos failed (Epetra error " + std::to_string(status) +
                            ").");
      }
    if (ml.matrix->FillComplete() != 0)
      throw SolverError("Copying the iteration matrix to Trilinos failed (FillComplete).");

    // Smoothed aggregation ("SA" defaults) with nodal blocks and the rigid-body near-null space,
    // symmetric smoothing (Chebyshev) so that the preconditioner suits CG. Degree 3: measured at
    // 24 × 24 × 12 cells, 10 × CFL, 14.2 / 10.0 / 9.0 CG iterations and 0.184 / 0.165 / 0.176 s
    // per step for degrees 2 / 3 / 4 (symmetric Gauss–Seidel: 8.7 iterations, 0.197 s; without
    // the rigid-body modes ML falls back to constants: 31 iterations).
    Teuchos::ParameterList list;
    ML_Epetra::SetDefaults("SA", list);
    list.set("ML output", 0);
    list.set("PDE equations", static_cast<int>(node_block_size));
    list.set("smoother: type", "Chebyshev");
    list.set("smoother: sweeps", 3);
    list.set("aggregation: type", "Uncoupled");
    list.set("coarse: type", "Amesos-KLU");
    list.set("coarse: max size", 2000);
    if (near_null_space_dimension > 0 &&
        near_null_space_values.size() == near_null_space_dimension * std::size_t(n_local))
      {
        ml.null_space = near_null_space_values;
        list.set("null space: type", "pre-computed");
        list.set("null space: dimension", static_cast<int>(near_null_space_dimension));
        list.set("null space: vectors", ml.null_space.data());
      }
    ml.preconditioner = std::make_unique<ML_Epetra::MultiLevelPreconditioner>(*ml.matrix, list, true);
    PERCUSSION_PETSC_CALL(PCSetType(pc, PCSHELL));
    PERCUSSION_PETSC_CALL(PCShellSetContext(pc, trilinos_ml.get()));
    PERCUSSION_PETSC_CALL(PCShellSetApply(pc, &TrilinosML::apply));
    PERCUSSION_PETSC_CALL(PCShellSetName(pc, "Trilinos ML"));
  }

  std::string IterationMatrixSolver::description() const
  {
    if (use_direct)
      return use_native_cholesky ? "direct (PETSc Cholesky, nested dissection, factorised once per step size)"
                                 : "direct (MUMPS Cholesky, factorised once per step size)";
    return "cg + " + preconditioner_type_name(preconditioner) +
           ((preconditioner == PreconditionerType::gamg || preconditioner == PreconditionerType::ml) &&
                near_null_space != nullptr
              ? " (rigid-body near-null space)"
              : "");
  }
} // namespace percussion
