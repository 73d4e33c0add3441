// Requirements: the Moreau–Jean contact schemes reproduce the exact / published values of
// doc/theory.md, reference problems — the impacting bar (1), the clamped bar with a contact end (2), the sliding
// block with Coulomb friction (5) — and the Frémond scheme's energy audit shows no energy created
// by contact, in 3D with several bodies, friction and impact (paper Proposition 1).
#define BOOST_TEST_MODULE contact_dynamics
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/mapping_q1.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using percussion::testing::bouncing_ball_text;
using percussion::testing::ImpactFigures;
using percussion::testing::impacting_bar_1d_text;
using percussion::testing::mean_component;
using percussion::testing::mean_velocity;
using percussion::testing::measure_impact;
using percussion::testing::run_simulation;
using percussion::testing::sliding_block_text;

namespace
{
  std::string impacting_bar(const unsigned int elements, const double h)
  {
    std::ostringstream text;
    text.precision(17);
    text << R"(
set Dimension = 3
subsection Mesh
  set Type = bar
  set Length = 1
  set Width = 0.017720045
  set Subdivisions = )"
         << elements << R"(
end
subsection Materials
  set Young's modulus = 210e9
  set Poisson's ratio = 0
  set Density = 7800
end
subsection Initial conditions
  set Velocity = -0.1; 0; 0
end
subsection Time integration
  set Theta = 0.5
  set Time step = )"
         << h << R"(
  set End time = 1.5e-3
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 1e-3
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = -5e-5, 0, 0
    set Normal = 1, 0, 0
  end
end
)";
    return text.str();
  }
} // namespace

// doc/theory.md reference problem 1: contact starts at g0/|v0| = 5e-4 s, lasts 2L/c = 3.8545e-4 s with the wall
// force ρc|v0|S = 1270.8 N; the bar leaves with +|v0|. Errors shrink under refinement in h and x.
BOOST_AUTO_TEST_CASE(impacting_bar_3d)
{
  const double c = std::sqrt(210e9 / 7800), exact_duration = 2 / c;
  const double exact_force = 7800 * c * 0.1 * 0.017720045 * 0.017720045;
  const ImpactFigures coarse = measure_impact(impacting_bar(100, 2e-6), 2e-6);
  const ImpactFigures fine = measure_impact(impacting_bar(200, 1e-6), 1e-6);
  for (const auto &[f, h] : {std::pair{coarse, 2e-6}, std::pair{fine, 1e-6}})
    {
      BOOST_TEST_MESSAGE("h = " << h << ": start " << f.start << ", duration " << f.duration << " (exact "
                                << exact_duration << "), mean force " << f.mean_force << " (exact " << exact_force
                                << "), rebound " << f.rebound_velocity << ", E_end/E_0 " << f.energy_ratio);
      BOOST_TEST(std::abs(f.start - 5e-4) <= 1.01 * h);
      BOOST_TEST(std::abs(f.duration - exact_duration) <= 0.015 * exact_duration);
      BOOST_TEST(std::abs(f.mean_force - exact_force) <= 0.005 * exact_force);
      // e = 0 and a consistent mass: the contact node's momentum is lost at impact (doc/theory.md reference problem 1),
      // so the rebound converges to |v0| from below under refinement (checked after the loop).
      BOOST_TEST(std::abs(f.rebound_velocity - 0.1) <= 0.02 * 0.1);
      BOOST_TEST(f.energy_ratio > 0.99);
      BOOST_TEST(f.energy_ratio < 1.0);
    }
  BOOST_TEST(std::abs(fine.duration - exact_duration) < std::abs(coarse.duration - exact_duration));
  BOOST_TEST(std::abs(fine.rebound_velocity - 0.1) < std::abs(coarse.rebound_velocity - 0.1));
  BOOST_TEST(fine.energy_ratio > coarse.energy_ratio); // the contact node's lost energy shrinks
}

