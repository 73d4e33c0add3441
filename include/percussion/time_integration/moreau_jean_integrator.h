#ifndef PERCUSSION_TIME_INTEGRATION_MOREAU_JEAN_INTEGRATOR_H
#define PERCUSSION_TIME_INTEGRATION_MOREAU_JEAN_INTEGRATOR_H

#include <deal.II/base/index_set.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_step/scheme_contact_settings.h>
#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/time_integration/framed_integrator.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/quasi_static_metric.h>
#include <percussion/time_integration/step_energy.h>
#include <percussion/time_integration/time_integration_parameters.h>

#include <petscmat.h>

#include <map>
#include <memory>

namespace percussion::TimeIntegration
{
  /**
   * The Moreau–Jean θ-scheme for linear elastodynamics (paper eq. (53a)–(53b) / (63a)–(63b)):
   *
   *   M(v_{k+1} − v_k) + hK q_{k+θ} + hC v_{k+θ} − hF_{k+θ} = H p_{k+1},
   *   q_{k+1} = q_k + h v_{k+θ},
   *
   * solved for v_{k+1} with the iteration matrix Ŵ = M + hθC + h²θ²K (doc/theory.md, "Eliminating q"),
   * factorised once per step size:
   *
   *   Ŵ v_{k+1} = M v_k − hK(q_k + hθ(1−θ)v_k) − h(1−θ)C v_k + hF_{k+θ} + H p_{k+1}.
   *
   * A step is split so that a contact law can sit between its parts:
   *   1. compute_free_velocity(): v_free = Ŵ⁻¹(right-hand side without H p);
   *   2. apply_impulse(Hp) (optional): v_{k+1} = v_free + Ŵ⁻¹ H p;
   *   3. finish_step(): q_{k+1}, the energy terms of (56), and the new state becomes current.
   * Dirichlet DoFs get the velocity that makes q_{k+1} equal the prescribed displacement; their
   * rows and columns of Ŵ are eliminated, so an impulse never acts on them.
   *
   * Viscoelastic bodies (doc/theory.md, "Linear viscoelasticity"): the per-material Kelvin–Voigt
   * part of C enters as above; a Maxwell branch i adds its force sᵢ to K q, with the exact
   * exponential update over the step (V4), sᵢ,k+1 = aᵢsᵢ,k + γᵢKᵢ(q_{k+1} − q_k),
   * aᵢ = exp(−h/τᵢ), γᵢ = (τᵢ/h)(1 − aᵢ), so that Ŵ gains h²θ²Σγᵢ Kᵢ (constant for a step size) and
   * the right-hand side −h(1−θ+θaᵢ)sᵢ,k − h²θ(1−θ)γᵢKᵢv_k (V5).
   *
   * Large rotations (doc/theory.md, "Large rotations"): K q is 𝐑Kũ and K v is 𝐑K𝐑ᵀv in the step's
   * body frames, and so are the viscoelastic terms: eᵢ and sᵢ are held in the frames (the branch's
   * force is 𝐑sᵢ, its increment 𝐑ᵀΔq), C_KV acts as 𝐑C_KV𝐑ᵀ, and where a frame is taken anew eᵢ is
   * re-expressed in it as ũ is. The spin of a strain field with its body is no deformation rate:
   * the damping's and the branches' explicit spin terms (spin_terms()) take it out.
   *
   * Turning step basis (doc/theory.md, "A spin at θ > ½"; 'Kinematics/Turning step basis', θ > ½):
   * the step is made in a basis that turns with each body at its angular velocity ω, the identity
   * at t_{k+½}: the state at t_k is turned by ½hω about the body's centre of mass, the positions
   * move by h(v_θ − ω × (x_k − c)), the gyroscopic force −Mω × (v_k − V) of the turning basis
   * acts explicitly, and the state at t_{k+1} is turned on by ½hω. A steady spin is then a
   * fixed point of the step at any θ; the iteration matrix and the impulse response keep their form
   * (the frames turn with the basis).
   */
  class MoreauJeanIntegrator : public FramedIntegrator
  {
  public:
    MoreauJeanIntegrator(const LinearElastodynamicSystem &system, const TimeIntegrationParameters &time_parameters,
                         const LinearSolverParameters &solver_parameters, const dealii::IndexSet &locally_owned_dofs,
                         MPI_Comm communicator);

