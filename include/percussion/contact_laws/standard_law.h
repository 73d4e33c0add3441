#ifndef PERCUSSION_CONTACT_LAWS_STANDARD_LAW_H
#define PERCUSSION_CONTACT_LAWS_STANDARD_LAW_H

#include <percussion/contact_laws/local_law.h>

namespace percussion::ContactLaws
{
  /**
   * Standard Moreau–Jean (paper eq. (53d)): −Γ(u_{k+1}) ∈ N_K(p), Γ(u) = u + (e u_{N,k} + μ‖u_T‖, 0, 0):
   * A = W, b = u_free + (e u_{N,k}, 0, 0). Also the law of the nonsmooth generalized-α family
   * (Newton's law on u_{k+1}, talk (52)) with ω = ½. A separating contact (u_{N,k} > 0):
   * b_N = u_{N,free} + (1−ω)/ω u_{N,k}, i.e. u_{N,k+ω}/ω (ω = 0: u_{N,k+1}).
   */
  class StandardLaw : public LocalLaw
  {
  public:
    double operator_factor(double) const override { return 1.0; }
    void pose(const ActiveContact &contact, const LawStep &step, double *b) const override;
  };
} // namespace percussion::ContactLaws

#endif
