#ifndef PERCUSSION_CONTACT_LAWS_FREMOND_LAW_H
#define PERCUSSION_CONTACT_LAWS_FREMOND_LAW_H

#include <percussion/contact_laws/local_law.h>

namespace percussion::ContactLaws
{
  /**
   * Frémond-consistent Moreau–Jean (paper eq. (63d)–(64)): −Θ(u_{k+θ}) ∈ N_K(p),
   * Θ(u) = u + ((θ(1+e)−1) u_{N,k} + μ‖u_T‖, 0, 0): A = θW, b = θ u_free + (θ e u_{N,k}, (1−θ) u_{T,k}).
   * A separating contact gets Θ with min(u_{N,k}, 0) = 0, so Proposition 1 holds for every contact;
   * a lasting contact (a normal impulse at the previous step) gains max(g_k, 0)/h, and an inelastic
   * lasting one is held at position level (doc/contact.md, "Lasting contact").
   */
  class FremondLaw : public LocalLaw
  {
  public:
    double operator_factor(double theta) const override { return theta; }
    void pose(const ActiveContact &contact, const LawStep &step, double *b) const override;
    bool slides_at_weighted_velocity() const override { return true; }
  };
} // namespace percussion::ContactLaws

#endif
