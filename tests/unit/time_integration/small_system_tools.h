// Shared helpers for the time-integration unit tests: tiny dense linear algebra to compute the
// expected values by hand, and the same matrices and vectors as deal.II PETSc objects on
// MPI_COMM_SELF (every DoF owned by the one process), so that a scheme or the contact step runs
// on a 1–3 DoF system without a mesh or a simulation.
#ifndef PERCUSSION_TESTS_TIME_INTEGRATION_SMALL_SYSTEM_TOOLS_H
#define PERCUSSION_TESTS_TIME_INTEGRATION_SMALL_SYSTEM_TOOLS_H

#include <deal.II/base/index_set.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/time_integration/linear_elastodynamic_system.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace small_system
{
  using Dense = std::vector<std::vector<double>>;
  using DVec = std::vector<double>;
  using PetscMatrix = dealii::PETScWrappers::MPI::SparseMatrix;
  using PetscVector = dealii::PETScWrappers::MPI::Vector;

  // ----- dense algebra for the hand computations -----

  inline DVec matvec(const Dense &A, const DVec &x)
  {
    DVec y(A.size(), 0.0);
    for (std::size_t i = 0; i < A.size(); ++i)
      for (std::size_t j = 0; j < x.size(); ++j)
        y[i] += A[i][j] * x[j];
    return y;
  }

  /// Aᵀx.
  inline DVec tmatvec(const Dense &A, const DVec &x)
  {
    DVec y(A.empty() ? 0 : A[0].size(), 0.0);
    for (std::size_t i = 0; i < A.size(); ++i)
      for (std::size_t j = 0; j < y.size(); ++j)
        y[j] += A[i][j] * x[i];
    return y;
  }

  inline double dot(const DVec &a, const DVec &b)
  {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      s += a[i] * b[i];
    return s;
  }

  /// a x + b y.
  inline DVec lin(const double a, const DVec &x, const double b, const DVec &y)
  {
    DVec z(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
      z[i] = a * x[i] + b * y[i];
    return z;
  }

  /// a A + b B.
  inline Dense lin(const double a, const Dense &A, const double b, const Dense &B)
  {
    Dense C = A;
    for (std::size_t i = 0; i < A.size(); ++i)
      for (std::size_t j = 0; j < A[i].size(); ++j)
        C[i][j] = a * A[i][j] + b * B[i][j];
    return C;
  }

  inline double norm(const DVec &x)
  {
    return std::sqrt(dot(x, x));
  }

  /// ‖a − b‖ / ‖b‖ (‖a − b‖ if b = 0).
  inline double relative_error(const DVec &a, const DVec &b)
  {
    const double nb = norm(b);
    const double d = norm(lin(1.0, a, -1.0, b));
    return nb > 0 ? d / nb : d;
  }

  /// Solves A x = b by Gaussian elimination with partial pivoting (A small and regular).
  inline DVec solve(Dense A, DVec b)
  {
    const std::size_t n = b.size();
    for (std::size_t k = 0; k < n; ++k)
      {
        std::size_t p = k;
        for (std::size_t i = k + 1; i < n; ++i)
          if (std::abs(A[i][k]) > std::abs(A[p][k]))
            p = i;
        if (A[p][k] == 0.0)
          throw std::runtime_error("small_system::solve: singular matrix");
        std::swap(A[k], A[p]);
        std::swap(b[k], b[p]);
        for (std::size_t i = k + 1; i < n; ++i)
          {
            const double f = A[i][k] / A[k][k];
            for (std::size_t j = k; j < n; ++j)
              A[i][j] -= f * A[k][j];
            b[i] -= f * b[k];
          }
      }
    DVec x(n);
    for (std::size_t i = n; i-- > 0;)
      {
        double s = b[i];
        for (std::size_t j = i + 1; j < n; ++j)
          s -= A[i][j] * x[j];
        x[i] = s / A[i][i];
      }
    return x;
  }

  /// A⁻¹B for the columns of B.
  inline Dense solve_columns(const Dense &A, const Dense &B)
  {
    const std::size_t n = B.size(), m = B.empty() ? 0 : B[0].size();
    Dense X(n, DVec(m));
    for (std::size_t j = 0; j < m; ++j)
      {
        DVec column(n);
        for (std::size_t i = 0; i < n; ++i)
          column[i] = B[i][j];
        const DVec x = solve(A, column);
        for (std::size_t i = 0; i < n; ++i)
          X[i][j] = x[i];
      }
    return X;
  }

  /// AᵀB.
  inline Dense tmatmat(const Dense &A, const Dense &B)
  {
    const std::size_t n = A[0].size(), m = B[0].size();
    Dense C(n, DVec(m, 0.0));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t k = 0; k < A.size(); ++k)
          C[i][j] += A[k][i] * B[k][j];
    return C;
  }

  // ----- the same objects as deal.II PETSc wrappers on MPI_COMM_SELF -----

  /// A PETSc matrix with every entry of @p A in its sparsity pattern (M and K must share it).
  inline std::unique_ptr<PetscMatrix> petsc_matrix(const Dense &A)
  {
    const unsigned int rows = A.size(), columns = A[0].size();
    dealii::DynamicSparsityPattern pattern(rows, columns);
    for (unsigned int i = 0; i < rows; ++i)
      for (unsigned int j = 0; j < columns; ++j)
        pattern.add(i, j);
    auto matrix = std::make_unique<PetscMatrix>();
    matrix->reinit(dealii::complete_index_set(rows), dealii::complete_index_set(columns), pattern, MPI_COMM_SELF);
    for (unsigned int i = 0; i < rows; ++i)
      for (unsigned int j = 0; j < columns; ++j)
        matrix->set(i, j, A[i][j]);
    matrix->compress(dealii::VectorOperation::insert);
    return matrix;
  }

  inline PetscVector petsc_vector(const DVec &x)
  {
    PetscVector v(dealii::complete_index_set(x.size()), MPI_COMM_SELF);
    for (unsigned int i = 0; i < x.size(); ++i)
      v(i) = x[i];
    v.compress(dealii::VectorOperation::insert);
    return v;
  }

  inline DVec to_std(const PetscVector &v)
  {
    DVec x(v.size());
    for (unsigned int i = 0; i < x.size(); ++i)
      x[i] = v(i);
    return x;
  }

  /// M v' + C v + K q = F (constant), C = αM + βK, as both dense and PETSc data.
  struct SmallSystem
  {
    SmallSystem(const Dense &mass, const Dense &stiffness, const double alpha, const double beta, const DVec &force)
      : M(mass)
      , K(stiffness)
      , alpha(alpha)
      , beta(beta)
      , F(force)
      , petsc_M(petsc_matrix(mass))
      , petsc_K(petsc_matrix(stiffness))
    {
      system.mass = petsc_M.get();
      system.stiffness = petsc_K.get();
      system.rayleigh_alpha = alpha;
      system.rayleigh_beta = beta;
      bool any_force = false;
      for (const double f : F)
        any_force = any_force || f != 0.0;
      system.has_external_force = any_force;
      system.external_force_depends_on_time = false;
      const DVec f_copy = F;
      system.assemble_external_force = [f_copy](double, PetscVector &f) {
        for (unsigned int i = 0; i < f_copy.size(); ++i)
          f(i) = f_copy[i];
        f.compress(dealii::VectorOperation::insert);
      };
    }

    unsigned int n() const { return M.size(); }
    dealii::IndexSet owned() const { return dealii::complete_index_set(n()); }
    Dense C() const { return lin(alpha, M, beta, K); }
    /// ½xᵀAx.
    static double half_norm(const Dense &A, const DVec &x) { return 0.5 * dot(x, matvec(A, x)); }

    Dense M, K;
    double alpha, beta;
    DVec F;
    std::unique_ptr<PetscMatrix> petsc_M, petsc_K;
    percussion::TimeIntegration::LinearElastodynamicSystem system;
  };

  /// One Moreau–Jean step by hand: Ŵ, v_free (with H p = @p impulse), q_{k+1}.
  struct MoreauJeanStep
  {
    MoreauJeanStep(const SmallSystem &s, const double h, const double theta, const DVec &q, const DVec &v,
                   const DVec &impulse = {})
    {
      // Ŵ = M + hθC + h²θ²K.
      W_hat = lin(1.0, s.M, h * theta, s.C());
      W_hat = lin(1.0, W_hat, h * h * theta * theta, s.K);
      // Ŵ v_{k+1} = M v_k − hK(q_k + hθ(1−θ)v_k) − h(1−θ)C v_k + hF_{k+θ} (+ H p).
      DVec rhs = matvec(s.M, v);
      rhs = lin(1.0, rhs, -h, matvec(s.K, lin(1.0, q, h * theta * (1 - theta), v)));
      rhs = lin(1.0, rhs, -h * (1 - theta), matvec(s.C(), v));
      rhs = lin(1.0, rhs, h, s.F);
      v_free = solve(W_hat, rhs);
      if (!impulse.empty())
        rhs = lin(1.0, rhs, 1.0, impulse);
      v_new = solve(W_hat, rhs);
      v_theta = lin(1 - theta, v, theta, v_new);
      q_new = lin(1.0, q, h, v_theta);
    }
    Dense W_hat;
    DVec v_free, v_new, v_theta, q_new;
  };

  /**
   * correct_displacement(δq) by hand (TimeIntegrator::book_position_correction()): q += δq; the
   * loads' work F·δq; the energy the correction would add beyond it, ΔΠ = ΔE_strain − F·δq; where
   * ΔΠ > 0 the velocity gives it up along δq, v' = v − λδq with ½λ²δqᵀMδq − λvᵀMδq = −ΔΠ (root of
   * smaller |λ|), or all of its component along δq.
   */
  struct HandCorrection
  {
    DVec v;                    ///< the velocity after the correction
    double load_work = 0;      ///< F·δq
    double kinetic_change = 0; ///< ΔE_kin
    double strain_change = 0;  ///< ΔE_strain
    double added = 0;          ///< ΔE_kin + ΔE_strain − F·δq (position_correction)
  };

  inline HandCorrection hand_correction(const SmallSystem &s, const DVec &q, const DVec &v, const DVec &dq)
  {
    HandCorrection c;
    c.strain_change = SmallSystem::half_norm(s.K, lin(1.0, q, 1.0, dq)) - SmallSystem::half_norm(s.K, q);
    c.load_work = dot(s.F, dq);
    c.v = v;
    const double excess = c.strain_change - c.load_work;
    if (excess > 0)
      {
        const DVec Mdq = matvec(s.M, dq);
        const double a = dot(dq, Mdq), b = dot(v, Mdq), disc = b * b - 2 * a * excess;
        const double lambda = disc >= 0 ? (b - std::copysign(std::sqrt(disc), b)) / a : b / a;
        c.v = lin(1.0, v, -lambda, dq);
        c.kinetic_change = SmallSystem::half_norm(s.M, c.v) - SmallSystem::half_norm(s.M, v);
      }
    c.added = c.kinetic_change + c.strain_change - c.load_work;
    return c;
  }
} // namespace small_system

#endif
