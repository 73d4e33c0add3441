#ifndef PERCUSSION_TIME_INTEGRATION_SCHEME_H
#define PERCUSSION_TIME_INTEGRATION_SCHEME_H

#include <string>

namespace percussion::TimeIntegration
{
  /**
   * The time-stepping schemes (`Time integration/Scheme`). The parameter file's name is parsed
   * once into this enum (scheme_from_name()); the factory create_time_integrator() turns it into an
   * integrator, which states its contact law (TimeIntegrator::contact_law()). Scheme names appear
   * nowhere else.
   */
  enum class Scheme
  {
    moreau_jean_fremond,         ///< "Moreau-Jean Fremond": law on u_{k+θ}, paper (63)–(64)
    moreau_jean_standard,        ///< "Moreau-Jean standard": law on u_{k+1}, paper (53)
    nonsmooth_newmark,           ///< "nonsmooth Newmark" (talk (52))
    nonsmooth_hht,               ///< "nonsmooth HHT" (talk (81))
    nonsmooth_generalized_alpha, ///< "nonsmooth generalized-alpha" (Chung–Hulbert parameters)
    schatzman_paoli              ///< "Schatzman-Paoli" (talk (28)–(29)), position level
  };

  /// The names of the parameter file, '|'-separated (a ParameterHandler Selection pattern).
  std::string scheme_names();
  /// The scheme of a name of scheme_names(); throws InputError for any other.
  Scheme scheme_from_name(const std::string &name);
  /// The parameter file's name of @p scheme.
  std::string to_string(Scheme scheme);
  /// Whether @p scheme is one of the nonsmooth generalized-α family.
  inline bool is_generalized_alpha(const Scheme scheme)
  {
    return scheme == Scheme::nonsmooth_newmark || scheme == Scheme::nonsmooth_hht ||
           scheme == Scheme::nonsmooth_generalized_alpha;
  }
} // namespace percussion::TimeIntegration

#endif