// doc/theory.md reference problem 1 in 1D, and the accuracy targets of the product at 1000 elements with
// h = L/(N c): E_end/E_0 ≥ 0.9994 and contact-duration error ≤ 0.15 % (the Moreau–Jean θ = ½
// reference).
BOOST_AUTO_TEST_CASE(impacting_bar_1d)
{
  const double c = std::sqrt(210e9 / 7800), exact_duration = 2 / c, exact_force = 7800 * c * 0.1 * 3.14e-4;
  const double h100 = 2e-6, h200 = 1e-6, h1000 = 1 / (1000 * c);
  const ImpactFigures coarse = measure_impact<1>(impacting_bar_1d_text(100, h100), h100);
  const ImpactFigures fine = measure_impact<1>(impacting_bar_1d_text(200, h200), h200);
  const ImpactFigures target = measure_impact<1>(impacting_bar_1d_text(1000, h1000), h1000);
  for (const auto &[f, h] : {std::pair{coarse, h100}, std::pair{fine, h200}, std::pair{target, h1000}})
    {
      BOOST_TEST_MESSAGE("1D, h = " << h << ": start " << f.start << ", duration " << f.duration << " (exact "
                                    << exact_duration << "), force " << f.mean_force << " (exact " << exact_force
                                    << "), rebound " << f.rebound_velocity << ", E_end/E_0 " << f.energy_ratio);
      BOOST_TEST(std::abs(f.start - 5e-4) <= 1.01 * h);
      BOOST_TEST(std::abs(f.mean_force - exact_force) <= 0.005 * exact_force);
      BOOST_TEST(std::abs(f.rebound_velocity - 0.1) <= 0.02 * 0.1);
    }
  BOOST_TEST(std::abs(fine.duration - exact_duration) < std::abs(coarse.duration - exact_duration));
  // Durations are whole numbers of steps: 2L/c is 2000 steps here, and 0.15 % of it is 3 steps.
  const double contact_steps = std::round(target.duration / h1000), exact_steps = exact_duration / h1000;
  BOOST_TEST_MESSAGE("1000 elements: " << contact_steps << " contact steps, exact " << exact_steps);
  BOOST_TEST(std::abs(contact_steps - exact_steps) <= 0.0015 * exact_steps + 1e-9);
  BOOST_TEST(target.energy_ratio >= 0.9994);
  BOOST_TEST(target.energy_ratio < 1.0);
}

// doc/theory.md reference problem 5: a block sliding on a flat floor with speed v0 stops after v0²/(2μg) at time
// v0/(μg), and its sliding velocity is exactly zero afterwards (no creep). The block is elastic but
// stiff, and θ = 1 (in the Frémond range for e = 0) damps its unresolved internal vibrations, so
// it behaves as the rigid block of the benchmark.
BOOST_AUTO_TEST_CASE(sliding_block_stops_at_the_coulomb_distance)
{
  const double v0 = 1, mu = 0.5, g = 9.81;
  const double exact_distance = v0 * v0 / (2 * mu * g), exact_time = v0 / (mu * g);
  const std::string text = sliding_block_text("  set Theta = 1\n");
  std::vector<double> times, positions, velocities, sliding, contact_slip;
  std::vector<std::vector<double>> bottom_x;
  const percussion::RunParameters parameters =
    percussion::RunParameters::from_string(percussion::testing::with_quiet_output(text, "sliding_block"));
  std::ostringstream log;
  percussion::Simulator<2> simulator(parameters, MPI_COMM_WORLD, log);
  simulator.set_step_observer([&](const percussion::Simulator<2> &s) {
    times.push_back(s.integrator().time());
    positions.push_back(mean_component(s, s.integrator().displacement(), 0));
    velocities.push_back(mean_velocity(s, 0));
    sliding.push_back(s.statistics().column("contact_sliding").back());
    // The contact nodes' tangential velocity u_{T,k+θ} (the law's sliding velocity) and position.
    double slip = 0;
    const auto &result = s.last_contact_result();
    for (std::size_t i = 0; i < result.state.size(); ++i)
      if (result.state[i] != percussion::ContactStep::ContactState::open)
        slip = std::max(slip, std::abs(result.velocity[2 * i + 1]));
    contact_slip.push_back(dealii::Utilities::MPI::max(slip, MPI_COMM_WORLD));
    std::vector<double> x;
    for (const auto &point : s.contact_geometry()->owned_points())
      x.push_back(point.position[0]);
    bottom_x.push_back(x);
  });
  simulator.run();

  // The block stops when its momentum vanishes; from then on, after at most a few steps in which
  // the last corner settles, no contact slides any more.
  std::size_t stop = 0;
  while (stop < velocities.size() && velocities[stop] > 1e-8 * v0)
    ++stop;
  BOOST_REQUIRE(stop + 10 < velocities.size());
  std::size_t stuck = sliding.size();
  while (stuck > 0 && sliding[stuck - 1] == 0)
    --stuck;
  BOOST_TEST(stuck <= stop + 5);
  BOOST_TEST_MESSAGE("stopped at t = " << times[stop] << " (exact " << exact_time << ") after " << positions[stop]
                                       << " (exact " << exact_distance << ")");
  BOOST_TEST(std::abs(times[stop] - exact_time) <= 0.01 * exact_time + 1e-3);
  BOOST_TEST(std::abs(positions[stop] - exact_distance) <= 0.01 * exact_distance);
  // Afterwards the contact nodes stick: their sliding velocity u_{T,k+θ} is zero to the contact
  // solver's tolerance, so they do not creep (their positions stay put to round-off).
  for (std::size_t k = stuck; k < sliding.size(); ++k)
    {
      // the body's mean velocity is only its decaying elastic vibration (the stick/slip
      // classification, relative to the solver tolerance, says "stick" from the step the block
      // stops, when the body still rings at ~1e-5 v0 for two steps); the contacts do not slide
      if (k >= stuck + 3)
        BOOST_TEST(std::abs(velocities[k]) <= 1e-6 * v0);
      BOOST_TEST(contact_slip[k] <= 1e-9 * v0);
      for (std::size_t i = 0; i < bottom_x[k].size() && i < bottom_x[stuck].size(); ++i)
        BOOST_TEST(std::abs(bottom_x[k][i] - bottom_x[stuck][i]) <= 1e-9 * exact_distance);
    }
  BOOST_TEST(simulator.energy_audit().contact_work_tangential() < 0);
  // Round-off of K q and ½qᵀKq for a stiff body carried 0.1 m: ε‖K‖‖q‖² ≈ 1e-9 J of 2.5 J.
  BOOST_TEST(simulator.energy_audit().max_relative_step_residual() <= 1e-8);
}

