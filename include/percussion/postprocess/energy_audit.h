#ifndef PERCUSSION_POSTPROCESS_ENERGY_AUDIT_H
#define PERCUSSION_POSTPROCESS_ENERGY_AUDIT_H

#include <percussion/core/saved_value.h>
#include <percussion/postprocess/postprocessor_interface.h>
#include <percussion/time_integration/step_energy.h>

#include <string>

namespace percussion::Postprocess
{
  /// The contact works of one step, from the contact step (paper (59) and the obstacles' part).
  struct ContactWorks
  {
    double normal = 0;     ///< Σ u_{N,k+θ} p_N
    double tangential = 0; ///< Σ u_{T,k+θ}ᵀ p_T
    /// The work of the reactions through moving obstacles, Σ −wᵀp: the scheme counts it in its
    /// contact work; the audit books it as external work (an agent moves the obstacle).
    double obstacle = 0;
  };

  /**
   * Cumulates the per-step terms of the discrete energy balance (paper eq. (56)) from t_0:
   *
   *   E(t_k) − E(t_0) [+ algorithmic energy change] = W_ext + W_damp − D_num − D_visc + W_contact,N + W_contact,T
   *                                                  + E_projection + E_frame + residual,
   *
   * where every term is the sum over the steps taken and E_projection is the energy change of the
   * position projections after the steps (StepEnergy::position_correction; zero without them), kept
   * apart from the scheme's balance, and E_frame that of the bodies' frames taken anew with large
   * rotations (StepEnergy::frame_correction). With Maxwell branches E includes their stored energy
   * and D_visc is their dashpots' dissipation (StepEnergy::viscoelastic_dissipation). The obstacles' part of the
   * contact work (ContactWorks::obstacle) is booked as external work. Sign conventions: works are those done ON the
   * bodies (W_damp ≤ 0, contact work ≤ 0 for a dissipative contact law); D_num ≥ 0 is the energy
   * the scheme removes for θ > ½ (negative for θ < ½).
   *
   * A postprocessor of the run's list that writes nothing itself: the Simulator books each step
   * (add_step()) as it ends, before the energy guard judges it, and the tables read the sums
   * through StepView::audit; its sums are part of a checkpoint (saved_values()).
   */
  class EnergyAudit : public Postprocessor
  {
  public:
    /// Starts the audit from the initial energies.
    void start(const TimeIntegration::StepEnergy &initial);
    /// Adds one step: the scheme's energy terms @p step and the contact step's @p contact works
    /// (none for a step without contact).
    void add_step(const TimeIntegration::StepEnergy &step, const ContactWorks &contact = ContactWorks());

    double kinetic_energy() const { return current.kinetic_energy; }
    double strain_energy() const { return current.strain_energy; }
    /// The viscoelastic bodies' stored energy Ψ = Σᵢ ½eᵢᵀKᵢeᵢ of their Maxwell branches (doc/theory.md (V6)).
    double viscoelastic_energy() const { return current.viscoelastic_energy; }
    /// E = kinetic + strain + viscoelastic energy.
    double total_energy() const { return current.kinetic_energy + current.strain_energy + current.viscoelastic_energy; }
    /// Σ of the Maxwell branches' dashpot dissipations D_visc (≥ 0 where the steps resolve the
    /// relaxation, doc/theory.md (V8)); 0 without branches.
    double viscoelastic_dissipation() const { return viscoelastic; }
    /// The scheme's algorithmic energy (generalized-α family; 0 for Moreau–Jean), see StepEnergy.
    double algorithmic_energy() const { return current.algorithmic_energy; }
    double initial_energy() const { return initial_total; }
    double external_work() const { return external; }
    double damping_work() const { return damping; }
    double numerical_dissipation() const { return numerical; }
    double contact_work_normal() const { return contact_normal; }
    double contact_work_tangential() const { return contact_tangential; }
    /// Σ of the energy changes of the position projections.
    double projection_energy() const { return projection; }
    /// Σ of the strain energy changes when the bodies' frames were taken anew (large rotations).
    double frame_energy() const { return frame; }
    /// The largest energy that has flowed through the balance (|E| and the cumulated works): the
    /// scale of its round-off.
    double flow_scale() const { return energy_scale; }
    /// Σ of the per-step residuals = E_k − E_0 − (all works): round-off for a correct scheme.
    double balance_residual() const { return residual; }
    /// The largest |per-step residual| relative to the energy scale seen so far.
    double max_relative_step_residual() const { return max_relative_residual; }
    /**
     * The energy the last step created: (E + algorithmic energy)_{k+1} − (E + algorithmic
     * energy)_k − W_ext − W_obstacle, which every other term of the balance (damping,
     * numerical dissipation for θ ≥ ½, the contact work of a dissipative law, the viscous
     * dissipation) can only lower; > 0 where the step, its position projection or a frame taken
     * anew created energy (E_frame: what the bodies' vibration could not pay of a rise of the
     * strain's measure, MoreauJeanIntegrator::update_frames()).
     */
    double created_in_last_step() const { return last_created; }
    /**
     * The energy a step ending in @p step with the contact works @p contact would create, in the
     * sense of created_in_last_step(), without adding it: negative by what the step dissipated.
     * The position projection may spend that margin (ContactStepping::allowed_projection_energy()).
     */
    double energy_created_by(const TimeIntegration::StepEnergy &step, const ContactWorks &contact) const;
    /**
     * The scale the energy guard judges a step's created energy against: the largest of |E| (with
     * the algorithmic energy) and of the cumulated works of the loads, damping, numerical
     * dissipation, contact and dashpots, up to and including the last step — not the energies of
     * projections and frames, which are what the guard watches. (The guard's tolerance has a
     * floor at the energy of round-off, round_off_energy() in simulator/energy_guard.h.)
     */
    double guard_scale() const { return guard; }
    /// Σ of the energy created in the steps where it was positive (created_in_last_step() > 0).
    double created_energy() const { return created; }
    /**
     * The largest positive term of the last step's balance beyond the loads' work, as the name of
     * its column: projection_energy, contact_work (normal and tangential),
     * numerical_dissipation (θ < ½), balance_residual; "none" where no term is positive.
     */
    std::string largest_creating_term() const;
    /// Every sum of the audit by name (a checkpoint saves and restores them).
    SavedValues saved_values() override;

  private:
    TimeIntegration::StepEnergy current;
    double initial_total = 0, energy_scale = 0;
    double external = 0, damping = 0, numerical = 0, contact_normal = 0, contact_tangential = 0, projection = 0,
           frame = 0, residual = 0, viscoelastic = 0;
    double max_relative_residual = 0;
    double guard = 0, created = 0, last_created = 0;
    TimeIntegration::StepEnergy last_step;
    ContactWorks last_contact;
  };
} // namespace percussion::Postprocess

#endif
