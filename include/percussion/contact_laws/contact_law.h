#ifndef PERCUSSION_CONTACT_LAWS_CONTACT_LAW_H
#define PERCUSSION_CONTACT_LAWS_CONTACT_LAW_H

#include <percussion/contact_laws/local_law.h>

#include <memory>

namespace percussion::ContactLaws
{
  /// The contact law of a scheme's step (TimeIntegration::TimeIntegrator::contact_law()).
  enum class ContactLaw
  {
    /// Standard Moreau–Jean (paper eq. (53d)): −Γ(u_{k+1}) ∈ N_K(p), Γ(u) = u + (e u_{N,k} + μ‖u_T‖, 0, 0).
    standard,
    /// Frémond-consistent Moreau–Jean (eq. (63d)–(64)): −Θ(u_{k+θ}) ∈ N_K(p),
    /// Θ(u) = u + ((θ(1+e)−1) u_{N,k} + μ‖u_T‖, 0, 0).
    fremond,
    /// Schatzman–Paoli (talk eq. (28c)–(29)), position level, frictionless:
    /// 0 ≤ g((q_{k+1} + e q_{k−1})/(1+e)) ⊥ P ≥ 0, linearised at q_k with U = Hᵀ(q_{k+1} − q_k)/h:
    /// 0 ≤ U_{N,k+1} − e U_{N,k} + (1+e) g_k / h ⊥ P_N ≥ 0 (scaled by (1+e)/h).
    schatzman_paoli
  };

  /// The law object that poses @p law's local problem (StandardLaw, FremondLaw or
  /// SchatzmanPaoliLaw): the one place a scheme's law becomes a class.
  std::unique_ptr<const LocalLaw> make_local_law(ContactLaw law);

} // namespace percussion::ContactLaws

#endif
