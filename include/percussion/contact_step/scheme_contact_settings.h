#ifndef PERCUSSION_CONTACT_STEP_SCHEME_CONTACT_SETTINGS_H
#define PERCUSSION_CONTACT_STEP_SCHEME_CONTACT_SETTINGS_H

#include <vector>

namespace percussion::ContactStep
{
  /// 'Contact solver/Position projection': whether end-of-step penetrations are projected away.
  enum class PositionProjection
  {
    automatic, ///< "auto": on for the velocity-level schemes
    on,        ///< "on"
    off        ///< "off"
  };

  /// 'Contact solver/Dissipation range policy': what a Frémond scheme outside its dissipative
  /// range of θ does.
  enum class DissipationRangePolicy
  {
    warn,  ///< "warn": run, with a note
    refuse ///< "refuse": an input error
  };

  /// What a scheme's check of its parameter combinations needs to know of the contact settings.
  struct SchemeContactSettings
  {
    std::vector<double> friction;    ///< μ of each contact pair (empty: no contact)
    std::vector<double> restitution; ///< e of each contact pair
    PositionProjection position_projection = PositionProjection::automatic;
    DissipationRangePolicy dissipation_range_policy = DissipationRangePolicy::warn;
  };
} // namespace percussion::ContactStep

#endif
