#include <percussion/contact_laws/schatzman_paoli_law.h>

namespace percussion::ContactLaws
{
  void SchatzmanPaoliLaw::pose(const ActiveContact &contact, const LawStep &step, double *b) const
  {
    // (1+e)/h times the linearised gap at (q_{k+1} + e q_{k−1})/(1+e); frictionless.
    for (unsigned int i = 0; i < step.dim; ++i)
      b[i] = contact.u_free[i];
    const double e = contact.e;
    b[0] += -e * contact.u_k[0] + (1 + e) * contact.gap / step.time_step;
  }
} // namespace percussion::ContactLaws
