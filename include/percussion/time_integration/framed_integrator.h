#ifndef PERCUSSION_TIME_INTEGRATION_FRAMED_INTEGRATOR_H
#define PERCUSSION_TIME_INTEGRATION_FRAMED_INTEGRATOR_H

#include <deal.II/base/index_set.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/time_integrator.h>

#include <vector>

namespace percussion::TimeIntegration
{
  /**
   * What every scheme with large rotations shares (doc/theory.md, "Large rotations"): the elastic
   * force 𝐑Kũ and the products 𝐑A𝐑ᵀx in the step's body frames, and the end of a step where a
   * body's frame is taken anew (update_frames()): the strain energy is re-measured in the new frame,
   * the change is exchanged with the turned bodies' deformation velocity (momentum and angular
   * momentum kept), and what cannot be exchanged is booked as StepEnergy::frame_correction or, past
   * the energy guard's tolerance, taken from their strain. Without frames (small displacements, or
   * every frame the identity) each product is the plain one.
   *
   * A scheme derives from it and keeps mass_v = M v and stiffness_q = 𝐑Kũ(q) of its accepted state
   * current where update_frames() is called (mass_q = M q only where it keeps M q itself:
   * relax_turned_strain() moves it with q); a scheme with internal variables held in the frames
   * (the Maxwell branches of Moreau–Jean) re-expresses them in the hooks.
   */
  class FramedIntegrator : public TimeIntegrator
  {
  public:
    const BodyFrames *response_frames() const override { return frames_turned() ? system.frames.get() : nullptr; }
    const BodyFrames *large_rotation_frames() const override { return system.frames.get(); }

  protected:
    FramedIntegrator(const LinearElastodynamicSystem &system, double time_step, double energy_creation_tolerance,
                     const dealii::IndexSet &locally_owned_dofs, MPI_Comm communicator);

    /// Large rotations with a frame that is not the identity: K acts as 𝐑K𝐑ᵀ, the elastic force
    /// as 𝐑Kũ (without frames, or with all of them the identity, K and K q as they are).
    bool frames_turned() const { return system.frames && !system.frames->all_identity(); }
    /// @p out = 𝐑Kũ(@p displacement) in the step's frames (K q without them); returns ½ũᵀKũ, the
    /// strain energy in them (ũ is left in `unrotated`).
    double elastic_force(const dealii::PETScWrappers::MPI::Vector &displacement,
                         dealii::PETScWrappers::MPI::Vector &out);
    /// @p out = 𝐑K𝐑ᵀ@p velocity in the step's frames (K v without them).
    void stiffness_times_velocity(const dealii::PETScWrappers::MPI::Vector &velocity,
                                  dealii::PETScWrappers::MPI::Vector &out);
    /// @p out = 𝐑A𝐑ᵀ@p in in the step's frames (A @p in without them), A a matrix of the bodies'
    /// material (K, a Maxwell branch's Kᵢ, the Kelvin–Voigt part of C).
    void product_in_frames(const dealii::PETScWrappers::MPI::SparseMatrix &matrix,
                           const dealii::PETScWrappers::MPI::Vector &in, dealii::PETScWrappers::MPI::Vector &out);
    /// @p x ← 𝐑@p x (𝐑ᵀ@p x if @p to_frames) where frames_turned(); unchanged otherwise.
    void rotate_if_turned(dealii::PETScWrappers::MPI::Vector &x, bool to_frames) const;
    /**
     * Large rotations: @p spin = Ω × ũ_k per body, Ω the body's angular velocity in its frame and
     * ũ_k its elastic displacement in its own fit at q (not in the step's frame, which holds the
     * rotation between them); returns the bodies' rigid motions at q (from mass_v). The spin of a
     * strain field with its body is no deformation rate: the schemes take its damping out.
     * @p mass_x is scratch (M(X + q)). Collective.
     */
    /**
     * The bodies' rigid motions at q (BodyFrames::motion() from mass_v, the consistent inertia from
     * M(X + q)) with the fits @p fits; @p positions is left with X + q and @p mass_x with M(X + q).
     * Collective.
     */
    std::vector<RigidMotion> rigid_motions(dealii::PETScWrappers::MPI::Vector &positions,
                                           dealii::PETScWrappers::MPI::Vector &mass_x,
                                           const std::vector<RigidFit> &fits);
    std::vector<RigidMotion> strain_spin(dealii::PETScWrappers::MPI::Vector &spin,
                                         dealii::PETScWrappers::MPI::Vector &mass_x);