    /// Sets the initial state, assembles F(t_0) and factorises Ŵ.
    void initialize(double start_time, const dealii::PETScWrappers::MPI::Vector &displacement,
                    const dealii::PETScWrappers::MPI::Vector &velocity) override;

    /// Step part 1: v_free for the step from t_k to t_{k+1}.
    void compute_free_velocity() override;
    /// Step part 2, with Ŵ⁻¹ (generalized impulse) already known (from the Delassus columns).
    void apply_impulse(const dealii::PETScWrappers::MPI::Vector &generalized_impulse,
                       const dealii::PETScWrappers::MPI::Vector &velocity_correction) override;
    /// Step part 3: q_{k+1}, energy terms; the new state becomes current.
    void finish_step() override;
    std::vector<std::pair<std::string, dealii::PETScWrappers::MPI::Vector *>> saved_vectors() override
    {
      std::vector<std::pair<std::string, dealii::PETScWrappers::MPI::Vector *>> vectors{{"q", &q},
                                                                                        {"v", &v},
                                                                                        {"mass_v", &mass_v},
                                                                                        {"stiffness_q", &stiffness_q},
                                                                                        {"force", &force},
                                                                                        {"stiffness_v", &stiffness_v},
                                                                                        {"mass_q", &mass_q}};
      // The Maxwell branches' internal variables: their history is not a function of q and v.
      for (std::size_t i = 0; i < branch_strain.size(); ++i)
        {
          vectors.emplace_back("maxwell_strain_" + std::to_string(i), &branch_strain[i]);
          vectors.emplace_back("maxwell_force_" + std::to_string(i), &branch_force[i]);
        }
      return vectors;
    }
    /// Σᵢ sᵢ at t_k: the force of the Maxwell branches on the nodes (0 without branches), which
    /// adds to K q in the internal force (𝐑Σᵢsᵢ in space with large rotations).
    void maxwell_force(dealii::PETScWrappers::MPI::Vector &out) const;
    /// The Maxwell branches' eᵢ at t_k (sᵢ = Kᵢeᵢ), in the order of the system's branches (in the
    /// step's body frames with large rotations, as ũ).
    const std::vector<dealii::PETScWrappers::MPI::Vector> &maxwell_strains() const { return branch_strain; }
    double correct_displacement(const dealii::PETScWrappers::MPI::Vector &displacement_correction) override;
    PositionCorrectionCost
    position_correction_cost(const dealii::PETScWrappers::MPI::Vector &displacement_correction) override;

