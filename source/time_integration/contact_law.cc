#include <percussion/contact_operators/fremond_law.h>
#include <percussion/contact_operators/schatzman_paoli_law.h>
#include <percussion/contact_operators/standard_law.h>
#include <percussion/time_integration/contact_law.h>

namespace percussion::TimeIntegration
{
  std::unique_ptr<const ContactOperators::LocalLaw> make_local_law(const ContactLaw law)
  {
    switch (law)
      {
        case ContactLaw::standard:
          return std::make_unique<ContactOperators::StandardLaw>();
        case ContactLaw::fremond:
          return std::make_unique<ContactOperators::FremondLaw>();
        case ContactLaw::schatzman_paoli:
          return std::make_unique<ContactOperators::SchatzmanPaoliLaw>();
      }
    return nullptr;
  }
} // namespace percussion::TimeIntegration
