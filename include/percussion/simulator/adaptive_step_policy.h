#ifndef PERCUSSION_SIMULATOR_ADAPTIVE_STEP_POLICY_H
#define PERCUSSION_SIMULATOR_ADAPTIVE_STEP_POLICY_H

#include <percussion/core/saved_value.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace percussion
{
  /// What the simulator observes of the contacts for the adaptive step (AdaptiveStepPolicy).
  struct ContactObservation
  {
    /// Contacts active at the end of the step, and an XOR of their keys' hashes (the same on
    /// any partition): where either differs from the last step's a contact opened or closed.
    unsigned int n_active = 0, active_hash = 0;
    /// The step's total normal contact force (impulse / h), and the Euclidean norm of the
    /// contacts' normal forces: where the contacts pass their load to one another at a steady
    /// total (bodies leaning and rocking), the norm changes.
    double normal_force = 0, normal_force_norm = 0;
    /// The error indicator: the scheme's numerical dissipation in the step over the energy scale.
    double dissipated_fraction = 0;
  };

  /**
   * Dyadic adaptive time steps ('Time integration/Adaptive steps', doc/user_guide.md "Adaptive
   * time steps"): the step of level k is h₀/2^k, k = 0 … K, h₀ = 'Time step' and h₀/2^K =
   * 'Smallest step'.
   *  - Before a step, limit_to_closing(): where an open candidate's gap is predicted to close
   *    within t_c, the step is at most t_c/2 (the finest where that is smaller): an impact starts
   *    at the finest level, approached in a few steps per level.
   *  - After a step, step_done(): a contact that opened or closed, or a total normal force that
   *    changed by more than 'Quiet force change' of itself (an impact under way), puts the step at
   *    the finest level; other steps are quiet, and after 'Quiet steps' quiet steps at one level
   *    (one where no contact is active) the step doubles, where the time is a multiple of the
   *    doubled step (each level's steps stay on its own grid, and its iteration matrix, factorised
   *    once, serves all of them) and the predicted closing allows it.
   *  - The error indicator ('Dissipation tolerance' > 0): a step whose numerical dissipation
   *    exceeds that fraction of the energy scale is not quiet, and the next step is one level finer.
   * Plain logic: the simulator supplies the observations.
   */
  class AdaptiveStepPolicy
  {
  public:
    /// @p finest_level K ≥ 1 (h₀/2^K the smallest step), @p quiet_steps ≥ 1, @p quiet_force_change > 0,
    /// @p dissipation_tolerance ≥ 0 (0: no error indicator).
    AdaptiveStepPolicy(double coarsest_step, unsigned int finest_level, unsigned int quiet_steps,
                       double quiet_force_change, double dissipation_tolerance = 0);

    /// The present level and its step h₀/2^level.
    unsigned int level() const { return present_level; }
    double step_size() const { return step_size(present_level); }
    double step_size(const unsigned int k) const { return std::ldexp(coarsest_step, -static_cast<int>(k)); }
    unsigned int finest_level() const { return finest; }

    /// The finest level (and the quiet count from zero).
    void refine();
    /**
     * Before a step: @p closing_time is the shortest time in which an open candidate's gap is
     * predicted to close (infinity where none closes): the step is refined until 2h ≤ it (or to
     * the finest level), and coarsening waits for it.
     */
    void limit_to_closing(double closing_time);
    /**
     * After a step of size @p h (at the present level, or finer where the retry policy halved it)
     * ending at @p elapsed nominal steps (an exact dyadic fraction), with @p contacts observed at
     * its end: see the class comment.
     */
    void step_done(double h, double elapsed, const ContactObservation &contacts);

    /// Steps taken and time spent (s) at each level k = 0 … K (a finer retry's steps at K).
    const std::vector<unsigned int> &steps_per_level() const { return steps; }
    const std::vector<double> &time_per_level() const { return times; }

    /// The state a checkpoint keeps (level, quiet count, the last step's contacts, the statistics).
    SavedValues saved_values();

  private:
    /// The coarsest level whose step is at most @p closing_time / 2 (the finest if none).
    unsigned int level_for_closing(double closing_time) const;

    const double coarsest_step;
    const unsigned int finest, quiet_steps;
    const double quiet_force_change, dissipation_tolerance;
    unsigned int present_level = 0;
    /// Quiet steps at the present level; the last step's active contacts (count and key hash).
    unsigned int quiet = 0, last_active = 0, last_hash = 0;
    double last_force = 0, last_force_norm = 0;
    /// The predicted closing time before the present step (not kept: recomputed before each step).
    double closing = std::numeric_limits<double>::infinity();
    std::vector<unsigned int> steps;
    std::vector<double> times;
  };
} // namespace percussion

#endif
