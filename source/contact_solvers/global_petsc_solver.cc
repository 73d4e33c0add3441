#include <percussion/contact_solvers/alart_curnier_function.h>
#include <percussion/contact_solvers/global_petsc_solver.h>

#include <percussion/core/exceptions.h>

#include <petscksp.h>

#include <algorithm>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

namespace percussion::ContactSolvers
{
  namespace
  {
    void check(PetscErrorCode code, const char *what)
    {
      if (code != 0)
        throw SolverError(std::string("global_petsc: PETSc error in ") + what);
    }

    /**
     * A sequential sparse direct solver for a fixed-pattern AIJ matrix. PETSc's own LU with nested
     * dissection ordering first: measured 16x faster than MUMPS on the Spheres file (13 000 rows).
     * It does not pivot, and the Newton matrix of sticking contacts has zero diagonal blocks when
     * η = 0, so on a failed factorisation it switches for good to MUMPS (LU with pivoting).
     */
    class DirectSolver
    {
    public:
      explicit DirectSolver(Mat A)
        : A_(A)
      {
        ksp_ = make_ksp(false);
      }
      ~DirectSolver() { KSPDestroy(&ksp_); }

      /** Refactorise after the values of A changed (same pattern). */
      void update() { check(KSPSetOperators(ksp_, A_, A_), "KSPSetOperators"); }

      /** false if the factorisation or the solve failed (singular matrix). */
      bool solve(Vec b, Vec x)
      {
        if (try_solve(b, x))
          return true;
#if defined(PETSC_HAVE_MUMPS)
        if (!pivoting_)
          {
            KSPDestroy(&ksp_);
            ksp_      = make_ksp(true);
            pivoting_ = true;
            return try_solve(b, x);
          }
#endif
        return false;
      }

    private:
      KSP make_ksp(bool pivoting)
      {
        KSP ksp;
        check(KSPCreate(PETSC_COMM_SELF, &ksp), "KSPCreate");
        check(KSPSetType(ksp, KSPPREONLY), "KSPSetType");
        PC pc;
        check(KSPGetPC(ksp, &pc), "KSPGetPC");
        check(PCSetType(pc, PCLU), "PCSetType");
#if defined(PETSC_HAVE_MUMPS)
        if (pivoting)
          check(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS), "PCFactorSetMatSolverType");
        else
#endif
          check(PCFactorSetMatOrderingType(pc, MATORDERINGND), "PCFactorSetMatOrderingType");
        (void)pivoting;
        check(KSPSetOperators(ksp, A_, A_), "KSPSetOperators");
        return ksp;
      }

      bool try_solve(Vec b, Vec x)
      {
        if (KSPSolve(ksp_, b, x) != 0)
          return false;
        KSPConvergedReason reason;
        KSPGetConvergedReason(ksp_, &reason);
        return reason >= 0;
      }

      Mat  A_;
      KSP  ksp_      = nullptr;
      bool pivoting_ = false;
    };

    Mat assemble_csr(const CsrMatrix &A)
    {
      std::vector<PetscInt> nnz(A.rows);
      for (int i = 0; i < A.rows; ++i)
        nnz[i] = std::max(1, A.row_start[i + 1] - A.row_start[i]);
      Mat M;
      check(MatCreateSeqAIJ(PETSC_COMM_SELF, A.rows, A.cols, 0, nnz.data(), &M), "MatCreateSeqAIJ");
      for (int i = 0; i < A.rows; ++i)
        for (int k = A.row_start[i]; k < A.row_start[i + 1]; ++k)
          {
            const PetscInt    row = i, col = A.column_index[k];
            const PetscScalar val = A.values[k];
            check(MatSetValues(M, 1, &row, 1, &col, &val, ADD_VALUES), "MatSetValues");
          }
      check(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
      check(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
      return M;
    }

    double norm2(const std::vector<double> &x)
    {
      double s = 0.0;
      for (double v : x)
        s += v * v;
      return std::sqrt(s);
    }
  } // namespace

  PetscScope::PetscScope(int *argc, char ***argv)
  {
    PetscBool initialised = PETSC_FALSE;
    PetscInitialized(&initialised);
    if (!initialised)
      {
        check(argc && argv ? PetscInitialize(argc, argv, nullptr, nullptr) : PetscInitializeNoArguments(), "PetscInitialize");
        initialised_here_ = true;
      }
  }

  PetscScope::~PetscScope()
  {
    if (initialised_here_)
      PetscFinalize();
  }

  SolverResult solve_global_petsc(const GlobalProblem &p,
                                  std::vector<double> &r,
                                  std::vector<double> &v,
                                  std::vector<double> &u,
                                  const SolverOptions &options)
  {
    using Clock      = std::chrono::steady_clock;
    const auto start = Clock::now();
    validate(p);
    {
      PetscBool initialised = PETSC_FALSE;
      PetscInitialized(&initialised);
      if (!initialised)
        check(PetscInitializeNoArguments(), "PetscInitialize");
    }
    const int d  = p.dimension;
    const int m  = p.number_of_contacts;
    const int n  = p.M.rows;
    const int nc = d * m;
    if (static_cast<int>(r.size()) != nc)
      r.assign(nc, 0.0);
    SolverResult result;
    const auto   deadline = options.time_limit_seconds < 1e9
                              ? start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.time_limit_seconds))
                              : Clock::time_point::max();