// doc/theory.md reference problem 6 (paper §2.3, (62), Kane's example as an FE analogue): a stiff slender bar tilted
// at 135°, its lowest corner just above the floor (translation 0.0364 m: with the earlier 0.001 m
// the other corner of the end face started 34 mm inside the floor), falling and sliding onto a
// floor with e = 1 and small friction. With the standard
// scheme the sliding direction reverses within the impact step and the audit reports positive
// tangential contact work (the term (1−θ)u_{T,k}ᵀp_T of (62) has no sign); with the Frémond scheme
// every step's contact work is ≤ 0 (eq. (80)). The test asserts both signs.
BOOST_AUTO_TEST_CASE(standard_scheme_creates_energy_where_fremond_does_not)
{
  auto kane = [](const std::string &scheme) {
    return R"(
set Dimension = 2
subsection Mesh
  set Type = bar
  set Length = 1
  set Width = 0.05
  set Subdivisions = 20
  set Rotation angle = 135
  set Translation = 0, 0.036355339059327
end
subsection Materials
  set Young's modulus = 1e10
  set Poisson's ratio = 0.3
  set Density = 1000
end
subsection Loads
  set Gravity = 0, -10
end
# The contact laws' works compared in the paper's setting (the bar's own rotation stays below
# 0.05 rad within the run); with large rotations the frames that would raise the strain energy
# are not taken (doc/theory.md) and the standard law's positive tangential work comes later.
subsection Kinematics
  set Formulation = small displacements
  set Rotation warning angle = 3.14
end
subsection Initial conditions
  set Velocity = -0.5; -1
end
subsection Time integration
  set Scheme = )" +
           scheme + R"(
  set Theta = 0.5
  set Time step = 1e-3
  set End time = 0.1
  # (The standard scheme creates energy here by design: the audit's flags are what is tested.)
  set Energy creation tolerance = 1
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.05
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = 0, 0
    set Normal = 0, 1
    set Friction coefficient = 0.1
    set Restitution coefficient = 1
  end
end
)";
  };
  auto largest_step_work = [](const percussion::Postprocess::StatisticsTable &table, const std::string &column) {
    const auto w = table.column(column);
    double largest = -1e300;
    for (std::size_t k = 1; k < w.size(); ++k)
      largest = std::max(largest, w[k] - w[k - 1]);
    return largest;
  };
  const auto standard = run_simulation<2>(kane("Moreau-Jean standard"), "kane_standard");
  const auto fremond = run_simulation<2>(kane("Moreau-Jean Fremond"), "kane_fremond");
  const double scale = standard->energy_audit().initial_energy();
  const double standard_tangential = largest_step_work(standard->statistics(), "contact_work_tangential");
  const double fremond_tangential = largest_step_work(fremond->statistics(), "contact_work_tangential");
  const double fremond_normal = largest_step_work(fremond->statistics(), "contact_work_normal");
  BOOST_TEST_MESSAGE("largest tangential contact work in a step: standard "
                     << standard_tangential << ", Fremond " << fremond_tangential << " (E_0 = " << scale << ")");
  BOOST_TEST(standard_tangential > 1e-6 * scale);  // energy created by friction at the impact
  BOOST_TEST(fremond_tangential <= 1e-12 * scale); // never with the Frémond law
  BOOST_TEST(fremond_normal <= 1e-12 * scale);
  double standard_positive = 0, fremond_positive = 0;
  for (const double x : standard->statistics().column("contact_positive_work_count"))
    standard_positive += x;
  for (const double x : fremond->statistics().column("contact_positive_work_count"))
    fremond_positive += x;
  BOOST_TEST(standard_positive > 0); // the audit flags it
  // ... and events.csv has one positive_contact_work event per such step (the statistics column
  // `events` counts them; the only other event of these runs is a position projection), the
  // Frémond run none.
  auto steps_with = [](const percussion::Postprocess::StatisticsTable &table, const std::string &column) {
    double steps = 0;
    for (const double x : table.column(column))
      steps += x > 0 ? 1 : 0;
    return steps;
  };
  const double standard_steps = steps_with(standard->statistics(), "contact_positive_work_count");
  BOOST_TEST(standard->statistics().column("events").back() ==
             standard_steps + steps_with(standard->statistics(), "contact_projected"));
  BOOST_TEST(fremond->statistics().column("events").back() == steps_with(fremond->statistics(), "contact_projected"));
  BOOST_TEST(fremond_positive == 0);
  // Round-off of K q for a very stiff bar (E = 1e10) carried along: ε‖K‖‖q‖²/E ≈ 1e-9.
  for (const auto *s : {standard.get(), fremond.get()})
    BOOST_TEST(s->energy_audit().max_relative_step_residual() <= 1e-8);
}

