#ifndef PERCUSSION_TIME_INTEGRATION_NONSMOOTH_GENERALIZED_ALPHA_INTEGRATOR_H
#define PERCUSSION_TIME_INTEGRATION_NONSMOOTH_GENERALIZED_ALPHA_INTEGRATOR_H

#include <deal.II/base/index_set.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_step/scheme_contact_settings.h>
#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/time_integration/framed_integrator.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/quasi_static_metric.h>
#include <percussion/time_integration/time_integration_parameters.h>

#include <petscmat.h>

#include <memory>
#include <string>

namespace percussion::TimeIntegration
{
  /**
   * The nonsmooth Newmark / HHT / generalized-α scheme (talk eq. (48)–(52), (81); Chen, Acary,
   * Brüls 2013): the velocity jump is split into a smooth part, collocated at the step's end, and
   * an impulsive part of first order,
   *
   *   M[(1−α_m) a_{k+1} + α_m a_k] = (1−α_f) F_{k+1} + α_f F_k,   F = f(t) − K q − C v,
   *   M Δv^con = H Λ,
   *   v_{k+1} = v_k + h a_{k+γ} + Δv^con,
   *   q_{k+1} = q_k + h v_k + h²/2 a_{k+2β} + h/2 Δv^con,
   *
   * with a_{k+γ} = (1−γ)a_k + γa_{k+1}. Newmark: α_m = α_f = 0; HHT: α_m = 0, α_f = α ∈ [0, ⅓],
   * γ = ½ + α, β = (1+α)²/4; generalized-α from ρ∞ (Chung–Hulbert): α_m = (2ρ∞−1)/(ρ∞+1),
   * α_f = ρ∞/(ρ∞+1), γ = ½ − α_m + α_f, β = (1 − α_m + α_f)²/4. The contact law is the
   * velocity-level Newton law with Coulomb friction on U_{k+1} = Hᵀv_{k+1} (the standard law).
   *
   * Eliminating a_{k+1} with S = (1−α_m)M + (1−α_f)(hγC + h²βK) gives
   *   v_{k+1} = v_free + S⁻¹((1−α_m)M + (1−α_f)h²(β − γ/2)K) M⁻¹ H Λ,
   * since C drops out; the step's Delassus operator is nonsymmetric unless β = γ/2. S and M are
   * factorised once per step size.
   *
   * Energy (derivation of talk (71)–(74) for the whole family): with the algorithmic energy
   * 𝒦 = ½vᵀMv + ½qᵀKq + (h²/4)(2β−γ) aᵀMa, Δq = q_{k+1} − q_k, Δa = a_{k+1} − a_k,
   *   Δ𝒦 = W_ext + W_damp − D + U_{k+½}ᵀΛ,
   *   W_ext = Δqᵀ f_{k+ω},  W_damp = −Δqᵀ C v_{k+ω},
   *   D = (ω − ½)‖Δq‖²_K + (h²/2)(2β−γ)(γ − ½)‖Δa‖²_M − (γ − 1 + α_m) ΔqᵀMΔa·[α_m, α_f ≠ 0],
   * ω = γ for Newmark (then D is talk (74): ≥ 0 for 2β ≥ γ ≥ ½) and ω = 1 − α_f otherwise. The
   * identity holds to round-off for any solution of the step: its residual is the audit's check.
   * Prescribed Dirichlet DoFs get a_{k+1} from q_{k+1} = g(t_{k+1}); the work of their support
   * reactions R = M ã − F_{k+1−α_f} (rows of the Dirichlet DoFs) enters W_ext as
   * Δqᵀ R_{k+ω}.
   *
   * Large rotations (doc/theory.md, "Large rotations"): within a step the body frames are fixed,
   * K q is 𝐑Kũ(q) (affine in q), K acts as 𝐑K𝐑ᵀ and C as C_R = αM + β𝐑K𝐑ᵀ less the damping of
   * the strain's spin (β𝐑K(Ω × ũ_k), as for Moreau–Jean); since M = M_s ⊗ I commutes with 𝐑,
   * S and N become 𝐑S𝐑ᵀ and 𝐑N𝐑ᵀ, and the factors of S and M serve every frame. The identity above
   * holds in the step's frames with ½ũᵀKũ; the frames are taken anew at the end of a step from the
   * fit of q + ½hv (FramedIntegrator::update_frames()).
   */
  class NonsmoothGeneralizedAlphaIntegrator : public FramedIntegrator
  {
  public:
    NonsmoothGeneralizedAlphaIntegrator(const LinearElastodynamicSystem &system,
                                        const TimeIntegrationParameters &time_parameters,
                                        const LinearSolverParameters &solver_parameters,
                                        const dealii::IndexSet &locally_owned_dofs, MPI_Comm communicator);