    /// X = Ŵ⁻¹B, one multiple-right-hand-side sweep through the stored factor (with large
    /// rotations 𝐑Ŵ⁻¹𝐑ᵀB in the step's body frames: the same factor).
    void impulse_response(Mat B, Mat X) override { solve_in_frames(B, X, 0.0); }
    void approximate_impulse_response(Mat B, Mat X, double relative_tolerance) override
    {
      solve_in_frames(B, X, relative_tolerance);
    }
    /// x = Ŵ⁻¹b (𝐑Ŵ⁻¹𝐑ᵀb), one substitution.
    void impulse_response(const dealii::PETScWrappers::MPI::Vector &b, dealii::PETScWrappers::MPI::Vector &x) override;
    bool impulse_response_is_symmetric() const override { return true; }
    void unrotated_impulse_response(Mat B, Mat X) override { solver->solve(B, X); }
    void approximate_unrotated_impulse_response(Mat B, Mat X, double relative_tolerance) override
    {
      solver->solve(B, X, relative_tolerance);
    }
    /// X = 𝒫⁻¹B: the quasi-static metric (QuasiStaticMetric) or, without it, Ŵ⁻¹B.
    void projection_response(Mat B, Mat X) override
    {
      quasi_static ? quasi_static->solve(B, X) : solve_in_frames(B, X, 0.0);
    }
    bool projection_is_impulse_response() const override { return !quasi_static; }
    double projection_metric_setup_seconds() const override
    {
      return quasi_static ? quasi_static->factorisation_seconds() : 0.0;
    }
    /// M v_k: the first term of the next step's right-hand side, kept from finish_step().
    const dealii::PETScWrappers::MPI::Vector *mass_times_velocity() const override { return &mass_v; }
    /// M q_k, kept from step to step without a mat-vec.
    const dealii::PETScWrappers::MPI::Vector *mass_times_displacement() const override { return &mass_q; }
    /// θ: the contact work of (56) is u_{k+θ}ᵀp.
    double contact_work_weight() const override { return theta; }
    std::string description() const override;
    /// ContactLaw::fremond for "Moreau-Jean Fremond", ContactLaw::standard for "Moreau-Jean standard".
    ContactLaw contact_law() const override { return law; }
    /// θ > ½: the amplification of the modes with ωh → ∞ tends to −(1−θ)/θ.
    bool damps_high_frequencies() const override { return theta > 0.5; }
    const IterationMatrixSolver &linear_solver() const override { return *solver; }
    double factors_memory_mib() const override;
    /// Locally owned Dirichlet DoFs (their rows and columns of Ŵ are eliminated).
    const std::vector<dealii::types::global_dof_index> &constrained_dofs() const override
    {
      return system.constrained_dofs;
    }

    /**
     * The checks of the parameter combinations of the Moreau–Jean schemes: Proposition 1, the
     * Frémond scheme dissipates for ½ ≤ θ ≤ 1/(1+max e) — outside, a warning in @p warnings or,
     * with 'Dissipation range policy' = refuse, InputError.
     */
    static void check_parameters(const TimeIntegrationParameters &time,
                                 const ContactStep::SchemeContactSettings &contact, std::vector<std::string> &warnings);

  private:
    /// Whether the step is made in a turning basis: large rotations, θ > ½ and 'Turning step basis'.
    bool turning_basis() const { return system.frames && system.turning_step_basis && theta > 0.5; }
    /**
     * Turning step basis, at the start of a step (again only after undo_step_basis()): per body the
     * turn by ½hω (ω = J⁻¹L at t_k) about its centre of mass c_k, relative to its mean velocity V_k
     * (a body turning less than a hundredth of 'Frame update angle' a step does not); the state at t_k turned into the
     * *_turned vectors, the frames turned (𝐑̃ = Q𝐑), and the step's explicit terms: s = ω × (x̃_k − c),
     * 𝐑̃K𝐑̃ᵀs, the gyroscopic impulse −hMω × (ṽ_k − V), the damping's and the branches' spin terms,
     * and basis_offset = ((1 − θ)/θ)(ṽ_k − v_k) (v_new = ṽ_{k+1} + basis_offset, so that
     * (1 − θ)v_k + θv_new is ṽ_{k+θ}, the contact law's velocity). Collective.
     */
    void turn_into_step_basis();
    /// A step taken back before finish_step(): the frames of its start again.
    void undo_step_basis();
    /// The new state (in the turning basis) turned on by ½hω about its centre of mass, relative to
    /// its mean velocity, with the frames; M v, M q recomputed. Collective.
    void turn_out_of_step_basis();
    /// Swaps q, v, M v, 𝐑Kũ and 𝐑K𝐑ᵀv with their turned copies.
    void swap_turned_state();
    /**
     * The energy the turning basis brings into the step's balance (StepEnergy::frame_correction):
     * the gyroscopic impulse's work v_θᵀg and −h sᵀ(𝐑Kũ_θ + 𝐑Σsᵢ,θ), the linear strain re-measured
     * in the turning frame; @p dq_K_dq is corrected to ‖Δq‖²_K with Δq = h(v_θ − s). Collective.
     */
    double turning_basis_work(double &dq_K_dq);
    /// @p work (turning_basis_work()), where positive, is paid from the turned bodies' vibration
    /// (StepEnergy::frame_correction and the kinetic energy follow). Collective.
    void pay_turning_basis_work(double work);