// doc/theory.md reference problem 2 (Renard–Chouly): E = ρ = 1, clamped at x = 1, u(0,t) ≥ 0, u0 = ½ − x/2, v0 = 0.
// Exact, with period 3: u(0,t) = ½ − t/2 on [0,1], contact with stress ½ on [1,2], (t−2)/2 on
// [2,3]; energy 1/8 per unit area. A plane-strain bar with ν = 0 is the 1D bar.
namespace
{
  struct ClampedBarFigures
  {
    double first_start, first_end, second_start, second_end, stress, u_max_error, u_rms_error, energy_ratio;
  };

  ClampedBarFigures clamped_bar(const unsigned int elements, const double h)
  {
    const double width = 0.02;
    std::ostringstream text;
    text << R"(
set Dimension = 2
subsection Mesh
  set Type = bar
  set Length = 1
  set Width = 0.02
  set Subdivisions = )"
         << elements << R"(
end
subsection Materials
  set Young's modulus = 1
  set Poisson's ratio = 0
  set Density = 1
end
subsection Boundary conditions
  set Fixed boundary ids = 1
end
subsection Initial conditions
  set Displacement = 0.5 - x/2; 0
end
subsection Time integration
  set Theta = 0.5
  set Time step = )"
         << h << R"(
  set End time = 6
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 1
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = 0, 0
    set Normal = 1, 0
  end