    /**
     * Large rotations, at the end of a step (and at the start): the rigid fit of each body at the
     * predicted q + @p prediction · h v becomes the frame of the next step where it turned more
     * than 'Frame update angle'; stiffness_q and the strain energy follow it
     * (StepEnergy::frame_correction), and the impulse response changes (operator_version()). Where
     * @p bounded (every step but the start), the change of the strain energy is exchanged with the
     * deformation velocity of the bodies whose frames turned (a fall up to doubling its energy):
     * the total energy, momentum and angular momentum stay as they were. Where it cannot pay all of
     * a rise and the rest would pass frame_energy_bound(), the old frames are kept; a rest within
     * that bound but above 'Energy creation tolerance' × the energy is taken from the turned
     * bodies' strain (relax_turned_strain()): re-measuring the strain may not create energy.
     */
    void update_frames(bool bounded, double prediction);

    /**
     * ½ v_defᵀ M v_def of the bodies marked in @p turned, with v_def their deformation velocity
     * (BodyFrames::deformation_velocity()) left in frame_work and M v_def in frame_scratch: the
     * kinetic energy a frame's re-measure may take (v ← v − (1 − α) v_def keeps P and L). Collective.
     */
    double deformation_energy_of(const std::vector<char> &turned);
    /// ½(v − V)ᵀM(v − V) of the bodies marked in @p turned (V their mean velocities), with v − V
    /// left in frame_work and M(v − V) in frame_scratch for exchange_with_vibration(): scaling it
    /// keeps the momentum and scales the angular momentum. Collective.
    double relative_motion_energy_of(const std::vector<char> &turned);
    /**
     * After deformation_energy_of() or relative_motion_energy_of(): pays @p rise (or gives back a fall) from that
     * deformation velocity, v ← v + (α − 1) v_def with α² = 1 − rise / @p deformation_energy within [0, 2] (mass_v
     * follows; K v is the caller's); returns the change of the kinetic energy.
     */
    double exchange_with_vibration(double rise, double deformation_energy);

    /// Hook of update_frames(), before the frames change: keep the internal variables held in the
    /// frames in space (none by default).
    virtual void hold_internal_variables_in_space() {}
    /// Hook of update_frames(), after the frames changed: re-express them in the present frames;
    /// returns the change of their energy from @p energy_before (0 by default).
    virtual double remeasure_internal_variables(double energy_before)
    {
      (void)energy_before;
      return 0.0;
    }
    /// Hook of update_frames(), where new frames were taken: products cached in the frames follow.
    virtual void frames_taken() {}

    const LinearElastodynamicSystem system;
    /// 'Time integration/Energy creation tolerance' (frame_energy_bound()).
    const double frame_energy_tolerance;
    const dealii::IndexSet owned;
    MPI_Comm communicator;
    /// M v, M q and 𝐑Kũ (K q) of the accepted state.
    dealii::PETScWrappers::MPI::Vector mass_v, mass_q, stiffness_q;
    dealii::PETScWrappers::MPI::Vector velocity_in_frames; ///< 𝐑ᵀv (large rotations)
    dealii::PETScWrappers::MPI::Vector unrotated;          ///< ũ (large rotations)

  private:
    /// Per body, whether its frame differs from @p previous.
    std::vector<char> turned_bodies(const std::vector<RigidFit> &previous) const;
    /**
     * Lowers the strain energy of the bodies marked in @p turned by @p amount: their elastic
     * displacement ũ (in the new frames) is scaled by s = √(1 − amount / E_turned), which keeps
     * their frames (the rigid fit of c + R(X + sũ) is R), velocities, momenta and the other
     * bodies as they are; q moves by (s − 1)𝐑ũ. Returns false, and changes nothing, where the
     * turned bodies hold no more than @p amount. Collective.
     */
    bool relax_turned_strain(const std::vector<char> &turned, double amount);

    /// What a frame turned from @p previous may raise the strain energy's measure by: (2δ + 'Energy
    /// creation tolerance') × (E_kin + E_strain + Ψ), δ the largest angle by which a body's frame turns.
    double frame_energy_bound(const std::vector<RigidFit> &previous) const;

    dealii::PETScWrappers::MPI::Vector frame_work, frame_scratch;
  };
} // namespace percussion::TimeIntegration

#endif
