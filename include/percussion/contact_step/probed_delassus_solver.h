#ifndef PERCUSSION_CONTACT_STEP_PROBED_DELASSUS_SOLVER_H
#define PERCUSSION_CONTACT_STEP_PROBED_DELASSUS_SOLVER_H

#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_laws/active_contact.h>
#include <percussion/contact_solvers/anderson_mixing.h>
#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/distributed_sweeps.h>
#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/solver_options.h>
#include <percussion/contact_step/delassus_operator.h>
#include <percussion/contact_step/probed_delassus.h>

#include <petscmat.h>

#include <array>
#include <memory>
#include <vector>

namespace percussion::ContactStep
{
  /**
   * The last accepted iterate of a problem that ProbedDelassusSolver::solve() solved: its impulses
   * with their exact product W p (for H of PETSc object id @p operator_id and the impulse response
   * of version @p response_version), and its Hp and 𝒯Hp. The next solve() of a problem starts from
   * it: the product without a solve where nothing changed (lasting contact on fixed obstacles), or
   * approximated from it. Each problem keeps its own (the contact step's, a position projection's
   * copy of it), so that solving one problem leaves the other's warm start as it was.
   */
  struct ProbedWarmStart
  {
    bool valid = false;
    PetscObjectId operator_id = -1;
    unsigned int response_version = 0; ///< SchemeInterface::operator_version()
    std::vector<unsigned long long> points;
    std::vector<double> reaction, product;
    /// Hp (Dirichlet rows zero) and 𝒯Hp (DoF partition): the solve's work vectors, and after it
    /// those of the accepted iterate.
    dealii::PETScWrappers::MPI::Vector generalized_impulse, response;
  };

  /**
   * The contact problem of many contacts with the probed operator (doc/contact.md, "Many
   * contacts"): ProbedDelassus's approximation W_s = HᵀGH of W = Hᵀ𝒯H, corrected with exact
   * products W p (SchemeInterface::impulse_response(b, x), one solve) in an Anderson-mixed outer
   * iteration whose inner problems distributed_sweeps() solves, each rank sweeping its own
   * contacts. The problem stays distributed: a rank holds its own contacts and the ghosts its rows
   * of W_s couple to (ContactPartition). It keeps, from one solve to the next, the last accepted
   * impulse with its exact product and its Hp and 𝒯Hp, and the scaled inner problem in block form.
   */
  class ProbedDelassusSolver
  {
  public:
    /// @p max_iterations: the most exact products ('Probed operator iterations').
    ProbedDelassusSolver(unsigned int dim, unsigned int max_iterations, MPI_Comm communicator);

    /// A new ProbedDelassus of radius @p radius (in node spacings @p node_spacing) on the
    /// reference positions of the locally owned DoFs (the first is @p first_owned_dof).
    void set_dof_positions(dealii::types::global_dof_index first_owned_dof,
                           std::vector<std::array<double, 3>> positions, double radius, double node_spacing);

    /// The probed approximation (ProbedDelassus::n_probings(): whether G has been probed).
    const ProbedDelassus &approximation() const { return *probed; }

    /**
     * The outer iteration
     *   z^k = W p^k (exact, one solve), stop when (p^k, f z^k + b) solves the exact law to the
     *   tolerance, else p^{k+1} solves the law with A = f W_s, b' = b + f (z^k − W_s p^k),
     * with @p factor f (θ for the Frémond law, else 1), from the warm start @p warm_start (the impulses'
     * product where it is theirs, else approximated from it), distributed: each rank holds its @p own
     * contacts (@p probed_problem has their b and μ, @p impulses their warm start) and the ghosts
     * its rows couple to (@p partition). @p columns_like has the column partition of H. Leaves
     * @p probed_problem (with the rank's rows of f W_s), @p impulses (own and ghost),
     * @p velocities (own), and in @p warm_start the returned iterate with its exact product W p (own
     * contacts, dim each), Hp and 𝒯Hp; @p exponent: the inner
     * problems' scaling (as ContactSolvers::solve_scaled()). Collective.
     */
    ContactSolvers::SolverResult solve(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                       const dealii::PETScWrappers::MPI::Vector &columns_like,
                                       const std::vector<ContactLaws::ActiveContact> &own, double factor,
                                       ContactSolvers::LocalProblem &probed_problem, std::vector<double> &impulses,
                                       std::vector<double> &velocities, ContactPartition &partition, int &exponent,
                                       const ContactSolvers::SolverOptions &options, ProbedWarmStart &warm_start,
                                       OperatorSolveCounts &counts);