end
)";
    auto exact_end = [](const double t) {
      const double tau = std::fmod(t, 3.0);
      return tau <= 1 ? 0.5 - tau / 2 : tau <= 2 ? 0.0 : (tau - 2) / 2;
    };
    ClampedBarFigures f{};
    double sum_squares = 0;
    unsigned int samples = 0;
    const percussion::RunParameters parameters =
      percussion::RunParameters::from_string(percussion::testing::with_quiet_output(text.str(), "clamped_bar"));
    std::ostringstream log;
    percussion::Simulator<2> simulator(parameters, MPI_COMM_WORLD, log);
    simulator.set_step_observer([&](const percussion::Simulator<2> &s) {
      // The end's displacement is the x position of its nodes (X = 0); they move together (ν = 0).
      double local = 0;
      for (const auto &point : s.contact_geometry()->owned_points())
        local = std::max(local, std::abs(point.position[0] - exact_end(s.integrator().time())));
      const double error = dealii::Utilities::MPI::max(local, MPI_COMM_WORLD);
      f.u_max_error = std::max(f.u_max_error, error);
      sum_squares += error * error;
      ++samples;
    });
    simulator.run();
    f.u_rms_error = std::sqrt(sum_squares / samples);
    const auto &table = simulator.statistics();
    const auto t = table.column("time"), force = table.column("contact_normal_force");
    std::vector<double> contact_times, stresses;
    for (std::size_t k = 0; k < t.size(); ++k)
      if (force[k] > 0)
        {
          contact_times.push_back(t[k]);
          stresses.push_back(force[k] / width);
        }
    BOOST_REQUIRE(!contact_times.empty());
    std::sort(stresses.begin(), stresses.end());
    f.stress = stresses[stresses.size() / 2];
    f.first_start = contact_times.front();
    f.second_end = contact_times.back();
    for (std::size_t i = 1; i < contact_times.size(); ++i)
      if (contact_times[i] - contact_times[i - 1] > 1.5 * h)
        {
          f.first_end = contact_times[i - 1];
          f.second_start = contact_times[i];
        }
    f.energy_ratio = table.column("total_energy").back() / (width / 8);
    BOOST_TEST(std::abs(table.column("total_energy").front() / (width / 8) - 1) <= 1e-3);
    return f;
  }
} // namespace

BOOST_AUTO_TEST_CASE(clamped_bar_with_a_contact_end)
{
  const ClampedBarFigures coarse = clamped_bar(100, 0.01), fine = clamped_bar(200, 0.005);
  for (const auto &[f, h] : {std::pair{coarse, 0.01}, std::pair{fine, 0.005}})
    {
      BOOST_TEST_MESSAGE("h = " << h << ": contact on [" << f.first_start << ", " << f.first_end << "] and ["
                                << f.second_start << ", " << f.second_end << "], contact stress " << f.stress
                                << ", u(0,t) error max " << f.u_max_error << " rms " << f.u_rms_error
                                << ", E_end/(1/8) " << f.energy_ratio);
      BOOST_TEST(std::abs(f.first_start - 1) <= 3 * h);
      BOOST_TEST(std::abs(f.first_end - 2) <= 3 * h);
      BOOST_TEST(std::abs(f.second_start - 4) <= 3 * h);
      BOOST_TEST(std::abs(f.second_end - 5) <= 3 * h);
      BOOST_TEST(std::abs(f.stress - 0.5) <= 0.02 * 0.5);
      // The exact end displacement has kinks; the discrete one overshoots there by a few cells'
      // worth of dispersion (max), while its rms error over two periods is small.
      BOOST_TEST(f.u_max_error <= 0.05);
      BOOST_TEST(f.u_rms_error <= 0.01);
      BOOST_TEST(std::abs(f.energy_ratio - 1) <= 0.02);
    }
  BOOST_TEST(fine.u_rms_error < coarse.u_rms_error);
  BOOST_TEST(std::abs(fine.energy_ratio - 1) < std::abs(coarse.energy_ratio - 1));
}

namespace
{
  struct BouncingBallRun
  {
    std::vector<double> impact_times, apex_heights, late_velocities;
    double final_time = 0;
    unsigned int unsolved = 0;
  };

  /// doc/theory.md reference problem 4 with the point mass of bouncing_ball_text(): impacts, apexes, late velocities.
  BouncingBallRun bouncing_ball(const double h, const bool projection = true)
  {
    // θ = 0.52 (inside the Frémond range [½, 1/(1+e)] = [0.5, 0.526]) damps the stiff element's
    // unresolved internal mode, which θ = ½ would keep undamped — a point mass has none.
    std::string text = bouncing_ball_text(h, "  set Theta = 0.52\n");
    if (!projection)
      text += "subsection Contact solver\n  set Position projection = off\nend\n";
    const percussion::RunParameters parameters =
      percussion::RunParameters::from_string(percussion::testing::with_quiet_output(text, "bouncing_ball"));
    std::ostringstream log;
    percussion::Simulator<1> simulator(parameters, MPI_COMM_WORLD, log);
    BouncingBallRun run;
    double previous_force = 0, apex = 0;
    simulator.set_step_observer([&](const percussion::Simulator<1> &s) {
      const double t = s.integrator().time();
      const double height = 1 + mean_component(s, s.integrator().displacement(), 0);
      const double force = s.statistics().column("contact_normal_force").back();
      apex = std::max(apex, height);
      if (force > 0 && previous_force == 0)
        {
          run.impact_times.push_back(t - h); // the impact lies in (t_{k-1}, t_k]
          if (run.impact_times.size() > 1)
            run.apex_heights.push_back(apex);
          apex = 0;
        }
      previous_force = force;
      if (t > 9.5)
        run.late_velocities.push_back(mean_velocity(s, 0));
    });
    simulator.run();
    run.final_time = simulator.integrator().time();
    for (const double e : simulator.statistics().column("contact_solver_error"))
      run.unsolved += e > 1e-8;
    return run;
  }
} // namespace

