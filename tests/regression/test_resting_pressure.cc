// Resting contact pressures against Hertz with the default time integration scheme.
//
// A curved body pressed onto an elastic block (bottom fixed), frictionless, `Formulation =
// integrated`, mass damping 100/s, run until it rests; its slave nodes' pressures r_N / (h D_jj)
// give the contact half-width (radius) a and the peak pressure p0, compared with Hertz (Johnson,
// Contact Mechanics, CUP 1985, §4.2 and §4.3; §5 for the two-body modulus
// 1/E* = (1 − ν1²)/E1 + (1 − ν2²)/E2), with the materials of regression.mortar_hertz:
//   2D, a cylinder segment of radius R loaded by P per unit length (plane strain):
//     a = sqrt(4 P R / (π E*)),   p0 = 2 P / (π a);
//   3D, a spherical segment of radius R loaded by P:
//     a = (3 P R / (4 E*))^{1/3},   p0 = 3 P / (2 π a²).
// P is chosen for a = R/20 in both. Each geometry is run with the load applied at once (sudden)
// and ramped up linearly over the first third of the run (ramp), with the default scheme
// (Moreau–Jean Frémond, `Theta = auto`: 0.55 with e = 0; no `Scheme` or `Theta` line). Checked at
// the end of each run: in 2D at rest (kinetic energy ≤ 1e-6 × strain energy, contact force = P
// within 0.1 %) and a, p0 within 2 % of Hertz; in 3D a, p0 within 2 % of Hertz and the two load
// histories within 1 % of each other (the quarter sphere does not come to rest, see below).
//
// Meshes (Q1): 2D, regression.mortar_hertz's cylinder segment on a block at a/h = 8 (7418 DoFs);
// 3D, the quarter x, y ≥ 0 of a spherical segment (8a × 8a, 5a high) on a block (20a × 20a × 10a)
// with symmetry conditions on x = 0 and y = 0, a/h = 4 near the contact (5211 DoFs). The contact
// step's Delassus columns, solved for at every step (body pair), dominate the cost: the whole
// model with a finer grading (36288 DoFs) took 0.7–1.5 s per step, the quarter takes about 0.1 s.
// In 3D a is measured along the x and y axes (see sphere::measure()). Time step h = 2e-4 (the
// step of regression.mortar_hertz), end time 0.3 (2D) and 0.2 (3D).
//
// The static solution is unique and does not depend on the load's history. The same harness with
// Schatzman–Paoli (position-level law, 0 ≤ g ⊥ Λ_N ≥ 0 at rest; the test case
// schatzman_paoli_reference, not run by default) reaches it: a/a_H, p0/p0_H = 1.0081, 1.0035
// (2D, both loads, as regression.mortar_hertz) and 1.0159, 1.0127 (3D, both loads; the edge
// extrapolation at a/h = 4 overshoots by 1.6 % as in 2D at a/h = 4). So the checks can be met by
// a scheme that rests in the static solution.
//
// Measured with the default scheme: the lasting-contact law holds every loaded contact at g = 0
// (doc/contact.md, "Lasting contact"), so the resting pressures do not depend on the approach:
//   2D sudden and ramp: a/a_H = 1.0081, p0/p0_H = 1.0036 (the static solution's figures);
//   3D sudden: 1.0132, 1.0065; 3D ramp: 1.0164, 1.0138 (at 0.3 s: 1.0134, 1.0070 and 1.0132,
//   1.0064: the ramp has not settled at 0.2 s). The 3D runs keep a small
//   vibration: kinetic/strain energy 1e-5 and the contact force 1.8–2.0 % below the load at 0.2 s
//   and at 0.3 s, not decaying; not explained yet.
// Without that law (each node held at the gap at which it entered the problem, θ = ½) the same
// harness gave 2D sudden 1.0099, 1.0239 (pressures oscillating from node to node), 2D ramp 1.0102,
// 0.9743 (a flat top), 3D sudden 1.0157, 1.0277, 3D ramp 1.0162, 1.0155.
// The messages also report the largest deviation of the nodal pressures from Hertz' profile within
// r ≤ 3a/4 (without the law: 2D sudden 0.076, ramp 0.026; with it 0.0036 in 2D, 0.009 in 3D;
// Schatzman–Paoli 0.0035 in 2D, 0.013 in 3D).
#define BOOST_TEST_MODULE resting_pressure
#include "../mpi_test_fixture.h"
#include "hertz_helpers.h"
#include "simulation_helpers.h"

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hertz = percussion::testing::hertz;
using percussion::testing::run_simulation;

