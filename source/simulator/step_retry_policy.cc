#include <percussion/simulator/step_retry_policy.h>

namespace percussion
{
  StepRetryPolicy::StepRetryPolicy(const bool retry_unsolved_contact, const unsigned int max_contact_halvings,
                                   const unsigned int max_energy_halvings)
    : retry_unsolved_contact(retry_unsolved_contact)
    , max_contact_halvings(max_contact_halvings)
    , max_energy_halvings(max_energy_halvings)
  {
  }

  StepRetryPolicy::Verdict StepRetryPolicy::after_contact_problem(const bool unsolved, const bool retried_with_nsgs,
                                                                  const unsigned int level) const
  {
    if (!unsolved || !retry_unsolved_contact)
      return Verdict::accept;
    // NSGS first: it converges, if slowly, where the Newton solvers stall on a hard problem; only
    // when it fails too does a smaller step (a smaller impulse, a better warm start) have to help.
    if (!retried_with_nsgs)
      return Verdict::retry_with_nsgs;
    // Past the last halving the step is accepted unsolved, as the 'continue' policy would (its
    // warning and event say so).
    return level < max_contact_halvings ? Verdict::halve : Verdict::accept;
  }

  StepRetryPolicy::Verdict StepRetryPolicy::after_energy_created(const unsigned int level) const
  {
    // Smaller steps resolve the impact and its penetration better, and create less; at the last
    // level the energy guard's failure stands.
    return level < max_energy_halvings ? Verdict::halve : Verdict::stop;
  }
} // namespace percussion
