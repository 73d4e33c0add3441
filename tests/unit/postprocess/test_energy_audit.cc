// Requirement: the energy audit (Postprocess::EnergyAudit) cumulates the
// per-step terms of the discrete energy balance exactly as documented — the sums of external
// work (with the obstacles' work of the contact reactions booked as external), damping,
// numerical-dissipation, normal and tangential contact works, projection energies and residuals; the current energies
// are the last step's; the flow scale is the largest energy seen in the balance so far (|E| or a cumulated work, the
// two contact parts added); the largest relative step residual is judged against that scale; start() resets everything
// — checked on a few StepEnergy records whose sums are known by hand, without any simulation.
//
// All values are dyadic rationals (multiples of powers of two) of moderate size, so every sum
// the audit forms is exact in binary floating point: the checks are equalities, except the
// quotients residual/scale (one rounding each: 1 ulp, tolerance 1e-15 relative).
#define BOOST_TEST_MODULE postprocess_energy_audit
#include <percussion/postprocess/energy_audit.h>

#include <boost/test/unit_test.hpp>

#include <cmath>

using percussion::Postprocess::ContactWorks;
using percussion::Postprocess::EnergyAudit;
using percussion::TimeIntegration::StepEnergy;

namespace
{
  const double r1 = std::ldexp(1.0, -20), r2 = -std::ldexp(1.0, -18), r3 = std::ldexp(1.0, -16);

  StepEnergy initial_energy()
  {
    StepEnergy e;
    e.kinetic_energy = 3;
    e.strain_energy = 1;
    e.algorithmic_energy = 0.25;
    return e;
  }

  /**
   * A step whose kinetic energy closes its balance with the given residual and projection:
   * E_after − E_before = W_ext + W_damp − D + W_contact + projection + residual
   * (E including the algorithmic energy), where the scheme's contact work
   * W_contact = v_{k+θ}ᵀHp = W_N + W_T + W_obstacle (−wᵀp).
   */
  StepEnergy step(const double energy_before, const double strain, const double algorithmic, const double external,
                  const double damping, const double numerical, const double normal, const double tangential,
                  const double projection, const double residual, const double obstacle = 0)
  {
    StepEnergy e;
    e.strain_energy = strain;
    e.algorithmic_energy = algorithmic;
    e.external_work = external;
    e.damping_work = damping;
    e.numerical_dissipation = numerical;
    e.contact_work = normal + tangential + obstacle;
    e.position_correction = projection;
    e.residual = residual;
    e.kinetic_energy = energy_before + external + damping - numerical + normal + tangential + obstacle + projection +
                       residual - strain - algorithmic;
    return e;
  }
} // namespace