namespace
{
  // Block (body 1) and curved body (body 2) materials, as regression.mortar_hertz: different, so
  // that E* combines both.
  const double E1 = 1e7, nu1 = 0.3, E2 = 2e7, nu2 = 0.25, density = 1000.;
  const double E_star = 1. / ((1 - nu1 * nu1) / E1 + (1 - nu2 * nu2) / E2);
  const double radius = 1.0, a_hertz = 0.05; // a = R/20 in both geometries (small strains, a ≪ R)

  enum class Load
  {
    sudden, // the full load from t = 0
    ramp    // linear from 0 to the full load over the first third of the run
  };
  const char *name(const Load load)
  {
    return load == Load::sudden ? "sudden" : "ramp";
  }

  /// The time integration: the lines of the scheme (none: the default), the step and the end time.
  struct Scheme
  {
    std::string label, lines;
    double time_step, end_time;
  };

  struct Outcome
  {
    hertz::Measured measured;
    double force = 0., kinetic = 0., strain = 0., seconds = 0.;
    // 3D only: p² = A − B r² fitted to the loaded nodes, a² = A/B, p0 = sqrt(A).
    double a_fit = 0., p0_fit = 0.;
    // Reported: the largest |p − p_Hertz(r)| / p0_Hertz over the nodes with r ≤ 3a/4 (the profile
    // inside the edge cells, where a and p0 do not see a pressure oscillating from node to node).
    double profile = 0.;
  };

  /// The parameter file of both geometries: body 1 the block (bottom 1 fixed, top 2 master), body 2
  /// the curved body (slave 3, top 4 loaded by @p traction, a function of t).
  std::string parameters(const int dim, const std::string &mesh_file, const std::string &traction, const Scheme &scheme,
                         const double search_distance)
  {
    std::ostringstream text;
    text.precision(17);
    text << "set Dimension = " << dim << "\nsubsection Mesh\n  set Type = gmsh\n  set File name = " << mesh_file
         << "\nend\n"
         << "subsection Materials\n  set Material ids = 1, 2\n  set Young's modulus = " << E1 << ", " << E2
         << "\n  set Poisson's ratio = " << nu1 << ", " << nu2 << "\n  set Density = " << density << ", " << density
         << "\nend\n"
         << "subsection Damping\n  set Mass proportional coefficient = 100\nend\n"
         << "subsection Boundary conditions\n  set Fixed boundary ids = 1\nend\n"
         << "subsection Loads\n  set Traction boundary ids = 4\n  set Traction = " << traction << "\nend\n"
         << "subsection Time integration\n"
         << scheme.lines << "  set Time step = " << scheme.time_step << "\n  set End time = " << scheme.end_time
         << "\nend\n"
         << "subsection Contact solver\n  set Tolerance = 1e-13\nend\n"
         << "subsection Contact\n  set Number of pairs = 1\n  set Search distance = " << search_distance
         << "\n  subsection Pair 1\n"
            "    set Type = body\n    set Slave boundary id = 3\n    set Master boundary id = 2\n"
            "    set Formulation = integrated\n    set Friction coefficient = 0\n"
            "    set Restitution coefficient = 0\n  end\nend\n";
    return text.str();
  }

  /// The traction's vertical component (@p value at full load) as a function of t.
  std::string vertical_load(const double value, const Load load, const Scheme &scheme)
  {
    std::ostringstream text;
    text.precision(17);
    if (load == Load::ramp)
      text << "min(t/" << scheme.end_time / 3 << ", 1)*";
    text << "(" << value << ")";
    return text.str();
  }

