// Requirements: Hertz contact between two elastic bodies in 2D (plane strain) with
// `Formulation = integrated`. A cylinder segment of radius R (body 2, its flat top loaded by a
// uniform traction of resultant P per unit length) is pressed onto an elastic block (body 1, bottom
// fixed), frictionless, and damped to rest. Hertz' solution for two elastic cylinders, here a
// cylinder on a half-plane (Johnson, Contact Mechanics, CUP 1985, ch. 4, two-dimensional contact of
// cylindrical bodies; §5 for the two-body modulus):
//   a  = sqrt(4 P R / (π E*)),   p(x) = p0 sqrt(1 − x²/a²),   p0 = 2 P / (π a) = sqrt(P E* / (π R)),
//   1/E* = (1 − ν1²)/E1 + (1 − ν2²)/E2,   1/R = 1/R1 (+ 1/R2; the block is flat).
// The half-width a and the peak pressure p0 are measured from the slave nodes' pressures
// r_N / (h D_jj) at two refinements of the contact zone (a/h = 4 and 8) and compared with these.
//
// Scheme: Schatzman–Paoli (position level, e = 0, β = ¼) with mass damping, not Moreau–Jean. At rest
// its complementarity is 0 ≤ g ⊥ Λ_N ≥ 0 on the gaps, whose solution is the unique static one. A
// velocity-level scheme keeps each node at the gap it had when it entered the contact problem
// (doc/contact.md, "Lasting contact"), so its resting pressure depends on the approach: measured at
// a/h = 8 with θ = 1, h = 2e-3, the settled pressures oscillated from node to node and gave
// a/a_H = 1.14, p0/p0_H = 0.90 (sudden load) and 1.21, 0.78 (load ramped over 0.3 s). The time step
// 2e-4 is the largest tried that settles: at 5e-4 the kinetic energy stayed near 3 J (0.3 s), at
// 1e-3 there was no single loaded zone after 0.3 s.
#define BOOST_TEST_MODULE mortar_hertz
#include "../mpi_test_fixture.h"
#include "hertz_helpers.h"
#include "simulation_helpers.h"

#include <deal.II/base/mpi.h>

#include <cmath>
#include <filesystem>
#include <sstream>

namespace hertz = percussion::testing::hertz;
using hertz::Measured;
using percussion::testing::run_simulation;

namespace
{
  // Block (body 1) and cylinder (body 2) materials: different, so that E* combines both.
  const double E1 = 1e7, nu1 = 0.3, E2 = 2e7, nu2 = 0.25, density = 1000.;
  const double radius = 1.0;
  const double E_star = 1. / ((1 - nu1 * nu1) / E1 + (1 - nu2 * nu2) / E2);
  // Load per unit length chosen for a = 0.05 = R/20 (small strains, a ≪ R).
  const double a_hertz = 0.05;
  const double P = a_hertz * a_hertz * M_PI * E_star / (4 * radius);
  const double p0_hertz = std::sqrt(P * E_star / (M_PI * radius));
  // Block [−L, L] × [−L, 0] with L = 20 a (half-plane); cylinder segment |x| ≤ w = 6 a, top at y = H.
  const double block = 20 * a_hertz, half_width = 6 * a_hertz, top = 6 * a_hertz;

  const hertz::CylinderOnBlock geometry{radius, a_hertz, block, half_width, top};

