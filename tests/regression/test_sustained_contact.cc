// Contact that lasts holds. A block pressed onto a rigid plane or onto another block by a uniform
// traction (exact: contact force = the load, bottom at the obstacle), in 2D and 3D, θ = ½, 0.55, 1:
//  - without position projection the penetration is the impact step's (≤ h|u_N|) and does not
//    grow afterwards;
//  - with the default projection (adaptive metric, tolerance 1e-6 cell) and with the quasi-static
//    metric every end-of-step gap is ≥ −1e-6 m for the whole run and the energy the projections
//    add beyond their loads' work is ≤ 1 % of the load's work (the scheme's own metric is
//    reported beside it);
//  - at rest (θ > ½; at θ = ½ the unresolved modes ring) the contact force equals the load
//    within 0.1 %; no step reports positive contact work or a penetrated contact left out of the
//    problem; the audit closes with the projection's energy as its own term.
// Blocks resting under gravity for 10⁴ steps do not drift (≤ 1e-6 m); a three-box stack with
// friction settles to rest without interpenetration and carries its weight. On 2 ranks the
// block-on-block run reproduces the serial statistics.
#define BOOST_TEST_MODULE sustained_contact
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"
#include "three_box_stack.h"

#include <cmath>

using percussion::testing::mean_component;
using percussion::testing::run_simulation;

namespace
{
  const double load = 1e5;

  /// The pressed-block cases: a 1 × 0.5 (× 1) block 1 mm above a plane y = 0 (or above a second block
  /// on rollers), E = 1e7, ν = 0, ρ = 1000, mass damping 100, traction −1e5 on its top, h = 1e-3.
  std::string pressed_block(const unsigned int dim, const bool on_block, const double theta,
                            const std::string &projection, const double end_time = 0.4)
  {
    const bool three = dim == 3;
    std::ostringstream text;
    text << "set Dimension = " << dim << "\nsubsection Mesh\n";
    if (on_block)
      text << "  set Type = boxes\n  set Boxes = "
           << (three ? "0,0,0 : 1,1,0.5; 0,0,0.501 : 1,1,1.001" : "0,0 : 1,0.5; 0,0.501 : 1,1.001") << "\n";
    else
      text << "  set Type = box\n  set Lower corner = " << (three ? "0, 0, 0.001" : "0, 0.001")
           << "\n  set Upper corner = " << (three ? "1, 1, 0.501" : "1, 0.501") << "\n";
    text << "  set Subdivisions = " << (three ? "4, 4, 2" : "8, 4") << "\nend\n"
         << "subsection Materials\n"
         << (on_block ? "  set Material ids = 0, 1\n  set Young's modulus = 1e7, 1e7\n  set Poisson's ratio = 0, 0\n"
                        "  set Density = 1000, 1000\n"
                      : "  set Young's modulus = 1e7\n  set Poisson's ratio = 0\n  set Density = 1000\n")
         << "end\nsubsection Damping\n  set Mass proportional coefficient = 100\nend\n";
    const unsigned int top = on_block ? 10 + 2 * dim - 1 : 2 * dim - 1;
    if (on_block)
      text << "subsection Boundary conditions\n  set Fixed boundary ids = " << 2 * dim - 2 << (three ? ":z" : ":y")
           << "\nend\n";
    text << "subsection Loads\n  set Traction boundary ids = " << top
         << "\n  set Traction = " << (three ? "0; 0; -1e5" : "0; -1e5") << "\nend\n"
         << "subsection Time integration\n  set Scheme = Moreau-Jean Fremond\n  set Theta = " << theta
         << "\n  set Time step = 1e-3\n  set End time = " << end_time << "\nend\n"
         << "subsection Contact solver\n"
         << projection << "end\n"
         << "subsection Contact\n  set Number of pairs = 1\n  set Search distance = 0.05\n  subsection Pair 1\n";
    if (on_block)
      text << "    set Type = body\n    set Slave boundary id = " << 10 + 2 * dim - 2
           << "\n    set Master boundary id = " << 2 * dim - 1 << "\n";
    else
      text << "    set Type = plane\n    set Point = " << (three ? "0, 0, 0" : "0, 0")
           << "\n    set Normal = " << (three ? "0, 0, 1" : "0, 1") << "\n    set Slave boundary id = " << 2 * dim - 2
           << "\n";
    text << "    set Friction coefficient = 0\n    set Restitution coefficient = 0\n  end\nend\n";
    return text.str();
  }