  /// Runs @p text in @p directory (written there as parameters.prm) and records the final state.
  template <int dim>
  std::unique_ptr<percussion::Simulator<dim>> run_and_record(const std::string &text, const std::string &directory,
                                                             Outcome &outcome)
  {
    std::ofstream(directory + "/parameters.prm") << text;
    const auto start = std::chrono::steady_clock::now();
    auto simulator = run_simulation<dim>(text, directory, MPI_COMM_SELF);
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto &table = simulator->statistics();
    outcome.force = table.column("contact_normal_force").back();
    outcome.kinetic = table.column("kinetic_energy").back();
    outcome.strain = table.column("strain_energy").back();
    return simulator;
  }

  // ---------------------------------------------------------------------------------------------
  // 2D: the cylinder segment on a block of regression.mortar_hertz, a/h = 8.
  namespace cylinder
  {
    const double P = a_hertz * a_hertz * M_PI * E_star / (4 * radius);
    const double p0_hertz = std::sqrt(P * E_star / (M_PI * radius));
    // Block [−20a, 20a] × [−20a, 0], segment |x| ≤ 6a with its top at 6a.
    const hertz::CylinderOnBlock geometry{radius, a_hertz, 20 * a_hertz, 6 * a_hertz, 6 * a_hertz};
    const unsigned int cells_per_a = 8;

    Outcome run(const Load load, const Scheme &scheme)
    {
      const std::string directory = "resting_2d_" + std::string(name(load)) + "_" + scheme.label;
      std::filesystem::create_directories(directory);
      const std::string mesh = std::filesystem::absolute(directory + "/hertz.msh").string();
      hertz::write_cylinder_on_block(geometry, a_hertz / cells_per_a, mesh);
      const std::string traction = "0; " + vertical_load(-P / (2 * geometry.half_width), load, scheme);
      Outcome outcome;
      const auto simulator = run_and_record<2>(parameters(2, mesh, traction, scheme, 0.02), directory, outcome);
      std::vector<std::pair<double, double>> values;
      for (const auto &node : hertz::nodal_pressures(*simulator))
        values.emplace_back(node.position[0], node.pressure);
      {
        std::ofstream out(directory + "/pressures.csv");
        out.precision(17);
        out << "x,p\n";
        for (const auto &v : values)
          out << v.first << ',' << v.second << '\n';
      }
      outcome.measured = hertz::measure(values, 1e-8 * p0_hertz);
      for (const auto &[x, p] : values)
        if (std::abs(x) <= 0.75 * a_hertz)
          outcome.profile =
            std::max(outcome.profile, std::abs(p / p0_hertz - std::sqrt(1 - x * x / (a_hertz * a_hertz))));
      BOOST_TEST_MESSAGE("2D cylinder, " << name(load) << " load, " << scheme.label << " (h = " << scheme.time_step
                                         << ", T = " << scheme.end_time << ", " << outcome.seconds
                                         << " s): " << outcome.measured.n_loaded
                                         << " loaded slave nodes, a/a_Hertz = " << outcome.measured.a / a_hertz
                                         << ", p0/p0_Hertz = " << outcome.measured.p0 / p0_hertz
                                         << ", profile deviation = " << outcome.profile
                                         << ", force/P - 1 = " << outcome.force / P - 1
                                         << ", kinetic/strain energy = " << outcome.kinetic / outcome.strain);
      return outcome;
    }
  } // namespace cylinder

  // ---------------------------------------------------------------------------------------------
  // 3D: a spherical segment on a block, a quarter of it (symmetry planes x = 0 and y = 0).
  namespace sphere
  {
    const double P = 4 * E_star * a_hertz * a_hertz * a_hertz / (3 * radius);
    const double p0_hertz = 3 * P / (2 * M_PI * a_hertz * a_hertz);

    /// Dimensions of the whole bodies (the mesh is their quarter x, y ≥ 0) and the mesh grading.
    struct Geometry
    {
      double block, depth;    // block [−block, block]² × [−depth, 0]
      double half_width, top; // segment |x|, |y| ≤ half_width, flat top at z = top
      double uniform, growth; // in plane: spacing h up to `uniform` from the axis, then × growth per cell
      double uniform_depth;   // in z: spacing h up to this from the contact plane, then × growth
    };
    // Block 20a × 20a × 10a, segment 8a × 8a, 5a high; h = a/4 up to 1.25a from the axis and 0.75a
    // from the contact plane (10 × 10 × 8 and 8 × 8 × 7 cells in the quarter, 5211 DoFs).
    const Geometry geometry{10 * a_hertz, 10 * a_hertz, 4 * a_hertz, 5 * a_hertz, 1.25 * a_hertz, 1.7, 0.75 * a_hertz};
    const unsigned int cells_per_a = 4;

