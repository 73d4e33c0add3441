#ifndef PERCUSSION_TIME_INTEGRATION_FRICTIONAL_CONTACT_STEP_H
#define PERCUSSION_TIME_INTEGRATION_FRICTIONAL_CONTACT_STEP_H

#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/solver_options.h>
#include <percussion/time_integration/contact_dynamics_parameters.h>
#include <percussion/time_integration/time_integrator.h>

#include <petscmat.h>

#include <array>
#include <map>
#include <vector>

namespace percussion::TimeIntegration
{
  /// The contact law of the Moreau–Jean step.
  enum class ContactLaw
  {
    /// Standard Moreau–Jean (paper eq. (53d)): −Γ(u_{k+1}) ∈ N_K(p), Γ(u) = u + (e u_{N,k} + μ‖u_T‖, 0, 0).
    standard,
    /// Frémond-consistent Moreau–Jean (eq. (63d)–(64)): −Θ(u_{k+θ}) ∈ N_K(p),
    /// Θ(u) = u + ((θ(1+e)−1) u_{N,k} + μ‖u_T‖, 0, 0).
    fremond,
    /// Schatzman–Paoli (talk eq. (28c)–(29)), position level, frictionless:
    /// 0 ≤ g((q_{k+1} + e q_{k−1})/(1+e)) ⊥ P ≥ 0, linearised at q_k with U = Hᵀ(q_{k+1} − q_k)/h:
    /// 0 ≤ U_{N,k+1} − e U_{N,k} + (1+e) g_k / h ⊥ P_N ≥ 0 (scaled by (1+e)/h).
    schatzman_paoli
  };

  /// A contact point owned by this rank, as the contact geometry describes it (plain data).
  struct OwnedContactPoint
  {
    unsigned long long global_index = 0; ///< columns dim·g … dim·g + dim − 1 of H
    unsigned long long key = 0;          ///< stable identity across steps (warm start, cumulated dissipation)
    double mu = 0, e = 0;
    double gap = 0;                      ///< g at q_k (used by the position-level law)
    bool   active = false;               ///< gap prediction of eq. (55)
    std::array<double, 3> position{};
  };

