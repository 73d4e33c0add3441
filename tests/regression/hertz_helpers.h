#ifndef PERCUSSION_TESTS_HERTZ_HELPERS_H
#define PERCUSSION_TESTS_HERTZ_HELPERS_H

// Pieces shared by the Hertz tests (test_mortar_hertz.cc, test_resting_pressure.cc): graded node
// coordinates, the 2D cylinder-on-block mesh in gmsh 2.2, the slave nodes' pressures of a finished
// run and the measurement of the half-width a and the peak p0 from a pressure profile along a line.

#include <percussion/contact/contact_point_output.h>
#include <percussion/simulator/simulator.h>

#include <deal.II/base/point.h>

#include <boost/test/unit_test.hpp>

#include "gmsh_writer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace percussion::testing::hertz
{
  /**
   * Node coordinates 0 = s_0 < s_1 < … < s_n = length: spacing h up to @p uniform (the contact zone
   * and a margin), then growing by @p growth per cell; the graded part is scaled so that the last
   * node is at @p length.
   */
  inline std::vector<double> graded(const double h, const double uniform, const double length,
                                    const double growth = 1.2)
  {
    std::vector<double> s{0.};
    while (s.back() + h <= uniform + 1e-12)
      s.push_back(s.back() + h);
    const double start = s.back();
    std::vector<double> steps;
    double step = h, sum = 0.;
    while (sum + step < length - start)
      {
        step *= growth;
        steps.push_back(step);
        sum += step;
      }
    for (const double d : steps)
      s.push_back(s.back() + d * (length - start) / sum);
    s.back() = length;
    return s;
  }

  /// Symmetric coordinates −s_n … s_n from graded().
  inline std::vector<double> symmetric(const std::vector<double> &s)
  {
    std::vector<double> x;
    for (auto it = s.rbegin(); it != s.rend(); ++it)
      x.push_back(-*it);
    x.insert(x.end(), s.begin() + 1, s.end());
    return x;
  }

  /**
   * A cylinder segment of radius @p radius on a block, touching at the origin (2D, plane strain):
   * block [−block, block] × [−block, 0], segment |x| ≤ half_width with its flat top at y = top.
   * Node spacing h up to 2 @p a (the contact zone and a margin) from the contact point, then growing
   * by 1.2 per cell.
   */
  struct CylinderOnBlock
  {
    double radius, a, block, half_width, top;
  };

  /**
   * The block and the cylinder segment in gmsh 2.2 ASCII, Q1 quadrilaterals, touching at the origin.
   * Cells: tag 1 block, 2 cylinder. Faces: 1 block bottom, 2 block top (master), 3 cylinder arc
   * (slave), 4 cylinder top (loaded). The cylinder's columns follow the arc y_b(x) = R − sqrt(R² − x²)
   * and its rows are the graded heights stretched over [y_b(x), H].
   */
  inline void write_cylinder_on_block(const CylinderOnBlock &g, const double h, const std::string &file)
  {
    std::vector<std::array<double, 2>> nodes;
    std::vector<std::pair<int, std::vector<int>>> cells, faces;
    auto add_body = [&](const std::vector<double> &x, const std::vector<double> &levels, auto &&y_of, const int tag,
                        const int tag_bottom, const int tag_top) {
      const int base = nodes.size(), n = x.size() - 1, m = levels.size() - 1;
      for (int j = 0; j <= m; ++j)
        for (int i = 0; i <= n; ++i)
          nodes.push_back({{x[i], y_of(x[i], levels[j])}});
      auto index = [&](int i, int j) { return base + j * (n + 1) + i + 1; };
      for (int j = 0; j < m; ++j)
        for (int i = 0; i < n; ++i)
          cells.push_back({tag, {index(i, j), index(i + 1, j), index(i + 1, j + 1), index(i, j + 1)}});
      for (int i = 0; i < n; ++i)
        {
          faces.push_back({tag_bottom, {index(i, 0), index(i + 1, 0)}});
          faces.push_back({tag_top, {index(i, m), index(i + 1, m)}});
        }
    };
    const double uniform = 2 * g.a;
    // Block: rows from y = −L (graded toward the top face) to 0.
    std::vector<double> depth = graded(h, uniform, g.block);
    std::reverse(depth.begin(), depth.end());
    add_body(
      symmetric(graded(h, uniform, g.block)), depth, [](double, double d) { return -d; }, 1, 1, 2);
    // Cylinder: rows graded away from the arc.
    const std::vector<double> rows = graded(h, uniform, g.top);
    add_body(
      symmetric(graded(h, uniform, g.half_width)), rows,
      [&g](double x, double s) {
        const double y_b = g.radius - std::sqrt(g.radius * g.radius - x * x);
        return y_b + (g.top - y_b) * s / g.top;
      },
      2, 3, 4);
    percussion::testing::write_gmsh(file, nodes, 2, faces, cells);
  }

  struct Measured
  {
    double a = 0.;  // half-width
    double p0 = 0.; // peak pressure
    unsigned int n_loaded = 0;
  };

  /**
   * From the nodes (s, p) of a line through the contact zone, sorted by s: p0 = the largest
   * pressure; on each side the zero of p² extrapolated linearly from the last two loaded nodes
   * (Hertz: p² = p0² (1 − s²/a²), nearly linear over one cell at the edge), kept between the last
   * loaded and the first unloaded node; a = the mean of the two sides. Loaded: p > @p threshold.
   */
  inline Measured measure(std::vector<std::pair<double, double>> values, const double threshold)
  {
    std::sort(values.begin(), values.end());
    Measured result;
    for (const auto &v : values)
      {
        result.p0 = std::max(result.p0, v.second);
        result.n_loaded += v.second > threshold ? 1 : 0;
      }
    auto edge = [&](auto begin, auto end) {
      // Walk outwards from the peak to the first unloaded node.
      auto peak = std::max_element(begin, end, [](const auto &l, const auto &r) { return l.second < r.second; });
      auto it = peak;
      while (std::next(it) != end && std::next(it)->second > threshold)
        ++it;
      BOOST_REQUIRE(it != peak && std::next(it) != end);
      const auto &last = *it, &before = *std::prev(it), &outside = *std::next(it);
      const double q1 = before.second * before.second, q2 = last.second * last.second;
      double zero = last.first + q2 * (last.first - before.first) / (q1 - q2);
      if (q1 <= q2)
        zero = outside.first;
      const double lo = std::min(last.first, outside.first), hi = std::max(last.first, outside.first);
      return std::clamp(zero, lo, hi);
    };
    const double right = edge(values.begin(), values.end());
    const double left = edge(values.rbegin(), values.rend());
    result.a = 0.5 * (right - left);
    return result;
  }

  /// A slave node's reference position and pressure r_N / (h D_jj) (0 out of the contact problem).
  template <int dim>
  struct NodalPressure
  {
    dealii::Point<dim> position;
    double pressure;
  };

  /// The last step's pressures of every slave node within the search distance (serial run).
  template <int dim>
  std::vector<NodalPressure<dim>> nodal_pressures(const Simulator<dim> &simulator)
  {
    const auto &geometry = *simulator.contact_geometry();
    const auto &result = simulator.last_contact_result();
    const std::vector<double> p =
      percussion::Contact::contact_pressure(geometry, result.impulse, simulator.integrator().time_step());
    std::vector<NodalPressure<dim>> values;
    // Those out of the contact problem carry no pressure.
    for (unsigned int i = 0; i < p.size(); ++i)
      values.push_back({geometry.owned_points()[i].reference_position, result.in_problem[i] ? p[i] : 0.});
    return values;
  }
} // namespace percussion::testing::hertz

#endif
