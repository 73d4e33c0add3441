#ifndef PERCUSSION_CONTACT_STEP_OWNED_CONTACT_POINT_H
#define PERCUSSION_CONTACT_STEP_OWNED_CONTACT_POINT_H

#include <array>

namespace percussion::ContactStep
{
  /// A contact point owned by this rank, as the contact geometry describes it (plain data).
  struct OwnedContactPoint
  {
    unsigned long long global_index = 0; ///< columns dim·g … dim·g + dim − 1 of H
    unsigned long long key = 0;          ///< stable identity across steps (warm start, cumulated dissipation)
    double mu = 0, e = 0;
    double gap = 0; ///< g at q_k
    std::array<double, 3> position{};
  };
} // namespace percussion::ContactStep

#endif