  /// Lemma 1 of the paper: take-off, stick, slide.
  enum class ContactState : int
  {
    open = 0,
    stick = 1,
    slip = 2
  };

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
   * and finish_step() (EQUATIONS.md, "the step's contact problem"); written here for Moreau–Jean
   * (W = Hᵀ Ŵ⁻¹ H), and the same with W = Hᵀ𝒯H for any TimeIntegrator (the nonsmooth
   * generalized-α family uses the standard law, the velocity-level Newton law on u_{k+1}):
   *
   *   find p, w:  w = A p + b,  K* ∋ w + (μ‖w_T‖, 0, 0) ⊥ p ∈ K,  with W = Hᵀ Ŵ⁻¹ H and
   *   standard:  A = W,   b = u_free + (e u_{N,k}, 0, 0)
   *   Frémond:   A = θW,  b = θ u_free + (θ e u_{N,k}, (1−θ) u_{T,k}),
   *
   * on the active contacts (eq. (55): predicted gap closed and u_{N,k} ≤ 0, up to the solver
   * tolerance times the step's velocity scale); then
   * v_{k+1} = v_free + Ŵ⁻¹ H p. The two schemes differ only in (A, b): see assemble_law().
   *
   * Ŵ⁻¹H is computed for all candidate columns in one multiple-right-hand-side sweep through the
   * stored factor and kept while H does not change (fixed obstacles), so that a step then costs
   * the free-velocity solve, a dense product and the contact solve. When H changes from step to
   * step (body pairs, curved obstacles) only the active contacts' columns are computed. The local problem is solved
   * redundantly and identically on every rank.
   */
  class FrictionalContactStep
  {
  public:
    FrictionalContactStep(const ContactDynamicsParameters &parameters, ContactLaw law, unsigned int dim,
                          MPI_Comm communicator);
    ~FrictionalContactStep();

    /**
     * Solves the step's contact problem and applies the impulse to @p integrator.
     * @param H           the contact operator H(q_k) (n_dofs × dim·m)
     * @param w           the obstacle velocity offset (column partition of H)
     * @param operator_changed  whether H changed at this step (a change at steps without a call is
     *                          noticed too)
     * @param points      the owned candidate points, in column order
     * @param u_k         Hᵀ v_k + w
     */
    ContactStepResult solve(TimeIntegrator &integrator,
                            const dealii::PETScWrappers::MPI::SparseMatrix &H,
                            const dealii::PETScWrappers::MPI::Vector &w,
                            bool operator_changed,
                            const std::vector<OwnedContactPoint> &points,
                            const dealii::PETScWrappers::MPI::Vector &u_k);

    /**
     * Whether every candidate contact enters the step's problem, not only the active set of (55):
     * the position-level Schatzman–Paoli law's complementarity on the linearised gap opens or
     * closes each contact itself, where a gap prediction would leave a contact resting at g = 0
     * out every other step (and its force alternate between 0 and twice its value).
     */
    bool takes_every_candidate() const { return law == ContactLaw::schatzman_paoli; }

    /// Energy dissipated at each of @p points since the start (−Σ u_{k+θ}ᵀp), for output.
    std::vector<double> dissipated_energy(const std::vector<OwnedContactPoint> &points) const;

    /// The last local problem solved and its solution (the same on every rank).
    const ContactSolvers::LocalProblem &last_problem() const { return problem; }
    const std::vector<double> &last_reaction() const { return reaction; }
    const std::vector<double> &last_velocity() const { return local_velocity; }

  private:
    struct Gathered; // the active contacts of all ranks
    /// Dimension of the local problem: the body's, except 2 for 1D (see assemble_law()).
    unsigned int local_dimension() const { return dim == 1 ? 2 : dim; }
    void compute_delassus_columns(TimeIntegrator &integrator,
                                  const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                  const std::vector<unsigned long long> &column_points);
    void assemble_law(const Gathered &active, double theta, double time_step);
    /// Block position of @p point among the cached columns, or −1 if it has none.
    int cached_block(unsigned long long point) const
    {
      return point < cached_position.size() ? cached_position[point] : -1;
    }

    const ContactDynamicsParameters parameters;
    const ContactLaw law;
    const unsigned int dim;
    MPI_Comm communicator;
    ContactSolvers::SolverOptions options;

    // Ŵ⁻¹H for the cached columns: B = H restricted (Dirichlet rows zero), X = Ŵ⁻¹B, W_c = BᵀX;
    // p_columns: an impulse on the cached columns (for Hp = Bp, Ŵ⁻¹Hp = Xp).
    Mat B = nullptr, X = nullptr;
    Vec p_columns = nullptr;
    std::vector<unsigned long long> cached_points; ///< point indices of the cached column blocks
    std::vector<int> cached_position;              ///< point index → block position, −1 if not cached
    std::vector<double> delassus;                  ///< W_c, dense, row-major
    bool cache_valid = false;
    /// PETSc object id of H at the last solve(), to notice a reassembly between two calls.
    PetscObjectId operator_id = -1;
    bool previous_operator_changed = false;

    // Work vectors kept from step to step: u_free (column partition of H), Hp and Ŵ⁻¹Hp (DoF
    // partition), and the packed active contacts of this rank and of all ranks.
    dealii::PETScWrappers::MPI::Vector u_free, generalized_impulse, correction;
    std::vector<double> packed, all_packed;

    ContactSolvers::LocalProblem problem;
    std::vector<double> reaction, local_velocity;
    std::map<unsigned long long, std::vector<double>> previous_impulse; ///< warm start by key
    std::map<unsigned long long, double> dissipation_by_key;
  };
} // namespace percussion::TimeIntegration

#endif
