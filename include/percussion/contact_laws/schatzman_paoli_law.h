#ifndef PERCUSSION_CONTACT_LAWS_SCHATZMAN_PAOLI_LAW_H
#define PERCUSSION_CONTACT_LAWS_SCHATZMAN_PAOLI_LAW_H

#include <percussion/contact_laws/local_law.h>

namespace percussion::ContactLaws
{
  /**
   * Schatzman–Paoli (talk eq. (28c)–(29)), position level, frictionless:
   * 0 ≤ g((q_{k+1} + e q_{k−1})/(1+e)) ⊥ P ≥ 0, linearised at q_k with U = Hᵀ(q_{k+1} − q_k)/h:
   * 0 ≤ U_{N,k+1} − e U_{N,k} + (1+e) g_k / h ⊥ P_N ≥ 0 (scaled by (1+e)/h): A = W,
   * b_N = u_{N,free} − e u_{N,k} + (1+e) g_k/h. Every candidate enters its problem.
   */
  class SchatzmanPaoliLaw : public LocalLaw
  {
  public:
    double operator_factor(double) const override { return 1.0; }
    void pose(const ActiveContact &contact, const LawStep &step, double *b) const override;
    bool is_velocity_level() const override { return false; }
    bool takes_every_candidate() const override { return true; }
  };
} // namespace percussion::ContactLaws

#endif