  /// The checks every run of contact that lasts must pass, on the statistics of @p simulator.
  template <int dim>
  void check_audit(const percussion::Simulator<dim> &simulator)
  {
    const auto &table = simulator.statistics();
    for (const double x : table.column("contact_positive_work_count"))
      BOOST_TEST(x == 0.0);
    for (const double x : table.column("contact_penetrated_left_out"))
      BOOST_TEST(x == 0.0);
    BOOST_TEST(simulator.energy_audit().max_relative_step_residual() <= 1e-10);
    // E_k − E_0 = W_ext + W_damp − D_num + W_N + W_T + E_projection + E_frame + Σ residuals.
    const auto &audit = simulator.energy_audit();
    const double closing =
      audit.total_energy() - audit.initial_energy() -
      (audit.external_work() + audit.damping_work() - audit.numerical_dissipation() + audit.contact_work_normal() +
       audit.contact_work_tangential() + audit.projection_energy() + audit.frame_energy() + audit.balance_residual());
    BOOST_TEST(std::abs(closing) <= 1e-10 * audit.flow_scale());
  }

  double smallest(const std::vector<double> &x, const std::size_t from = 0)
  {
    return *std::min_element(x.begin() + from, x.end());
  }

  template <int dim>
  void check_pressed_block(const bool on_block, const double theta)
  {
    const std::string name = std::string(on_block ? "block on block " : "block on plane ") + std::to_string(dim) +
                             "D, theta = " + std::to_string(theta);
    // Without projection: the penetration of the impact step stays as it is.
    {
      const auto simulator =
        run_simulation<dim>(pressed_block(dim, on_block, theta, "  set Position projection = off\n"), "sustained_free");
      const auto gaps = simulator->statistics().column("min_gap");
      const auto force = simulator->statistics().column("contact_normal_force");
      const double after_impact = smallest(gaps, 0), late = smallest(gaps, gaps.size() / 2);
      BOOST_TEST_MESSAGE(name << ", no projection: smallest gap " << after_impact << " m, in the second half " << late
                              << " m, final force " << force.back());
      BOOST_TEST(after_impact >= -2e-3); // the impact step's penetration, ≤ h |u_N| (|u_N| < 2 m/s)
      BOOST_TEST(std::abs(gaps.back() - late) <= 1e-6);
      if (theta > 0.5)
        BOOST_TEST(std::abs(force.back() - load) <= 1e-3 * load);
      check_audit(*simulator);
    }
    // The defaults (adaptive projection metric, tolerance 1e-6 cell) and the quasi-static metric:
    // every end-of-step gap is ≥ −1e-6 m, and the energy the projections add beyond their loads'
    // work is ≤ 1 % of the load's work. The scheme's own metric beside it, reported.
    for (const std::string metric : {"adaptive", "quasi-static", "iteration matrix"})
      {
        const auto simulator =
          run_simulation<dim>(pressed_block(dim, on_block, theta, "  set Projection metric = " + metric + "\n"),
                              "sustained_projected");
        const auto gaps = simulator->statistics().column("min_gap");
        const auto force = simulator->statistics().column("contact_normal_force");
        const auto projected = simulator->statistics().column("contact_projected");
        const auto &audit = simulator->energy_audit();
        BOOST_TEST_MESSAGE(name << ", projection (" << metric << "): smallest gap " << smallest(gaps) << " m, "
                                << std::count_if(projected.begin(), projected.end(), [](double n) { return n > 0; })
                                << " projection steps, energy added " << audit.projection_energy() << " J, load's work "
                                << audit.external_work() << " J, final force " << force.back());
        BOOST_TEST(smallest(gaps) >= -1e-6);
        if (metric != "iteration matrix")
          BOOST_TEST(std::abs(audit.projection_energy()) <= 1e-2 * audit.external_work());
        if (theta > 0.5)
          BOOST_TEST(std::abs(force.back() - load) <= 1e-3 * load);
        check_audit(*simulator);
      }
  }

