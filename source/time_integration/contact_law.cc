#include <percussion/contact_laws/fremond_law.h>
#include <percussion/contact_laws/schatzman_paoli_law.h>
#include <percussion/contact_laws/standard_law.h>
#include <percussion/time_integration/contact_law.h>

namespace percussion::TimeIntegration
{
  std::unique_ptr<const ContactLaws::LocalLaw> make_local_law(const ContactLaw law)
  {
    switch (law)
      {
        case ContactLaw::standard:
          return std::make_unique<ContactLaws::StandardLaw>();
        case ContactLaw::fremond:
          return std::make_unique<ContactLaws::FremondLaw>();
        case ContactLaw::schatzman_paoli:
          return std::make_unique<ContactLaws::SchatzmanPaoliLaw>();
      }
    return nullptr;
  }
} // namespace percussion::TimeIntegration