  std::string parameters(const std::string &mesh_file, const std::string &formulation)
  {
    std::ostringstream text;
    text.precision(17);
    text << "set Dimension = 2\nsubsection Mesh\n  set Type = gmsh\n  set File name = " << mesh_file << "\nend\n"
         << "subsection Materials\n  set Material ids = 1, 2\n  set Young's modulus = " << E1 << ", " << E2
         << "\n  set Poisson's ratio = " << nu1 << ", " << nu2 << "\n  set Density = " << density << ", " << density
         << "\nend\n"
         << "subsection Damping\n  set Mass proportional coefficient = 100\nend\n"
         << "subsection Boundary conditions\n  set Fixed boundary ids = 1\nend\n"
         << "subsection Loads\n  set Traction boundary ids = 4\n  set Traction = 0; " << -P / (2 * half_width)
         << "\nend\n"
         << "subsection Time integration\n  set Scheme = Schatzman-Paoli\n  set Time step = 2e-4\n"
            "  set End time = 0.2\nend\n"
         << "subsection Contact solver\n  set Tolerance = 1e-13\nend\n"
         << "subsection Contact\n  set Number of pairs = 1\n  set Search distance = 0.02\n  subsection Pair 1\n"
            "    set Type = body\n    set Slave boundary id = 3\n    set Master boundary id = 2\n"
            "    set Formulation = "
         << formulation << "\n    set Friction coefficient = 0\n    set Restitution coefficient = 0\n  end\nend\n";
    return text.str();
  }

  Measured run(const unsigned int cells_per_a, const std::string &formulation)
  {
    const std::string name = "mortar_hertz_" + std::to_string(cells_per_a) + "_" + formulation;
    std::filesystem::create_directories(name);
    const std::string mesh = std::filesystem::absolute(name + "/hertz.msh").string();
    hertz::write_cylinder_on_block(geometry, a_hertz / cells_per_a, mesh);
    const auto simulator = run_simulation<2>(parameters(mesh, formulation), name, MPI_COMM_SELF);
    std::vector<std::pair<double, double>> values;
    // Every slave node within the search distance: those out of the contact problem carry no pressure.
    for (const auto &node : hertz::nodal_pressures(*simulator))
      values.emplace_back(node.position[0], node.pressure);
    const Measured m = hertz::measure(values, 1e-8 * p0_hertz);
    // At rest the contact force balances the load (the pressures' resultant).
    const double force = simulator->statistics().column("contact_normal_force").back();
    BOOST_TEST(std::abs(force - P) <= 2e-3 * P);
    BOOST_TEST_MESSAGE("Hertz 2D, " << formulation << ", a/h = " << cells_per_a << ": " << m.n_loaded
                                    << " loaded slave nodes, a/a_Hertz = " << m.a / a_hertz
                                    << ", p0/p0_Hertz = " << m.p0 / p0_hertz << " (a_Hertz = " << a_hertz
                                    << ", p0_Hertz = " << p0_hertz << ")");
    return m;
  }
} // namespace

// The integrated formulation against Hertz at a/h = 4 and 8 (9 and 17 loaded slave
// nodes). Measured (doc/contact.md): a/a_H = 1.0164, 1.0082 (the edge error halves with h),
// p0/p0_H = 1.0026, 1.0033 (not decreasing: a ≈ 0.3 % error that the contact zone's resolution does
// not control — presumably the finite bodies, which Hertz takes as half-planes: block 40 a × 20 a,
// cylinder segment 12 a wide and 6 a high, loaded 6 a above the contact; not separated here).
// Required: the half-width error decreases, and at a/h = 8 a within 2 % and p0 within 1 % of Hertz
// (about 2.5 and 3 times the measured errors); p0 within 1 % at both levels.
BOOST_AUTO_TEST_CASE(hertz_cylinder_on_block)
{
  // A serial verification; the partition is checked by the patch tests of mortar_contact.
  if (dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) > 1)
    return;
  const Measured coarse = run(4, "integrated");
  const Measured fine = run(8, "integrated");
  BOOST_TEST(coarse.n_loaded == 9u);
  BOOST_TEST(fine.n_loaded == 17u);
  const double a_coarse = std::abs(coarse.a / a_hertz - 1), a_fine = std::abs(fine.a / a_hertz - 1);
  BOOST_TEST(a_fine < a_coarse);
  BOOST_TEST(a_fine <= 0.02);
  BOOST_TEST(std::abs(coarse.p0 / p0_hertz - 1) <= 0.01);
  BOOST_TEST(std::abs(fine.p0 / p0_hertz - 1) <= 0.01);
  // Node-to-surface beside it, reported only (the meshes of both bodies have the same spacing in
  // the contact zone, where node-to-surface is expected to do as well).
  run(4, "node-to-surface");
}
