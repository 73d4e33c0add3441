// Requirements: `Output/Probe points` writes the displacement, velocity and stress
// interpolated at given points every step (probes.csv), correct on several ranks:
//  - a fixed-free 1D bar (E = 4, ρ = 1, L = 1, c = 2) vibrating in its first mode,
//    u = A sin(kx) cos(ωt), k = π/2, ω = π: a probe inside an element (its midpoint) and one at the
//    free end follow u, v = −Aω sin(kx) sin(ωt) and σ = E A k cos(kx) cos(ωt) over one period within
//    1e-3 of the amplitudes (discretisation: the phase error of 100 linear elements and
//    h = T/800 is about 1e-4 per period; the gradient at an element midpoint is second-order);
//  - a 3D box in a rigid motion of the linear theory (v = a + ω × x, no strain, no force; small
//    displacements, whose kinematics is linear in the rotation): every
//    probe, inside cells, on a face and at a vertex, reads u = t v(x), v(x) and σ = 0 exactly
//    (Q1 interpolates linear fields; tolerance 1e-12 relative), on 1 and 2 ranks.
// The rows: one per probe and step, step 0 included.
#define BOOST_TEST_MODULE probes
#include "../mpi_test_fixture.h"
#include "simulation_helpers.h"

#include <cmath>

using percussion::testing::column_value;
using percussion::testing::run_simulation;

BOOST_AUTO_TEST_CASE(probes_follow_the_first_mode_of_a_1d_bar)
{
  const double A = 0.01, k = M_PI / 2, omega = M_PI, E = 4;
  const auto simulator = run_simulation<1>(R"(
set Dimension = 1
set Function constants = L=1
subsection Mesh
  set Type = bar
  set Subdivisions = 100
end
subsection Materials
  set Young's modulus = 4
  set Poisson's ratio = 0
  set Density = 1
end
subsection Boundary conditions
  set Fixed boundary ids = 0
end
subsection Initial conditions
  set Displacement = 0.01*sin(pi*x/(2*L))
end
subsection Time integration
  set Theta = 0.5
  set Time step = 2.5e-3
  set End time = 2.0
end
subsection Output
  set Probe points = 0.735; 1
end
)",
                                           "probes_1d");
  const auto *probes = simulator->probe_table();
  BOOST_REQUIRE(probes != nullptr);
  const auto &table = probes->table_of_rows();
  BOOST_TEST(table.n_rows() == 2 * (simulator->integrator().step_number() + 1));
  double worst_u = 0, worst_v = 0, worst_s = 0;
  for (std::size_t r = 0; r < table.n_rows(); ++r)
    {
      const double t = column_value(table, r, "time"), x = column_value(table, r, "x");
      worst_u =
        std::max(worst_u, std::abs(column_value(table, r, "u_x") - A * std::sin(k * x) * std::cos(omega * t)) / A);
      worst_v =
        std::max(worst_v, std::abs(column_value(table, r, "v_x") + A * omega * std::sin(k * x) * std::sin(omega * t)) /
                            (A * omega));
      if (x < 1) // (at the free end σ = 0 exactly; the probe reads the last element's constant gradient)
        worst_s = std::max(worst_s, std::abs(column_value(table, r, "s_xx") -
                                             E * A * k * std::cos(k * x) * std::cos(omega * t)) /
                                      (E * A * k));
    }
  BOOST_TEST_MESSAGE("1D bar: largest errors relative to the amplitudes: u " << worst_u << ", v " << worst_v
                                                                             << ", stress " << worst_s);
  BOOST_TEST(worst_u <= 1e-3);
  BOOST_TEST(worst_v <= 1e-3);
  BOOST_TEST(worst_s <= 1e-3);
}

BOOST_AUTO_TEST_CASE(probes_read_a_rigid_motion_exactly_on_any_number_of_ranks)
{
  // v(x) = a + ω × x with a = (0.1, −0.2, 0.3), ω = (0.5, 1, −0.7).
  const auto velocity = [](const double x, const double y, const double z) {
    return std::array<double, 3>{{0.1 + (1 * z - (-0.7) * y), -0.2 + (-0.7 * x - 0.5 * z), 0.3 + (0.5 * y - 1 * x)}};
  };
  const auto simulator = run_simulation<3>(R"(
set Dimension = 3
subsection Mesh
  set Type = box
  set Lower corner = 0, 0, 0
  set Upper corner = 1, 0.5, 0.25
  set Subdivisions = 8, 4, 2
end
subsection Materials
  set Young's modulus = 1e3
  set Poisson's ratio = 0.3
  set Density = 2
end
subsection Initial conditions
  set Velocity = 0.1 + (z + 0.7*y); -0.2 + (-0.7*x - 0.5*z); 0.3 + (0.5*y - x)
end
subsection Time integration
  set Theta = 0.5
  set Time step = 1e-3
  set End time = 0.02
end
subsection Kinematics
  set Formulation = small displacements
end
subsection Output
  set Probe points = 0.3, 0.21, 0.07; 0.875, 0.49, 0.2; 0.5, 0.25, 0.125; 1, 0.5, 0.25; 0.0625, 0.3, 0.25
end
)",
                                           "probes_3d");
  const auto &table = simulator->probe_table()->table_of_rows();
  BOOST_TEST(table.n_rows() == 5 * (simulator->integrator().step_number() + 1));
  double worst = 0, worst_stress = 0;
  for (std::size_t r = 0; r < table.n_rows(); ++r)
    {
      const double t = column_value(table, r, "time");
      const auto v = velocity(column_value(table, r, "x"), column_value(table, r, "y"), column_value(table, r, "z"));
      const char *axes[] = {"x", "y", "z"};
      for (unsigned int d = 0; d < 3; ++d)
        {
          worst = std::max(worst, std::abs(column_value(table, r, std::string("u_") + axes[d]) - t * v[d]));
          worst = std::max(worst, std::abs(column_value(table, r, std::string("v_") + axes[d]) - v[d]));
        }
      for (const std::string s : {"s_xx", "s_yy", "s_zz", "s_xy", "s_xz", "s_yz"})
        worst_stress = std::max(worst_stress, std::abs(column_value(table, r, s)));
    }
  BOOST_TEST_MESSAGE("3D rigid motion: largest error " << worst << " (velocities about 1), stress " << worst_stress);
  BOOST_TEST(worst <= 1e-12);
  // σ of a rigid motion: zero up to round-off of E × (|u| / cell) ≈ 1e3 × 0.02 / 0.125.
  BOOST_TEST(worst_stress <= 1e-10);
}
