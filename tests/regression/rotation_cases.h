#ifndef PERCUSSION_TESTS_ROTATION_CASES_H
#define PERCUSSION_TESTS_ROTATION_CASES_H

// The large-rotation cases that every scheme with frames must pass (Moreau–Jean in
// test_large_rotations.cc, the nonsmooth generalized-α family in
// test_generalized_alpha_rotations.cc), each run with the scheme's lines of 'Time integration'.

#include "simulation_helpers.h"

#include <cmath>
#include <sstream>
#include <string>

namespace percussion::testing
{
  /// A free 2D disk (R = 0.05, E = 1e8, ν = 0.3, ρ = 1000) spinning at 10 rad/s about its centre.
  const std::string spinning_disk = R"(
set Dimension = 2
subsection Mesh
  set Type = ball
  set Radius = 0.05
  set Center = 0, 0
  set Global refinements = 3
end
subsection Materials
  set Young's modulus = 1e8
  set Poisson's ratio = 0.3
  set Density = 1000
end
subsection Initial conditions
  set Velocity = -10*y; 10*x
end
)";

  /// A 2D disk (R = 0.05) thrown at 1 m/s with backspin 10 rad/s onto a plane with μ = 0.3, to
  /// @p end_time, with @p time_lines in 'Time integration' (the scheme; by default θ = 0.6).
  inline std::string backspin_disk(const double end_time, const std::string &time_lines = "  set Theta = 0.6\n")
  {
    return R"(
set Dimension = 2
subsection Mesh
  set Type = ball
  set Radius = 0.05
  set Center = 0, 0.05
  set Global refinements = 4
end
subsection Materials
  set Young's modulus = 1e9
  set Poisson's ratio = 0.3
  set Density = 1000
end
subsection Loads
  set Gravity = 0, -9.81
end
subsection Initial conditions
  set Velocity = 1 - 10*(y - 0.05); 10*x
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.005
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = 0, 0
    set Normal = 0, 1
    set Friction coefficient = 0.3
  end
end
subsection Time integration
)" + time_lines +
           R"(  set Time step = 2e-4
  set End time = )" +
           std::to_string(end_time) + R"(
end
subsection Kinematics
  set Formulation = large rotations
