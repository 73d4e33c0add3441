#include <percussion/core/exceptions.h>
#include <percussion/time_integration/scheme.h>

#include <array>
#include <utility>

namespace percussion::TimeIntegration
{
  namespace
  {
    // The one table of names: the parameter file, messages and the log use it.
    const std::array<std::pair<Scheme, const char *>, 6> names{{
      {Scheme::moreau_jean_fremond, "Moreau-Jean Fremond"},
      {Scheme::moreau_jean_standard, "Moreau-Jean standard"},
      {Scheme::nonsmooth_newmark, "nonsmooth Newmark"},
      {Scheme::nonsmooth_hht, "nonsmooth HHT"},
      {Scheme::nonsmooth_generalized_alpha, "nonsmooth generalized-alpha"},
      {Scheme::schatzman_paoli, "Schatzman-Paoli"},
    }};
  } // namespace

  std::string scheme_names()
  {
    std::string result;
    for (const auto &[scheme, name] : names)
      result += (result.empty() ? "" : "|") + std::string(name);
    return result;
  }

  Scheme scheme_from_name(const std::string &name)
  {
    for (const auto &[scheme, known] : names)
      if (name == known)
        return scheme;
    throw InputError("Parameter 'Time integration/Scheme' = '" + name + "' is not one of " + scheme_names() + ".");
  }

  std::string to_string(const Scheme scheme)
  {
    for (const auto &[known, name] : names)
      if (scheme == known)
        return name;
    return "unknown scheme";
  }
} // namespace percussion::TimeIntegration