    /**
     * The quarter x, y ≥ 0 of the block and of the spherical segment in gmsh 2.2 ASCII, Q1
     * hexahedra, touching at the origin. Ids: cells 1 block, 2 segment; faces 1 block bottom,
     * 2 block top (master), 3 segment bottom (slave), 4 segment top (loaded), 5 on x = 0, 6 on y = 0
     * (both bodies; symmetry: u_x = 0, u_y = 0). Both bodies are tensor-product grids graded toward
     * the contact point; the segment's columns stand on the sphere z_b(x, y) = R − sqrt(R² − x² − y²)
     * and its layers are stretched over [z_b, top].
     */
    void write_mesh(const double h, const std::string &file)
    {
      const Geometry &g = geometry;
      std::vector<std::array<double, 3>> nodes;
      std::vector<std::pair<int, std::array<int, 4>>> faces;
      std::vector<std::pair<int, std::array<int, 8>>> cells;
      auto add_body = [&](const std::vector<double> &x, const std::vector<double> &levels, auto &&z_of, const int tag,
                          const int tag_bottom, const int tag_top) {
        const int base = nodes.size(), n = x.size() - 1, m = levels.size() - 1;
        for (int k = 0; k <= m; ++k)
          for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i)
              nodes.push_back({{x[i], x[j], z_of(x[i], x[j], levels[k])}});
        auto index = [&](int i, int j, int k) { return base + (k * (n + 1) + j) * (n + 1) + i + 1; };
        for (int k = 0; k < m; ++k)
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
              cells.push_back(
                {tag,
                 {{index(i, j, k), index(i + 1, j, k), index(i + 1, j + 1, k), index(i, j + 1, k), index(i, j, k + 1),
                   index(i + 1, j, k + 1), index(i + 1, j + 1, k + 1), index(i, j + 1, k + 1)}}});
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i)
            {
              faces.push_back(
                {tag_bottom, {{index(i, j, 0), index(i, j + 1, 0), index(i + 1, j + 1, 0), index(i + 1, j, 0)}}});
              faces.push_back(
                {tag_top, {{index(i, j, m), index(i + 1, j, m), index(i + 1, j + 1, m), index(i, j + 1, m)}}});
            }
        for (int k = 0; k < m; ++k)
          for (int j = 0; j < n; ++j)
            {
              faces.push_back({5, {{index(0, j, k), index(0, j, k + 1), index(0, j + 1, k + 1), index(0, j + 1, k)}}});
              faces.push_back({6, {{index(j, 0, k), index(j + 1, 0, k), index(j + 1, 0, k + 1), index(j, 0, k + 1)}}});
            }
      };
      std::vector<double> depth = hertz::graded(h, g.uniform_depth, g.depth, g.growth);
      std::reverse(depth.begin(), depth.end());
      add_body(
        hertz::graded(h, g.uniform, g.block, g.growth), depth, [](double, double, double d) { return -d; }, 1, 1, 2);
      add_body(
        hertz::graded(h, g.uniform, g.half_width, g.growth), hertz::graded(h, g.uniform_depth, g.top, g.growth),
        [&g](double x, double y, double s) {
          const double z_b = radius - std::sqrt(radius * radius - x * x - y * y);
          return z_b + (g.top - z_b) * s / g.top;
        },
        2, 3, 4);
      percussion::testing::write_gmsh(file, nodes, 3, faces, cells);
    }

    /**
     * a and p0 from the slave nodes: along the x and y axes (the lines of nodes through the contact
     * point, spacing h; mirrored through the origin), the 2D measure (edge extrapolation of p²),
     * a = the mean of the two; p0 = the largest nodal pressure. Not the diagonal x = y: its nodes are
     * √2 h apart, and the same extrapolation puts the static solution's edge 6 % out (Schatzman–Paoli,
     * against 1.6 % along the axes). Beside it (reported) a least-squares fit p² = A − B r² over all
     * loaded nodes.
     */
    void measure(const std::vector<hertz::NodalPressure<3>> &nodes, Outcome &outcome)
    {
      const double threshold = 1e-8 * p0_hertz, tolerance = 1e-9;
      double a_sum = 0.;
      for (const unsigned int axis : {0u, 1u})
        {
          std::vector<std::pair<double, double>> line;
          for (const auto &node : nodes)
            if (std::abs(node.position[1 - axis]) < tolerance)
              {
                const double along = node.position[axis];
                line.emplace_back(along, node.pressure);
                if (along > tolerance)
                  line.emplace_back(-along, node.pressure);
              }
          a_sum += hertz::measure(line, threshold).a;
        }
      outcome.measured.a = a_sum / 2;
      outcome.measured.p0 = 0.;
      outcome.measured.n_loaded = 0;
      // Least squares of q = p² against u = r² over the loaded nodes.
      double n = 0., su = 0., sq = 0., suu = 0., suq = 0.;
      for (const auto &node : nodes)
        {
          outcome.measured.p0 = std::max(outcome.measured.p0, node.pressure);
          if (node.pressure <= threshold)
            continue;
          ++outcome.measured.n_loaded;
          const double u = node.position[0] * node.position[0] + node.position[1] * node.position[1];
          const double q = node.pressure * node.pressure;
          if (u <= 0.5625 * a_hertz * a_hertz)
            outcome.profile =
              std::max(outcome.profile, std::abs(node.pressure / p0_hertz - std::sqrt(1 - u / (a_hertz * a_hertz))));
          n += 1;
          su += u;
          sq += q;
          suu += u * u;
          suq += u * q;
        }
      const double B = -(n * suq - su * sq) / (n * suu - su * su), A = (sq + B * su) / n;
      outcome.a_fit = std::sqrt(A / B);
      outcome.p0_fit = std::sqrt(A);
    }

    std::string parameters(const std::string &mesh, const Load load, const Scheme &scheme)
    {
      const std::string traction =
        "0; 0; " + vertical_load(-P / (4 * geometry.half_width * geometry.half_width), load, scheme);
      // Candidates: the slave nodes within r = 2a (gap r²/(2R)).
      std::string text = ::parameters(3, mesh, traction, scheme, 2 * a_hertz * a_hertz / radius);
      const std::string fixed = "set Fixed boundary ids = 1";
      return text.replace(text.find(fixed), fixed.size(), fixed + ", 5:x, 6:y");
    }

    Outcome run(const Load load, const Scheme &scheme)
    {
      const std::string directory = "resting_3d_" + std::string(name(load)) + "_" + scheme.label;
      std::filesystem::create_directories(directory);
      const std::string mesh = std::filesystem::absolute(directory + "/hertz.msh").string();
      write_mesh(a_hertz / cells_per_a, mesh);
      Outcome outcome;
      const auto simulator = run_and_record<3>(parameters(mesh, load, scheme), directory, outcome);
      // The quarter carries P/4.
      outcome.force *= 4;
      const auto nodes = hertz::nodal_pressures(*simulator);
      {
        std::ofstream out(directory + "/pressures.csv");
        out.precision(17);
        out << "x,y,z,p\n";
        for (const auto &n : nodes)
          out << n.position[0] << ',' << n.position[1] << ',' << n.position[2] << ',' << n.pressure << '\n';
      }
      measure(nodes, outcome);
      BOOST_TEST_MESSAGE(
        "3D sphere, " << name(load) << " load, " << scheme.label << " (h = " << scheme.time_step
                      << ", T = " << scheme.end_time << ", " << outcome.seconds << " s): " << outcome.measured.n_loaded
                      << " loaded slave nodes (quarter), a/a_Hertz = " << outcome.measured.a / a_hertz
                      << ", p0/p0_Hertz = " << outcome.measured.p0 / p0_hertz
                      << " (fit of p²: " << outcome.a_fit / a_hertz << ", " << outcome.p0_fit / p0_hertz
                      << "), profile deviation = " << outcome.profile << ", force/P - 1 = " << outcome.force / P - 1
                      << ", kinetic/strain energy = " << outcome.kinetic / outcome.strain);
      return outcome;
    }
  } // namespace sphere

  /// The default scheme: no `Scheme` or `Theta` line (Moreau–Jean Frémond, θ = ½).
  Scheme default_scheme(const double h, const double end_time)
  {
    return {"default", "", h, end_time};
  }

  /// Schatzman–Paoli (e = 0, β = ¼), the position-level scheme that reaches the static solution.
  Scheme schatzman_paoli(const double h, const double end_time)
  {
    return {"schatzman_paoli", "  set Scheme = Schatzman-Paoli\n", h, end_time};
  }

  // The runs' time step and end time (the same for both schemes): see the first comment.
  const double step = 2e-4, end_2d = 0.3, end_3d = 0.2;

  /// At rest (kinetic energy tiny, contact force = load) with a and p0 within 2 % of Hertz.
  void check(const Outcome &o, const double P, const double p0_hertz)
  {
    BOOST_TEST(std::abs(o.force / P - 1) <= 1e-3);
    BOOST_TEST(o.kinetic <= 1e-6 * o.strain);
    BOOST_TEST(std::abs(o.measured.a / a_hertz - 1) <= 0.02);
    BOOST_TEST(std::abs(o.measured.p0 / p0_hertz - 1) <= 0.02);
  }
} // namespace

