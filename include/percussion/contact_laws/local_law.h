#ifndef PERCUSSION_CONTACT_LAWS_LOCAL_LAW_H
#define PERCUSSION_CONTACT_LAWS_LOCAL_LAW_H

#include <percussion/contact_laws/active_contact.h>

#include <algorithm>

namespace percussion::ContactLaws
{
  /// What a law needs of the step besides the contact (plain data).
  struct LawStep
  {
    unsigned int dim = 0; ///< the body's dimension: the law poses b[0 … dim)
    double theta = 0;     ///< ω of the scheme (TimeIntegrator::contact_work_weight())
    double time_step = 0; ///< h
    /// A contact is lasting when its previous normal impulse exceeds this (FremondLaw); 0: none is.
    double lasting_impulse = 0;

    /**
     * How much of @p contact is in lasting contact: its previous normal impulse (warm start) over
     * lasting_impulse, clamped to [0, 1] (0 where lasting_impulse is 0). FremondLaw blends its
     * lasting part in by it; the adaptive position projection counts a contact with share 1 as
     * loaded (FrictionalContactStep::project_positions()).
     */
    double lasting_share(const ActiveContact &contact) const
    {
      return lasting_impulse > 0 ? std::clamp(contact.warm_start[0] / lasting_impulse, 0.0, 1.0) : 0.0;
    }
  };

  /**
   * A scheme's contact law as the local problem it poses (doc/theory.md, "The step's contact
   * problem"):
   *
   *   find p, w:  w = A p + b,  K* ∋ w + (μ‖w_T‖, 0, 0) ⊥ p ∈ K,  A = f W,
   *
   * with W = Hᵀ𝒯H the Delassus operator of the step's contacts (a DelassusColumns or probed
   * operator) and f, b the law's. The laws differ only in f and b: StandardLaw (paper (53d), also
   * the nonsmooth generalized-α family's velocity-level Newton law with ω = ½), FremondLaw ((63d),
   * (64)), SchatzmanPaoliLaw (talk (28c)–(29)). A penetrated contact that separates (u_{N,k} > 0)
   * gets the normal law 0 ≤ u_{N,k+ω} ⊥ p_N ≥ 0 (doc/contact.md, "Lasting contact").
   */
  class LocalLaw
  {
  public:
    virtual ~LocalLaw() = default;

    /// f in A = f W: θ for the Frémond law, 1 for the others.
    virtual double operator_factor(double theta) const = 0;
    /// b of contact @p contact: writes @p b[0 … step.dim) (the normal entry first).
    virtual void pose(const ActiveContact &contact, const LawStep &step, double *b) const = 0;
    /// Whether a contact slides with u_{T,k+θ} (Frémond) rather than with u_{T,k+1}: the slip
    /// velocity of the Lemma-1 stick/slip state.
    virtual bool slides_at_weighted_velocity() const { return false; }
    /// Whether the law works at velocity level (all but Schatzman–Paoli), so that positions may drift.
    virtual bool is_velocity_level() const { return true; }
    /**
     * Whether every candidate contact enters the step's problem, not only the active set: the
     * position-level Schatzman–Paoli law's complementarity on the linearised gap opens or closes
     * each contact itself, where a gap prediction would leave a contact resting at g = 0 out every
     * other step (and its force alternate between 0 and twice its value).
     */
    virtual bool takes_every_candidate() const { return false; }
  };
} // namespace percussion::ContactLaws

#endif
