#ifndef PERCUSSION_TIME_INTEGRATION_SCHEME_CONTACT_SETTINGS_H
#define PERCUSSION_TIME_INTEGRATION_SCHEME_CONTACT_SETTINGS_H

#include <string>
#include <vector>

namespace percussion::TimeIntegration
{
  /// What a scheme's check of its parameter combinations needs to know of the contact settings.
  struct SchemeContactSettings
  {
    std::vector<double> friction;             ///< μ of each contact pair (empty: no contact)
    std::vector<double> restitution;          ///< e of each contact pair
    std::string position_projection = "auto"; ///< 'Contact solver/Position projection'
    std::string dissipation_range_policy = "warn"; ///< 'Contact solver/Dissipation range policy'
  };
} // namespace percussion::TimeIntegration

#endif