    /// Sets q_0, v_0, a_0 = M⁻¹(f_0 − Kq_0 − Cv_0) and factorises M and S.
    void initialize(double start_time, const dealii::PETScWrappers::MPI::Vector &displacement,
                    const dealii::PETScWrappers::MPI::Vector &velocity) override;
    void compute_free_velocity() override;
    /// Adds Δv^con = M⁻¹(H Λ) to the impulsive part and 𝒯HΛ to v_{k+1}.
    void apply_impulse(const dealii::PETScWrappers::MPI::Vector &generalized_impulse,
                       const dealii::PETScWrappers::MPI::Vector &velocity_correction) override;
    void finish_step() override;
    std::vector<std::pair<std::string, dealii::PETScWrappers::MPI::Vector *>> saved_vectors() override
    {
      return {{"q", &q}, {"v", &v}, {"a", &a}, {"force", &force}, {"reaction", &reaction}};
    }
    double correct_displacement(const dealii::PETScWrappers::MPI::Vector &displacement_correction) override;
    PositionCorrectionCost
    position_correction_cost(const dealii::PETScWrappers::MPI::Vector &displacement_correction) override;

    /// X = S⁻¹ N M⁻¹ B with N = (1−α_m)M + (1−α_f)h²(β−γ/2)K (𝐑S⁻¹N𝐑ᵀM⁻¹B in the step's frames).
    void impulse_response(Mat B, Mat X) override { response(B, X, frames_turned()); }
    /// x = S⁻¹ N M⁻¹ b: two substitutions and a sparse product (rotated as the dense one).
    void impulse_response(const dealii::PETScWrappers::MPI::Vector &b, dealii::PETScWrappers::MPI::Vector &x) override;
    /// 𝒯₀B = S⁻¹NM⁻¹B, of which the step's 𝒯 is 𝐑𝒯₀𝐑ᵀ (M⁻¹ commutes with 𝐑).
    void unrotated_impulse_response(Mat B, Mat X) override { response(B, X, false); }
    void approximate_unrotated_impulse_response(Mat B, Mat X, double) override { response(B, X, false); }
    bool impulse_response_is_symmetric() const override { return symmetric_response; }
    /// X = 𝒫⁻¹B: the quasi-static metric (QuasiStaticMetric) or, without it, (𝐑S𝐑ᵀ)⁻¹B.
    void projection_response(Mat B, Mat X) override;
    bool projection_is_impulse_response() const override { return false; }
    double projection_metric_setup_seconds() const override
    {
      return quasi_static ? quasi_static->factorisation_seconds() : 0.0;
    }
    double contact_work_weight() const override { return 0.5; }
    std::string description() const override;
    /// The velocity-level Newton law on U_{k+1} with Coulomb friction: the standard law's data.
    ContactLaw contact_law() const override { return ContactLaw::standard; }
    /// Unless the scheme is Newmark's trapezoidal rule (γ = ½, β = ¼: amplification 1 at ωh → ∞).
    bool damps_high_frequencies() const override { return gamma_ > 0.5 + 1e-14; }

    /// Warns when γ, β violate 2β ≥ γ ≥ ½ (not unconditionally stable, may create energy).
    static void check_parameters(const TimeIntegrationParameters &time,
                                 const ContactStep::SchemeContactSettings &contact, std::vector<std::string> &warnings);

    const std::vector<dealii::types::global_dof_index> &constrained_dofs() const override
    {
      return system.constrained_dofs;
    }
    const IterationMatrixSolver &linear_solver() const override { return *solver; }

