#include <percussion/contact_solvers/alart_curnier_function.h>
#include <percussion/contact_solvers/global_petsc_solver.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_handle.h>

#include <petscksp.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
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
        , ksp_(make_ksp(false))
      {
      }

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
            ksp_ = make_ksp(true);
            pivoting_ = true;
            return try_solve(b, x);
          }
#endif
        return false;
      }

    private:
      KspHandle make_ksp(bool pivoting)
      {
        KspHandle ksp;
        check(KSPCreate(PETSC_COMM_SELF, ksp.out()), "KSPCreate");
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

      Mat A_; ///< the caller's (declared before the solver, which refers to it)
      KspHandle ksp_;
      bool pivoting_ = false;
    };

    MatHandle assemble_csr(const CsrMatrix &A)
    {
      std::vector<PetscInt> nnz(A.rows);
      for (int i = 0; i < A.rows; ++i)
        nnz[i] = std::max(1, A.row_start[i + 1] - A.row_start[i]);
      MatHandle M;
      check(MatCreateSeqAIJ(PETSC_COMM_SELF, A.rows, A.cols, 0, nnz.data(), M.out()), "MatCreateSeqAIJ");
      for (int i = 0; i < A.rows; ++i)
        for (int k = A.row_start[i]; k < A.row_start[i + 1]; ++k)
          {
            const PetscInt row = i, col = A.column_index[k];
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

    using Clock = std::chrono::steady_clock;

    /** PETSc is initialised here if nobody has (programs that do not go through MPI_InitFinalize). */
    void initialise_petsc_if_needed()
    {
      PetscBool initialised = PETSC_FALSE;
      PetscInitialized(&initialised);
      if (!initialised)
        check(PetscInitializeNoArguments(), "PetscInitialize");
    }

    /**
     * The semismooth Newton method of solve_global_petsc() on the unknowns (v, r): the PETSc objects
     * (the mass matrix M and its solver, the Newton matrix and its solver), ρ per contact, the
     * caller's iterate (r, v, u) and the best iterate so far.
     */
    class GlobalNewton
    {
    public:
      /**
       * Sets up the PETSc objects, ρ and the starting point: r as given (zeros if its size is not
       * d m), v = M⁻¹(H r + f), u = Hᵀ v + w.
       */
      GlobalNewton(const GlobalProblem &p, const SolverOptions &options, std::vector<double> &r, std::vector<double> &v,
                   std::vector<double> &u);
      GlobalNewton(const GlobalNewton &) = delete;
      GlobalNewton &operator=(const GlobalNewton &) = delete;

      /**
       * Newton iterations until the error ≤ tolerance, max_iterations or @p deadline. On exit (r, v,
       * u) is the best iterate. The result's seconds are left to the caller.
       */
      SolverResult run(Clock::time_point deadline);

    private:
      /** out = M⁻¹ rhs. */
      void solve_mass(const std::vector<double> &rhs, std::vector<double> &out);

      /** q = Hᵀ M⁻¹ f + w (for the error's normalisation), v = M⁻¹(H r + f), u = Hᵀ v + w. */
      void set_initial_state();

      /** ρ from the lumped diagonal blocks H_aᵀ diag(M)⁻¹ H_a (ρ_N, ρ_T as in alart_curnier_newton.h). */
      void compute_rho();

      /** The Newton matrix with its fixed sparsity pattern, and the vectors of the Newton system. */
      void create_newton_matrix();

      /** The FCLIB error (error_measure.h) of the condensed problem at (rr, uu), without W. */
      double fclib_error(const std::vector<double> &rr, const std::vector<double> &uu) const;

      /** Φ at (rr, uu) into ph, and G (∂P of each contact) if @p jacobian. Returns ψ = ½‖Φ‖². */
      double evaluate(const std::vector<double> &rr, const std::vector<double> &uu, std::vector<double> &ph,
                      bool jacobian);

      /** The Newton matrix [M, −H; G R Hᵀ, I − (1 − η) G] from the current G. */
      void assemble_newton_matrix(double eta);

      /** The step (dv, dr) from the Newton system with right-hand side (0, −Φ), and du = Hᵀ dv. */
      bool solve_newton_system();

      /** Armijo backtracking on ψ along (dr, du); the best step tried if none is accepted. */
      double line_search(double psi);

      /** Keeps the best iterate, and switches the Newton matrix when the error has stalled. */
      void track_progress(int iteration);

      /** Back to the best iterate (r, v, u = Hᵀ v + w) and its error. */
      void restore_best();

      const GlobalProblem &p_;
      const SolverOptions &options_;
      std::vector<double> &r_, &v_, &u_;
      const int d_, m_, n_, nc_, N_; ///< dimension, contacts, rows of M, d m, n + d m
      const CsrMatrix Ht_;           ///< row j of Hᵀ = column j of H
      MatHandle M_;
      DirectSolver mass_;                           ///< (declared after M_, which it refers to)
      VecHandle b_, x_;                             ///< right-hand side and solution of solve_mass()
      MatHandle J_;                                 ///< the Newton matrix
      VecHandle B_, X_;                             ///< right-hand side and solution of the Newton system
      std::unique_ptr<DirectSolver> newton_solver_; ///< made at the first factorisation (refers to J_)
      std::vector<double> q_, rho_;
      std::vector<double> phi_, phi_trial_, r_trial_, u_trial_, dr_, dv_, du_;
      std::vector<double> G_; ///< m blocks d × d
      double error_ = 0.0, best_error_ = 0.0, milestone_ = 0.0;
      std::vector<double> best_r_, best_v_;
      int milestone_iteration_ = 0;
      bool proximal_ = false; ///< Newton matrix with η > 0
    };

    GlobalNewton::GlobalNewton(const GlobalProblem &p, const SolverOptions &options, std::vector<double> &r,
                               std::vector<double> &v, std::vector<double> &u)
      : p_(p)
      , options_(options)
      , r_(r)
      , v_(v)
      , u_(u)
      , d_(p.dimension)
      , m_(p.number_of_contacts)
      , n_(p.M.rows)
      , nc_(d_ * m_)
      , N_(n_ + nc_)
      , Ht_(p.H.transpose())
      , M_(assemble_csr(p.M))
      , mass_(M_)
    {
      if (static_cast<int>(r_.size()) != nc_)
        r_.assign(nc_, 0.0);
      check(VecCreateSeq(PETSC_COMM_SELF, std::max(n_, 1), b_.out()), "VecCreateSeq");
      check(VecDuplicate(b_, x_.out()), "VecDuplicate");
      set_initial_state();
      compute_rho();
      create_newton_matrix();
      phi_.resize(nc_);
      phi_trial_.resize(nc_);
      r_trial_.resize(nc_);
      u_trial_.resize(nc_);
      dr_.resize(nc_);
      dv_.resize(n_);
      du_.resize(nc_);
      G_.resize(static_cast<std::size_t>(m_) * d_ * d_);
    }

    void GlobalNewton::solve_mass(const std::vector<double> &rhs, std::vector<double> &out)
    {
      PetscScalar *a;
      VecGetArray(b_, &a);
      std::copy(rhs.begin(), rhs.end(), a);
      VecRestoreArray(b_, &a);
      if (!mass_.solve(b_, x_))
        throw SolverError("global_petsc: the matrix M is singular");
      const PetscScalar *c;
      VecGetArrayRead(x_, &c);
      out.assign(c, c + n_);
      VecRestoreArrayRead(x_, &c);
    }

    void GlobalNewton::set_initial_state()
    {
      std::vector<double> v0;
      q_ = p_.w;
      solve_mass(p_.f, v0);
      Ht_.multiply_add(v0.data(), q_.data());
      std::vector<double> rhs = p_.f;
      p_.H.multiply_add(r_.data(), rhs.data());
      solve_mass(rhs, v_);
      u_ = p_.w;
      Ht_.multiply_add(v_.data(), u_.data());
    }

    double GlobalNewton::fclib_error(const std::vector<double> &rr, const std::vector<double> &uu) const
    {
      const int d = d_;
      double sum = 0.0;
      for (int a = 0; a < m_; ++a)
        {
          const double *ra = &rr[a * d], *ua = &uu[a * d];
          const double ut = d == 3 ? std::hypot(ua[1], ua[2]) : std::abs(ua[1]);
          double xx[3], z[3];
          xx[0] = ra[0] - ua[0] - p_.mu[a] * ut;
          for (int i = 1; i < d; ++i)
            xx[i] = ra[i] - ua[i];
          // The projection of error_measure.h, inlined to keep this file free of LocalProblem.
          const double t = d == 3 ? std::hypot(xx[1], xx[2]) : std::abs(xx[1]);
          if (p_.mu[a] * t <= -xx[0])
            std::fill(z, z + d, 0.0);
          else if (t <= p_.mu[a] * xx[0])
            std::copy(xx, xx + d, z);
          else
            {
              z[0] = (p_.mu[a] * t + xx[0]) / (p_.mu[a] * p_.mu[a] + 1.0);
              for (int i = 1; i < d; ++i)
                z[i] = p_.mu[a] * z[0] * xx[i] / t;
            }
          for (int i = 0; i < d; ++i)
            sum += (ra[i] - z[i]) * (ra[i] - z[i]);
        }
      const double scale = std::max({norm2(q_), norm2(rr), norm2(uu)});
      return scale > DBL_EPSILON ? std::sqrt(sum) / scale : std::sqrt(sum);
    }

    void GlobalNewton::compute_rho()
    {
      const int d = d_, m = m_, n = n_, nc = nc_;
      const CsrMatrix &Ht = Ht_;
      std::vector<double> inverse_lumped(n, 0.0);
      rho_.assign(nc, 1.0);
      for (int i = 0; i < n; ++i)
        for (int k = p_.M.row_start[i]; k < p_.M.row_start[i + 1]; ++k)
          if (p_.M.column_index[k] == i && p_.M.values[k] != 0.0)
            inverse_lumped[i] = 1.0 / p_.M.values[k];
      std::vector<double> diag(nc, 0.0);
      double mean = 0.0;
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
          // Contacts whose lumped block is (nearly) zero get the mean scale.
          if (!(wn > 1e-12 * mean))
            wn = mean > 0.0 ? mean : 1.0;
          if (!(wt > 1e-12 * mean))
            wt = wn;
          rho_[a * d] = options_.rho_scale / wn;
          for (int i = 1; i < d; ++i)
            rho_[a * d + i] = options_.rho_scale / wt;
        }
    }

    void GlobalNewton::create_newton_matrix()
    {
      const int d = d_, m = m_, n = n_;
      // Pattern: rows of M and −H; contact rows: the Hᵀ rows of the contact and its d × d block.
      std::vector<PetscInt> nnz(N_, 0);
      for (int i = 0; i < n; ++i)
        nnz[i] = (p_.M.row_start[i + 1] - p_.M.row_start[i]) + (p_.H.row_start[i + 1] - p_.H.row_start[i]) + 1;
      for (int a = 0; a < m; ++a)
        {
          int count = d;
          for (int l = 0; l < d; ++l)
            count += Ht_.row_start[a * d + l + 1] - Ht_.row_start[a * d + l];
          for (int i = 0; i < d; ++i)
            nnz[n + a * d + i] = count;
        }
      check(MatCreateSeqAIJ(PETSC_COMM_SELF, N_, N_, 0, nnz.data(), J_.out()), "MatCreateSeqAIJ");
      check(MatSetOption(J_, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE), "MatSetOption");
      check(VecCreateSeq(PETSC_COMM_SELF, N_, B_.out()), "VecCreateSeq");
      check(VecDuplicate(B_, X_.out()), "VecDuplicate");
    }

    double GlobalNewton::evaluate(const std::vector<double> &rr, const std::vector<double> &uu, std::vector<double> &ph,
                                  bool jacobian)
    {
      const int d = d_;
      double psi = 0.0;
      for (int a = 0; a < m_; ++a)
        {
          alart_curnier_contact(d, p_.mu[a], rho_[a * d], rho_[a * d + 1], &rr[a * d], &uu[a * d], &ph[a * d],
                                jacobian ? &G_[static_cast<std::size_t>(a) * d * d] : nullptr);
          for (int i = 0; i < d; ++i)
            psi += ph[a * d + i] * ph[a * d + i];
        }
      return 0.5 * psi;
    }

    void GlobalNewton::assemble_newton_matrix(double eta)
    {
      const int d = d_, n = n_;
      check(MatZeroEntries(J_), "MatZeroEntries");
      for (int i = 0; i < n; ++i)
        {
          for (int k = p_.M.row_start[i]; k < p_.M.row_start[i + 1]; ++k)
            {
              const PetscInt row = i, col = p_.M.column_index[k];
              const PetscScalar val = p_.M.values[k];
              MatSetValues(J_, 1, &row, 1, &col, &val, ADD_VALUES);
            }
          for (int k = p_.H.row_start[i]; k < p_.H.row_start[i + 1]; ++k)
            {
              const PetscInt row = i, col = n + p_.H.column_index[k];
              const PetscScalar val = -p_.H.values[k];
              MatSetValues(J_, 1, &row, 1, &col, &val, ADD_VALUES);
            }
        }
      for (int a = 0; a < m_; ++a)
        {
          const double *Ga = &G_[static_cast<std::size_t>(a) * d * d];
          for (int i = 0; i < d; ++i)
            {
              const PetscInt row = n + a * d + i;
              // ∂Φ/∂v = G R Hᵀ: combine the Hᵀ rows of the contact's components.
              for (int l = 0; l < d; ++l)
                {
                  // Zeros are inserted too: the pattern must not change between iterations so
                  // that the symbolic factorisation is reused.
                  const double coefficient = Ga[i * d + l] * rho_[a * d + l];
                  for (int k = Ht_.row_start[a * d + l]; k < Ht_.row_start[a * d + l + 1]; ++k)
                    {
                      const PetscInt col = Ht_.column_index[k];
                      const PetscScalar val = coefficient * Ht_.values[k];
                      MatSetValues(J_, 1, &row, 1, &col, &val, ADD_VALUES);
                    }
                }
              for (int j = 0; j < d; ++j)
                {
                  const PetscInt col = n + a * d + j;
                  const PetscScalar val = (i == j ? 1.0 : 0.0) - (1.0 - eta) * Ga[i * d + j];
                  MatSetValues(J_, 1, &row, 1, &col, &val, ADD_VALUES);
                }
            }
        }
      check(MatAssemblyBegin(J_, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
      check(MatAssemblyEnd(J_, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
    }

    bool GlobalNewton::solve_newton_system()
    {
      if (!newton_solver_)
        newton_solver_ = std::make_unique<DirectSolver>(J_);
      else
        newton_solver_->update();
      {
        PetscScalar *a;
        VecGetArray(B_, &a);
        std::fill(a, a + n_, 0.0); // v is kept consistent: M v − H r − f = 0
        for (int i = 0; i < nc_; ++i)
          a[n_ + i] = -phi_[i];
        VecRestoreArray(B_, &a);
      }
      if (!newton_solver_->solve(B_, X_))
        return false;
      {
        const PetscScalar *c;
        VecGetArrayRead(X_, &c);
        std::copy(c, c + n_, dv_.begin());
        std::copy(c + n_, c + N_, dr_.begin());
        VecRestoreArrayRead(X_, &c);
      }
      std::fill(du_.begin(), du_.end(), 0.0);
      Ht_.multiply_add(dv_.data(), du_.data());
      return true;
    }

    double GlobalNewton::line_search(double psi)
    {
      double alpha = 1.0, best_alpha = 1.0, best_psi = HUGE_VAL;
      bool accepted = false;
      for (int ls = 0; ls < 30; ++ls, alpha *= 0.5)
        {
          for (int i = 0; i < nc_; ++i)
            {
              r_trial_[i] = r_[i] + alpha * dr_[i];
              u_trial_[i] = u_[i] + alpha * du_[i];
            }
          const double psi_trial = evaluate(r_trial_, u_trial_, phi_trial_, false);
          if (psi_trial < best_psi)
            {
              best_psi = psi_trial;
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
      return alpha;
    }

    void GlobalNewton::restore_best()
    {
      r_ = best_r_;
      v_ = best_v_;
      u_ = p_.w;
      Ht_.multiply_add(v_.data(), u_.data());
      error_ = best_error_;
    }

    void GlobalNewton::track_progress(int iteration)
    {
      if (error_ < best_error_)
        {
          best_error_ = error_;
          best_r_ = r_;
          best_v_ = v_;
        }
      if (error_ < 0.5 * milestone_)
        {
          milestone_ = error_;
          milestone_iteration_ = iteration + 1;
        }
      else if (iteration + 1 - milestone_iteration_ >= 20)
        {
          // Stalled: switch between the proximal and the plain Newton matrix from the best point.
          proximal_ = !proximal_ && options_.proximal_cap > 0.0;
          milestone_iteration_ = iteration + 1;
          restore_best();
        }
    }

    SolverResult GlobalNewton::run(Clock::time_point deadline)
    {
      SolverResult result;
      error_ = fclib_error(r_, u_);
      best_error_ = error_;
      best_r_ = r_;
      best_v_ = v_;
      milestone_ = error_;
      milestone_iteration_ = 0;
      proximal_ = options_.proximal_cap > 0.0;
      int iteration = 0;
      for (; iteration < options_.max_iterations && error_ > options_.tolerance; ++iteration)
        {
          if (Clock::now() > deadline)
            {
              result.message = "global_petsc: time limit";
              break;
            }
          const double eta = proximal_ ? std::min(options_.proximal_cap, options_.proximal_factor * error_) : 0.0;
          const double psi = evaluate(r_, u_, phi_, true);
          assemble_newton_matrix(eta);
          if (!solve_newton_system())
            {
              // A singular proximal matrix: retry with the plain one.
              if (proximal_)
                {
                  proximal_ = false;
                  continue;
                }
              result.message = "global_petsc: singular Newton matrix";
              break;
            }
          const double alpha = line_search(psi);
          for (int i = 0; i < nc_; ++i)
            r_[i] += alpha * dr_[i];
          for (int i = 0; i < n_; ++i)
            v_[i] += alpha * dv_[i];
          u_ = p_.w;
          Ht_.multiply_add(v_.data(), u_.data());
          error_ = fclib_error(r_, u_);
          if (options_.verbose)
            std::fprintf(stderr, "  global newton it %3d  eta %.2e  psi %.3e  alpha %.2e  error %.3e\n", iteration + 1,
                         eta, psi, alpha, error_);
          if (!std::isfinite(error_))
            {
              result.status = SolverStatus::failed;
              ++iteration;
              break;
            }
          track_progress(iteration);
        }
      if (!(error_ <= best_error_))
        restore_best();
      result.iterations = iteration;
      result.error = error_;
      if (result.status != SolverStatus::failed)
        result.status = error_ <= options_.tolerance ? SolverStatus::converged : SolverStatus::not_converged;
      return result;
    }
  } // namespace

  PetscScope::PetscScope(int *argc, char ***argv)
  {
    PetscBool initialised = PETSC_FALSE;
    PetscInitialized(&initialised);
    if (!initialised)
      {
        check(argc && argv ? PetscInitialize(argc, argv, nullptr, nullptr) : PetscInitializeNoArguments(),
              "PetscInitialize");
        initialised_here_ = true;
      }
  }

  PetscScope::~PetscScope()
  {
    if (initialised_here_)
      PetscFinalize();
  }

  SolverResult solve_global_petsc(const GlobalProblem &p, std::vector<double> &r, std::vector<double> &v,
                                  std::vector<double> &u, const SolverOptions &options)
  {
    const auto start = Clock::now();
    validate(p);
    initialise_petsc_if_needed();
    const auto deadline =
      options.time_limit_seconds < 1e9
        ? start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.time_limit_seconds))
        : Clock::time_point::max();
    SolverResult result = GlobalNewton(p, options, r, v, u).run(deadline);
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  }
} // namespace percussion::ContactSolvers
