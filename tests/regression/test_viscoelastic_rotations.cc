// Viscoelastic bodies in the bodies' frames (large rotations, the default 'Kinematics/Formulation =
// auto' with the Moreau–Jean schemes): a body that turns keeps its shape, its spin and its
// centrifugal strain, whatever its Maxwell branches and Kelvin–Voigt time.
//  - a free disk (R = 0.05 m, plane strain, E∞ = 1e8 Pa, ρ = 1000) spinning at 10 rad/s for 10
//    revolutions with the default settings, once with a Maxwell branch (5e7 Pa, 1e-3 s) and once
//    with a Kelvin–Voigt time (1e-4 s): every boundary node stays within 1e-5 R of the rotating
//    disk's radius (with small displacements the branch's disk reached +124 % of R after 2 rad),
//    the angular momentum is kept to 1e-10, the spin to 1e-5, and no step creates energy;
//  - a soft disk (E∞ = 1e5 Pa) spun up suddenly to 10 rad/s, its oscillation damped by a Maxwell
//    branch (5e4 Pa, 5e-3 s) or by a Kelvin–Voigt time (1e-2 s): the steady radial displacement is
//    the static plane-strain solution with the relaxed modulus E∞ (Timoshenko & Goodier,
//    u(R) = (1 − ν')ρω²R³/(4E'), E' = E∞/(1 − ν²), ν' = ν/(1 − ν)) within 1 %.
#define BOOST_TEST_MODULE viscoelastic_rotations
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <cmath>
#include <string>

using namespace percussion;

namespace
{
  /// A free disk of radius 0.05 spinning at 10 rad/s about its centre, with @p materials' lines.
  std::string spinning_disk(const std::string &materials, const std::string &mesh_lines, const double end_time,
                            const double step)
  {
    return R"(
set Dimension = 2
subsection Mesh
  set Type = ball
  set Radius = 0.05
  set Center = 0, 0
)" + mesh_lines +
           R"(end
subsection Materials
  set Poisson's ratio = 0.3
  set Density = 1000
)" + materials +
           R"(end
subsection Initial conditions
  set Velocity = -10*y; 10*x
end
subsection Time integration
  set Time step = )" +
           std::to_string(step) + R"(
  set End time = )" +
           std::to_string(end_time) + R"(
end
subsection Output
  set Write bodies = true
end
)";
  }

  /// The plane-strain rotating disk's u(R) with modulus @p E (ν = 0.3, ρ = 1000, R = 0.05).
  double rotating_disk_displacement(const double E, const double omega)
  {
    const double nu = 0.3, E_plane = E / (1 - nu * nu), nu_plane = nu / (1 - nu);
    return (1 - nu_plane) * 1000 * omega * omega * std::pow(0.05, 3) / (4 * E_plane);
  }

  /// 10 revolutions at 10 rad/s of the stiff disk (E∞ = 1e8) with @p viscosity's lines, default settings.
  void check_spin(const std::string &viscosity)
  {
    const double radius = 0.05, omega = 10, period = 2 * M_PI / omega;
    const std::string text =
      spinning_disk("  set Young's modulus = 1e8\n" + viscosity, "  set Global refinements = 3\n", 10 * period, 1e-4);
    const RunParameters parameters = RunParameters::from_string(testing::with_quiet_output(text, "output_visco_spin"));
    BOOST_REQUIRE(parameters.large_rotations); // (auto: the frames, viscoelastic or not)
    std::ostringstream log;
    Simulator<2> simulator(parameters, MPI_COMM_WORLD, log);
    const NodeLayout nodes = simulator.body().node_layout();
    double largest = 0, smallest = 1e300;
    simulator.set_step_observer([&](const Simulator<2> &s) {
      if (s.integrator().step_number() % 10 != 0)
        return;
      const auto [high, low] = testing::boundary_radius_range(s, nodes, radius);
      largest = std::max(largest, high);
      smallest = std::min(smallest, low);
    });
    simulator.run();
    const double spun = radius + rotating_disk_displacement(1e8, omega);
    const auto &motion = simulator.rigid_motion().at(0);
    const double L_start = simulator.body_table()->table_of_rows().column("angular_momentum_z").front();
    const auto &audit = simulator.energy_audit();
    BOOST_TEST_MESSAGE(viscosity << "radius range " << (smallest - spun) / radius << " .. " << (largest - spun) / radius
                                 << " R about the spun radius, L/L0 - 1 = " << motion.angular_momentum[2] / L_start - 1
                                 << ", omega " << motion.angular_velocity[2] << ", created " << audit.created_energy()
                                 << " of " << audit.guard_scale());
    BOOST_TEST(std::abs(largest - spun) <= 1e-5 * radius);
    BOOST_TEST(std::abs(smallest - spun) <= 1e-5 * radius);
    BOOST_TEST(std::abs(motion.angular_momentum[2] / L_start - 1) <= 1e-10);
    BOOST_TEST(std::abs(motion.angular_velocity[2] / omega - 1) <= 1e-5);
    BOOST_TEST(audit.max_relative_step_residual() <= 1e-10);
    BOOST_TEST(audit.created_energy() <= 1e-9 * audit.guard_scale());
  }

  /// The soft disk (E∞ = 1e5) spun up to 10 rad/s with @p viscosity's lines, 0.3 s.
  void check_relaxed_strain(const std::string &viscosity)
  {
    // Centrifugal strain 3e-4. Q2 on 4 refinements (on 3 the static solution of the mesh is 0.9 %
    // below the exact one, regression.large_rotations).
    const double radius = 0.05, E = 1e5;
    const std::string text =
      spinning_disk("  set Young's modulus = 1e5\n" + viscosity,
                    "  set Global refinements = 4\n  set Finite element degree = 2\n", 0.3, 1e-4);
    auto simulator = testing::run_simulation<2>(text, "output_visco_relaxed");
    const NodeLayout nodes = simulator->body().node_layout();
    const auto [high, low] = testing::boundary_radius_range(*simulator, nodes, radius);
    const double omega = simulator->rigid_motion().at(0).angular_velocity[2];
    const double exact = rotating_disk_displacement(E, omega), mean = 0.5 * (high + low) - radius;
    BOOST_TEST_MESSAGE(viscosity << "u(R) = " << mean << " (" << low - radius << " .. " << high - radius << "), exact "
                                 << exact << ", omega " << omega);
    BOOST_TEST(std::abs(mean / exact - 1) <= 0.01);
    BOOST_TEST((high - low) <= 0.01 * exact);
  }
} // namespace

BOOST_AUTO_TEST_CASE(spinning_disk_with_a_maxwell_branch_keeps_its_shape_and_spin)
{
  check_spin("  set Prony moduli = 5e7\n  set Prony times = 1e-3\n");
}

BOOST_AUTO_TEST_CASE(spinning_disk_with_a_kelvin_voigt_time_keeps_its_shape_and_spin)
{
  check_spin("  set Kelvin-Voigt time = 1e-4\n");
}

BOOST_AUTO_TEST_CASE(spinning_disk_with_a_maxwell_branch_relaxes_to_the_static_solution)
{
  check_relaxed_strain("  set Prony moduli = 5e4\n  set Prony times = 5e-3\n");
}

BOOST_AUTO_TEST_CASE(spinning_disk_with_a_kelvin_voigt_time_relaxes_to_the_static_solution)
{
  check_relaxed_strain("  set Kelvin-Voigt time = 1e-2\n");
}
