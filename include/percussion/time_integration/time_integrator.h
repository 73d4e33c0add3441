#ifndef PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATOR_H
#define PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATOR_H

#include <deal.II/base/types.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_laws/contact_law.h>
#include <percussion/contact_step/scheme_interface.h>
#include <percussion/core/body_frames.h>
#include <percussion/core/iteration_matrix_solver.h>
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

  /// The energy a position correction would add (ContactStep::PositionCorrectionCost), as the
  /// schemes compute it (TimeIntegrator::position_correction_cost()).
  using ContactStep::PositionCorrectionCost;

  /**
   * What the simulator needs of a time-stepping scheme for
   * M v' + C v + K q = F + H r whose step velocity is affine in the step's contact impulse:
   *
   *   v_{k+1} = v_free + 𝒯 (H p),
   *
   * with a constant linear operator 𝒯 (the "impulse response"): Ŵ⁻¹ for Moreau–Jean,
   * S⁻¹((1−α_m)M + (1−α_f)h²(β−γ/2)K)M⁻¹ for the nonsmooth generalized-α family. A step is
   *   1. compute_free_velocity(): v_free (no contact impulse);
   *   2. apply_impulse(Hp, 𝒯Hp): optional, once per step;
   *   3. finish_step(): q_{k+1}, the step's energy balance, the new state becomes current.
   * The contact law sits between 1 and 2 (ContactStep::FrictionalContactStep), so every scheme
   * shares it: what the contact step needs of the scheme is ContactStep::SchemeInterface, which
   * every scheme implements here (the impulse response, the step's velocities and impulse, the
   * position projection's metric and correction).
   */
  class TimeIntegrator : public ContactStep::SchemeInterface
  {
  public:
    virtual ~TimeIntegrator() = default;

    /// Sets the initial state, assembles F(t_0) and factorises the scheme's matrices.
    virtual void initialize(double start_time, const dealii::PETScWrappers::MPI::Vector &displacement,
                            const dealii::PETScWrappers::MPI::Vector &velocity) = 0;
    /// Step part 1: v_free for the step from t_k to t_{k+1}.
    virtual void compute_free_velocity() = 0;
    /// Step part 3: q_{k+1}, energy terms; the new state becomes current.
    virtual void finish_step() = 0;
    /// A whole step without contact.
    void advance()
    {
      compute_free_velocity();
      finish_step();
    }

    /**
     * X ≈ 𝒯 B as impulse_response(), for approximations of the Delassus operator (the probed
     * operator's W_s): with CG, each column to the relative residual @p relative_tolerance (not
     * below the linear solver's own); a direct solver, and schemes whose response takes more than
     * one solve, give the exact columns.
     */
    virtual void approximate_impulse_response(Mat B, Mat X, double /*relative_tolerance*/) { impulse_response(B, X); }
    /// No frames (large rotations): 𝒯 is 𝒯₀.
    const BodyFrames *response_frames() const override { return nullptr; }
    /// No large rotations.
    const BodyFrames *large_rotation_frames() const override { return nullptr; }
    /// Without frames 𝒯₀ = 𝒯: impulse_response().
    void unrotated_impulse_response(Mat B, Mat X) override { impulse_response(B, X); }
    /// Without frames: approximate_impulse_response().
    void approximate_unrotated_impulse_response(Mat B, Mat X, double relative_tolerance) override
    {
      approximate_impulse_response(B, X, relative_tolerance);
    }
    unsigned int unrotated_operator_version() const final { return factor_version; }
    /// M v of the accepted state (velocity()), where the scheme keeps it for its next step;
    /// nullptr where it does not (the caller multiplies).
    virtual const dealii::PETScWrappers::MPI::Vector *mass_times_velocity() const { return nullptr; }
    /// M q of the accepted state (displacement()), where the scheme keeps it; nullptr where it
    /// does not (the caller multiplies).
    virtual const dealii::PETScWrappers::MPI::Vector *mass_times_displacement() const { return nullptr; }
    /// Wall seconds spent setting up projection_response()'s own metric (the quasi-static
    /// metric's factorisation, once per run at the first projection); 0 without one.
    virtual double projection_metric_setup_seconds() const { return 0.0; }
    /// One line for the log, e.g. "Moreau-Jean theta = 0.5".
    virtual std::string description() const = 0;
    /// The contact law of the scheme's step (Frémond or standard for Moreau–Jean, standard for the
    /// generalized-α family, position level for Schatzman–Paoli).
    virtual ContactLaw contact_law() const = 0;
    /// Whether the scheme damps the modes with ωh ≫ 1 (its amplification there is below 1).
    virtual bool damps_high_frequencies() const = 0;

    double time() const final { return current_time; }
    unsigned int step_number() const final { return step; }
    /// The step size of the next step (the nominal one unless set_time_step() changed it).
    double time_step() const final { return h; }
    double nominal_time_step() const { return nominal_h; }
    /// The time since the start in nominal steps: an exact binary fraction where steps were halved.
    double elapsed_nominal_steps() const { return elapsed_steps; }
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
    unsigned int operator_version() const final { return version; }
    const dealii::PETScWrappers::MPI::Vector &displacement() const final { return q; }
    const dealii::PETScWrappers::MPI::Vector &velocity() const { return v; }
    /// During a step (after compute_free_velocity): v_free, then v_{k+1} after apply_impulse.
    const dealii::PETScWrappers::MPI::Vector &new_velocity() const final { return v_new; }
    /// The solver of the scheme's iteration matrix (Ŵ, or S for generalized-α).
    virtual const IterationMatrixSolver &linear_solver() const = 0;
    /// MiB of all the factors the scheme keeps (IterationMatrixSolver::factor_memory_mib()): the
    /// present step size's and those kept for other step sizes (set_time_step()).
    virtual double factors_memory_mib() const { return linear_solver().factor_memory_mib(); }
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
    {
    }

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
     * step (with e.frame_correction the work of a turning step basis, the only frame term known
     * when the step is accepted); @p e becomes last_step_energy(); the step count and the time advance.
     */
    void accept_step(StepEnergy e)
    {
      const double energy_old =
        energy.kinetic_energy + energy.strain_energy + energy.algorithmic_energy + energy.viscoelastic_energy;
      e.residual = (e.kinetic_energy + e.strain_energy + e.algorithmic_energy + e.viscoelastic_energy - energy_old) -
                   (e.external_work + e.damping_work - e.numerical_dissipation - e.viscoelastic_dissipation +
                    e.contact_work + e.frame_correction);
      energy = e;
      ++step;
      // Time counted in nominal steps: halved steps add exact binary fractions, so the time after
      // two half steps is the time after one full step to the last bit.
      elapsed_steps += h / nominal_h;
      current_time = start_time + elapsed_steps * nominal_h;
    }

    double h;
    const double nominal_h;
    double start_time = 0, current_time = 0, elapsed_steps = 0;
    unsigned int version = 0;
    unsigned int factor_version = 0; ///< unrotated_operator_version()
    unsigned int step = 0;
    dealii::PETScWrappers::MPI::Vector q, v, v_new;
    StepEnergy energy;
  };
} // namespace percussion::TimeIntegration

#endif