  /// A block resting on a plane (or on a block on rollers) under gravity, touching at t = 0.
  std::string resting_block(const bool on_block, const double theta)
  {
    std::ostringstream text;
    text << "set Dimension = 2\nsubsection Mesh\n"
         << (on_block ? "  set Type = boxes\n  set Boxes = 0,0 : 1,0.5; 0,0.5 : 1,1\n"
                      : "  set Type = box\n  set Upper corner = 1, 0.5\n")
         << "  set Subdivisions = 4, 2\nend\n"
         << "subsection Materials\n"
         << (on_block
               ? "  set Material ids = 0, 1\n  set Young's modulus = 1e7, 1e7\n  set Poisson's ratio = 0.3, 0.3\n"
                 "  set Density = 1000, 1000\n"
               : "  set Young's modulus = 1e7\n  set Poisson's ratio = 0.3\n  set Density = 1000\n")
         << "end\nsubsection Damping\n  set Mass proportional coefficient = 20\nend\n"
         << "subsection Loads\n  set Gravity = 0, -9.81\nend\n"
         << (on_block ? "subsection Boundary conditions\n  set Fixed boundary ids = 2:y\nend\n" : "")
         << "subsection Time integration\n  set Theta = " << theta
         << "\n  set Time step = 1e-3\n  set End time = 10\nend\n"
         << "subsection Contact\n  set Number of pairs = 1\n  set Search distance = 0.05\n  subsection Pair 1\n"
         << (on_block
               ? "    set Type = body\n    set Slave boundary id = 12\n    set Master boundary id = 3\n"
               : "    set Type = plane\n    set Point = 0, 0\n    set Normal = 0, 1\n    set Slave boundary id = 2\n")
         << "    set Friction coefficient = 0.3\n  end\nend\n";
    return text.str();
  }
} // namespace

BOOST_AUTO_TEST_CASE(pressed_block_on_a_plane)
{
  for (const double theta : {0.5, 0.55, 1.0})
    {
      check_pressed_block<2>(false, theta);
      check_pressed_block<3>(false, theta);
    }
}

BOOST_AUTO_TEST_CASE(pressed_block_on_a_block)
{
  for (const double theta : {0.5, 0.55, 1.0})
    {
      check_pressed_block<2>(true, theta);
      check_pressed_block<3>(true, theta);
    }
}

// 10⁴ steps at rest under gravity, with the default settings: the block's mean
// vertical displacement does not drift once the initial settling has been damped out, and no gap
// goes below −1e-6 m. With θ > ½ the contact force is the weight ρ g V = 1000 · 9.81 · 0.5 = 4905 N
// within 0.1 %; with θ = ½ the modes with ωh ≫ 1 excited at the start ring undamped (the
// trapezoidal rule's amplification tends to −1 even with mass damping) and the force on the
// block alternates step by step about 0.3 % below the weight, so it is not checked there.
BOOST_AUTO_TEST_CASE(blocks_resting_under_gravity_do_not_drift)
{
  const double weight = 1000 * 9.81 * 0.5;
  for (const bool on_block : {false, true})
    for (const double theta : {0.5, 0.55, 1.0})
      {
        const percussion::RunParameters parameters = percussion::RunParameters::from_string(
          percussion::testing::with_quiet_output(resting_block(on_block, theta), "resting_block"));
        std::ostringstream log;
        percussion::Simulator<2> simulator(parameters, MPI_COMM_WORLD, log);
        std::vector<double> mean_y;
        simulator.set_step_observer([&](const percussion::Simulator<2> &s) {
          mean_y.push_back(mean_component(s, s.integrator().displacement(), 1));
        });
        simulator.run();
        BOOST_REQUIRE_EQUAL(mean_y.size(), 10000u);
        double drift = 0;
        for (std::size_t k = 2000; k < mean_y.size(); ++k)
          drift = std::max(drift, std::abs(mean_y[k] - mean_y.back()));
        const auto gaps = simulator.statistics().column("min_gap");
        const double force = simulator.statistics().column("contact_normal_force").back();
        BOOST_TEST_MESSAGE((on_block ? "on a block, theta = " : "on a plane, theta = ")
                           << theta << ": drift after step 2000 " << drift << " m, smallest gap " << smallest(gaps)
                           << " m, force " << force);
        BOOST_TEST(drift <= 1e-6);
        BOOST_TEST(smallest(gaps) >= -1e-6);
        if (theta > 0.5)
          BOOST_TEST(std::abs(force - weight) <= 1e-3 * weight);
        check_audit(simulator);
      }
}

