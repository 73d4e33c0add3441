#ifndef PERCUSSION_CONTACT_STEP_SCHEME_INTERFACE_H
#define PERCUSSION_CONTACT_STEP_SCHEME_INTERFACE_H

#include <deal.II/base/types.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/body_frames.h>

#include <petscmat.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace percussion::ContactStep
{
  /// The energy a position correction s δq would add: linear s + quadratic s² − kinetic_release
  /// (SchemeInterface::position_correction_cost()).
  struct PositionCorrectionCost
  {
    double linear = 0;          ///< δqᵀK q − F_{k+1}ᵀδq: the strain energy's slope less the loads' work
    double quadratic = 0;       ///< ½ δqᵀKδq ≥ 0
    double kinetic_release = 0; ///< (vᵀMδq)²/(2δqᵀMδq) ≥ 0: what the velocity can give up along δq

    /// The energy added by the correction s δq, after the velocity's share.
    double added(const double s) const { return s * linear + s * s * quadratic - kinetic_release; }
    /**
     * The largest s ∈ [0, 1] with added(s) ≤ @p allowed (≥ 0): 1 where the whole correction adds
     * at most @p allowed, else the positive root of quadratic s² + linear s = kinetic_release +
     * allowed (added() is convex and added(0) = −kinetic_release ≤ allowed).
     */
    double largest_scale(const double allowed) const
    {
      if (!(added(1.0) > allowed))
        return 1.0;
      const double c = kinetic_release + allowed;
      const double root = std::sqrt(linear * linear + 4 * quadratic * c);
      // 2c / (linear + root) is the positive root without cancellation (linear + root > 0 here).
      const double s = linear + root > 0 ? 2 * c / (linear + root) : 0.0;
      return std::clamp(s, 0.0, 1.0);
    }
  };

  /**
   * What the contact step (FrictionalContactStep and the Delassus operators) needs of a
   * time-stepping scheme whose step velocity is affine in the step's contact impulse:
   *
   *   v_{k+1} = v_free + 𝒯 (H p),
   *
   * with a constant linear operator 𝒯 (the "impulse response"; TimeIntegration::TimeIntegrator
   * implements it for every scheme). The contact step runs between the scheme's free velocity and
   * the end of its step: it reads v_free, poses and solves the contact problem with W = Hᵀ𝒯H,
   * applies the impulse (apply_impulse()), and after the step may correct the positions
   * (correct_displacement()) in the scheme's projection metric.
   */
  class SchemeInterface
  {
  public:
    virtual ~SchemeInterface() = default;

    /// @name The step
    /// @{
    /// The step size of the step under way.
    virtual double time_step() const = 0;
    /// t_k, the start of the step under way.
    virtual double time() const = 0;
    /// k, the steps done so far.
    virtual unsigned int step_number() const = 0;
    /// q_k of the accepted state (DoF partition).
    virtual const dealii::PETScWrappers::MPI::Vector &displacement() const = 0;
    /// During a step (after the free-velocity solve): v_free, then v_{k+1} after apply_impulse().
    virtual const dealii::PETScWrappers::MPI::Vector &new_velocity() const = 0;
    /// Locally owned Dirichlet DoFs (an impulse never acts on them).
    virtual const std::vector<dealii::types::global_dof_index> &constrained_dofs() const = 0;
    /**
     * ω such that the step's contact work in its energy balance is u_{k+ω}ᵀp,
     * u_{k+ω} = (1−ω)u_k + ω u_{k+1}: θ for Moreau–Jean (paper (56)), ½ for the generalized-α
     * family (talk (71), (74)).
     */
    virtual double contact_work_weight() const = 0;
    /// The step's impulse, once per step: @p generalized_impulse = H p acts on the step,
    /// @p velocity_correction = 𝒯 H p.
    virtual void apply_impulse(const dealii::PETScWrappers::MPI::Vector &generalized_impulse,
                               const dealii::PETScWrappers::MPI::Vector &velocity_correction) = 0;
    /// @}

    /// @name The impulse response 𝒯
    /// @{
    /**
     * X = 𝒯 B for the columns of the dense matrix B (generalized impulses, zero on Dirichlet
     * rows): the columns of Hᵀ𝒯H, the step's Delassus operator, come from BᵀX.
     */
    virtual void impulse_response(Mat B, Mat X) = 0;
    /**
     * x = 𝒯 b for one generalized impulse @p b (zero on Dirichlet rows): the exact product with the
     * step's Delassus operator, u = Hᵀ𝒯Hp, used by the probed contact operator (ProbedDelassus)
     * instead of stored columns. One substitution with the stored factor(s).
     */
    virtual void impulse_response(const dealii::PETScWrappers::MPI::Vector &b,
                                  dealii::PETScWrappers::MPI::Vector &x) = 0;
    /// Whether Hᵀ𝒯H is symmetric (then round-off asymmetry may be removed).
    virtual bool impulse_response_is_symmetric() const = 0;
    /// Changes whenever the impulse response 𝒯 changes (a new step size), for caches built from it.
    virtual unsigned int operator_version() const = 0;
    /**
     * Large rotations: the bodies' frames with which 𝒯 = 𝐑𝒯₀𝐑ᵀ (𝒯₀ the response in the frames,
     * which changes only with the step size), or nullptr when 𝒯 is 𝒯₀ (no frames, or all of them
     * the identity). Lets the contact operator keep 𝒯₀ on the contact nodes across frame turns.
     */
    virtual const BodyFrames *response_frames() const = 0;
    /**
     * The bodies' frames wherever the kinematics has large rotations, all of them the identity
     * or not (response_frames() returns them only once one has turned); nullptr without large
     * rotations. The Delassus columns keep 𝒯₀ on the contact nodes from the first contact on
     * with them, so that the first turn of a frame costs no solve.
     */
    virtual const BodyFrames *large_rotation_frames() const = 0;
    /// X = 𝒯₀B (see response_frames()); the same as impulse_response() without frames.
    virtual void unrotated_impulse_response(Mat B, Mat X) = 0;
    /**
     * X ≈ 𝒯₀B for the probed operator's columns: with CG, each column to the relative residual
     * @p relative_tolerance (not below the linear solver's own); a direct solver, and schemes
     * whose response takes more than one solve, give the exact columns.
     */
    virtual void approximate_unrotated_impulse_response(Mat B, Mat X, double relative_tolerance) = 0;
    /// Changes whenever 𝒯₀ changes (a new step size): the version of unrotated_impulse_response().
    virtual unsigned int unrotated_operator_version() const = 0;
    /// @}

    /// @name The position projection
    /// @{
    /**
     * X = 𝒫⁻¹ B with 𝒫 the scheme's symmetric positive definite projection metric (its iteration
     * matrix, or the quasi-static metric): a position projection moves q by the δq of least
     * ½ δqᵀ𝒫δq that reopens the gaps.
     */
    virtual void projection_response(Mat B, Mat X) = 0;
    /// Whether projection_response() is impulse_response() (then one set of columns serves both).
    virtual bool projection_is_impulse_response() const = 0;
    /**
     * What correct_displacement(s δq) would add to the energy, as a function of the scale s,
     * without changing anything: added(s) = linear s + quadratic s² − kinetic_release, with
     * linear = δqᵀK q − F_{k+1}ᵀδq (in the frames: δqᵀ𝐑Kũ), quadratic = ½δqᵀKδq (𝐑K𝐑ᵀ) and
     * kinetic_release = (vᵀMδq)²/(2δqᵀMδq), the most the velocity can give up along δq (0 where
     * the scheme keeps v). Lets a position projection scale back a correction that would create
     * energy (doc/contact.md, "Position projection", energy guarantee).
     */
    virtual PositionCorrectionCost
    position_correction_cost(const dealii::PETScWrappers::MPI::Vector &displacement_correction) = 0;
    /**
     * After the step: q_{k+1} += @p displacement_correction (a position projection; zero on
     * Dirichlet DoFs). Updates what the scheme keeps of q (e.g. K q), the energies of its last
     * step and, where the correction would add energy beyond its loads' work, the velocity
     * (TimeIntegration::TimeIntegrator::book_position_correction()); returns the energy added
     * (StepEnergy::position_correction). Schemes whose state cannot take a correction of q throw.
     */
    virtual double correct_displacement(const dealii::PETScWrappers::MPI::Vector &displacement_correction) = 0;
    /// @}
  };
} // namespace percussion::ContactStep

#endif