  private:
    /// F = f − 𝐑Kũ(q) − C_R v at (@p q_at, @p v_at) with the load @p f (null: none), in the step's
    /// frames (f − K q − C v without them); uses work2.
    void smooth_force(const dealii::PETScWrappers::MPI::Vector &q_at, const dealii::PETScWrappers::MPI::Vector &v_at,
                      const dealii::PETScWrappers::MPI::Vector *f, dealii::PETScWrappers::MPI::Vector &result);
    /// C_R v = αMv + β𝐑K𝐑ᵀv − β𝐑K(Ω × ũ_k) (C v without frames) into @p result.
    void damping_force(const dealii::PETScWrappers::MPI::Vector &v_at, dealii::PETScWrappers::MPI::Vector &result);
    /**
     * Solves 𝐑S𝐑ᵀ @p x = @p b in the step's frames (S x = b without them), with the Dirichlet
     * rows of @p b already lifted (@p lifted) or to be zeroed (solve_eliminated()); @p x on entry
     * is the initial guess. @p b is changed.
     */
    void solve_iteration(dealii::PETScWrappers::MPI::Vector &b, dealii::PETScWrappers::MPI::Vector &x, bool lifted);
    /// X = S⁻¹ N 𝐑ᵀ M⁻¹ B, rotated back by 𝐑 if @p rotated (𝒯 = 𝐑𝒯₀𝐑ᵀ), else 𝒯₀B.
    void response(Mat B, Mat X, bool rotated);
    /// Large rotations: mass_v = M v and the strain's spin damping of the step (spin_damping).
    void start_step_in_frames();
    /// Where new frames were taken at the end of a step: a_k follows the change of the smooth
    /// force F(q_k, v_k) they make, a ← a + M⁻¹ΔF, the algorithmic energy's change booked as the frames'.
    void frames_taken() override;
    /// (1−α_f) F(q_next, v_next, f_{k+1}) + α_f F(q_k, v_k, f_k), F = f − Kq − Cv (uses work2, scratch).
    void weighted_smooth_force(const dealii::PETScWrappers::MPI::Vector &q_next,
                               const dealii::PETScWrappers::MPI::Vector &v_next,
                               dealii::PETScWrappers::MPI::Vector &result);
    /// The entries of @p x on the Dirichlet DoFs, zero elsewhere.
    void constrained_part(const dealii::PETScWrappers::MPI::Vector &x,
                          dealii::PETScWrappers::MPI::Vector &result) const;

    const std::string name;
    const double gamma_, beta_, alpha_m_, alpha_f_;
    MatHandle iteration;          ///< S, Dirichlet rows and columns eliminated
    MatHandle iteration_full;     ///< S unmodified, kept only for prescribed motion
    MatHandle mass_eliminated;    ///< M, Dirichlet rows and columns eliminated
    MatHandle response_numerator; ///< N, Dirichlet rows zero
    double iteration_diagonal = 1;
    /// The solvers with S and M (declared after the matrices, which their KSPs refer to).
    std::unique_ptr<IterationMatrixSolver> solver, mass_solver;
    /// The position projection's metric when it is the quasi-static one (else null).
    std::unique_ptr<QuasiStaticMetric> quasi_static;
    bool symmetric_response = false;

    bool impulse_applied = false;

    dealii::PETScWrappers::MPI::Vector a, force, force_new, q_predicted, v_predicted, a_free;
    dealii::PETScWrappers::MPI::Vector impulse, impulsive_velocity, correction, rhs, work, work2, scratch;
    /// Support reactions of prescribed DoFs at t_k and t_{k+1}; the prescribed a_{k+1}.
    dealii::PETScWrappers::MPI::Vector reaction, reaction_new, prescribed_acceleration;
    /// The end of a step: a_{k+1}, q_{k+1}, Δq, Δa, v_{k+ω}.
    dealii::PETScWrappers::MPI::Vector a_new, q_new, dq, da, v_omega;
    /// Large rotations with β > 0: β𝐑K(Ω × ũ_k), the damping of the strain's spin, which is no
    /// deformation rate; the damping force's product 𝐑K𝐑ᵀv.
    dealii::PETScWrappers::MPI::Vector spin_damping, stiffness_v;
    /// F(q_k, v_k) without loads in the frames of the step just finished (frames_taken()).
    dealii::PETScWrappers::MPI::Vector force_before_frames;
    bool acceleration_follows_frames = false;
    /// Work vectors of the vector impulse response (M⁻¹b, N M⁻¹b).
    dealii::PETScWrappers::MPI::Vector response_y, response_z;
  };
} // namespace percussion::TimeIntegration

#endif
