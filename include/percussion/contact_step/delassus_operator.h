#ifndef PERCUSSION_CONTACT_STEP_DELASSUS_OPERATOR_H
#define PERCUSSION_CONTACT_STEP_DELASSUS_OPERATOR_H

#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_laws/active_contact.h>
#include <percussion/contact_solvers/distributed_sweeps.h>
#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/contact_solvers/solver_options.h>
#include <percussion/contact_step/scheme_interface.h>

#include <algorithm>
#include <vector>

namespace percussion::ContactStep
{
  /// Sorts @p contacts by point index: the order in which every rank poses a problem.
  inline void sort_by_point(std::vector<ContactLaws::ActiveContact> &contacts)
  {
    std::sort(contacts.begin(), contacts.end(),
              [](const ContactLaws::ActiveContact &a, const ContactLaws::ActiveContact &b) {
                return a.point < b.point;
              });
  }

  /// The ranks' @p local contacts, then sorted by point index, so that every rank builds the
  /// same problem. Collective.
  inline void all_gather_sorted(const std::vector<ContactLaws::ActiveContact> &local,
                                std::vector<ContactLaws::ActiveContact> &all, MPI_Comm communicator)
  {
    ContactSolvers::plain_all_gather(local, all, communicator);
    sort_by_point(all);
  }

  /// What a Delassus operator needs of the step besides its contacts.
  struct OperatorContext
  {
    SchemeInterface &scheme;                                ///< its impulse response 𝒯 (or projection metric)
    const dealii::PETScWrappers::MPI::SparseMatrix &H;      ///< H(q_k), n_dofs × dim·(candidates)
    const dealii::PETScWrappers::MPI::Vector &columns_like; ///< a vector with H's column partition
    unsigned long long n_candidates;                        ///< candidate points (column blocks of H)
    bool operator_moves;                                    ///< H changed at this step and the one before
  };

  /// The costs of a solve through a Delassus operator: exact products W p (one solve each) and
  /// probing solves (both 0 where the operator's columns are exact), and the right-hand sides
  /// solved for the dense operator's columns (DelassusColumns::solved_columns()).
  struct OperatorSolveCounts
  {
    unsigned int exact_products = 0, probing_solves = 0;
    unsigned long long column_solves = 0;
  };

  /// A contact problem posed for a Delassus operator and what its solve left.
  struct ContactSolution
  {
    /// A = f W (the operator's storage), b and μ (posed by the scheme's law) of the held contacts.
    ContactSolvers::LocalProblem problem;
    /// p (the problem's dimension per held contact; on entry the warm start) and w = A p + b.
    std::vector<double> reaction, velocity;
    /// The power-of-two scaling the solve used (ContactSolvers::solve_scaled()).
    int exponent = 0;
    /// Distributed operators: this rank's own contacts, then its ghosts.
    ContactSolvers::ContactPartition partition;
  };

  /**
   * The Delassus operator W = Hᵀ𝒯H of a step's contacts (doc/contact.md, "The step's contact
   * problem") and the solve of a contact problem with it, in one of two forms:
   * DenseDelassusOperator (the columns 𝒯H of the problem's contacts, every rank holding all
   * contacts) and ProbedDelassusOperator (a sparse approximation corrected by exact products W p,
   * each rank holding its own contacts and ghosts). FrictionalContactStep chooses one per step and
   * goes through this interface only: the solve of the step's problem, the impulse it applies, the
   * law's velocities W p for the works, and the position projection's frictionless problem.
   */
  class DelassusOperator
  {
  public:
    virtual ~DelassusOperator() = default;

    /// Whether a rank holds its own contacts only (with ghosts, ContactSolution::partition), rather
    /// than all contacts of the problem, gathered and sorted by point, on every rank.
    virtual bool is_distributed() const = 0;

    /**
     * Solves the problem w = A p + b, K* ∋ w + (μ‖w_T‖, 0, 0) ⊥ p ∈ K of the @p held contacts with
     * A = @p factor · W; @p solution has b and μ (ContactSolution::problem.q, .mu, posed by the
     * scheme's law) and the warm start (ContactSolution::reaction). Leaves A in the problem, p, w
     * and the scaling in @p solution; adds its costs to @p counts. Collective.
     */
    virtual ContactSolvers::SolverResult solve(const OperatorContext &context,
                                               const std::vector<ContactLaws::ActiveContact> &held, double factor,
                                               ContactSolution &solution, const ContactSolvers::SolverOptions &options,
                                               OperatorSolveCounts &counts) = 0;

    /**
     * The generalized impulse Hp (Dirichlet rows zero) and its response 𝒯Hp of the impulses
     * @p impulse (the body's dimension per held contact) that the last solve() returned, into
     * @p generalized_impulse and @p response. Collective.
     */
    virtual void impulse_vectors(const OperatorContext &context, const std::vector<ContactLaws::ActiveContact> &held,
                                 const std::vector<double> &impulse,
                                 const dealii::PETScWrappers::MPI::Vector *&generalized_impulse,
                                 const dealii::PETScWrappers::MPI::Vector *&response) = 0;

    /**
     * Adds (W p)_{a,i} to @p u: held contact @p a (this rank's, @p first the index of its first
     * own contact among the held ones), component @p i, for the impulses @p impulse of the last
     * solve() (the body's dimension per held contact).
     */
    virtual void add_product(const std::vector<ContactLaws::ActiveContact> &held, unsigned int a, unsigned int first,
                             unsigned int i, const std::vector<double> &impulse, double &u) const = 0;

    /**
     * The position projection's frictionless problem 0 ≤ g + W_NN p̃ ⊥ p̃ ≥ 0 of this rank's
     * contacts @p local (their gaps ActiveContact::gap; W of this operator's metric), solved on
     * every rank's behalf (Acary 2013, direct projection). Returns 𝒯Hp̃, the displacement
     * correction; @p solver and @p n_contacts (the largest projection problem so far) report it.
     * The step's solution is not touched. Collective.
     */
    virtual const dealii::PETScWrappers::MPI::Vector &project(const OperatorContext &context,
                                                              std::vector<ContactLaws::ActiveContact> &local,
                                                              const ContactSolvers::SolverOptions &options,
                                                              ContactSolvers::SolverResult &solver,
                                                              unsigned int &n_contacts) = 0;

    /// The next solve() does not start from this operator's last solution (another operator
    /// solved the step in between).
    virtual void forget_warm_start() {}
  };
} // namespace percussion::ContactStep

#endif
