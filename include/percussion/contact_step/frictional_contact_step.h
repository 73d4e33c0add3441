#ifndef PERCUSSION_CONTACT_STEP_FRICTIONAL_CONTACT_STEP_H
#define PERCUSSION_CONTACT_STEP_FRICTIONAL_CONTACT_STEP_H

#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_laws/active_contact.h>
#include <percussion/contact_laws/contact_law.h>
#include <percussion/contact_laws/local_law.h>
#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/contact_state.h>
#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/solver_options.h>
#include <percussion/contact_step/active_set_rule.h>
#include <percussion/contact_step/contact_dynamics_parameters.h>
#include <percussion/contact_step/contact_history.h>
#include <percussion/contact_step/delassus_operator.h>
#include <percussion/contact_step/dense_delassus_operator.h>
#include <percussion/contact_step/owned_contact_point.h>
#include <percussion/contact_step/position_projector.h>
#include <percussion/contact_step/probed_delassus_operator.h>
#include <percussion/contact_step/scheme_interface.h>

#include <petscmat.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace percussion::ContactStep
{
  /// One contact of the step's problem (plain data, ContactLaws::ActiveContact).
  using ContactLaws::ActiveContact;

  /// Lemma 1 of the paper: take-off, stick, slide (one enum, in the plain-data solver layer).
  using ContactSolvers::ContactState;

  /// What a step's contact solve produced.
  struct ContactStepResult
  {
    unsigned int n_active = 0, n_stick = 0, n_slip = 0;
    /// Σ u_{N,k+θ} p_N and Σ u_{T,k+θ}ᵀ p_T (paper (59)); ≤ 0 for the Frémond scheme in its range.
    double work_normal = 0, work_tangential = 0;
    /// Work of the reactions on the bodies through moving obstacles' velocity V: Σ (frame·V)ᵀ p.
    double obstacle_work = 0;
    /// Σ p_N over the active contacts (the wall force times h).
    double normal_impulse = 0;
    ContactSolvers::SolverResult solver;
    bool solved = false; ///< false when no contact was active (no problem to solve)
    /// Whether the probed operator (ProbedDelassus) was used, the exact products W p it took
    /// (one solve each) and the probing solves of this step (0 unless G was (re)computed).
    bool probed_operator = false;
    unsigned int exact_products = 0, probing_solves = 0;
    /// The right-hand sides solved for the dense operator's columns at this step (0 where its
    /// columns were kept: a fixed H, or the bodies' compliances covering the contacts).
    unsigned long long column_solves = 0;
    /// Whether the probed operator's solve did not meet the law and the step was solved again with
    /// the dense W (dim × contacts within 'Delassus column limit'), and the probed residual then.
    bool dense_fallback = false;
    double probed_error = 0;
    /// The most contacts a rank held in the step's problem: all active ones on the dense path
    /// (gathered on every rank), own plus ghosts on the probed path (ContactPartition).
    unsigned int held_per_rank = 0;
    /// Candidates with g_k < 0 that the step's problem did not take (0 by construction of the
    /// active set; reported as a check).
    unsigned int n_penetrated_left_out = 0;
    /// Per owned candidate point: whether it entered the step's problem.
    std::vector<bool> in_problem;
    /// Contacts that did positive work u_{k+θ}ᵀp_α > 0 (beyond round-off), the largest and where.
    unsigned int n_positive_work = 0;
    double largest_positive_work = 0;
    std::array<double, 3> largest_positive_work_position{};
    /// Per owned candidate point (in the order given): state, impulse p (dim), u_{k+θ} (dim),
    /// and energy dissipated there since the start (−Σ u_{k+θ}ᵀp).
    std::vector<ContactState> state;
    std::vector<double> impulse, velocity, dissipated_energy;
  };

  /**
   * One step's frictional contact problem between TimeIntegrator::compute_free_velocity()
   * and finish_step() (doc/theory.md, "The step's contact problem"); written here for Moreau–Jean
   * (W = Hᵀ Ŵ⁻¹ H), and the same with W = Hᵀ𝒯H for any TimeIntegrator (the nonsmooth
   * generalized-α family uses the standard law, the velocity-level Newton law on u_{k+1}):
   *
   *   find p, w:  w = A p + b,  K* ∋ w + (μ‖w_T‖, 0, 0) ⊥ p ∈ K,  with W = Hᵀ Ŵ⁻¹ H and
   *   standard:  A = W,   b = u_free + (e u_{N,k}, 0, 0)
   *   Frémond:   A = θW,  b = θ u_free + (θ e u_{N,k}, (1−θ) u_{T,k}),
   *
   * on the active contacts (ActiveSetRule: penetrated, or gap predicted to close); then v_{k+1} = v_free + Ŵ⁻¹ H p. The
   * two Moreau–Jean laws differ only in (A, b): the ContactLaws::LocalLaw of the scheme (StandardLaw, FremondLaw,
   * SchatzmanPaoliLaw) poses them. A penetrated contact that separates (u_{N,k} > 0) gets the normal law 0 ≤ u_{N,k+ω}
   * ⊥ p_N ≥ 0 (ω = contact_work_weight()): it cannot pull, does no work, and its gap does not decrease over the step;
   * for the Frémond law this is Θ with min(u_{N,k}, 0) in place of u_{N,k}, so Proposition 1 holds for every contact
   * (doc/contact.md, "Lasting contact").
   *
   * The step is done in named phases: select_own() (the only place that decides which contacts
   * enter the problem; each rank its own), choose_operator() (the DelassusOperator: dense columns
   * for few contacts, the probed operator for many), pose_law() (the law object poses b and μ),
   * DelassusOperator::solve() (W and the contact solve), the impulse
   * (DelassusOperator::impulse_vectors()), and works_and_states(). With the dense operator the
   * problem is gathered and solved redundantly and identically on every rank; with the probed
   * operator it stays distributed: a rank holds its own contacts and the ghosts its rows of W_s
   * couple to (ContactPartition), and the step's totals are sums over the ranks.
   *
   * After the step, project_positions() checks the end-of-step gaps and, where a contact
   * penetrates beyond a tolerance, projects the displacement back onto g ≥ 0 (PositionProjector,
   * with the step's operators). What the step carries to the next is its ContactHistory.
   */
  class FrictionalContactStep
  {
  public:
    /// @p gap_prediction_factor: γ of the ActiveSetRule.
    FrictionalContactStep(const ContactDynamicsParameters &parameters, ContactLaws::ContactLaw law, unsigned int dim,
                          double gap_prediction_factor, MPI_Comm communicator);

    /**
     * Solves the step's contact problem and applies the impulse to @p scheme.
     * @param H           the contact operator H(q_k) (n_dofs × dim·m)
     * @param w           the obstacle velocity offset (column partition of H)
     * @param operator_changed  whether H changed at this step (a change at steps without a call is
     *                          noticed too)
     * @param points      the owned candidate points, in column order
     * @param u_k         Hᵀ v_k + w
     * @param energy_scale  the energy flowing through the step's balance (|E_k| and the works so
     *                    far): a contact's work below its round-off is not reported as positive
     */
    ContactStepResult solve(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                            const dealii::PETScWrappers::MPI::Vector &w, bool operator_changed,
                            const std::vector<OwnedContactPoint> &points, const dealii::PETScWrappers::MPI::Vector &u_k,
                            double energy_scale = 0);

    /**
     * After TimeIntegrator::finish_step(): the end-of-step gaps to first order,
     * g_{k+1} = g_k + [Hᵀ Δq]_N + h w_N with @p displacement_increment Δq = q_{k+1} − q_k (exact
     * for plane obstacles), and, if @p project and some g_{k+1} < −@p tolerance, the direct
     * projection of q_{k+1} onto g ≥ 0: the contacts with g_{k+1} < @p tolerance enter the
     * frictionless problem 0 ≤ g_{k+1} + W p̃ ⊥ p̃ ≥ 0 (W = Hᵀ𝒯H of the step), and
     * SchemeInterface::correct_displacement(𝒯 H p̃), the velocity giving up along the correction
     * what the correction would add beyond its loads' work. No pass adds more than
     * @p allowed_energy beyond that (PositionProjector::project()): a correction that would is taken
     * in the quasi-static metric where that adds less, and scaled back (PositionProjectionResult::
     * scale). Collective.
     */
    PositionProjectionResult project_positions(SchemeInterface &scheme,
                                               const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                               const dealii::PETScWrappers::MPI::Vector &w,
                                               const std::vector<OwnedContactPoint> &points,
                                               const dealii::PETScWrappers::MPI::Vector &displacement_increment,
                                               bool project, double tolerance, double allowed_energy);

    /**
     * Enables the probed operator ('Delassus operator' = auto or probed, 2D/3D): the reference
     * positions of the locally owned DoFs (the first is @p first_owned_dof), the node spacing
     * in which 'Probing radius' is measured, and whether a pair is body to body (H moves; the
     * radius 'auto' depends on it).
     */
    void set_dof_positions(dealii::types::global_dof_index first_owned_dof,
                           std::vector<std::array<double, 3>> positions, double node_spacing, bool has_body_pair);

    /// Whether every candidate contact enters the step's problem, not only the active set
    /// (ContactLaws::LocalLaw::takes_every_candidate(): the Schatzman–Paoli law).
    bool takes_every_candidate() const { return rule.every_candidate; }
    /**
     * The last solve() is not the step's (a retry follows, before TimeIntegrator::finish_step()):
     * its contributions to the per-contact dissipated energies are taken back. Its impulses stay
     * the warm start of the retry.
     */
    void discard_last_solve() { contact_history.discard_last_solve(); }
    /// The contact solver's options (a retry changes them for one solve).
    ContactSolvers::SolverOptions &solver_options() { return options; }
    /// Whether the law works at velocity level (all but Schatzman–Paoli), so that positions may drift.
    bool is_velocity_level() const { return local_law->is_velocity_level(); }

    /// Energy dissipated at each of @p points since the start (−Σ u_{k+θ}ᵀp), for output.
    std::vector<double> dissipated_energy(const std::vector<OwnedContactPoint> &points) const
    {
      return contact_history.dissipated_energy(points);
    }

    /// The contact history a checkpoint keeps (ContactHistory::Record), with the support batches
    /// of the Delassus columns.
    using History = ContactHistory::Record;
    /// The history of all contacts, gathered from their owners (each rank keeps its own) on every
    /// rank, and the support batches of the columns of @p scheme's present 𝒯₀. Collective.
    History history(const SchemeInterface &scheme) const;
    /// A resumed run: the history of its checkpoint (keys translated to this run's numbering); each
    /// rank keeps its own contacts' part from the next solve() on.
    void restore_history(History restored)
    {
      dense.restore_support_batches(std::move(restored.support_batches));
      contact_history.restore(std::move(restored));
    }

    /**
     * The last problem solved (scaled as posed, W in sparse or dense storage), its impulses and the
     * law's velocities, whole (all contacts in the order of their points) on every rank: for an
     * FCLIB dump. A distributed problem is gathered here. Collective.
     */
    void whole_last_problem(ContactSolvers::LocalProblem &whole, std::vector<double> &r, std::vector<double> &u) const;

    /// ActiveSetRule::closed_gap (the simulator: 1e-9 × the smallest cell diameter).
    void set_closed_gap_tolerance(const double tolerance) { rule.closed_gap = tolerance; }
    /// A step without any candidate: no contact carries an impulse (warm start, lasting law)
    /// into the next step.
    void forget_impulses() { contact_history.forget_impulses(); }

    /// What a step changes of the contact step's history (ContactHistory::Snapshot), kept in
    /// memory to take a step back (the energy guard's retry).
    using Snapshot = ContactHistory::Snapshot;
    /// The history before a step.
    Snapshot snapshot() const { return contact_history.snapshot(); }
    /// Back to @p saved (taken by snapshot() on this rank); the caches built from the impulse
    /// response stay, keyed by its version, which a retry's new step size changes.
    void restore(const Snapshot &saved) { contact_history.restore(saved); }

  private:
    /// Dimension of the local problem: the body's, except 2 for 1D (see pose_law()).
    unsigned int local_dimension() const { return dim == 1 ? 2 : dim; }
    /**
     * Phase 1: this rank's contacts of the step's problem (the owned points the ActiveSetRule
     * takes, in point order) with their data, velocities and warm start; marks the owned points
     * taken in @p in_problem.
     */
    const std::vector<ActiveContact> &select_own(const std::vector<OwnedContactPoint> &points,
                                                 const dealii::PETScWrappers::MPI::Vector &u_k,
                                                 const dealii::PETScWrappers::MPI::Vector &w, double time_step,
                                                 std::vector<bool> &in_problem);
    /// The step's start: the result's per-point arrays, the history's start (ContactHistory::
    /// start_step()), u_free = Hᵀv_free + w, and the lasting threshold. Collective.
    ContactStepResult start_step(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                 const dealii::PETScWrappers::MPI::Vector &w, bool operator_changed,
                                 const std::vector<OwnedContactPoint> &points);
    /// After select_own(): this rank's contacts @p own in lasting contact (in the history), the
    /// penetrated points left out, and the number of contacts of all ranks (returned, and in
    /// @p result). Collective.
    unsigned long long count_selected(const std::vector<OwnedContactPoint> &points,
                                      const std::vector<ActiveContact> &own, double theta, double time_step,
                                      ContactStepResult &result);
    /// [first, last): this rank's own contacts among the @p held ones.
    std::pair<unsigned int, unsigned int> own_range(const std::vector<ActiveContact> &held) const;
    /**
     * The impulse of the solution (the body's dimension per @p held contact, returned): kept in the
     * history as the next step's warm start for this rank's contacts [@p first, @p last), and applied
     * to the scheme as Hp and 𝒯Hp from @p delassus_operator. Collective.
     */
    std::vector<double> apply_impulse(const OperatorContext &context, DelassusOperator &delassus_operator,
                                      const std::vector<ActiveContact> &held, unsigned int first, unsigned int last);
    /// Phase 3: b and μ of the scheme's law (local_law poses b; A = f W is the operator's) for
    /// the @p held contacts, and their warm start, in solution.
    void pose_law(const std::vector<ActiveContact> &held, double theta, double time_step);
    /**
     * Phase 2: the operator of the step's problem, for this rank's contacts @p own (@p n_total of
     * all ranks): the probed operator where choose_probed_by_count() or uses_probed_operator()
     * decides it, else the dense one, whose problem holds all contacts (gathered into
     * scratch.gathered, sorted by point). Collective.
     */
    DelassusOperator &choose_operator(const OperatorContext &context, const std::vector<ActiveContact> &own,
                                      unsigned long long n_total);
    /**
     * Phase 5: velocities of the law, works of (59), Lemma-1 states, positive-work report, for
     * this rank's contacts [@p first, @p last) of @p held (impulses @p impulse, dim per contact
     * of @p held; W p from @p delassus_operator); the step's totals are summed over the ranks.
     * Collective.
     */
    void works_and_states(const DelassusOperator &delassus_operator, const std::vector<ActiveContact> &held,
                          unsigned int first, unsigned int last, const std::vector<double> &impulse, double theta,
                          double velocity_noise, double energy_noise, ContactStepResult &result);
    /// The step's totals of works_and_states() summed over the ranks, and the largest positive
    /// work with its place (the first rank's on a tie, so that every rank reports the same).
    /// Collective.
    void sum_over_ranks(ContactStepResult &result) const;
    /**
     * Ten times what the law's velocities are known to after the solve: the solver's tolerance
     * times the velocity scale of the problem (‖q‖, ‖r'‖ of the impulses scaled by 2^-exponent of
     * the solution, ‖u‖) and of the step's velocities at this rank's contacts [@p first, @p last)
     * of @p active, over all ranks. Collective.
     */
    double velocity_noise_of(const std::vector<ActiveContact> &active, unsigned int first, unsigned int last) const;
    /// Whether the probed operator is taken for @p n_active contacts whatever they are: 'Delassus
    /// operator' = probed, or auto and dim × contacts above a threshold (see uses_probed_operator()).
    bool choose_probed_by_count(const SchemeInterface &scheme, unsigned long long n_active) const;
    /// Whether 'Delassus operator = auto' keeps the dense operator whatever the number of contacts:
    /// H moves, the bodies' compliances apply (DelassusColumns::uses_body_compliance()) and no
    /// body's support passes 'Probed operator threshold' DoFs (W stays block-sparse by body).
    bool compliance_keeps_w_sparse(const SchemeInterface &scheme) const;
    /// Whether H is taken to move from step to step: it did at the last two contact steps, or a
    /// pair has a master surface (contacts between bodies: from the first contact step on, so that
    /// it already takes the operator of a moving H).
    bool operator_moves() const { return contact_history.operator_moves() || body_pairs; }
    /// set_dof_positions()'s has_body_pair.
    bool body_pairs = false;
    /**
     * Whether the problem of the contacts @p active_points is solved with the probed operator:
     * 'Delassus operator' = probed, or auto and either dim × contacts > 'Probed operator threshold'
     * or G has been probed and either the last contact step was probed and the active set has
     * shrunk since on a fixed H (a body lifting off) or the dense path would compute more columns
     * than that threshold (all @p n_candidates' columns when H is fixed).
     */
    bool uses_probed_operator(const OperatorContext &context,
                              const std::vector<unsigned long long> &active_points) const;

    const ContactDynamicsParameters parameters;
    /// The scheme's law: it poses (A, b) of the step's problem (ContactLaws::make_local_law()).
    const std::unique_ptr<const ContactLaws::LocalLaw> local_law;
    const unsigned int dim;
    ActiveSetRule rule;
    MPI_Comm communicator;
    ContactSolvers::SolverOptions options;

    /// The operator of few contacts (and of the projection in the step's metric).
    DenseDelassusOperator dense;
    /// The operator of many contacts (2D/3D, set_dof_positions()).
    std::unique_ptr<ProbedDelassusOperator> probed;
    /// The end-of-step gap check and position projection (project_positions()).
    PositionProjector projector;
    /// What the step carries from step to step: warm start, lasting contacts, dissipation by
    /// contact, whether H moves.
    ContactHistory contact_history;

    /// u_free = Hᵀv_free + w, kept from step to step (column partition of H).
    dealii::PETScWrappers::MPI::Vector u_free;

    /// Buffers kept from step to step (select_own(), choose_operator()).
    struct Scratch
    {
      std::vector<dealii::types::global_dof_index> columns;
      std::vector<double> u_k, u_free, w;
      std::vector<ActiveContact> local, gathered;
      std::vector<unsigned long long> active_points;
    } scratch;

    /// The last problem and its solution: whole on every rank (dense operator), or this rank's part
    /// in the local numbering of its partition (probed operator, last_solve_distributed).
    ContactSolution solution;
    bool last_solve_distributed = false;
    /// The number of contacts in the last contact step's problem (all ranks; uses_probed_operator()).
    unsigned long long last_active_count = 0;
  };
} // namespace percussion::ContactStep

#endif