    const CsrMatrix Ht = p.H.transpose(); // row j of Hᵀ = column j of H

    // Mass solver: v = M⁻¹(H r + f), q = Hᵀ M⁻¹ f + w (for the error's normalisation).
    Mat          M = assemble_csr(p.M);
    DirectSolver mass(M);
    Vec          b, x;
    check(VecCreateSeq(PETSC_COMM_SELF, std::max(n, 1), &b), "VecCreateSeq");
    check(VecDuplicate(b, &x), "VecDuplicate");
    auto solve_mass = [&](const std::vector<double> &rhs, std::vector<double> &out) {
      PetscScalar *a;
      VecGetArray(b, &a);
      std::copy(rhs.begin(), rhs.end(), a);
      VecRestoreArray(b, &a);
      if (!mass.solve(b, x))
        throw SolverError("global_petsc: the matrix M is singular");
      const PetscScalar *c;
      VecGetArrayRead(x, &c);
      out.assign(c, c + n);
      VecRestoreArrayRead(x, &c);
    };
    std::vector<double> q = p.w, v0;
    solve_mass(p.f, v0);
    Ht.multiply_add(v0.data(), q.data());
    std::vector<double> rhs = p.f;
    p.H.multiply_add(r.data(), rhs.data());
    solve_mass(rhs, v);
    u = p.w;
    Ht.multiply_add(v.data(), u.data());

    auto fclib_error = [&](const std::vector<double> &rr, const std::vector<double> &uu) {
      double sum = 0.0;
      for (int a = 0; a < m; ++a)
        {
          const double *ra = &rr[a * d], *ua = &uu[a * d];
          const double  ut = d == 3 ? std::hypot(ua[1], ua[2]) : std::abs(ua[1]);
          double        xx[3], z[3];
          xx[0] = ra[0] - ua[0] - p.mu[a] * ut;
          for (int i = 1; i < d; ++i)
            xx[i] = ra[i] - ua[i];
          // The projection of error_measure.h, inlined to keep this file free of LocalProblem.
          const double t = d == 3 ? std::hypot(xx[1], xx[2]) : std::abs(xx[1]);
          if (p.mu[a] * t <= -xx[0])
            std::fill(z, z + d, 0.0);
          else if (t <= p.mu[a] * xx[0])
            std::copy(xx, xx + d, z);
          else
            {
              z[0] = (p.mu[a] * t + xx[0]) / (p.mu[a] * p.mu[a] + 1.0);
              for (int i = 1; i < d; ++i)
                z[i] = p.mu[a] * z[0] * xx[i] / t;
            }
          for (int i = 0; i < d; ++i)
            sum += (ra[i] - z[i]) * (ra[i] - z[i]);
        }
      const double scale = std::max({norm2(q), norm2(rr), norm2(uu)});
      return scale > DBL_EPSILON ? std::sqrt(sum) / scale : std::sqrt(sum);
    };