    void build_iteration_matrix();
    /// The right-hand side's Kelvin–Voigt and Maxwell-branch terms (V5) at t_k (in the frames where
    /// @p rotated), added to rhs.
    void add_viscoelastic_right_hand_side(bool rotated);
    /**
     * The support reactions' work v_θᵀR on the Dirichlet DoFs, R the momentum residual there,
     * R = M(v_{k+1} − v_k) + hK q_{k+θ} + hC v_{k+θ} − hF_{k+θ} − H p (less the turning basis's
     * gyroscopic impulse where @p turning), from the products finish_step() left. Collective.
     */
    double support_reaction_work(bool turning);
    /// X = 𝐑Ŵ⁻¹𝐑ᵀB (Ŵ⁻¹B without large rotations); @p relative_tolerance > 0: CG's looser columns.
    void solve_in_frames(Mat B, Mat X, double relative_tolerance);
    /**
     * Large rotations, at the start of a step, from each body's spin Ω and ũ_k (in its own fit at
     * q_k): spin_damping = 𝐑(βK + C_KV)(Ω × ũ_k), the part of the damping force 𝐑C𝐑ᵀv that is the
     * strain's spin with the body, and per Maxwell branch branch_spin[i] = h(Ω × eᵢ,k − γᵢΩ × ũ_k):
     * the branch variable turns with its body within the step, and the increment 𝐑ᵀΔq it sees
     * loses the spin of ũ, so that a spinning body's branches see only its deformation rate
     * (eᵢ,k+1 = aᵢeᵢ,k + γᵢ𝐑ᵀΔq + branch_spin[i]). Collective.
     */
    void spin_terms();
    /**
     * The Maxwell branches' update (V4) at the end of a step, eᵢ and sᵢ = Kᵢeᵢ, with their energy,
     * dashpot dissipation (V7) and branch_force_theta = 𝐑Σᵢsᵢ,k+θ added to @p e; returns the
     * scheme's (θ − ½)Σᵢ‖Δeᵢ‖²_Kᵢ.
     */
    double update_branches(StepEnergy &e);
    /// 𝐑eᵢ of each Maxwell branch into branch_in_space, before the frames change.
    void hold_internal_variables_in_space() override;
    /// eᵢ = 𝐑ᵀ(𝐑eᵢ) in the present frames and sᵢ = Kᵢeᵢ; returns the change of Σᵢ½eᵢᵀKᵢeᵢ from
    /// @p energy_before.
    double remeasure_internal_variables(double energy_before) override;
    /// 𝐑K𝐑ᵀv changes with 𝐑.
    void frames_taken() override { stiffness_times_velocity(v, stiffness_v); }
    bool can_change_time_step() const override { return true; }
    /// Whether this step is made in the turning basis (turn_into_step_basis() found a body that turns).
    bool step_turns_bodies() const { return in_step_basis && any_body_turns; }
    void set_time_step(double new_time_step) override;

    const double theta;
    const ContactLaw law;
    const LinearSolverParameters solver_parameters;
    /// The position projection's metric when it is the quasi-static one (else null).
    std::unique_ptr<QuasiStaticMetric> quasi_static;

    MatHandle iteration;      ///< Ŵ with Dirichlet rows/columns eliminated
    MatHandle iteration_full; ///< Ŵ unmodified, kept only for prescribed motion
    double constrained_diagonal = 1;
    /// The solver with Ŵ (declared after it: its KSP refers to it).
    std::unique_ptr<IterationMatrixSolver> solver;
    /// The iteration matrices and factors of the other step sizes used so far (set_time_step()).
    struct Factorised
    {
      MatHandle iteration, iteration_full;
      double constrained_diagonal = 1;
      std::unique_ptr<IterationMatrixSolver> solver; ///< (declared after the matrices it refers to)
    };
    std::map<double, Factorised> other_step_sizes;

