#include <percussion/contact_laws/fremond_law.h>

#include <algorithm>

namespace percussion::ContactLaws
{
  void FremondLaw::pose(const ActiveContact &contact, const LawStep &step, double *b) const
  {
    const auto &u_k = contact.u_k;
    const auto &u_free = contact.u_free;
    const double e = contact.e, theta = step.theta;
    // A penetrated contact that separates (u_{N,k} > 0) is held by 0 ≤ u_{N,k+θ} ⊥ p_N ≥ 0:
    // it cannot pull, its work u_{N,k+θ}p_N is zero, and its gap does not decrease.
    const bool separating = u_k[0] > 0;
    // Θ at u_{k+θ}: normal θ(u_{N,k+1} + e u_{N,k}); tangential (1−θ)u_{T,k} + θ u_{T,k+1}.
    // Separating: Θ with min(u_{N,k}, 0) = 0, i.e. the normal part u_{N,k+θ}.
    b[0] = separating ? theta * u_free[0] + (1 - theta) * u_k[0] : theta * (u_free[0] + e * u_k[0]);
    // A lasting contact (it carried a normal impulse at the previous step) may close an
    // open gap within the step: the law gains max(g_k, 0)/h. Without it a node that entered
    // the problem at g > 0 (the gap prediction stops it early) carries pressure at that
    // gap for ever, and resting pressures depend on the load history (doc/contact.md,
    // "Lasting contact"). An inelastic one (e = 0) is moreover held at position level,
    // 0 ≤ u_{N,k+θ} + max(g_k, 0)/h ⊥ p_N ≥ 0: its end gap g_k + h u_{N,k+θ} stays ≥ 0
    // (≥ g_k where it is penetrated), where the Frémond law would let it sink by
    // h(1 − θ)|u_{N,k}| at every step that it approaches (settling, ringing), which the
    // position projection would then have to lift against the load. One with e > 0 keeps
    // its restitution (an impact can last several steps). The normal work gains
    // −max(g_k, 0) p_N/h ≤ 0, and the position-level law's is ≤ 0 for any θ: Proposition 1
    // still holds. The impact step itself (no previous impulse) keeps the law of the paper.
    const double lasting = step.lasting_share(contact);
    if (lasting > 0)
      {
        const double closing = std::max(contact.gap, 0.0) / step.time_step;
        const double position_level = theta * u_free[0] + (1 - theta) * u_k[0] + closing;
        const double impact_law = b[0] + closing;
        b[0] += lasting * ((e == 0 ? position_level : impact_law) - b[0]);
      }
    for (unsigned int i = 1; i < step.dim; ++i)
      b[i] = theta * u_free[i] + (1 - theta) * u_k[i];
  }
} // namespace percussion::ContactLaws