    // ρ from the lumped diagonal blocks H_aᵀ diag(M)⁻¹ H_a.
    std::vector<double> inverse_lumped(n, 0.0), rho(nc, 1.0);
    for (int i = 0; i < n; ++i)
      for (int k = p.M.row_start[i]; k < p.M.row_start[i + 1]; ++k)
        if (p.M.column_index[k] == i && p.M.values[k] != 0.0)
          inverse_lumped[i] = 1.0 / p.M.values[k];
    {
      std::vector<double> diag(nc, 0.0);
      double              mean = 0.0;
      for (int j = 0; j < nc; ++j)
        {
          for (int k = Ht.row_start[j]; k < Ht.row_start[j + 1]; ++k)
            diag[j] += Ht.values[k] * Ht.values[k] * inverse_lumped[Ht.column_index[k]];
          mean += diag[j] / std::max(nc, 1);
        }
      for (int a = 0; a < m; ++a)
        {
          double wn = diag[a * d], wt = 0.0;
          for (int i = 1; i < d; ++i)
            wt += diag[a * d + i] / (d - 1);
          if (!(wn > 1e-12 * mean))
            wn = mean > 0.0 ? mean : 1.0;
          if (!(wt > 1e-12 * mean))
            wt = wn;
          rho[a * d] = options.rho_scale / wn;
          for (int i = 1; i < d; ++i)
            rho[a * d + i] = options.rho_scale / wt;
        }
    }

