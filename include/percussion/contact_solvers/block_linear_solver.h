#ifndef PERCUSSION_CONTACT_SOLVERS_BLOCK_LINEAR_SOLVER_H
#define PERCUSSION_CONTACT_SOLVERS_BLOCK_LINEAR_SOLVER_H

#include <percussion/contact_solvers/block_delassus.h>

#include <memory>
#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * Direct solver for the (non-symmetric) Newton matrices J that share the block pattern of W,
   * J_ab = A_a δ_ab + B_a W_ab. Dense LU with partial pivoting when W is dense or small,
   * sparse LU (SuiteSparse KLU, symbolic analysis done once for the pattern) otherwise.
   */
  class BlockLinearSolver
  {
  public:
    BlockLinearSolver(const BlockDelassus &pattern, bool use_dense);
    ~BlockLinearSolver();
    BlockLinearSolver(const BlockLinearSolver &) = delete;
    BlockLinearSolver &operator=(const BlockLinearSolver &) = delete;

    /**
     * Factorise J + shift I, J given by its block values (layout of BlockDelassus::block_values).
     * Returns false if the matrix is numerically singular.
     */
    bool factorize(const std::vector<double> &block_values, double shift = 0.0);

    /** x ← J⁻¹ x with the last successful factorisation. */
    void solve(double *x) const;

    bool is_dense() const { return use_dense_; }

  private:
    const BlockDelassus &pattern_;
    bool use_dense_;
    int n_;
    // dense LU
    std::vector<double> lu_;
    std::vector<int> pivots_;
    // sparse LU (KLU), J stored as the CSC of Jᵀ (= CSR of J), solved with the transposed solve
    std::vector<int> csr_start_, csr_column_;
    std::vector<double> csr_values_;
    struct KluData;
    std::unique_ptr<KluData> klu_;
  };
} // namespace percussion::ContactSolvers

#endif
