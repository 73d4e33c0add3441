#include <percussion/contact_laws/standard_law.h>

namespace percussion::ContactLaws
{
  void StandardLaw::pose(const ActiveContact &contact, const LawStep &step, double *b) const
  {
    const auto &u_k = contact.u_k;
    // Γ: normal part u_{N,k+1} + e u_{N,k}; tangential part u_{T,k+1}. Separating:
    // u_{N,k+ω}/ω = u_{N,k+1} + (1−ω)/ω u_{N,k} (ω = 0: u_{N,k+1}).
    for (unsigned int i = 0; i < step.dim; ++i)
      b[i] = contact.u_free[i];
    // A penetrated contact that separates (u_{N,k} > 0) is held by 0 ≤ u_{N,k+ω} ⊥ p_N ≥ 0:
    // it cannot pull, its work u_{N,k+ω}p_N is zero, and its gap does not decrease.
    const bool separating = u_k[0] > 0;
    if (!separating)
      b[0] += contact.e * u_k[0];
    else if (step.theta > 0)
      b[0] += (1 - step.theta) / step.theta * u_k[0];
  }
} // namespace percussion::ContactLaws
