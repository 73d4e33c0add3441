// Requirement (lasting contact): the active-set rule of the contact step takes every penetrated contact,
// whatever its velocity (the approach condition of the paper's (55) left a penetrated, slowly
// separating contact without a constraint), every contact whose gap is predicted to close from
// u_k or from the free velocity (a contact at rest closed by the step's loads), and no other;
// Schatzman–Paoli takes every candidate.
#define BOOST_TEST_MODULE active_set_rule
#include <percussion/contact_step/active_set_rule.h>

#include <boost/test/unit_test.hpp>

using percussion::ContactStep::ActiveSetRule;

BOOST_AUTO_TEST_CASE(penetrated_contacts_always_enter)
{
  const ActiveSetRule rule{0.5, false};
  const double h = 1e-3;
  BOOST_TEST(rule.enters(-1e-9, 0.0, 0.0, h));
  BOOST_TEST(rule.enters(-1e-9, 10.0, 10.0, h)); // separating fast: (55) would drop it
  BOOST_TEST(rule.enters(-1e-3, 1e-8, 1e-8, h)); // a penetrated contact, slowly separating
  BOOST_TEST(rule.enters(0.0, 1.0, 1.0, h));     // touching
}

BOOST_AUTO_TEST_CASE(open_contacts_enter_when_predicted_to_close)
{
  const ActiveSetRule rule{0.5, false};
  const double h = 0.01;
  // g = 0.01, u = −1: closes iff 0.01 − 0.5 h ≤ 0.
  BOOST_TEST(!rule.enters(0.01, -1.0, -1.0, 0.01));
  BOOST_TEST(rule.enters(0.01, -1.0, -1.0, 0.03));
  // At rest (u_k = 0) but pushed by the step's loads: the free velocity closes it.
  BOOST_TEST(rule.enters(1e-6, 0.0, -1e-3, h));
  BOOST_TEST(!rule.enters(1e-6, 0.0, -1e-5, h));
  // Approaching before the step, but the free velocity turns back: u_k alone decides.
  BOOST_TEST(rule.enters(1e-3, -1.0, 0.5, h));
  // Open and separating: out.
  BOOST_TEST(!rule.enters(1e-6, 1.0, 1.0, h));
  // γ = 0: only penetrated or touching contacts.
  const ActiveSetRule no_prediction{0.0, false};
  BOOST_TEST(!no_prediction.enters(1e-9, -100.0, -100.0, h));
  BOOST_TEST(no_prediction.enters(0.0, 100.0, 100.0, h));
}

BOOST_AUTO_TEST_CASE(position_level_law_takes_every_candidate)
{
  const ActiveSetRule rule{0.5, true};
  BOOST_TEST(rule.enters(0.05, 1.0, 1.0, 1e-3));
}
