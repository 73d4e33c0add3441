#ifndef PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATOR_H
#define PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATOR_H

#include <deal.II/base/types.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/body_frames.h>
#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/contact_laws/contact_law.h>
#include <percussion/time_integration/step_energy.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/saved_value.h>

#include <petscmat.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace percussion::TimeIntegration
{
  /// A scheme's contact law (ContactLaws::ContactLaw), as the schemes state it (TimeIntegrator::contact_law()).
  using ContactLaws::ContactLaw;

  /**
   * What the contact layer and the simulator need of a time-stepping scheme for
   * M v' + C v + K q = F + H r whose step velocity is affine in the step's contact impulse:
   *
   *   v_{k+1} = v_free + 𝒯 (H p),
   *
   * with a constant linear operator 𝒯 (the "impulse response"): Ŵ⁻¹ for Moreau–Jean,
   * S⁻¹((1−α_m)M + (1−α_f)h²(β−γ/2)K)M⁻¹ for the nonsmooth generalized-α family. A step is
   *   1. compute_free_velocity(): v_free (no contact impulse);
   *   2. apply_impulse(Hp, 𝒯Hp): optional, once per step;
   *   3. finish_step(): q_{k+1}, the step's energy balance, the new state becomes current.
   * The contact law sits between 1 and 2 (FrictionalContactStep), so every scheme shares it.
   */
  /// The energy a position correction s δq would add: linear s + quadratic s² − kinetic_release
  /// (TimeIntegrator::position_correction_cost()).
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

  class TimeIntegrator
  {
  public:
    virtual ~TimeIntegrator() = default;

    /// Sets the initial state, assembles F(t_0) and factorises the scheme's matrices.
    virtual void initialize(double start_time,
                            const dealii::PETScWrappers::MPI::Vector &displacement,
                            const dealii::PETScWrappers::MPI::Vector &velocity) = 0;
    /// Step part 1: v_free for the step from t_k to t_{k+1}.
    virtual void compute_free_velocity() = 0;
    /// Step part 2: @p generalized_impulse = H p acts on the step, @p velocity_correction = 𝒯 H p.
    virtual void apply_impulse(const dealii::PETScWrappers::MPI::Vector &generalized_impulse,
                               const dealii::PETScWrappers::MPI::Vector &velocity_correction) = 0;
    /// Step part 3: q_{k+1}, energy terms; the new state becomes current.
    virtual void finish_step() = 0;
    /**
     * After finish_step(): q_{k+1} += @p displacement_correction (a position projection; zero on
     * Dirichlet DoFs). Updates what the scheme keeps of q (e.g. K q), the energies of
     * last_step_energy() and, where the correction would add energy beyond its loads' work, the
     * velocity (book_position_correction()); returns the energy added (position_correction).
     * Schemes whose state cannot take a correction of q throw.
     */
    virtual double correct_displacement(const dealii::PETScWrappers::MPI::Vector &displacement_correction) = 0;
    /**
     * What correct_displacement(s δq) would add to the energy, as a function of the scale s,
     * without changing anything: added(s) = linear s + quadratic s² − kinetic_release, with
     * linear = δqᵀK q − F_{k+1}ᵀδq (in the frames: δqᵀ𝐑Kũ), quadratic = ½δqᵀKδq (𝐑K𝐑ᵀ) and
     * kinetic_release = (vᵀMδq)²/(2δqᵀMδq), the most the velocity can give up along δq (0 where
     * the scheme keeps v). Lets a position projection scale back a correction that would create
     * energy (doc/contact.md, "Position projection", energy guarantee).
     */
    virtual PositionCorrectionCost position_correction_cost(const dealii::PETScWrappers::MPI::Vector &displacement_correction) = 0;
    /// A whole step without contact.
    void advance()
    {
      compute_free_velocity();
      finish_step();
    }

    /**
     * X = 𝒯 B for the columns of the dense matrix B (generalized impulses, zero on Dirichlet
     * rows): the columns of Hᵀ𝒯H, the step's Delassus operator, come from BᵀX.
     */
    virtual void impulse_response(Mat B, Mat X) = 0;
    /**
     * X ≈ 𝒯 B as impulse_response(), for approximations of the Delassus operator (the probed
     * operator's W_s): with CG, each column to the relative residual @p relative_tolerance (not
     * below the linear solver's own); a direct solver, and schemes whose response takes more than
     * one solve, give the exact columns.
     */
    virtual void approximate_impulse_response(Mat B, Mat X, double /*relative_tolerance*/) { impulse_response(B, X); }
    /**
     * x = 𝒯 b for one generalized impulse @p b (zero on Dirichlet rows): the exact product with the
     * step's Delassus operator, u = Hᵀ𝒯Hp, used by the probed contact operator (ProbedDelassus)
     * instead of stored columns. One substitution with the stored factor(s).
     */
    virtual void impulse_response(const dealii::PETScWrappers::MPI::Vector &b, dealii::PETScWrappers::MPI::Vector &x) = 0;
    /**
     * Large rotations: the bodies' frames with which 𝒯 = 𝐑𝒯₀𝐑ᵀ (𝒯₀ the response in the frames,
     * which changes only with the step size), or nullptr when 𝒯 is 𝒯₀ (no frames, or all of them
     * the identity). Lets the contact operator keep 𝒯₀ on the contact nodes across frame turns.
     */
    virtual const BodyFrames *response_frames() const { return nullptr; }
    /**
     * The bodies' frames wherever the kinematics has large rotations, all of them the identity
     * or not (response_frames() returns them only once one has turned); nullptr without large
     * rotations. The Delassus columns keep 𝒯₀ on the contact nodes from the first contact on
     * with them, so that the first turn of a frame costs no solve.
     */
    virtual const BodyFrames *large_rotation_frames() const { return nullptr; }
    /// X = 𝒯₀B (see response_frames()); the same as impulse_response() without frames.
    virtual void unrotated_impulse_response(Mat B, Mat X) { impulse_response(B, X); }
    /// X ≈ 𝒯₀B as approximate_impulse_response() (the probed operator's columns).
    virtual void approximate_unrotated_impulse_response(Mat B, Mat X, double relative_tolerance)
    {
      approximate_impulse_response(B, X, relative_tolerance);
    }
    /// Changes whenever 𝒯₀ changes (a new step size): the version of unrotated_impulse_response().
    unsigned int unrotated_operator_version() const { return factor_version; }
    /// Whether Hᵀ𝒯H is symmetric (then round-off asymmetry may be removed).
    virtual bool impulse_response_is_symmetric() const = 0;
    /**
     * X = 𝒫⁻¹ B with 𝒫 the scheme's symmetric positive definite iteration matrix (Ŵ for
     * Moreau–Jean, S for the generalized-α family): the metric of a position projection, which
     * moves q by the δq of least ½ δqᵀ𝒫δq that reopens the gaps.
     */
    virtual void projection_response(Mat B, Mat X) = 0;
    /// Whether projection_response() is impulse_response() (then one set of columns serves both).
    virtual bool projection_is_impulse_response() const = 0;
    /// M v of the accepted state (velocity()), where the scheme keeps it for its next step;
    /// nullptr where it does not (the caller multiplies).
    virtual const dealii::PETScWrappers::MPI::Vector *mass_times_velocity() const { return nullptr; }
    /// M q of the accepted state (displacement()), where the scheme keeps it; nullptr where it
    /// does not (the caller multiplies).
    virtual const dealii::PETScWrappers::MPI::Vector *mass_times_displacement() const { return nullptr; }
    /// Wall seconds spent setting up projection_response()'s own metric (the quasi-static
    /// metric's factorisation, once per run at the first projection); 0 without one.
    virtual double projection_metric_setup_seconds() const { return 0.0; }
    /**
     * ω such that the step's contact work in its energy balance is u_{k+ω}ᵀp,
     * u_{k+ω} = (1−ω)u_k + ω u_{k+1}: θ for Moreau–Jean (paper (56)), ½ for the generalized-α
     * family (talk (71), (74)).
     */
    virtual double contact_work_weight() const = 0;
    /// One line for the log, e.g. "Moreau-Jean theta = 0.5".
    virtual std::string description() const = 0;
    /// The contact law of the scheme's step (Frémond or standard for Moreau–Jean, standard for the
    /// generalized-α family, position level for Schatzman–Paoli).
    virtual ContactLaw contact_law() const = 0;
    /// Whether the scheme damps the modes with ωh ≫ 1 (its amplification there is below 1).
    virtual bool damps_high_frequencies() const = 0;

    double time() const { return current_time; }
    unsigned int step_number() const { return step; }
    /// The step size of the next step (the nominal one unless set_time_step() changed it).
    double time_step() const { return h; }
    double nominal_time_step() const { return nominal_h; }
    /**
     * Whether set_time_step() is available: a scheme whose state is (q, v) alone (Moreau–Jean).
     */
    virtual bool can_change_time_step() const { return false; }
    /**
     * The next steps use @p new_time_step = nominal / 2^k (k ≥ 0): the iteration matrix of that
     * step size is factorised once and kept, so returning to a step size costs nothing. What
     * depends on the factor (Delassus columns, the probed operator) must be recomputed:
     * operator_version() changes. Only between steps. @throws SolverError if the scheme cannot.
     */
    virtual void set_time_step(double new_time_step)
    {
      (void)new_time_step;
      throw SolverError("The time-stepping scheme " + description() + " cannot change its step size.");
    }
    /// Changes whenever the impulse response 𝒯 changes (a new step size), for caches built from it.
    unsigned int operator_version() const { return version; }
    const dealii::PETScWrappers::MPI::Vector &displacement() const { return q; }
    const dealii::PETScWrappers::MPI::Vector &velocity() const { return v; }
    /// During a step (after compute_free_velocity): v_free, then v_{k+1} after apply_impulse.
    const dealii::PETScWrappers::MPI::Vector &new_velocity() const { return v_new; }
    /// Locally owned Dirichlet DoFs (an impulse never acts on them).
    virtual const std::vector<dealii::types::global_dof_index> &constrained_dofs() const = 0;
    /// The solver of the scheme's iteration matrix (Ŵ, or S for generalized-α).
    virtual const IterationMatrixSolver &linear_solver() const = 0;
    /// Energy terms of the last finished step (the initial energies before any step).
    const StepEnergy &last_step_energy() const { return energy; }

    /**
     * The scheme's state between two steps of the nominal size, for a checkpoint: the clock and the
     * last step's energy terms by name. A checkpoint reads them through the pointers; restoring
     * them and saved_vectors() after initialize() continues the run as if it had not stopped.
     */
    SavedValues saved_values()
    {
      SavedValues values = TimeIntegration::saved_values(energy, "integrator_energy_");
      values.push_back({"integrator_start_time", &start_time});
      values.push_back({"integrator_current_time", &current_time});
      values.push_back({"integrator_elapsed_steps", &elapsed_steps});
      values.push_back({"integrator_step", nullptr, &step});
      return values;
    }
    /**
     * The vectors (DoF partition) the scheme carries from one step to the next, by name: q, v and
     * what the scheme keeps beside them (M v, K q, F(t_k) for Moreau–Jean; the acceleration, F and
     * the support reactions for the generalized-α family; q_{k−1} and K q_{k−1} for
     * Schatzman–Paoli). Restoring them exactly restores the scheme: nothing is recomputed from them.
     */
    virtual std::vector<std::pair<std::string, dealii::PETScWrappers::MPI::Vector *>> saved_vectors() = 0;

  protected:
    explicit TimeIntegrator(double time_step)
      : h(time_step)
      , nominal_h(time_step)
    {}

    /// Every scheme's start: t = @p t0, step 0.
    void start_at(const double t0)
    {
      start_time = t0;
      current_time = t0;
      step = 0;
      elapsed_steps = 0;
    }

    /// Throws SolverError if the step's energies are not finite, before the state is accepted
    /// (the integrator then still holds the last good state).
    void check_finite(const StepEnergy &e) const
    {
      if (!std::isfinite(e.kinetic_energy) || !std::isfinite(e.strain_energy) || !std::isfinite(e.algorithmic_energy) ||
          !std::isfinite(e.viscoelastic_energy))
        throw SolverError("The state became non-finite in the step from t = " + std::to_string(current_time) +
                          " (step " + std::to_string(step + 1) + ").");
    }

    /**
     * The energy side of correct_displacement(δq), after q += δq: with the strain energy of the
     * corrected q, the loads' work F_{k+1}ᵀδq (@p load_work) along the correction, which is the
     * loads' work of the step's overshoot given back, and what the correction adds beyond it,
     * ΔΠ = ΔE_strain − F_{k+1}ᵀδq (lifting a loaded body costs its loads' potential). Where ΔΠ > 0
     * the velocity v (and @p mass_v = M v, updated alike) loses that energy along δq,
     * v ← v − λδq with ½λ²δqᵀMδq − λvᵀMδq = −ΔΠ (the root of smaller |λ|), or as much of it as its
     * component along δq holds: a projection then creates no energy where the body moves, and a
     * bouncing or pressed body does not gain its loads' potential (doc/contact.md). Books
     * F_{k+1}ᵀδq as external work and the remainder (ΔE_kin + ΔE_strain − F_{k+1}ᵀδq) as
     * position_correction, which is returned. @p mass_dq is M δq. Without @p mass_v (a scheme whose
     * state holds more than q and v, e.g. the generalized-α family's accelerations) v is kept.
     * A scheme that keeps K v passes it as @p stiffness_v with @p stiffness_dq = K δq, updated alike.
     */
    double book_position_correction(const double strain_energy, const double load_work,
                                    const dealii::PETScWrappers::MPI::Vector &displacement_correction,
                                    const dealii::PETScWrappers::MPI::Vector &mass_dq,
                                    dealii::PETScWrappers::MPI::Vector *mass_v,
                                    dealii::PETScWrappers::MPI::Vector *stiffness_v = nullptr,
                                    const dealii::PETScWrappers::MPI::Vector *stiffness_dq = nullptr)
    {
      const double added = strain_energy - energy.strain_energy - load_work;
      double kinetic_change = 0;
      if (added > 0 && mass_v != nullptr)
        {
          const double a = displacement_correction * mass_dq, b = v * mass_dq;
          if (a > 0)
            {
              const double discriminant = b * b - 2 * a * added;
              const double lambda = discriminant >= 0 ? (b - std::copysign(std::sqrt(discriminant), b)) / a : b / a;
              kinetic_change = 0.5 * a * lambda * lambda - lambda * b;
              v.add(-lambda, displacement_correction);
              if (mass_v != nullptr)
                mass_v->add(-lambda, mass_dq);
              if (stiffness_v != nullptr)
                stiffness_v->add(-lambda, *stiffness_dq);
            }
        }
      const double change = strain_energy - energy.strain_energy + kinetic_change - load_work;
      energy.position_correction += change;
      energy.external_work += load_work;
      energy.kinetic_energy += kinetic_change;
      energy.strain_energy = strain_energy;
      return change;
    }

    /**
     * Every scheme's end of step: the residual of its energy balance, written for
     * E + algorithmic energy (StepEnergy), from the terms of @p e and the energies of the last
     * step; @p e becomes last_step_energy(); the step count and the time advance.
     */
    void accept_step(StepEnergy e)
    {
      const double energy_old =
        energy.kinetic_energy + energy.strain_energy + energy.algorithmic_energy + energy.viscoelastic_energy;
      e.residual = (e.kinetic_energy + e.strain_energy + e.algorithmic_energy + e.viscoelastic_energy - energy_old) -
                   (e.external_work + e.damping_work - e.numerical_dissipation - e.viscoelastic_dissipation +
                    e.contact_work);
      energy = e;
      ++step;
      // Time counted in nominal steps: halved steps add exact binary fractions, so the time after
      // two half steps is the time after one full step to the last bit.
      elapsed_steps += h / nominal_h;
      current_time = start_time + elapsed_steps * nominal_h;
    }

    double       h;
    const double nominal_h;
    double       start_time = 0, current_time = 0, elapsed_steps = 0;
    unsigned int version = 0;
    unsigned int factor_version = 0; ///< unrotated_operator_version()
    unsigned int step = 0;
    dealii::PETScWrappers::MPI::Vector q, v, v_new;
    StepEnergy   energy;
  };
} // namespace percussion::TimeIntegration

#endif
