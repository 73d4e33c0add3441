#include <percussion/contact_laws/contact_law.h>
#include <percussion/contact_laws/fremond_law.h>
#include <percussion/contact_laws/schatzman_paoli_law.h>
#include <percussion/contact_laws/standard_law.h>

namespace percussion::ContactLaws
{
  std::unique_ptr<const LocalLaw> make_local_law(const ContactLaw law)
  {
    switch (law)
      {
      case ContactLaw::standard:
        return std::make_unique<StandardLaw>();
      case ContactLaw::fremond:
        return std::make_unique<FremondLaw>();
      case ContactLaw::schatzman_paoli:
        return std::make_unique<SchatzmanPaoliLaw>();
      }
    return nullptr;
  }
} // namespace percussion::ContactLaws