// doc/theory.md reference problem 4: impact times 0.45152, 1.26427, 1.99573, 2.65406, 3.24655 s, rebound heights
// 0.81^k, accumulation at t∞ = 8.57895 s. The scheme is first order at impacts: the errors shrink
// linearly with h. Past t∞ the run goes on to T = 10 without stalling, and the mass rests as the
// exact solution does. (With the approach condition of the paper's (55) the velocity-level law
// left a two-step cycle u = −gh/(1+e) → +e gh/(1+e): the contact, separating at +e gh/(1+e), was
// left out for a step. The contact law for a penetrated or resting contact that separates,
// u_{N,k+θ} ≥ 0, holds it at rest: doc/contact.md, "Active set".)
BOOST_AUTO_TEST_CASE(bouncing_ball_passes_the_accumulation_point)
{
  const std::vector<double> exact_times{0.45152, 1.26427, 1.99573, 2.65406, 3.24655};
  const double g = 9.81, e = 0.9;
  const BouncingBallRun coarse = bouncing_ball(0.005), fine = bouncing_ball(0.0025);
  for (const auto &[run, h] : {std::pair{&coarse, 0.005}, std::pair{&fine, 0.0025}})
    {
      BOOST_REQUIRE(run->impact_times.size() > exact_times.size() + 1);
      BOOST_TEST(std::abs(run->final_time - 10) <= 1e-9);
      BOOST_TEST(run->unsolved == 0u);
      for (std::size_t k = 0; k < exact_times.size(); ++k)
        {
          BOOST_TEST_MESSAGE("h = " << h << ": impact " << k + 1 << " at " << run->impact_times[k] << " (exact "
                                    << exact_times[k] << "), then apex " << run->apex_heights[k] << " (exact "
                                    << std::pow(0.81, k + 1) << ")");
          BOOST_TEST(std::abs(run->impact_times[k] - exact_times[k]) <= 5 * h);
          BOOST_TEST(std::abs(run->apex_heights[k] - std::pow(0.81, k + 1)) <= 5 * h);
        }
      // At rest after t = 9.5 > t∞: the mass's mean velocity is below a millionth of the old
      // scheme's rest cycle gh/(1+e).
      const double cycle = g * h / (1 + e);
      double lowest = 0, highest = 0;
      for (const double v : run->late_velocities)
        {
          lowest = std::min(lowest, v);
          highest = std::max(highest, v);
        }
      BOOST_TEST_MESSAGE("h = " << h << ": late velocities in [" << lowest << ", " << highest << "] (rest; the "
                                << "approach condition of (55) gave the cycle " << -cycle << " -> " << e * cycle
                                << ")");
      BOOST_TEST(!run->late_velocities.empty());
      BOOST_TEST(std::abs(lowest) <= 1e-6 * cycle);
      BOOST_TEST(std::abs(highest) <= 1e-6 * cycle);
    }
  // First order: halving h at least nearly halves the accumulated impact-time error of impact 5.
  // Checked without the position projection: with it (the default) the errors at these two steps
  // are 0.0135 and 0.0085 (a ratio 0.63: the projection lifts the mass where the step's gap
  // prediction let it cross the plane in free flight, and its velocity gives up the weight's
  // work over the lift), inside the 5 h above but not yet in the asymptotic range.
  const BouncingBallRun coarse_free = bouncing_ball(0.005, false), fine_free = bouncing_ball(0.0025, false);
  const double coarse_error = std::abs(coarse_free.impact_times[4] - exact_times[4]);
  const double fine_error = std::abs(fine_free.impact_times[4] - exact_times[4]);
  BOOST_TEST_MESSAGE("impact 5 without projection: error " << coarse_error << " (h = 0.005), " << fine_error
                                                           << " (h = 0.0025); with it "
                                                           << std::abs(coarse.impact_times[4] - exact_times[4]) << ", "
                                                           << std::abs(fine.impact_times[4] - exact_times[4]));
  BOOST_TEST(fine_error <= 0.6 * coarse_error);
}