end

)";
  }

  /**
   * The spinning disk for 10 revolutions at h = 1e-4 with @p time_lines: every boundary node within
   * 1e-6 R of the rotating-disk radius R + u(R) (u(R) = ρω²R³/(8(λ+μ)) = 3.25e-7 R, about which the
   * sudden spin-up oscillates), the spin tracked to 1e-5, the angular momentum kept to
   * @p momentum_tolerance, the energy to @p energy_tolerance and the energy balance's residual to
   * 1e-10 per step.
   */
  inline void check_spinning_disk(const std::string &time_lines, const std::string &directory,
                                  const double energy_tolerance, const double momentum_tolerance = 1e-10)
  {
    const double radius = 0.05, omega = 10, period = 2 * M_PI / omega;
    const std::string text = spinning_disk + "subsection Time integration\n" + time_lines +
                             "  set Time step = 1e-4\n  set End time = " + std::to_string(10 * period) +
                             "\nend\nsubsection Kinematics\n  set Formulation = large rotations\nend\n" +
                             "subsection Output\n  set Write bodies = true\nend\n";
    const RunParameters parameters = RunParameters::from_string(with_quiet_output(text, directory));
    std::ostringstream log;
    Simulator<2> simulator(parameters, MPI_COMM_WORLD, log);
    const NodeLayout nodes = simulator.body().node_layout();
    double largest = 0, smallest = 1e300;
    simulator.set_step_observer([&](const Simulator<2> &s) {
      if (s.integrator().step_number() % 10 != 0)
        return;
      const auto [high, low] = boundary_radius_range(s, nodes, radius);
      largest = std::max(largest, high);
      smallest = std::min(smallest, low);
    });
    simulator.run();
    const double initial_energy = simulator.statistics().column("total_energy").front();
    const auto &motion = simulator.rigid_motion().at(0);
    const double L0 = 0.5 * 1000 * M_PI * std::pow(radius, 4) * omega; // ½ρπR⁴ω (per unit thickness)
    BOOST_TEST_MESSAGE(simulator.integrator().description()
                       << ": radius range " << smallest / radius - 1 << " .. " << largest / radius - 1
                       << ", L = " << motion.angular_momentum[2] << " (rigid " << L0 << "), energy "
                       << simulator.energy_audit().total_energy() / initial_energy);
    // The rotating-disk solution (plane strain, E = 1e8, ν = 0.3, ρ = 1000).
    const double lambda = 1e8 * 0.3 / (1.3 * 0.4), mu = 1e8 / 2.6;
    const double spun = radius + 1000 * omega * omega * std::pow(radius, 3) / (8 * (lambda + mu));
    BOOST_TEST(std::abs(largest - spun) <= 1e-6 * radius);
    BOOST_TEST(std::abs(smallest - spun) <= 1e-6 * radius);
    // The rotation has been tracked: 10 revolutions of a rigid spin at 10 rad/s.
    BOOST_TEST(std::abs(motion.angular_velocity[2] / omega - 1) <= 1e-5);
    // Angular momentum about the centre: the Q1 mesh's consistent inertia differs from ½ρπR⁴ by
    // the polygonal boundary (1e-3); it is kept by the scheme to round-off.
    BOOST_TEST(std::abs(motion.angular_momentum[2] / L0 - 1) <= 2e-2);
    const auto &bodies = *simulator.body_table();
    const double L_start = bodies.table_of_rows().column("angular_momentum_z").front();
    BOOST_TEST(std::abs(motion.angular_momentum[2] / L_start - 1) <= momentum_tolerance);
    BOOST_TEST(std::abs(simulator.energy_audit().total_energy() / initial_energy - 1) <= energy_tolerance);
    BOOST_TEST(simulator.energy_audit().max_relative_step_residual() <= 1e-10);
  }

  /**
   * The backspin disk with @p time_lines: a stiff disk (R = 0.05) thrown at v₀ = 1 m/s with
   * backspin ω₀ = −10 rad/s (clockwise is rolling forward) just above a plane with μ = 0.3,
   * gravity. Rigid solution: it slides until v = Rω, then rolls at v = (2v₀ − Rω₀')/3 with ω₀' = 10
   * the backspin: (2 − 0.5)/3 = 0.5 m/s; checked within @p tolerance, the friction dissipation
   * within 2 @p tolerance.
   */
  inline void check_backspin_disk(const std::string &time_lines, const std::string &directory,
                                  const double tolerance = 0.01)
  {
    const double v0 = 1, backspin = 10, radius = 0.05, mu = 0.3, g = 9.81;
    const std::string text = backspin_disk(0.25, time_lines);
    const RunParameters parameters = RunParameters::from_string(with_quiet_output(text, directory));
    std::ostringstream log;
    Simulator<2> simulator(parameters, MPI_COMM_WORLD, log);
    // The state when the contact point stops slipping (v = −Rω to 0.2 % of v₀): the rigid solution's
    // end of sliding; the polygonal boundary of the mesh then loses a little at every node that lands.
    double v = 0, omega = 0, friction = 0, rolling_time = -1;
    simulator.set_step_observer([&](const Simulator<2> &s) {
      const auto &m = s.rigid_motion().at(0);
      if (rolling_time > 0 || s.integrator().time() < 0.01)
        return;
      if (std::abs(m.momentum[0] / m.mass + radius * m.angular_velocity[2]) < 2e-3 * v0)
        {
          rolling_time = s.integrator().time();
          v = m.momentum[0] / m.mass;
          omega = m.angular_velocity[2];
          friction = -s.energy_audit().contact_work_tangential();
        }
    });
    simulator.run();
    const double mass = simulator.rigid_motion().at(0).mass;
    const double exact = (2 * v0 - radius * backspin) / 3;
    // Rigid friction dissipation: ½m v₀² + ½J ω₀² − ½m v² − ½J ω² with J = mR²/2 (per unit thickness).
    const double J_per_mass = 0.5 * radius * radius;
    const double rigid_dissipation = mass * (0.5 * v0 * v0 + 0.5 * J_per_mass * backspin * backspin -
                                             0.5 * exact * exact - 0.5 * J_per_mass * std::pow(exact / radius, 2));
    BOOST_TEST_MESSAGE(simulator.integrator().description()
                       << ": rolling from t = " << rolling_time << " (rigid " << (v0 - exact) / (mu * g)
                       << "): v = " << v << " (exact " << exact << "), R omega = " << -radius * omega << ", friction "
                       << friction << " (rigid " << rigid_dissipation << ")");
    BOOST_TEST(rolling_time > 0);
    BOOST_TEST(std::abs(v / exact - 1) <= tolerance);
    BOOST_TEST(std::abs(-radius * omega / exact - 1) <= tolerance);
    BOOST_TEST(std::abs(friction / rigid_dissipation - 1) <= 2 * tolerance);
  }

  /**
   * The billiard ball with @p time_lines (see the comment inside): it ends rolling at
   * (5v₀ − 2Rω₀)/7 within @p tolerance and at the rigid solution for the mesh's κ within 2 %.
   */
  inline void check_billiard_ball(const std::string &time_lines, const std::string &directory,
                                  const double tolerance = 0.01)
  {
    // A steel-stiff ball (R = 0.05) thrown at v₀ = 1 m/s with backspin ω₀ = 10 rad/s onto a plane
    // with μ = 0.3: it slips, then rolls at v = v₀ − (v₀ + Rω₀) κ/(1 + κ), κ = J/(mR²): the billiard
    // ball's (5v₀ − 2Rω₀)/7 for κ = 2/5. The faceted mesh's κ differs from 2/5 (its consistent
    // inertia is measured at the start, 0.3956); the rolling velocity is compared with
    // (5v₀ − 2Rω₀)/7 within 1 % (measured 0.47 %) and with the rigid solution for the mesh's κ within
    // 2 % (measured 1.06 %: the facets' landings take a little energy). The mesh is the 3-times refined
    // ball (128 facets around a great circle): on the 2-times refined one (κ = 0.383) the ball hops
    // from vertex to vertex and overshoots into forward spin at each landing.
    const double v0 = 1, backspin = 10, radius = 0.05;
    const std::string text = R"(
set Dimension = 3
subsection Mesh
  set Type = ball
  set Radius = 0.05
  set Center = 0, 0, 0.05
  set Global refinements = 3
end
subsection Materials
  set Young's modulus = 1e9
  set Poisson's ratio = 0.3
  set Density = 1000
end
subsection Loads
  set Gravity = 0, 0, -9.81
end
subsection Initial conditions
  set Velocity = 1 - 10*(z - 0.05); 0; 10*x
end
subsection Contact
  set Number of pairs = 1
  set Search distance = 0.005
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 0
    set Point = 0, 0, 0
    set Normal = 0, 0, 1
    set Friction coefficient = 0.3
  end
end
subsection Time integration
)" + time_lines + R"(  set Time step = 2e-4
  set End time = 0.2
end
)";
    const RunParameters parameters = RunParameters::from_string(with_quiet_output(text, directory));
    std::ostringstream log;
    Simulator<3> simulator(parameters, MPI_COMM_WORLD, log);
    double v = 0, omega = 0, rolling_time = -1, kappa = 0;
    simulator.set_step_observer([&](const Simulator<3> &s) {
      const auto &m = s.rigid_motion().at(0);
      if (kappa == 0)
        kappa = m.angular_momentum[1] / m.angular_velocity[1] / (m.mass * radius * radius);
      if (rolling_time > 0 || s.integrator().time() < 0.01)
        return;
      // Rolling: the contact point's velocity v − Rω_y vanishes (to 0.2 % of v₀).
      if (std::abs(m.momentum[0] / m.mass - radius * m.angular_velocity[1]) < 2e-3 * v0)
        {
          rolling_time = s.integrator().time();
          v = m.momentum[0] / m.mass;
          omega = m.angular_velocity[1];
        }
    });
    simulator.run();
    const double rigid = v0 - (v0 + radius * backspin) * kappa / (1 + kappa);
    const double billiard = (5 * v0 - 2 * radius * backspin) / 7;
    BOOST_TEST_MESSAGE(simulator.integrator().description()
                       << ": rolling from t = " << rolling_time << ": v = " << v << ", R omega = " << radius * omega
                       << ", kappa = " << kappa << ", rigid " << rigid << ", (5v0 - 2R w0)/7 = " << billiard);
    BOOST_TEST(rolling_time > 0);
    BOOST_TEST(std::abs(v / billiard - 1) <= tolerance);
    BOOST_TEST(std::abs(v / rigid - 1) <= 0.02);
  }
} // namespace percussion::testing

#endif
