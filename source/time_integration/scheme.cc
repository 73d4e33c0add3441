#include <percussion/core/name_table.h>
#include <percussion/time_integration/scheme.h>

namespace percussion::TimeIntegration
{
  namespace
  {
    // The one table of names: the parameter file, messages and the log use it.
    constexpr NameTable<Scheme, 6> names{{
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
    return names_pattern(names);
  }

  Scheme scheme_from_name(const std::string &name)
  {
    return value_of(names, name, "Time integration/Scheme");
  }

  std::string to_string(const Scheme scheme)
  {
    return name_of(names, scheme, "unknown scheme");
  }
} // namespace percussion::TimeIntegration