    // Newton matrix pattern: rows of M and −H; contact rows: the Hᵀ rows of the contact and its d × d block.
    const int             N = n + nc;
    std::vector<PetscInt> nnz(N, 0);
    for (int i = 0; i < n; ++i)
      nnz[i] = (p.M.row_start[i + 1] - p.M.row_start[i]) + (p.H.row_start[i + 1] - p.H.row_start[i]) + 1;
    for (int a = 0; a < m; ++a)
      {
        int count = d;
        for (int l = 0; l < d; ++l)
          count += Ht.row_start[a * d + l + 1] - Ht.row_start[a * d + l];
        for (int i = 0; i < d; ++i)
          nnz[n + a * d + i] = count;
      }
    Mat J;
    check(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 0, nnz.data(), &J), "MatCreateSeqAIJ");
    check(MatSetOption(J, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE), "MatSetOption");
    Vec B, X;
    check(VecCreateSeq(PETSC_COMM_SELF, N, &B), "VecCreateSeq");
    check(VecDuplicate(B, &X), "VecDuplicate");
    DirectSolver *newton_solver = nullptr;

    std::vector<double> phi(nc), phi_trial(nc), r_trial(nc), u_trial(nc), dr(nc), dv(n), du(nc);
    std::vector<double> G(static_cast<std::size_t>(m) * d * d);
    auto evaluate = [&](const std::vector<double> &rr, const std::vector<double> &uu, std::vector<double> &ph, bool jac) {
      double psi = 0.0;
      for (int a = 0; a < m; ++a)
        {
          alart_curnier_contact(d, p.mu[a], rho[a * d], rho[a * d + 1], &rr[a * d], &uu[a * d], &ph[a * d],
                                jac ? &G[static_cast<std::size_t>(a) * d * d] : nullptr);
          for (int i = 0; i < d; ++i)
            psi += ph[a * d + i] * ph[a * d + i];
        }
      return 0.5 * psi;
    };

    double              error      = fclib_error(r, u);
    double              best_error = error;
    std::vector<double> best_r = r, best_v = v;
    double              milestone = error;
    int                 milestone_iteration = 0, iteration = 0;
    bool                proximal = options.proximal_cap > 0.0;
    for (; iteration < options.max_iterations && error > options.tolerance; ++iteration)
      {
        if (Clock::now() > deadline)
          {
            result.message = "global_petsc: time limit";
            break;
          }
        const double eta = proximal ? std::min(options.proximal_cap, options.proximal_factor * error) : 0.0;
        const double psi = evaluate(r, u, phi, true);
        check(MatZeroEntries(J), "MatZeroEntries");
        for (int i = 0; i < n; ++i)
          {
            for (int k = p.M.row_start[i]; k < p.M.row_start[i + 1]; ++k)
              {
                const PetscInt    row = i, col = p.M.column_index[k];
                const PetscScalar val = p.M.values[k];
                MatSetValues(J, 1, &row, 1, &col, &val, ADD_VALUES);
              }
            for (int k = p.H.row_start[i]; k < p.H.row_start[i + 1]; ++k)
              {
                const PetscInt    row = i, col = n + p.H.column_index[k];
                const PetscScalar val = -p.H.values[k];
                MatSetValues(J, 1, &row, 1, &col, &val, ADD_VALUES);
              }
          }
        for (int a = 0; a < m; ++a)
          {
            const double *Ga = &G[static_cast<std::size_t>(a) * d * d];
            for (int i = 0; i < d; ++i)
              {
                const PetscInt row = n + a * d + i;
                // ∂Φ/∂v = G R Hᵀ: combine the Hᵀ rows of the contact's components.
                for (int l = 0; l < d; ++l)
                  {
                    // Zeros are inserted too: the pattern must not change between iterations so
                    // that the symbolic factorisation is reused.
                    const double coefficient = Ga[i * d + l] * rho[a * d + l];
                    for (int k = Ht.row_start[a * d + l]; k < Ht.row_start[a * d + l + 1]; ++k)
                      {
                        const PetscInt    col = Ht.column_index[k];
                        const PetscScalar val = coefficient * Ht.values[k];
                        MatSetValues(J, 1, &row, 1, &col, &val, ADD_VALUES);
                      }
                  }
                for (int j = 0; j < d; ++j)
                  {
                    const PetscInt    col = n + a * d + j;
                    const PetscScalar val = (i == j ? 1.0 : 0.0) - (1.0 - eta) * Ga[i * d + j];
                    MatSetValues(J, 1, &row, 1, &col, &val, ADD_VALUES);
                  }
              }
          }
        check(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
        check(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
        if (!newton_solver)
          newton_solver = new DirectSolver(J);
        else
          newton_solver->update();
        {
          PetscScalar *a;
          VecGetArray(B, &a);
          std::fill(a, a + n, 0.0); // v is kept consistent: M v − H r − f = 0
          for (int i = 0; i < nc; ++i)
            a[n + i] = -phi[i];
          VecRestoreArray(B, &a);
        }
        if (!newton_solver->solve(B, X))
          {
            if (proximal)
              {
                proximal = false;
                continue;
              }
            result.message = "global_petsc: singular Newton matrix";
            break;
          }
        {
          const PetscScalar *c;
          VecGetArrayRead(X, &c);
          std::copy(c, c + n, dv.begin());
          std::copy(c + n, c + N, dr.begin());
          VecRestoreArrayRead(X, &c);
        }
        std::fill(du.begin(), du.end(), 0.0);
        Ht.multiply_add(dv.data(), du.data());
        double alpha = 1.0, best_alpha = 1.0, best_psi = HUGE_VAL;
        bool   accepted = false;
        for (int ls = 0; ls < 30; ++ls, alpha *= 0.5)
          {
            for (int i = 0; i < nc; ++i)
              {
                r_trial[i] = r[i] + alpha * dr[i];
                u_trial[i] = u[i] + alpha * du[i];
              }
            const double psi_trial = evaluate(r_trial, u_trial, phi_trial, false);
            if (psi_trial < best_psi)
              {
                best_psi   = psi_trial;
                best_alpha = alpha;
              }
            if (psi_trial <= (1.0 - 2e-4 * alpha) * psi)
              {
                accepted = true;
                break;
              }
          }
        if (!accepted)
          alpha = best_alpha;
        for (int i = 0; i < nc; ++i)
          r[i] += alpha * dr[i];
        for (int i = 0; i < n; ++i)
          v[i] += alpha * dv[i];
        u = p.w;
        Ht.multiply_add(v.data(), u.data());
        error = fclib_error(r, u);
        if (options.verbose)
          std::fprintf(stderr, "  global newton it %3d  eta %.2e  psi %.3e  alpha %.2e  error %.3e\n", iteration + 1, eta, psi,
                       alpha, error);
        if (!std::isfinite(error))
          {
            result.status = SolverStatus::failed;
            ++iteration;
            break;
          }
        if (error < best_error)
          {
            best_error = error;
            best_r     = r;
            best_v     = v;
          }
        if (error < 0.5 * milestone)
          {
            milestone           = error;
            milestone_iteration = iteration + 1;
          }
        else if (iteration + 1 - milestone_iteration >= 20)
          {
            // Stalled: switch between the proximal and the plain Newton matrix from the best point.
            proximal            = !proximal && options.proximal_cap > 0.0;
            milestone_iteration = iteration + 1;
            r                   = best_r;
            v                   = best_v;
            u                   = p.w;
            Ht.multiply_add(v.data(), u.data());
            error = best_error;
          }
      }
    delete newton_solver;
    MatDestroy(&J);
    MatDestroy(&M);
    VecDestroy(&B);
    VecDestroy(&X);
    VecDestroy(&b);
    VecDestroy(&x);
    if (!(error <= best_error))
      {
        r     = best_r;
        v     = best_v;
        u     = p.w;
        Ht.multiply_add(v.data(), u.data());
        error = best_error;
      }
    result.iterations = iteration;
    result.error      = error;
    if (result.status != SolverStatus::failed)
      result.status = error <= options.tolerance ? SolverStatus::converged : SolverStatus::not_converged;
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  }
} // namespace percussion::ContactSolvers
