#include <percussion/simulator/adaptive_step_policy.h>

#include <algorithm>

namespace percussion
{
  AdaptiveStepPolicy::AdaptiveStepPolicy(const double coarsest_step, const unsigned int finest_level,
                                         const unsigned int quiet_steps, const double quiet_force_change,
                                         const double dissipation_tolerance)
    : coarsest_step(coarsest_step)
    , finest(finest_level)
    , quiet_steps(quiet_steps)
    , quiet_force_change(quiet_force_change)
    , dissipation_tolerance(dissipation_tolerance)
    , steps(finest_level + 1, 0)
    , times(finest_level + 1, 0.0)
  {
  }

  void AdaptiveStepPolicy::refine()
  {
    present_level = finest;
    quiet = 0;
  }

  unsigned int AdaptiveStepPolicy::level_for_closing(const double closing_time) const
  {
    unsigned int k = 0;
    while (k < finest && 2 * step_size(k) > closing_time)
      ++k;
    return k;
  }

  void AdaptiveStepPolicy::limit_to_closing(const double closing_time)
  {
    closing = closing_time;
    const unsigned int needed = level_for_closing(closing_time);
    if (needed > present_level)
      {
        present_level = needed;
        quiet = 0;
      }
  }

  void AdaptiveStepPolicy::step_done(const double h, const double elapsed, const ContactObservation &contacts)
  {
    // The level of the step actually taken (a retry's halving may have gone below the finest).
    const unsigned int taken = std::min(finest, static_cast<unsigned int>(std::lround(std::log2(coarsest_step / h))));
    ++steps[taken];
    times[taken] += h;
    const bool contact_changed = contacts.n_active != last_active || contacts.active_hash != last_hash;
    const auto changed = [this](const double now, const double before) {
      const double scale = std::max(std::abs(now), std::abs(before));
      return scale > 0 && std::abs(now - before) > quiet_force_change * scale;
    };
    const bool force_changed =
      changed(contacts.normal_force, last_force) || changed(contacts.normal_force_norm, last_force_norm);
    last_active = contacts.n_active;
    last_hash = contacts.active_hash;
    last_force = contacts.normal_force;
    last_force_norm = contacts.normal_force_norm;
    if (contact_changed || force_changed)
      {
        refine();
        return;
      }
    // The step dissipated more than the tolerance allows: its size did not resolve what carries
    // the energy; halve it (again after each such step).
    if (dissipation_tolerance > 0 && contacts.dissipated_fraction > dissipation_tolerance)
      {
        present_level = std::min(finest, present_level + 1);
        quiet = 0;
        return;
      }
    ++quiet;
    // In flight (no active contact) nothing but a closing gap needs the small step, and the
    // prediction guards that: one quiet step suffices. Active contacts wait 'Quiet steps' for the
    // transient of their force to show itself.
    const unsigned int needed = contacts.n_active == 0 ? 1 : quiet_steps;
    if (present_level == 0 || quiet < needed || level_for_closing(closing) >= present_level)
      return;
    // One level up where the time is on the coarser grid: elapsed (in steps h₀) times
    // 2^(level − 1) an integer, exactly (elapsed is a dyadic fraction with at most K bits).
    const double on_coarser_grid = std::ldexp(elapsed, static_cast<int>(present_level) - 1);
    if (on_coarser_grid == std::floor(on_coarser_grid))
      {
        --present_level;
        quiet = 0;
      }
  }

  SavedValues AdaptiveStepPolicy::saved_values()
  {
    SavedValues values{{"adaptive_level", nullptr, &present_level},
                       {"adaptive_quiet_steps", nullptr, &quiet},
                       {"adaptive_last_active", nullptr, &last_active},
                       {"adaptive_last_hash", nullptr, &last_hash},
                       {"adaptive_last_force", &last_force, nullptr},
                       {"adaptive_last_force_norm", &last_force_norm, nullptr}};
    for (std::size_t k = 0; k < steps.size(); ++k)
      {
        values.push_back({"adaptive_steps_level_" + std::to_string(k), nullptr, &steps[k]});
        values.push_back({"adaptive_time_level_" + std::to_string(k), &times[k], nullptr});
      }
    return values;
  }
} // namespace percussion