    bool impulse_applied = false;
    /// Whether any rank has Dirichlet DoFs (else the right-hand side needs no lifting).
    bool constrained_anywhere = false;

    /**
     * State at t_k and t_{k+1}, and the products reused across steps. A step computes two
     * mat-vecs, M v_{k+1} and K v_{k+1}; the others follow from q_{k+1} = q_k + h v_{k+θ}:
     * K q_{k+1} = K q_k + h((1−θ)K v_k + θK v_{k+1}) and M q_{k+1} = M q_k + h M v_{k+θ}
     * (with large rotations K is 𝐑K𝐑ᵀ within a step's frames, K q is 𝐑Kũ; both are recomputed
     * where the frames change, and K q where a projection moves q). All are saved in a checkpoint.
     */
    dealii::PETScWrappers::MPI::Vector stiffness_v, force; // (and FramedIntegrator's mass_v, mass_q, stiffness_q)
    dealii::PETScWrappers::MPI::Vector q_new, mass_v_new, stiffness_q_new, stiffness_v_new, force_new;
    dealii::PETScWrappers::MPI::Vector force_theta, rhs, work, impulse, prescribed_velocity, v_theta, scratch;
    /// Large rotations with β > 0 or Kelvin–Voigt materials: 𝐑(βK + C_KV)(Ω × ũ_k), the part of
    /// the damping force that is the strain's spin (spin_terms()).
    dealii::PETScWrappers::MPI::Vector spin_damping;
    std::vector<double> prescribed_values, constrained_velocity;

    /// Turning step basis: the bodies' turns into the step's basis, whether the state has been
    /// turned into it (compute_free_velocity() may run twice in a step) and whether any body turns.
    std::vector<BodyTurn> step_turns;
    bool in_step_basis = false, any_body_turns = false;
    /// The state at t_k in the turning basis (q̃, ṽ, Mṽ, 𝐑̃Kũ, 𝐑̃K𝐑̃ᵀṽ), s = ω × (x̃_k − c), 𝐑̃K𝐑̃ᵀs,
    /// the gyroscopic impulse and basis_offset (turn_into_step_basis()).
    dealii::PETScWrappers::MPI::Vector q_turned, v_turned, mass_v_turned, stiffness_q_turned, stiffness_v_turned;
    dealii::PETScWrappers::MPI::Vector spin_velocity, spin_stiffness, gyroscopic_impulse, basis_offset;

    /// Maxwell branch i: eᵢ, the displacement-like variable with sᵢ = Kᵢeᵢ (V3) whose energy
    /// ½eᵢᵀKᵢeᵢ is the branch's, and sᵢ, at t_k.
    std::vector<dealii::PETScWrappers::MPI::Vector> branch_strain, branch_force;
    /// Large rotations: the branches' explicit spin terms of the step (spin_terms()), and 𝐑eᵢ
    /// while a frame is taken anew (update_frames()).
    std::vector<dealii::PETScWrappers::MPI::Vector> branch_spin, branch_in_space;
    /// Scratch of finish_step(): Δq (𝐑ᵀΔq in the frames), 𝐑Σ sᵢ,k+θ, and 𝐑C_KV𝐑ᵀv_{k+θ} (the
    /// Kelvin–Voigt force).
    dealii::PETScWrappers::MPI::Vector increment, branch_force_theta, kelvin_voigt_v;
    /// Scratch of finish_step(): Δeᵢ and sᵢ,k+1 of the branch being updated.
    dealii::PETScWrappers::MPI::Vector strain_change, branch_force_new;
    /// aᵢ = exp(−h/τᵢ) and γᵢ = (τᵢ/h)(1 − aᵢ) of branch i for the current step size (V4).
    double branch_decay(std::size_t i) const;
    double branch_gain(std::size_t i) const;
  };
} // namespace percussion::TimeIntegration

#endif
