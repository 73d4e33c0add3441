#ifndef PERCUSSION_CONTACT_STEP_ACTIVE_SET_RULE_H
#define PERCUSSION_CONTACT_STEP_ACTIVE_SET_RULE_H

#include <algorithm>

namespace percussion::ContactStep
{
  /**
   * Which candidates enter a step's contact problem (FrictionalContactStep applies it, nothing
   * else decides): with the gap g_k and the normal velocities u_{N,k} and u_{N,free} (no impulse),
   *
   *   min(g_k, g_k + γ h u_{N,k}, g_k + γ h u_{N,free}) ≤ ε   (ε = closed_gap, round-off).
   *
   * The second term is the gap prediction of the paper's (55); its approach condition u_{N,k} ≤ 0
   * is not used — a penetrated contact is never left without a constraint, and the law keeps
   * Proposition 1 true without it (doc/contact.md, "Lasting contact"). The third term catches a contact
   * that the step's loads close from rest (u_{N,k} = 0, e.g. resting at g ≈ 0 after a position
   * projection), the first a penetrated one.
   * Position-level laws (Schatzman–Paoli) take every candidate.
   */
  struct ActiveSetRule
  {
    double gap_prediction_factor = 0.5; ///< γ ≥ 0
    bool every_candidate = false;
    /**
     * ε ≥ 0: the terms are compared with ε instead of 0. A contact held at position level ends
     * its step at g = 0 to round-off (ContactLaws::FremondLaw, lasting contact);
     * without ε whether it enters the next problem would follow the sign of that round-off.
     */
    double closed_gap = 0;

    bool enters(const double gap, const double u_k_normal, const double u_free_normal, const double time_step) const
    {
      const double step = gap_prediction_factor * time_step;
      return every_candidate || std::min({gap, gap + step * u_k_normal, gap + step * u_free_normal}) <= closed_gap;
    }
  };

} // namespace percussion::ContactStep

#endif