// A 1D bar bouncing between two walls with a search distance so small that its one contact point
// leaves the candidates between impacts: H is rebuilt on steps without any active contact, and the
// second impact (at the other end, a different DoF with the same column index) must use fresh
// Delassus columns. Both impacts last 2L/c with the wall force ρc|v0|S (doc/theory.md reference problem 1), and the
// bar leaves the second wall moving back.
BOOST_AUTO_TEST_CASE(bar_between_two_walls_with_candidates_leaving_between_impacts)
{
  const double c = std::sqrt(210e9 / 7800), h = 2e-6, exact_duration = 2 / c;
  const double exact_force = 7800 * c * 0.1 * 3.14e-4;
  const std::string two_walls = R"(
subsection Contact
  set Number of pairs = 2
  set Search distance = 2e-5
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = -5e-5
    set Normal = 1
  end
  subsection Pair 2
    set Type = plane
    set Slave boundary id = 1
    set Point = 1.00005
    set Normal = -1
  end
end
)";
  const std::string text = impacting_bar_1d_text(100, h, "  set Theta = 0.5\n", 3e-3, two_walls);
  const auto simulator = run_simulation<1>(text, "two_walls");
  const auto &table = simulator->statistics();
  const auto force = table.column("contact_normal_force"), candidates = table.column("contact_candidates");
  std::vector<std::vector<double>> impacts;
  for (std::size_t k = 1; k < force.size(); ++k)
    {
      if (force[k] > 0 && force[k - 1] == 0)
        impacts.emplace_back();
      if (force[k] > 0)
        impacts.back().push_back(force[k]);
    }
  // the contact point left and re-entered the candidates between the impacts
  unsigned int candidate_changes = 0;
  for (std::size_t k = 1; k < candidates.size(); ++k)
    candidate_changes += candidates[k] != candidates[k - 1];
  BOOST_TEST(candidate_changes >= 3u);
  BOOST_REQUIRE_EQUAL(impacts.size(), 2u);
  // The second impact's tolerance is looser: the discrete bar leaves the first wall with the
  // dispersive vibrations of a 100-element mesh (1.4 % of the energy), not as the exact rigid
  // translation. A stale Delassus operator would put the impulse on the other end of the bar.
  for (std::size_t i = 0; i < impacts.size(); ++i)
    {
      auto &forces = impacts[i];
      std::sort(forces.begin(), forces.end());
      const double duration = forces.size() * h, plateau = forces[forces.size() / 2];
      BOOST_TEST_MESSAGE("impact " << i + 1 << ": duration " << duration << " (exact " << exact_duration << "), force "
                                   << plateau << " (exact " << exact_force << ")");
      BOOST_TEST(std::abs(duration - exact_duration) <= 0.03 * exact_duration);
      BOOST_TEST(std::abs(plateau - exact_force) <= (i == 0 ? 0.005 : 0.03) * exact_force);
    }
  BOOST_TEST(mean_velocity(*simulator, 0) < -0.09);
  BOOST_TEST(simulator->energy_audit().max_relative_step_residual() <= 1e-12);
}

