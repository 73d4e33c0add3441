// Dyadic adaptive time steps (Time integration/Adaptive steps) against the fixed fine step:
//  - Hertz impact of the 3D sphere (hertz_sphere on 2 refinements) with 10 contact times of free
//    flight: from h₀ = 16 × the fine step, contact time and peak force within 1 % of the fixed fine
//    step's, with at least 5 × fewer steps; the steps of the impact are the fine step's;
//  - the impacting bar (1D, Courant number 1): E_end/E_0 as with the fixed step (to 1e-9), the contact
//    duration within a step of h₀ (its steady force lets the steps coarsen while it lasts);
//  - a ball bouncing five times (3D, gravity, e = 0.5): the bounce times within 0.5 % of the fixed
//    fine step's, the energy balance closed at round-off at every step, no step with positive
//    contact work or created energy;
//  - a run resumed from a checkpoint in the middle of a refined stretch equals the uninterrupted one.
#define BOOST_TEST_MODULE adaptive_steps
#include "simulation_helpers.h"
#include "../mpi_test_fixture.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace percussion;

namespace
{
  /// The steel sphere of hertz_sphere (R = 1 cm, 2 refinements) 0.26 mm above the plane at 1 m/s,
  /// to 5.76e-4 s: 0.26 ms of flight before and after a contact of about 52 µs.
  std::string hertz_sphere(const std::string &time_lines)
  {
    return R"(
set Dimension = 3
subsection Mesh
  set Type = ball
  set Center = 0, 0, 0.01026
  set Radius = 0.01
  set Global refinements = 2
  set Ball grading = 0.6
  set Ball grading direction = 0, 0, -1
end
subsection Materials
  set Young's modulus = 210e9
  set Poisson's ratio = 0.3
  set Density = 7800
end
subsection Initial conditions
  set Velocity = 0; 0; -1
end
subsection Time integration
  set Theta = 0.5
  set End time = 5.76e-4
)" + time_lines + R"(end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.001
  subsection Pair 1
    set Type = plane
    set Point = 0, 0, 0
    set Normal = 0, 0, 1
    set Slave boundary id = 0
  end
end
)";
  }

  /// What a run's statistics say of its contact: the time with a contact force, the peak force,
  /// the start time of each contact episode, and the number of steps.
  struct ContactFigures
  {
    double contact_time = 0, peak_force = 0;
    std::vector<double> starts;
    std::size_t steps = 0;
  };

  ContactFigures contact_figures(const Postprocess::StatisticsTable &table)
  {
    ContactFigures f;
    const auto force = table.column("contact_normal_force"), h = table.column("time_step"),
               time = table.column("time");
    bool in_contact = false;
    for (std::size_t k = 1; k < force.size(); ++k)
      {
        if (force[k] > 0)
          {
            f.contact_time += h[k];
            if (!in_contact)
              f.starts.push_back(time[k - 1]);
          }
        in_contact = force[k] > 0;
        f.peak_force = std::max(f.peak_force, force[k]);
      }
    f.steps = force.size() - 1;
    return f;
  }
} // namespace

BOOST_AUTO_TEST_CASE(hertz_impact_with_adaptive_steps)
{
  const auto fine = testing::run_simulation<3>(hertz_sphere("  set Time step = 1e-6\n"), "output_adaptive_hertz_fine");
  const auto adaptive = testing::run_simulation<3>(
    hertz_sphere("  set Time step = 16e-6\n  set Adaptive steps = true\n  set Smallest step = 1e-6\n"),
    "output_adaptive_hertz");
  const ContactFigures a = contact_figures(adaptive->statistics()), f = contact_figures(fine->statistics());
  BOOST_TEST_MESSAGE("Hertz: contact time " << a.contact_time << " (fixed " << f.contact_time << "), peak force "
                                            << a.peak_force << " (fixed " << f.peak_force << "), steps " << a.steps
                                            << " (fixed " << f.steps << ")");
  BOOST_TEST(std::abs(a.contact_time / f.contact_time - 1) <= 0.01);
  BOOST_TEST(std::abs(a.peak_force / f.peak_force - 1) <= 0.01);
  BOOST_TEST(5 * a.steps <= f.steps);
  // Every step with a contact force is a fine one.
  const auto force = adaptive->statistics().column("contact_normal_force"),
             h = adaptive->statistics().column("time_step");
  for (std::size_t k = 1; k < force.size(); ++k)
    if (force[k] > 0)
      BOOST_TEST(h[k] == 1e-6);
  BOOST_TEST(adaptive->energy_audit().max_relative_step_residual() <= 1e-10);
}

BOOST_AUTO_TEST_CASE(impacting_bar_with_adaptive_steps)
{
  // The 1D bar of applications/impacting_bar (doc/theory.md reference problem 1: 1 m, 1000 cells,
  // steel, 0.1 m/s) at Courant number 1.
  const double h = 1.9272476e-7;
  const auto fine = testing::run_simulation<1>(testing::impacting_bar_1d_text(1000, h), "output_adaptive_bar_fine");
  const auto adaptive = testing::run_simulation<1>(
    testing::impacting_bar_1d_text(1000, 16 * h, "  set Theta = 0.5\n  set Adaptive steps = true\n"),
    "output_adaptive_bar");
  const ContactFigures a = contact_figures(adaptive->statistics()), f = contact_figures(fine->statistics());
  const double ratio_a = adaptive->energy_audit().total_energy() / adaptive->energy_audit().initial_energy(),
               ratio_f = fine->energy_audit().total_energy() / fine->energy_audit().initial_energy();
  BOOST_TEST_MESSAGE("bar: contact time " << a.contact_time << " (fixed " << f.contact_time << "), E_end/E_0 "
                                          << ratio_a << " (fixed " << ratio_f << "), steps " << a.steps << " (fixed "
                                          << f.steps << ")");
  // The contact's force is steady (the plateau of the wave) for 2L/c = 2000 fine steps: its steps
  // coarsen to h₀, and its end is taken at a step of h₀ (measured 3.28e-6 s = h₀ + h later, 0.85 %);
  // the energy is that of the fixed step (measured to 5e-12).
  BOOST_TEST(std::abs(a.contact_time - f.contact_time) <= 16 * h + 1.5 * h);
  BOOST_TEST(std::abs(ratio_a - ratio_f) <= 1e-9);
  BOOST_TEST(5 * a.steps <= f.steps);
}

