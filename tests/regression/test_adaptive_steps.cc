// Dyadic adaptive time steps (Time integration/Adaptive steps) against the fixed fine step:
//  - Hertz impact of the 3D sphere (hertz_sphere on 2 refinements) with 10 contact times of free
//    flight: from h₀ = 16 × the fine step, contact time and peak force within 1 % of the fixed fine
//    step's, with at least 5 × fewer steps; the steps of the impact are the fine step's;
//  - the same for a steel cylinder in 2D (plane strain), with 10 contact times of free flight;
//  - the impacting bar (1D, Courant number 1): E_end/E_0 as with the fixed step (to 1e-9), the contact
//    duration within a step of h₀ (its steady force lets the steps coarsen while it lasts);
//  - a ball bouncing five times (3D, gravity, e = 0.5): the bounce times within 0.5 % of the fixed
//    fine step's, the energy balance closed at round-off at every step, no step with positive
//    contact work or created energy;
//  - with 'Dissipation tolerance' (the error indicator) a step dissipating beyond it is followed by
//    a finer one, and the bounces stay within 0.5 %;
//  - a run resumed from a checkpoint in the middle of a refined stretch equals the uninterrupted one,
//    and with 'VTU time interval' both write their ParaView records at the same fixed times.
#define BOOST_TEST_MODULE adaptive_steps
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
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
)" + time_lines +
           R"(end
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
    const auto force = table.column("contact_normal_force"), h = table.column("time_step"), time = table.column("time");
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

  /// The times of the records a .pvd file lists (its `timestep` attributes).
  std::vector<double> pvd_times(const std::string &file_name)
  {
    std::ifstream in(file_name);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<double> times;
    const std::string key = "timestep=\"";
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1))
      times.push_back(std::stod(text.substr(at + key.size())));
    return times;
  }
} // namespace

BOOST_AUTO_TEST_CASE(hertz_impact_with_adaptive_steps)
{
  const auto fine = testing::run_simulation<3>(hertz_sphere("  set Time step = 1e-6\n"), "output_adaptive_hertz_fine");
  const auto adaptive =
    testing::run_simulation<3>(hertz_sphere(
                                 "  set Time step = 16e-6\n  set Adaptive steps = true\n  set Smallest step = 1e-6\n"),
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
  // The five step sizes' factors are all kept, each the size of the fixed run's one (the same
  // pattern; MUMPS' figure in whole megabytes, hence the margin of one in each).
  std::set<double> sizes(h.begin() + 1, h.end());
  const double one = fine->integrator().factors_memory_mib();
  BOOST_TEST_MESSAGE("factors kept: " << adaptive->integrator().factors_memory_mib() << " MiB for " << sizes.size()
                                      << " step sizes; one: " << one << " MiB");
  BOOST_TEST(sizes.size() == 5u);
  BOOST_TEST(one > 0);
  BOOST_TEST(std::abs(adaptive->integrator().factors_memory_mib() - 5 * one) <= 5 * 1e6 / (1024.0 * 1024.0));
}

namespace
{
  /// A steel cylinder (plane strain, R = 1 cm, 3 refinements of the disk) 75 µm above the plane at
  /// 1 m/s, to 168 µs: 75 µs of flight before and after a contact of 15 µs.
  std::string hertz_cylinder(const std::string &time_lines)
  {
    return R"(
set Dimension = 2
subsection Mesh
  set Type = ball
  set Center = 0, 0.010075
  set Radius = 0.01
  set Global refinements = 3
end
subsection Materials
  set Young's modulus = 210e9
  set Poisson's ratio = 0.3
  set Density = 7800
end
subsection Initial conditions
  set Velocity = 0; -1
end
subsection Time integration
  set Theta = 0.5
  set End time = 1.68e-4
)" + time_lines +
           R"(end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.001
  subsection Pair 1
    set Type = plane
    set Point = 0, 0
    set Normal = 0, 1
    set Slave boundary id = 0
  end
end
)";
  }
} // namespace

BOOST_AUTO_TEST_CASE(hertz_cylinder_impact_with_adaptive_steps)
{
  const auto fine =
    testing::run_simulation<2>(hertz_cylinder("  set Time step = 5e-7\n"), "output_adaptive_cylinder_fine");
  const auto adaptive =
    testing::run_simulation<2>(hertz_cylinder(
                                 "  set Time step = 8e-6\n  set Adaptive steps = true\n  set Smallest step = 5e-7\n"),
                               "output_adaptive_cylinder");
  const ContactFigures a = contact_figures(adaptive->statistics()), f = contact_figures(fine->statistics());
  BOOST_TEST_MESSAGE("cylinder: contact time " << a.contact_time << " (fixed " << f.contact_time << "), peak force "
                                               << a.peak_force << " (fixed " << f.peak_force << "), steps " << a.steps
                                               << " (fixed " << f.steps << ")");
  BOOST_TEST(std::abs(a.contact_time / f.contact_time - 1) <= 0.01);
  BOOST_TEST(std::abs(a.peak_force / f.peak_force - 1) <= 0.01);
  BOOST_TEST(5 * a.steps <= f.steps);
  BOOST_TEST(adaptive->energy_audit().max_relative_step_residual() <= 1e-10);
}

