#ifndef PERCUSSION_TIME_INTEGRATION_STEP_ENERGY_H
#define PERCUSSION_TIME_INTEGRATION_STEP_ENERGY_H

#include <percussion/core/saved_value.h>

#include <string>

namespace percussion::TimeIntegration
{
  /**
   * The terms of the discrete energy balance of one step of the θ-scheme (paper eq. (56)–(58)):
   *
   *   E_{k+1} − E_k = W_ext + W_damp − D_num + W_contact + residual,
   *
   * with E = ½vᵀMv + ½qᵀKq, W_ext = h v_{k+θ}ᵀF_{k+θ} + v_{k+θ}ᵀR_D (support reactions R_D of
   * prescribed displacements), W_damp = −h v_{k+θ}ᵀC v_{k+θ},
   * D_num = (θ − ½)[‖v_{k+1} − v_k‖²_M + ‖q_{k+1} − q_k‖²_K] (≥ 0 for θ ≥ ½) and
   * W_contact = v_{k+θ}ᵀH p_{k+1} = u_{k+θ}ᵀp_{k+1} (split into normal and tangential parts by the
   * contact layer). The residual is v_{k+θ}ᵀ times the residual of the discrete momentum equation
   * on the free DoFs: round-off for a correct implementation, for every θ.
   *
   * With Maxwell branches (doc/theory.md (V6)–(V8)) E also holds their stored energy
   * Ψ = Σᵢ ½eᵢᵀKᵢeᵢ, the balance has the branches' viscous dissipation D_visc on its right-hand
   * side (−D_visc), and D_num their part (θ − ½)Σᵢ‖eᵢ,k+1 − eᵢ,k‖²_Kᵢ.
   */
  struct StepEnergy
  {
    double kinetic_energy = 0; ///< ½ v_{k+1}ᵀ M v_{k+1}
    double strain_energy = 0;  ///< ½ q_{k+1}ᵀ K q_{k+1}
    /// The scheme's energy beyond E: (h²/4)(2β−γ) a_{k+1}ᵀM a_{k+1} for the generalized-α family
    /// (talk (72)); 0 for Moreau–Jean and Schatzman–Paoli. The balance is written for E + this term.
    double algorithmic_energy = 0;
    /// Ψ_{k+1} = Σᵢ ½eᵢᵀKᵢeᵢ: the energy stored in the Maxwell branches (doc/theory.md (V6)).
    double viscoelastic_energy = 0;
    /// D_visc = Σᵢ (Δq − Δeᵢ)ᵀKᵢeᵢ,k+θ: the energy the branches' dashpots dissipate in the step
    /// (doc/theory.md (V8)); counted with a minus sign in the balance.
    double viscoelastic_dissipation = 0;
    double external_work = 0;
    double damping_work = 0;
    double numerical_dissipation = 0;
    double contact_work = 0;
    double residual = 0;
    /// Energy change of a position projection after the step (TimeIntegrator::
    /// correct_displacement()): not part of the scheme's balance, so not in the residual.
    double position_correction = 0;
    /**
     * Large rotations: the change of the strain energy ½ũᵀKũ when a body's frame is taken anew at
     * the end of the step (ũ measured in the new frame instead of the step's): outside the
     * scheme's balance, which holds in the step's frames, so not in the residual. With the turning
     * step basis also its work W_TB (doc/theory.md (TB2)), a term of the balance (in the residual's
     * formula), less what the turned bodies paid for it.
     */
    double frame_correction = 0;
  };

  /// The terms of @p e by name, each prefixed with @p prefix (for a checkpoint).
  inline SavedValues saved_values(StepEnergy &e, const std::string &prefix)
  {
    return {{prefix + "kinetic_energy", &e.kinetic_energy},
            {prefix + "strain_energy", &e.strain_energy},
            {prefix + "algorithmic_energy", &e.algorithmic_energy},
            {prefix + "viscoelastic_energy", &e.viscoelastic_energy},
            {prefix + "viscoelastic_dissipation", &e.viscoelastic_dissipation},
            {prefix + "external_work", &e.external_work},
            {prefix + "damping_work", &e.damping_work},
            {prefix + "numerical_dissipation", &e.numerical_dissipation},
            {prefix + "contact_work", &e.contact_work},
            {prefix + "residual", &e.residual},
            {prefix + "position_correction", &e.position_correction},
            {prefix + "frame_correction", &e.frame_correction}};
  }
} // namespace percussion::TimeIntegration

#endif
