// StepRetryPolicy: an unsolved contact problem is retried with NSGS, then halved down to the last
// allowed level and accepted there; a step that created energy is halved down to its own last level
// and then stops the run; nothing is retried where the policies are not retry.
#define BOOST_TEST_MODULE step_retry_policy
#include <percussion/simulator/step_retry_policy.h>

#include <boost/test/unit_test.hpp>

using percussion::StepRetryPolicy;
using Verdict = StepRetryPolicy::Verdict;

BOOST_AUTO_TEST_CASE(unsolved_contact_nsgs_first_then_halvings_then_accepted)
{
  const StepRetryPolicy policy(true, 2, 0);
  BOOST_TEST((policy.after_contact_problem(false, false, 0) == Verdict::accept));
  BOOST_TEST((policy.after_contact_problem(true, false, 0) == Verdict::retry_with_nsgs));
  BOOST_TEST((policy.after_contact_problem(true, true, 0) == Verdict::halve));
  BOOST_TEST((policy.after_contact_problem(true, true, 1) == Verdict::halve));
  // At the last level the step is accepted unsolved (its warning and event say so).
  BOOST_TEST((policy.after_contact_problem(true, false, 2) == Verdict::retry_with_nsgs));
  BOOST_TEST((policy.after_contact_problem(true, true, 2) == Verdict::accept));
  BOOST_TEST((policy.after_contact_problem(false, true, 1) == Verdict::accept));
  BOOST_TEST(!policy.keeps_state_before_step());
}

BOOST_AUTO_TEST_CASE(no_contact_retry_with_another_policy)
{
  const StepRetryPolicy policy(false, 2, 0);
  BOOST_TEST((policy.after_contact_problem(true, false, 0) == Verdict::accept));
  BOOST_TEST((policy.after_energy_created(0) == Verdict::stop));
}

BOOST_AUTO_TEST_CASE(energy_created_halved_to_the_last_level_then_stops)
{
  const StepRetryPolicy policy(false, 0, 3);
  BOOST_TEST(policy.keeps_state_before_step());
  BOOST_TEST((policy.after_energy_created(0) == Verdict::halve));
  BOOST_TEST((policy.after_energy_created(2) == Verdict::halve));
  BOOST_TEST((policy.after_energy_created(3) == Verdict::stop));
}