// Three boxes 1 mm apart above a plane fall, land on one another with friction (μ = 0.3, e = 0)
// and come to rest: the kinetic energy vanishes, no gap goes below −1e-6 m (position projection
// on), and the contacts carry the weights (plane: all three boxes, lower interface: the upper
// two, upper interface: the top box). θ = 0.55, as the log advises: at θ = ½ the landings excite
// modes with ωh ≫ 1 that the trapezoidal rule never damps, not even with mass damping (its
// amplification tends to −1), and about 1e-4 of the peak kinetic energy keeps ringing.
BOOST_AUTO_TEST_CASE(three_box_stack_settles_without_interpenetration)
{
  const std::string text = percussion::testing::three_box_stack_text("2");
  const auto simulator = run_simulation<2>(text, "three_box_stack");
  const auto &table = simulator->statistics();
  const double weight = 1000 * 9.81 * (1.0 * 0.3), middle = 1000 * 9.81 * (0.8 * 0.3), top = 1000 * 9.81 * (0.6 * 0.3);
  const double carried = (weight + middle + top) + (middle + top) + top;
  const auto kinetic = table.column("kinetic_energy");
  const double peak = *std::max_element(kinetic.begin(), kinetic.end());
  const double force = table.column("contact_normal_force").back();
  BOOST_TEST_MESSAGE("stack: smallest gap " << smallest(table.column("min_gap")) << " m, kinetic energy "
                                            << kinetic.back() << " (peak " << peak << "), contact force " << force
                                            << " (weights carried " << carried << "), friction dissipation "
                                            << -simulator->energy_audit().contact_work_tangential());
  BOOST_TEST(smallest(table.column("min_gap")) >= -1e-6);
  BOOST_TEST(kinetic.back() <= 1e-8 * peak);
  BOOST_TEST(std::abs(force - carried) <= 1e-3 * carried);
  BOOST_TEST(table.column("contact_active").back() > 0);
  check_audit(*simulator);
}

// The 3D block on a block with the projection: 2 ranks reproduce the serial run (every rank runs
// the serial reference on MPI_COMM_SELF first).
BOOST_AUTO_TEST_CASE(two_ranks_reproduce_the_serial_run)
{
  const unsigned int rank = dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD);
  const std::string text = pressed_block(3, true, 0.5, "", 0.1);
  const auto serial = run_simulation<3>(text, "sustained_serial_" + std::to_string(rank), MPI_COMM_SELF);
  const auto parallel = run_simulation<3>(text, "sustained_parallel", MPI_COMM_WORLD);
  const auto &a = serial->statistics();
  const auto &b = parallel->statistics();
  BOOST_REQUIRE_EQUAL(a.n_rows(), b.n_rows());
  const double scale = serial->energy_audit().flow_scale();
  double worst = 0, worst_gap = 0;
  for (const std::string name :
       {"kinetic_energy", "strain_energy", "external_work", "damping_work", "contact_work_normal", "projection_energy"})
    {
      const auto x = a.column(name), y = b.column(name);
      for (std::size_t k = 0; k < x.size(); ++k)
        worst = std::max(worst, std::abs(x[k] - y[k]) / scale);
    }
  const auto x = a.column("min_gap"), y = b.column("min_gap");
  for (std::size_t k = 0; k < x.size(); ++k)
    worst_gap = std::max(worst_gap, std::abs(x[k] - y[k]));
  BOOST_TEST_MESSAGE("2 ranks: largest difference " << worst << " (relative to the energy scale), gaps " << worst_gap
                                                    << " m");
  BOOST_TEST(worst <= 1e-9);
  BOOST_TEST(worst_gap <= 1e-12);
  BOOST_TEST(a.column("contact_active") == b.column("contact_active"));
}
