#ifndef PERCUSSION_TIME_INTEGRATION_SCHATZMAN_PAOLI_INTEGRATOR_H
#define PERCUSSION_TIME_INTEGRATION_SCHATZMAN_PAOLI_INTEGRATOR_H

#include <deal.II/base/index_set.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_step/scheme_contact_settings.h>
#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/time_integration_parameters.h>
#include <percussion/time_integration/time_integrator.h>

#include <petscmat.h>

#include <memory>
#include <string>

namespace percussion::TimeIntegration
{
  /**
   * The Schatzman–Paoli scheme (talk eq. (28)–(29); Paoli & Schatzman 2002): two-step, position
   * level, frictionless,
   *
   *   M(q_{k+1} − 2q_k + q_{k−1}) + h²K q̂_k + (h/2) C (q_{k+1} − q_{k−1}) = h² f_k + h H Λ,
   *   0 ≤ g((q_{k+1} + e q_{k−1})/(1+e)) ⊥ Λ_N ≥ 0,
   *
   * with the symmetric stiffness weighting q̂_k = β q_{k+1} + (1 − 2β) q_k + β q_{k−1} (β = 0: the
   * explicit central difference of the original scheme, conditionally stable; β = ¼: unconditionally
   * stable) — a symmetric form of the talk's F_{k+θ}, chosen because it has an exact discrete energy.
   * The step's unknown is the mean velocity w_{k+1} = (q_{k+1} − q_k)/h (what velocity() returns),
   *
   *   Ŵ w_{k+1} = M w_k − hK((1−β) q_k + β q_{k−1}) − (h/2) C w_k + h f_k + H Λ,
   *   Ŵ = M + h²βK + (h/2) C,
   *
   * so v_{k+1} = v_free + Ŵ⁻¹HΛ as for Moreau–Jean; the contact law is ContactLaw::schatzman_paoli.
   *
   * Energy: with v̄ = (q_{k+1} − q_{k−1})/(2h) (eq. (28b)) and the shadow energy
   * E_{k+½} = ½ w_{k+1}ᵀM w_{k+1} + (β/2)(‖q_{k+1}‖²_K + ‖q_k‖²_K) + ((1−2β)/2) q_{k+1}ᵀK q_k,
   *
   *   E_{k+½} − E_{k−½} = h v̄ᵀ f_k − h v̄ᵀC v̄ + v̄ᵀH Λ (+ v̄ᵀR on prescribed DoFs):
   *
   * no numerical dissipation; the contact work ½(U_k + U_{k+1})ᵀΛ. The residual of this identity is
   * the audit's check. Start: q_{−1} = q_0 − h v_0 + (h²/2) a_0, M a_0 = f_0 − K q_0 − C v_0.
   */
  class SchatzmanPaoliIntegrator : public TimeIntegrator
  {
  public:
    SchatzmanPaoliIntegrator(const LinearElastodynamicSystem &system, const TimeIntegrationParameters &time_parameters,
                             const LinearSolverParameters &solver_parameters,
                             const dealii::IndexSet &locally_owned_dofs, MPI_Comm communicator);

    void initialize(double start_time, const dealii::PETScWrappers::MPI::Vector &displacement,
                    const dealii::PETScWrappers::MPI::Vector &velocity) override;
    void compute_free_velocity() override;
    void apply_impulse(const dealii::PETScWrappers::MPI::Vector &generalized_impulse,
                       const dealii::PETScWrappers::MPI::Vector &velocity_correction) override;
    void finish_step() override;
    std::vector<std::pair<std::string, dealii::PETScWrappers::MPI::Vector *>> saved_vectors() override
    {
      return {{"q_previous", &q_previous},   {"q", &q}, {"stiffness_q_previous", &stiffness_q_previous},
              {"stiffness_q", &stiffness_q}, {"v", &v}, {"force", &force}};
    }
    double correct_displacement(const dealii::PETScWrappers::MPI::Vector &displacement_correction) override;
    PositionCorrectionCost
    position_correction_cost(const dealii::PETScWrappers::MPI::Vector &displacement_correction) override;

    /// X = Ŵ⁻¹B.
    void impulse_response(Mat B, Mat X) override { solver->solve(B, X); }
    void approximate_impulse_response(Mat B, Mat X, double relative_tolerance) override
    {
      solver->solve(B, X, relative_tolerance);
    }
    /// x = Ŵ⁻¹b, one substitution.
    void impulse_response(const dealii::PETScWrappers::MPI::Vector &b, dealii::PETScWrappers::MPI::Vector &x) override
    {
      solver->solve(b, x);
    }
    bool impulse_response_is_symmetric() const override { return true; }
    void projection_response(Mat B, Mat X) override { solver->solve(B, X); }
    bool projection_is_impulse_response() const override { return true; }
    /// ½: the contact work is v̄ᵀHΛ = ½(U_k + U_{k+1})ᵀΛ.
    double contact_work_weight() const override { return 0.5; }
    std::string description() const override;
    ContactLaw contact_law() const override { return ContactLaw::schatzman_paoli; }
    /// The symmetric stiffness weighting has an exact shadow-energy balance: nothing is damped.
    bool damps_high_frequencies() const override { return false; }

    /// Refuses friction and the position projection (a frictionless, position-level law); warns
    /// for β < ¼ (only conditionally stable).
    static void check_parameters(const TimeIntegrationParameters &time,
                                 const ContactStep::SchemeContactSettings &contact, std::vector<std::string> &warnings);
    const std::vector<dealii::types::global_dof_index> &constrained_dofs() const override
    {
      return system.constrained_dofs;
    }
    const IterationMatrixSolver &linear_solver() const override { return *solver; }

  private:
    /// ½ V(a, b) = (β/2)(aᵀKa + bᵀKb) + ((1−2β)/2) aᵀK b, given K a and K b.
    double shadow_strain_energy(const dealii::PETScWrappers::MPI::Vector &a,
                                const dealii::PETScWrappers::MPI::Vector &stiffness_a,
                                const dealii::PETScWrappers::MPI::Vector &b,
                                const dealii::PETScWrappers::MPI::Vector &stiffness_b) const;

    const LinearElastodynamicSystem system;
    const double beta;
    const dealii::IndexSet owned;
    MPI_Comm communicator;
    const LinearSolverParameters solver_parameters;
    MatHandle iteration;      ///< Ŵ, Dirichlet rows and columns eliminated
    MatHandle iteration_full; ///< Ŵ unmodified, kept only for prescribed motion
    /// (Declared after Ŵ, which its KSP refers to.)
    std::unique_ptr<IterationMatrixSolver> solver;
    double constrained_diagonal = 1;
    bool impulse_applied = false;

    dealii::PETScWrappers::MPI::Vector q_previous, stiffness_q, stiffness_q_previous, force, rhs, work, work2, impulse,
      prescribed_velocity, scratch;
    /// The end of a step: q_{k+1}, K q_{k+1}, v̄ = (q_{k+1} − q_{k−1})/(2h).
    dealii::PETScWrappers::MPI::Vector q_new, stiffness_q_new, mean_velocity;
  };
} // namespace percussion::TimeIntegration

#endif