BOOST_AUTO_TEST_CASE(sums_scale_and_residuals_match_the_hand_values)
{
  EnergyAudit audit;
  audit.start(initial_energy());
  BOOST_TEST(audit.initial_energy() == 4.0); // ½vᵀMv + ½qᵀKq, without the algorithmic energy
  BOOST_TEST(audit.total_energy() == 4.0);
  BOOST_TEST(audit.algorithmic_energy() == 0.25);
  BOOST_TEST(audit.flow_scale() == 4.0);
  BOOST_TEST(audit.max_relative_step_residual() == 0.0);

  // Step 1: small works; the scale stays |E_0| = 4.
  const StepEnergy s1 = step(4.25, 1.25, 0.125, 0.5, -0.25, 0.125, -0.5, -0.125, 0.0, r1);
  audit.add_step(s1, ContactWorks{-0.5, -0.125, 0.0});
  BOOST_TEST(audit.kinetic_energy() == 2.375 + r1);
  BOOST_TEST(audit.strain_energy() == 1.25);
  BOOST_TEST(audit.total_energy() == 3.625 + r1);
  BOOST_TEST(audit.flow_scale() == 4.0);
  BOOST_TEST(audit.max_relative_step_residual() == r1 / 4, boost::test_tools::tolerance(1e-15));

  // Step 2: a large external work nearly cancelled by damping, and a moving obstacle whose
  // reactions do 0.5 on the bodies (booked as external work, not contact work): the cumulated
  // external work 0.5 + 8 + 0.5 = 9 becomes the scale (E ≈ 4.4 stays below it); a projection
  // removes 1/16.
  const double E1 = s1.kinetic_energy + s1.strain_energy + s1.algorithmic_energy;
  const StepEnergy s2 = step(E1, 2.0, 0.0625, 8.0, -6.0, 0.25, -1.0, -0.5, -0.0625, r2, 0.5);
  audit.add_step(s2, ContactWorks{-1.0, -0.5, 0.5});
  BOOST_TEST(audit.external_work() == 9.0);
  BOOST_TEST(audit.damping_work() == -6.25);
  BOOST_TEST(audit.numerical_dissipation() == 0.375);
  BOOST_TEST(audit.contact_work_normal() == -1.5);
  BOOST_TEST(audit.contact_work_tangential() == -0.625);
  BOOST_TEST(audit.projection_energy() == -0.0625);
  BOOST_TEST(audit.flow_scale() == 9.0);
  BOOST_TEST(audit.max_relative_step_residual() == std::abs(r2) / 9.0, boost::test_tools::tolerance(1e-15));

  // Step 3: nothing flows (a step without contact), a larger residual: the scale keeps the
  // largest value seen (9), so the relative residual is 2⁻¹⁶/9, not 2⁻¹⁶/E.
  const double E2 = s2.kinetic_energy + s2.strain_energy + s2.algorithmic_energy;
  const StepEnergy s3 = step(E2, 2.0, 0.0625, 0, 0, 0, 0, 0, 0, r3);
  audit.add_step(s3);
  BOOST_TEST(audit.flow_scale() == 9.0);
  BOOST_TEST(audit.max_relative_step_residual() == r3 / 9.0, boost::test_tools::tolerance(1e-15));
  BOOST_TEST(audit.balance_residual() == r1 + r2 + r3);
  BOOST_TEST(audit.kinetic_energy() == s3.kinetic_energy);
  BOOST_TEST(audit.strain_energy() == 2.0);
  BOOST_TEST(audit.algorithmic_energy() == 0.0625);

  // The documented identity: E_k − E_0 + (algorithmic change) = all works + projections + residual.
  const double left = audit.total_energy() + audit.algorithmic_energy() - (audit.initial_energy() + 0.25);
  const double right = audit.external_work() + audit.damping_work() - audit.numerical_dissipation() +
                       audit.contact_work_normal() + audit.contact_work_tangential() + audit.projection_energy() +
                       audit.balance_residual();
  BOOST_TEST(left == right);

  // start() begins a new audit: every sum is reset.
  audit.start(initial_energy());
  BOOST_TEST(audit.external_work() == 0.0);
  BOOST_TEST(audit.damping_work() == 0.0);
  BOOST_TEST(audit.numerical_dissipation() == 0.0);
  BOOST_TEST(audit.contact_work_normal() == 0.0);
  BOOST_TEST(audit.contact_work_tangential() == 0.0);
  BOOST_TEST(audit.projection_energy() == 0.0);
  BOOST_TEST(audit.balance_residual() == 0.0);
  BOOST_TEST(audit.max_relative_step_residual() == 0.0);
  BOOST_TEST(audit.flow_scale() == 4.0);
}

BOOST_AUTO_TEST_CASE(contact_parts_add_to_the_scale_and_a_zero_system_gives_no_nan)
{
  // The contact works enter the scale as |W_N| + |W_T| (a dissipating normal part and a
  // tangential part of any sign): with E = 1 and W_N = −2, W_T = 1.5 the scale is 3.5.
  EnergyAudit audit;
  StepEnergy start;
  start.kinetic_energy = 1;
  audit.start(start);
  const StepEnergy s = step(1.0, 0.0, 0.0, 1.5, 0, 0, -2.0, 1.5, 0, r1);
  audit.add_step(s, ContactWorks{-2.0, 1.5, 0.0});
  BOOST_TEST(audit.total_energy() == 2.0 + r1);
  BOOST_TEST(audit.flow_scale() == 3.5);
  BOOST_TEST(audit.max_relative_step_residual() == r1 / 3.5, boost::test_tools::tolerance(1e-15));

  // A system at rest with nothing flowing: scale 0, the relative residual stays 0 (no 0/0).
  EnergyAudit rest;
  rest.start(StepEnergy());
  rest.add_step(StepEnergy());
  BOOST_TEST(rest.flow_scale() == 0.0);
  BOOST_TEST(rest.max_relative_step_residual() == 0.0);
  BOOST_TEST(rest.balance_residual() == 0.0);
}
