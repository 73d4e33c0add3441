#ifndef PERCUSSION_CONTACT_SOLVERS_LOCAL_PROBLEM_H
#define PERCUSSION_CONTACT_SOLVERS_LOCAL_PROBLEM_H

#include <percussion/contact_solvers/csr_matrix.h>
#include <percussion/contact_solvers/dense_matrix.h>

#include <string>
#include <vector>

namespace percussion::ContactSolvers
{
  /** How the Delassus operator W of a LocalProblem is stored. */
  enum class MatrixStorage
  {
    dense, ///< LocalProblem::W_dense (all contacts coupled, the finite-element case)
    sparse ///< LocalProblem::W_sparse (CSR, as in FCLIB files of rigid-body codes)
  };

  /**
   * The discrete frictional contact problem in local (reduced) form, FCLIB `fclib_local`:
   * for m contacts in dimension d find r, u in R^{d m} with
   *
   *     u = W r + q,
   *     K*_a ∋ u_a + (μ_a ‖u_{T,a}‖, 0, 0)  ⊥  r_a ∈ K_a,   a = 1..m,
   *
   * K_a = {r : ‖r_T‖ ≤ μ_a r_N} the Coulomb cone and K*_a its dual (De Saxcé's form of the
   * Coulomb law; doc/theory.md, Lemma 1 and "The step's contact problem"). Each contact's
   * components are contiguous, normal first: (r_N, r_T1, r_T2) in 3D, (r_N, r_T) in 2D.
   * W is symmetric positive semidefinite for Moreau–Jean and may be singular (redundant contacts);
   * with the generalized-α schemes it is nonsymmetric unless β = γ/2 — the solvers assume no symmetry.
   */
  struct LocalProblem
  {
    int dimension = 3;          ///< 2 or 3
    int number_of_contacts = 0; ///< m
    MatrixStorage storage = MatrixStorage::dense;
    DenseMatrix W_dense;    ///< used when storage == dense, d m × d m
    CsrMatrix W_sparse;     ///< used when storage == sparse, d m × d m
    std::vector<double> q;  ///< d m
    std::vector<double> mu; ///< m, μ_a ≥ 0

    /** d m, the number of unknowns. */
    int size() const { return dimension * number_of_contacts; }

    /** y += W x. */
    void multiply_add_W(const double *x, double *y) const;

    /** u = W r + q. */
    void compute_velocity(const std::vector<double> &r, std::vector<double> &u) const;
  };

  /**
   * Check dimensions, sizes, finiteness and μ ≥ 0; throws percussion::InputError with a message
   * that starts with @p context (e.g. the file name) and names the offending field.
   */
  void validate(const LocalProblem &problem, const std::string &context = "LocalProblem");
} // namespace percussion::ContactSolvers

#endif