// Two equal bars end to end in 1D (Mesh/Type = boxes: "0 : 1; 1.01 : 2.01", E = ρ = S = 1, c = 1,
// 100 elements each, h = Δx/c): the striker at 1 m/s hits the resting bar. Exact (wave solution):
// contact for 2L/c = 2 s, then the striker rests and the struck bar leaves at 1 m/s; the total
// momentum stays 1 (the contact impulses are internal). Each bar's momentum is 1_barᵀ M v (the bars
// share no DoF, so M is block diagonal); the per-body table (Output/Write bodies) reports the same
// masses (1 each), momenta and kinetic energies summing to the total.
BOOST_AUTO_TEST_CASE(two_bars_end_to_end_1d)
{
  const std::string text = R"(
set Dimension = 1
subsection Mesh
  set Type = boxes
  set Boxes = 0 : 1; 1.01 : 2.01
  set Subdivisions = 100
end
subsection Materials
  set Material ids = 0, 1
  set Young's modulus = 1, 1
  set Poisson's ratio = 0, 0
  set Density = 1, 1
end
subsection Initial conditions
  set Velocity = if(x < 1.005, 1, 0)
end
subsection Time integration
  set Theta = 0.5
  set Time step = 0.01
  set End time = 2.5
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.05
  subsection Pair 1
    set Type = body
    set Slave boundary id = 1
    set Master boundary id = 10
  end
end
)";
  const percussion::RunParameters parameters = percussion::RunParameters::from_string(
    percussion::testing::with_quiet_output(text, "two_bars_1d") + "subsection Output\n set Write bodies = true\nend\n");
  std::ostringstream log;
  percussion::Simulator<1> simulator(parameters, MPI_COMM_WORLD, log);
  const auto &body = simulator.body();
  // Indicator of the struck bar's DoFs (support points beyond x = 1.005).
  dealii::PETScWrappers::MPI::Vector struck(body.locally_owned_dofs(), MPI_COMM_WORLD), all(struck), m_struck(struck),
    m_all(struck);
  std::map<dealii::types::global_dof_index, dealii::Point<1>> points;
  dealii::DoFTools::map_dofs_to_support_points(dealii::MappingQ1<1>(), body.get_dof_handler(), points);
  for (const auto i : body.locally_owned_dofs())
    {
      struck(i) = points.at(i)[0] > 1.005 ? 1.0 : 0.0;
      all(i) = 1.0;
    }
  struck.compress(dealii::VectorOperation::insert);
  all.compress(dealii::VectorOperation::insert);
  body.mass_matrix().vmult(m_struck, struck);
  body.mass_matrix().vmult(m_all, all);
  std::vector<double> striker, hit, total;
  simulator.set_step_observer([&](const percussion::Simulator<1> &s) {
    const auto &v = s.integrator().velocity();
    const double p_struck = m_struck * v, p_total = m_all * v;
    hit.push_back(p_struck);
    total.push_back(p_total);
    striker.push_back(p_total - p_struck);
  });
  simulator.run();
  const auto force = simulator.statistics().column("contact_normal_force");
  const double contact_steps = std::count_if(force.begin(), force.end(), [](double f) { return f > 0; });
  BOOST_TEST_MESSAGE("two bars: " << contact_steps << " contact steps (exact 200), striker momentum " << striker.back()
                                  << " (exact 0), struck bar " << hit.back() << " (exact 1)");
  for (const double p : total)
    BOOST_TEST(std::abs(p - 1.0) <= 1e-9);        // momentum: round-off and the contact solver's tolerance
  BOOST_TEST(std::abs(contact_steps - 200) <= 2); // 2L/c within two steps (the scheme's O(h) event error)
  BOOST_TEST(std::abs(striker.back()) <= 0.01);   // the striker rests (1 % of the initial momentum)
  BOOST_TEST(std::abs(hit.back() - 1.0) <= 0.01);
  BOOST_TEST(simulator.energy_audit().max_relative_step_residual() <= 1e-10);

  // The per-body table: rows (step, body 0), (step, body 1) for every step including step 0.
  BOOST_REQUIRE(simulator.body_table() != nullptr);
  const auto &bodies = simulator.body_table()->table_of_rows();
  BOOST_REQUIRE_EQUAL(bodies.n_rows(), 2 * (hit.size() + 1));
  const auto kinetic = simulator.statistics().column("kinetic_energy");
  for (std::size_t k = 0; k < hit.size(); ++k)
    {
      const auto &row0 = bodies.row(2 * (k + 1)), &row1 = bodies.row(2 * (k + 1) + 1);
      BOOST_TEST(row0[2] == 0.0);
      BOOST_TEST(row1[2] == 1.0);
      BOOST_TEST(std::abs(row0[3] - 1.0) <= 1e-12); // mass ρ S L = 1
      BOOST_TEST(std::abs(row1[3] - 1.0) <= 1e-12);
      BOOST_TEST(std::abs(row0[4] - striker[k]) <= 1e-12);
      BOOST_TEST(std::abs(row1[4] - hit[k]) <= 1e-12);
      BOOST_TEST(std::abs(row0[6] + row1[6] - kinetic[k + 1]) <= 1e-12 * kinetic[0]);
    }
}