BOOST_AUTO_TEST_CASE(impacting_bar_with_adaptive_steps)
{
  // The 1D bar of applications/impacting_bar (doc/theory.md reference problem 1: 1 m, 1000 cells,
  // steel, 0.1 m/s) at Courant number 1.
  const double h = 1.9272476e-7;
  const auto fine = testing::run_simulation<1>(testing::impacting_bar_1d_text(1000, h), "output_adaptive_bar_fine");
  const auto adaptive =
    testing::run_simulation<1>(testing::impacting_bar_1d_text(1000, 16 * h,
                                                              "  set Theta = 0.5\n  set Adaptive steps = true\n"),
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
)" + time_lines +
           R"(end
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
  const auto fine =
    testing::run_simulation<3>(bouncing_ball("  set Time step = 2.5e-5\n"), "output_adaptive_ball_fine");
  const auto adaptive =
    testing::run_simulation<3>(bouncing_ball("  set Time step = 4e-4\n  set Adaptive steps = true\n"),
                               "output_adaptive_ball");
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

BOOST_AUTO_TEST_CASE(dissipation_tolerance_refines_after_a_dissipating_step)
{
  // θ = 0.55 (the default with e = 0.5) dissipates where the step does not resolve the ball's
  // vibration after each bounce. With 'Dissipation tolerance' = 1e-5 each step that dissipated more
  // than that share of the energy scale is followed by a finer one (or stays at the finest).
  const double tolerance = 1e-5;
  const auto fine = testing::run_simulation<3>(bouncing_ball("  set Time step = 2.5e-5\n"), "output_indicator_fine");
  const auto adaptive = testing::run_simulation<
    3>(bouncing_ball("  set Time step = 4e-4\n  set Adaptive steps = true\n  set Dissipation tolerance = 1e-5\n"),
       "output_indicator_ball");
  const auto &table = adaptive->statistics();
  const auto h = table.column("time_step"), dissipation = table.column("numerical_dissipation");
  // (The energy scale only grows, with the work of gravity: the scale at the end bounds each step's.)
  const double scale = adaptive->energy_audit().guard_scale();
  unsigned int flagged = 0;
  for (std::size_t k = 1; k + 1 < h.size(); ++k)
    if (dissipation[k] - dissipation[k - 1] > tolerance * scale)
      {
        ++flagged;
        BOOST_TEST((h[k + 1] < h[k] || h[k] == 2.5e-5), "step " << k << " of " << h[k] << " s");
      }
  BOOST_TEST(flagged > 0u);
  const ContactFigures a = contact_figures(table), f = contact_figures(fine->statistics());
  BOOST_TEST_MESSAGE("indicator: " << flagged << " steps above the tolerance, " << a.steps << " steps (fixed "
                                   << f.steps << ")");
  BOOST_REQUIRE(a.starts.size() >= 5);
  for (std::size_t i = 0; i < 5; ++i)
    {
      BOOST_TEST_MESSAGE("  bounce " << i + 1 << " at " << a.starts[i] << " s (fixed " << f.starts[i] << " s)");
      BOOST_TEST(std::abs(a.starts[i] / f.starts[i] - 1) <= 0.005);
    }
  BOOST_TEST(5 * a.steps <= f.steps);
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
  set VTU time interval = 6.4e-5
end
)";
  const auto whole = testing::run_simulation<3>(text, "output_adaptive_whole");
  const auto h = whole->statistics().column("time_step");
  BOOST_REQUIRE(h.size() > 41);
  BOOST_TEST(h[40] == 1e-6);
  if (dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
    std::filesystem::remove_all("output_adaptive_resumed");
  MPI_Barrier(MPI_COMM_WORLD);
  const RunParameters parameters =
    RunParameters::from_string(testing::with_quiet_output(text, "output_adaptive_resumed"));
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
  // The records: at 0, 64 µs, ..., 576 µs (= the end) although the steps were 1, 2, 4, 8 and 16 µs,
  // and the resumed run lists the same ones.
  const std::vector<double> times = pvd_times("output_adaptive_whole/solution.pvd");
  BOOST_REQUIRE_EQUAL(times.size(), 10u);
  for (std::size_t i = 0; i < times.size(); ++i)
    BOOST_TEST(std::abs(times[i] - 6.4e-5 * i) <= 1e-12, "record " << i << " at " << times[i] << " s");
  const std::vector<double> resumed_times = pvd_times("output_adaptive_resumed/solution.pvd");
  BOOST_TEST(resumed_times == times, boost::test_tools::per_element());
}
