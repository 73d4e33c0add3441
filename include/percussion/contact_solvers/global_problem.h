#ifndef PERCUSSION_CONTACT_SOLVERS_GLOBAL_PROBLEM_H
#define PERCUSSION_CONTACT_SOLVERS_GLOBAL_PROBLEM_H

#include <percussion/contact_solvers/csr_matrix.h>
#include <percussion/contact_solvers/local_problem.h>

#include <string>
#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * The frictional contact problem in global form, FCLIB `fclib_global`: find v, r, u with
   *
   *     M v = H r + f,   u = Hᵀ v + w,   K*_a ∋ u_a + (μ_a‖u_{T,a}‖, 0, 0) ⊥ r_a ∈ K_a,
   *
   * M (n × n) symmetric positive definite and sparse, H (n × d m) sparse.
   * (The paper's (53a) with M ← Ŵ = M + hθC + h²θ²K, H the contact operator, doc/theory.md.)
   */
  struct GlobalProblem
  {
    int dimension = 3;
    int number_of_contacts = 0;
    CsrMatrix M;            ///< n × n
    CsrMatrix H;            ///< n × d m
    std::vector<double> f;  ///< n
    std::vector<double> w;  ///< d m
    std::vector<double> mu; ///< m

    int number_of_dofs() const { return M.rows; }
  };

  /** Size/finiteness/μ ≥ 0 checks; throws percussion::InputError naming @p context and the field. */
  void validate(const GlobalProblem &problem, const std::string &context = "GlobalProblem");

  /**
   * Condense to the local form: W = Hᵀ M⁻¹ H, q = Hᵀ M⁻¹ f + w (FCLIB README). M is factorised
   * once with a sparse LU (KLU); W is returned in CSR storage without its exact zeros. M is used as
   * given: it need not be symmetric (two public FCLIB files store only the upper triangle of M; like
   * Siconos, we take such data literally, and W is then not symmetric).
   * Throws percussion::SolverError if M is singular.
   */
  LocalProblem condense_to_local(const GlobalProblem &problem);

  /** v = M⁻¹ (H r + f), the velocities of the global form for given reactions r. */
  std::vector<double> recover_global_velocity(const GlobalProblem &problem, const std::vector<double> &r);
} // namespace percussion::ContactSolvers

#endif
