// AdaptiveStepPolicy: the finest level from a predicted closing or a contact change, one level up
// after the stated number of quiet steps (one in flight) and only on the doubled step's grid, one
// level finer after a step that dissipated beyond the tolerance; the
// steps and time kept per level.
#define BOOST_TEST_MODULE adaptive_step_policy
#include <percussion/simulator/adaptive_step_policy.h>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

using percussion::AdaptiveStepPolicy;
using percussion::ContactObservation;

namespace
{
  /// Takes @p n steps of the policy's size from @p elapsed (in steps h₀ = 1) with the active
  /// contacts (@p n_active, @p hash); returns the levels of the steps taken.
  std::vector<unsigned int> take_steps(AdaptiveStepPolicy &policy, double &elapsed, const unsigned int n,
                                       const unsigned int n_active, const unsigned int hash)
  {
    std::vector<unsigned int> levels;
    for (unsigned int i = 0; i < n; ++i)
      {
        levels.push_back(policy.level());
        const double h = policy.step_size();
        // A step of level k starts on its own grid (a multiple of h₀/2^k).
        const double on_grid = elapsed / h;
        BOOST_TEST(on_grid == std::floor(on_grid));
        elapsed += h;
        policy.step_done(h, elapsed, {n_active, hash, 0.0});
      }
    return levels;
  }
} // namespace

BOOST_AUTO_TEST_CASE(coarse_until_refined_then_back_one_level_at_a_time)
{
  AdaptiveStepPolicy policy(1.0, 3, 2, 1e-3);
  double elapsed = 0;
  BOOST_TEST(take_steps(policy, elapsed, 3, 0, 0) == std::vector<unsigned int>({0, 0, 0}));
  policy.refine();
  BOOST_TEST(policy.level() == 3u);
  BOOST_TEST(policy.step_size() == 0.125);
  // The first step closes a contact (a change: still the finest level, from 3.125); the same
  // contact from then on is quiet: two steps at each level, and one more at h₀/8 to reach the grid
  // of h₀/4 (3.375 is not a multiple of 0.25); each level entered on its own grid.
  take_steps(policy, elapsed, 1, 1, 4);
  const auto levels = take_steps(policy, elapsed, 8, 1, 4);
  BOOST_TEST(levels == std::vector<unsigned int>({3, 3, 3, 2, 2, 1, 1, 0}));
  BOOST_TEST(elapsed == 6.0);
  BOOST_TEST(policy.steps_per_level() == std::vector<unsigned int>({4, 2, 2, 4}), boost::test_tools::per_element());
  BOOST_TEST(policy.time_per_level()[3] == 0.5);
  BOOST_TEST(policy.time_per_level()[2] == 0.5);
}

BOOST_AUTO_TEST_CASE(in_flight_the_step_doubles_after_each_quiet_step_on_its_grid)
{
  AdaptiveStepPolicy policy(1.0, 3, 8, 1e-3);
  double elapsed = 3;
  policy.refine();
  // No active contact and none closing: one quiet step per level, each where its grid allows
  // (3.125 is not on the grid of 0.25, 3.25 is; 3.5 is on that of 0.5, 4 on that of 1).
  const auto levels = take_steps(policy, elapsed, 6, 0, 0);
  BOOST_TEST(levels == std::vector<unsigned int>({3, 3, 2, 1, 0, 0}));
  BOOST_TEST(elapsed == 6.0);
}

BOOST_AUTO_TEST_CASE(a_contact_change_keeps_the_finest_level)
{
  AdaptiveStepPolicy policy(1.0, 2, 2, 1e-3);
  double elapsed = 0;
  // A contact closes (1 active): the finest level, and every change keeps it there.
  take_steps(policy, elapsed, 1, 1, 7);
  BOOST_TEST(policy.level() == 2u);
  BOOST_TEST(take_steps(policy, elapsed, 3, 2, 9) == std::vector<unsigned int>({2, 2, 2}));
  // The same contacts from the second of those steps on: quiet; at 1.75 the grid of h₀/2 is not
  // reached, at 2 it is (level 1), and two quiet steps later, at 3, the grid of h₀ (level 0).
  const auto levels = take_steps(policy, elapsed, 4, 2, 9);
  BOOST_TEST(levels == std::vector<unsigned int>({2, 1, 1, 0}));
  // The contacts open (0 active): a change, the finest level again.
  take_steps(policy, elapsed, 1, 0, 0);
  BOOST_TEST(policy.level() == 2u);
}