namespace
{
  /// A soft ball (R = 1 cm, E = 1e7 Pa) dropped from 1 cm onto a plane with e = 0.5, gravity, to 0.42 s:
  /// five bounces. (The ball's rebound comes from its elasticity: e acts on each landing node's
  /// normal velocity, and the ball leaves the plane with 96 % of its impact speed.)
  std::string bouncing_ball(const std::string &time_lines)
  {
    return R"(
set Dimension = 3
subsection Mesh
  set Type = ball
  set Center = 0, 0, 0.02
  set Radius = 0.01
  set Global refinements = 1
end
subsection Materials
  set Young's modulus = 1e7
  set Poisson's ratio = 0.3
  set Density = 1000
end
subsection Loads
  set Gravity = 0, 0, -9.81
end
subsection Time integration
  set End time = 0.42
)" + time_lines + R"(end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.02
  subsection Pair 1
    set Type = plane
    set Point = 0, 0, 0
    set Normal = 0, 0, 1
    set Slave boundary id = 0
    set Restitution coefficient = 0.5
  end
end
)";
  }
} // namespace

BOOST_AUTO_TEST_CASE(ball_bouncing_five_times_with_adaptive_steps)
{
  const auto fine = testing::run_simulation<3>(bouncing_ball("  set Time step = 2.5e-5\n"), "output_adaptive_ball_fine");
  const auto adaptive = testing::run_simulation<3>(
    bouncing_ball("  set Time step = 4e-4\n  set Adaptive steps = true\n"), "output_adaptive_ball");
  const ContactFigures a = contact_figures(adaptive->statistics()), f = contact_figures(fine->statistics());
  BOOST_TEST_MESSAGE("bouncing ball: " << a.starts.size() << " bounces (fixed " << f.starts.size() << "), steps "
                                       << a.steps << " (fixed " << f.steps << ")");
  BOOST_REQUIRE(f.starts.size() >= 5);
  BOOST_REQUIRE(a.starts.size() >= 5);
  for (std::size_t i = 0; i < 5; ++i)
    {
      BOOST_TEST_MESSAGE("  bounce " << i + 1 << " at " << a.starts[i] << " s (fixed " << f.starts[i] << " s)");
      BOOST_TEST(std::abs(a.starts[i] / f.starts[i] - 1) <= 0.005);
    }
  BOOST_TEST(adaptive->energy_audit().max_relative_step_residual() <= 1e-10);
  const auto positive = adaptive->statistics().column("contact_positive_work_count");
  BOOST_TEST(*std::max_element(positive.begin(), positive.end()) == 0.0);
  std::ifstream events("output_adaptive_ball/events.csv");
  const std::string text((std::istreambuf_iterator<char>(events)), std::istreambuf_iterator<char>());
  BOOST_TEST(text.find("energy_created") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(resumed_in_a_refined_stretch_equals_the_uninterrupted_run)
{
  // Step 40 of the adaptive Hertz run lies in the impact, at the finest level: the checkpoint keeps
  // the level, the quiet-step count and the last step's contacts.
  const std::string text =
    hertz_sphere("  set Time step = 16e-6\n  set Adaptive steps = true\n  set Smallest step = 1e-6\n") + R"(
subsection Output
  set Checkpoint interval = 40
  set Checkpoints kept = 5
end
)";
  const auto whole = testing::run_simulation<3>(text, "output_adaptive_whole");
  const auto h = whole->statistics().column("time_step");
  BOOST_REQUIRE(h.size() > 41);
  BOOST_TEST(h[40] == 1e-6);
  if (dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
    std::filesystem::remove_all("output_adaptive_resumed");
  MPI_Barrier(MPI_COMM_WORLD);
  const RunParameters parameters = RunParameters::from_string(testing::with_quiet_output(text, "output_adaptive_resumed"));
  std::ostringstream log;
  Simulator<3> resumed(parameters, MPI_COMM_WORLD, log);
  resumed.resume_from("output_adaptive_whole/checkpoints/step-0000000040");
  resumed.run();
  // The same steps: on one rank to the last digit; on two, where MUMPS's parallel solves are not
  // bitwise reproducible, to 1e-10 of the energy.
  const bool serial = dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) == 1;
  // (The resumed table holds the rows from the checkpoint on, or all: its rows end as the whole run's.)
  const auto h_resumed = resumed.statistics().column("time_step");
  BOOST_REQUIRE(h_resumed.size() <= h.size());
  BOOST_TEST(std::equal(h_resumed.rbegin(), h_resumed.rend(), h.rbegin()));
  const double scale = whole->energy_audit().initial_energy();
  for (const std::string name : {"kinetic_energy", "strain_energy", "contact_work_normal", "time"})
    {
      const double a = resumed.statistics().column(name).back(), b = whole->statistics().column(name).back();
      if (serial)
        BOOST_TEST(a == b, name);
      else
        BOOST_TEST(std::abs(a - b) <= 1e-10 * scale, name << ": " << a << " vs " << b);
    }
}
