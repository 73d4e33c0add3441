#ifndef PERCUSSION_CONTACT_LAWS_ACTIVE_CONTACT_H
#define PERCUSSION_CONTACT_LAWS_ACTIVE_CONTACT_H

#include <array>

namespace percussion::ContactLaws
{
  /**
   * One contact of the step's problem (plain data), made by its owner; a problem small enough for
   * the dense path is gathered on every rank. Velocities in the local frame (n, t1, t2); only the
   * first dim components are used.
   */
  struct ActiveContact
  {
    unsigned long long point = 0; ///< global point index (column block of H)
    unsigned long long key = 0;   ///< stable identity across steps (warm start, cumulated dissipation)
    double mu = 0, e = 0, gap = 0;
    int owner_rank = 0;             ///< the rank that owns the point
    int owner_index = 0;            ///< its index among that rank's owned candidate points
    std::array<double, 3> u_k{};    ///< Hᵀv_k + w
    std::array<double, 3> u_free{}; ///< Hᵀv_free + w
    std::array<double, 3> w{};      ///< obstacle velocity offset
    std::array<double, 3> position{};
    /// The last step's impulse of this contact (the local problem's dimension; zero if it had none):
    /// the warm start, known to the owner only.
    std::array<double, 3> warm_start{};
  };
} // namespace percussion::ContactLaws

#endif