BOOST_AUTO_TEST_CASE(coarsening_waits_for_the_coarser_grid)
{
  // Refined at an odd multiple of the finest step: the first coarsening waits one step.
  AdaptiveStepPolicy policy(1.0, 2, 1, 1e-3);
  double elapsed = 0;
  policy.refine();
  policy.step_done(0.25, 0.25, {1, 1, 0.0}); // a change: stays at level 2
  BOOST_TEST(policy.level() == 2u);
  elapsed = 0.25;
  const auto levels = take_steps(policy, elapsed, 3, 1, 1);
  // 0.25 → 0.5 quiet, on the grid of 0.5: level 1; 0.5 → 1 quiet, on the grid of 1: level 0.
  BOOST_TEST(levels == std::vector<unsigned int>({2, 1, 0}));
}

BOOST_AUTO_TEST_CASE(a_predicted_closing_refines_until_two_steps_fit_before_it)
{
  AdaptiveStepPolicy policy(1.0, 4, 1, 1e-3);
  // Closing in 1.5 h₀: 2h ≤ 1.5 first at h = 0.5 (level 1).
  policy.limit_to_closing(1.5);
  BOOST_TEST(policy.level() == 1u);
  // Closing in 0.01 h₀: even the finest step (1/16) is too long: the finest level.
  policy.limit_to_closing(0.01);
  BOOST_TEST(policy.level() == 4u);
  // Nothing closing: quiet steps coarsen; a closing in 0.3 h₀ (2h ≤ 0.3 from level 3) stops it at 3.
  double elapsed = 0;
  policy.limit_to_closing(0.3);
  take_steps(policy, elapsed, 4, 0, 0);
  BOOST_TEST(policy.level() == 3u);
}

BOOST_AUTO_TEST_CASE(a_changing_contact_force_is_no_quiet_step)
{
  AdaptiveStepPolicy policy(1.0, 2, 1, 1e-3);
  policy.refine();
  // The same contact; its force grows by 1 %, then holds to 1e-4: only the held force is quiet.
  policy.step_done(0.25, 0.25, {1, 5, 100.0});
  policy.step_done(0.25, 0.5, {1, 5, 101.0});
  BOOST_TEST(policy.level() == 2u);
  policy.step_done(0.25, 0.75, {1, 5, 101.01});
  policy.step_done(0.25, 1.0, {1, 5, 101.0});
  BOOST_TEST(policy.level() == 1u);
}

BOOST_AUTO_TEST_CASE(load_passed_between_contacts_is_no_quiet_step)
{
  AdaptiveStepPolicy policy(1.0, 2, 1, 1e-3);
  policy.refine();
  // Two contacts carrying 60 and 40 of a steady total 100 (norm 72.11), then 70 and 30 (norm
  // 76.16): the total holds, the norm does not; then the split holds.
  policy.step_done(0.25, 0.25, {2, 5, 100.0, std::hypot(60.0, 40.0)});
  policy.step_done(0.25, 0.5, {2, 5, 100.0, std::hypot(70.0, 30.0)});
  BOOST_TEST(policy.level() == 2u);
  policy.step_done(0.25, 0.75, {2, 5, 100.0, std::hypot(70.0, 30.0)});
  BOOST_TEST(policy.level() == 2u); // (quiet, but 0.75 is not on the grid of 0.5)
  policy.step_done(0.25, 1.0, {2, 5, 100.0, std::hypot(70.0, 30.0)});
  BOOST_TEST(policy.level() == 1u);
}

BOOST_AUTO_TEST_CASE(a_step_dissipating_beyond_the_tolerance_halves_the_next)
{
  AdaptiveStepPolicy policy(1.0, 3, 1, 1e-3, 1e-4);
  // In flight at h₀: a step dissipating 2e-4 of the energy scale, then one dissipating 1.5e-4
  // (still too much), then 5e-5 (quiet: back up one level where the grid allows).
  policy.step_done(1.0, 1.0, {0, 0, 0.0, 0.0, 2e-4});
  BOOST_TEST(policy.level() == 1u);
  policy.step_done(0.5, 1.5, {0, 0, 0.0, 0.0, 1.5e-4});
  BOOST_TEST(policy.level() == 2u);
  policy.step_done(0.25, 1.75, {0, 0, 0.0, 0.0, 5e-5});
  BOOST_TEST(policy.level() == 2u); // (1.75 is not on the grid of 0.5)
  policy.step_done(0.25, 2.0, {0, 0, 0.0, 0.0, 5e-5});
  BOOST_TEST(policy.level() == 1u);
  // Without a tolerance the same dissipation is quiet.
  AdaptiveStepPolicy without(1.0, 3, 1, 1e-3);
  without.step_done(1.0, 1.0, {0, 0, 0.0, 0.0, 2e-4});
  BOOST_TEST(without.level() == 0u);
}