  private:
    /// The warm start's Hp and 𝒯Hp at the best iterate so far are kept (best_generalized_impulse,
    /// best_correction).
    void remember_best_vectors();
    /// The accepted iterate (@p reaction, its product @p product at @p points, for the operator
    /// @p operator_id and the scheme's @p response_version) becomes @p warm_start, with the vectors
    /// remember_best_vectors() kept.
    void keep_as_warm_start(ProbedWarmStart &warm_start, PetscObjectId operator_id, unsigned int response_version,
                            const std::vector<unsigned long long> &points, const std::vector<double> &reaction,
                            const std::vector<double> &product);
    /**
     * The scaling exponent of the inner problems (2^e f W_s of unit mean |diagonal|, all ranks) and
     * inner_problem with its block form and ghost exchange, made again only when the active block
     * or the scaling changed; b and μ from @p probed_problem. Collective.
     */
    int prepare_inner(const ContactSolvers::LocalProblem &probed_problem, const ContactPartition &partition);
    /**
     * z = W p at the iterate @p impulses (this rank's contacts @p own at @p own_points; @p n_mine
     * own unknowns): the warm start's product where nothing changed (@p first_iteration only),
     * 0 for a cold start, approximate_product() at the first iteration after a change, else
     * exact_product(). Returns whether z is the approximation (its error is not exact). Collective.
     */
    bool product_at(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                    const std::vector<ContactLaws::ActiveContact> &own,
                    const std::vector<unsigned long long> &own_points, const std::vector<double> &impulses,
                    unsigned int n_mine, bool first_iteration, std::vector<double> &z, OperatorSolveCounts &counts);
    /**
     * The inner problem (inner_problem, its q set) by distributed_sweeps() from the scaled
     * impulses @p scaled to @p inner_tolerance, and where they do not converge by the configured
     * solver on the gathered problem (to @p sweeps_tolerance). Returns the iterations. Collective.
     */
    unsigned int solve_inner(std::vector<double> &scaled, std::vector<double> &inner_u, double inner_tolerance,
                             double sweeps_tolerance, const ContactPartition &partition,
                             const ContactSolvers::SolverOptions &options);
    /**
     * The next outer iterate from the inner solution @p scaled (impulses scaled by 2^-@p exponent)
     * and the last iterate @p impulses: Anderson-mixed over the own unknowns, projected onto the
     * Coulomb cones (μ from @p mu) of the @p n_own own contacts, the ghosts' entries from their
     * owners. Collective.
     */
    std::vector<double> mixed_iterate(ContactSolvers::AndersonMixing &mixing, const std::vector<double> &impulses,
                                      const std::vector<double> &scaled, int exponent, const std::vector<double> &mu,
                                      int n_own) const;
    /// z = Hᵀ𝒯Hp at this rank's contacts @p own for impulses @p r (dim per contact, own first),
    /// in the same layout; leaves Hp and 𝒯Hp in the warm start's vectors. One solve.
    /// Collective.
    void exact_product(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                       const std::vector<ContactLaws::ActiveContact> &own, const std::vector<double> &r,
                       std::vector<double> &z);
    /// z ≈ Hᵀ𝒯Hp as exact_product() without a solve, from the last accepted Hp and 𝒯Hp (in
    /// the warm start's vectors on entry, for the current 𝒯): 𝒯Hp ≈ 𝒯(Hp)_old + G Δ,
    /// Δ = Hp − (Hp)_old, G the probed approximation of 𝒯 (ProbedDelassus::approximate_response()).
    /// Its error is G's truncation applied to Δ only. Leaves Hp and this approximation of 𝒯Hp in
    /// the warm start's vectors. Collective.
    void approximate_product(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                             const std::vector<ContactLaws::ActiveContact> &own, const std::vector<double> &r,
                             std::vector<double> &z);
    /// The warm start's generalized_impulse = Hp, Dirichlet rows zero, for impulses @p r at this rank's contacts @p
    /// own.
    void impulse_on_dofs(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                         const std::vector<ContactLaws::ActiveContact> &own, const std::vector<double> &r);
    /// z = Hᵀx at this rank's contacts @p own (dim per contact). Collective.
    void local_values_of(const dealii::PETScWrappers::MPI::SparseMatrix &H,
                         const std::vector<ContactLaws::ActiveContact> &own,
                         const dealii::PETScWrappers::MPI::Vector &x, std::vector<double> &z);

    const unsigned int dim;
    const unsigned int max_iterations;
    MPI_Comm communicator;
    std::unique_ptr<ProbedDelassus> probed;
    /// A vector with the column partition of H (the solve()'s @p columns_like).
    const dealii::PETScWrappers::MPI::Vector *columns_like = nullptr;

    /// The warm start of the problem being solved (during solve() only).
    ProbedWarmStart *current = nullptr;
    /// An impulse on H's columns, Hᵀ𝒯Hp, and the best iterate's Hp and 𝒯Hp.
    dealii::PETScWrappers::MPI::Vector impulse_columns, column_work, best_generalized_impulse, best_correction;
    /// approximate_product()'s change of Hp and its approximate response.
    dealii::PETScWrappers::MPI::Vector impulse_change, response_change;

    /// The inner problem (f W_s scaled by 2^inner_exponent, its q set at every outer iteration),
    /// W_s in block form for the sweeps and the sweeps' exchange of ghost impulses, kept while
    /// ProbedDelassus::block_version() and the scaling are unchanged (lasting contact on fixed
    /// obstacles).
    ContactSolvers::LocalProblem inner_problem;
    std::unique_ptr<ContactSolvers::BlockDelassus> inner_blocks;
    std::unique_ptr<ImpulseExchange> inner_exchange;
    unsigned int inner_block_version = 0;
    int inner_exponent = 0;
  };
} // namespace percussion::ContactStep

#endif