// A serial verification (RANKS 1): the partition is checked by the patch tests of mortar_contact.
BOOST_AUTO_TEST_CASE(cylinder_on_block_default_scheme)
{
  if (dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) > 1)
    return;
  for (const Load load : {Load::sudden, Load::ramp})
    {
      BOOST_TEST_CONTEXT("2D, " << name(load) << " load")
      check(cylinder::run(load, default_scheme(step, end_2d)), cylinder::P, cylinder::p0_hertz);
    }
}

BOOST_AUTO_TEST_CASE(sphere_on_block_default_scheme)
{
  if (dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) > 1)
    return;
  // a and p0 within 2 % of Hertz for both load histories, and the two histories within 1 % of each
  // other (at 0.2 s: a 0.3 %, p0 0.7 %; at 0.3 s 0.02 % and 0.06 %). Not checked: rest. The quarter
  // sphere keeps a small vibration (kinetic energy 1e-5 of the strain energy at 0.2 s and at 0.3 s,
  // the contact force 2 % below the load), which the 2D case does not show; reported.
  std::vector<Outcome> outcomes;
  for (const Load load : {Load::sudden, Load::ramp})
    {
      const Outcome o = sphere::run(load, default_scheme(step, end_3d));
      BOOST_TEST_CONTEXT("3D, " << name(load) << " load")
      {
        BOOST_TEST(std::abs(o.measured.a / a_hertz - 1) <= 0.02);
        BOOST_TEST(std::abs(o.measured.p0 / sphere::p0_hertz - 1) <= 0.02);
      }
      outcomes.push_back(o);
    }
  BOOST_TEST(std::abs(outcomes[0].measured.a / outcomes[1].measured.a - 1) <= 1e-2);
  BOOST_TEST(std::abs(outcomes[0].measured.p0 / outcomes[1].measured.p0 - 1) <= 1e-2);
}

// The same harness with Schatzman–Paoli: the static solution meets the checks (the test is fair).
// Not run by default (about 4 minutes; the 2D sudden case is regression.mortar_hertz's a/h = 8
// run): `regression.resting_pressure --run_test=schatzman_paoli_reference --log_level=message`.
BOOST_AUTO_TEST_CASE(schatzman_paoli_reference, *boost::unit_test::disabled())
{
  if (dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) > 1)
    return;
  for (const Load load : {Load::sudden, Load::ramp})
    {
      BOOST_TEST_CONTEXT("2D, " << name(load) << " load, Schatzman-Paoli")
      check(cylinder::run(load, schatzman_paoli(step, end_2d)), cylinder::P, cylinder::p0_hertz);
      BOOST_TEST_CONTEXT("3D, " << name(load) << " load, Schatzman-Paoli")
      check(sphere::run(load, schatzman_paoli(step, end_3d)), sphere::P, sphere::p0_hertz);
    }
}
