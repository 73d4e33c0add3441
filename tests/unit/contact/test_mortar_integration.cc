// The integrated (dual mortar) formulation of body pairs: polygon clipping, the dual
// basis (biorthogonality, Σ Ψ_j = 1), the mortar integrals of one slave segment against two
// master segments (exact values), and ContactGeometry with Formulation = integrated on two offset
// boxes with non-matching meshes (2D/3D, Q1/Q2, 1 and 2 ranks): every slave node is a candidate
// with gap = the offset, Σ_m M_jm/D_jj = 1, Σ_j D_jj = the slave surface area, and the nodal
// normal is the box normal. The tests are independent of each other and of the simulator.
#define BOOST_TEST_MODULE contact_mortar_integration
#include "../../mpi_test_fixture.h"
#include "contact_test_tools.h"

#include <percussion/contact/mortar_integration.h>

#include <deal.II/base/quadrature_lib.h>

using namespace contact_test;
using percussion::Contact::Formulation;

namespace
{
  double polygon_area(const std::vector<Point<2>> &polygon)
  {
    double twice = 0.;
    for (unsigned int i = 0; i < polygon.size(); ++i)
      {
        const auto &p = polygon[i], &q = polygon[(i + 1) % polygon.size()];
        twice += p[0] * q[1] - p[1] * q[0];
      }
    return 0.5 * twice;
  }

  /** ∫_e f dΓ on a facet by a fine Gauss rule (independent of the code under test). */
  template <int dim>
  double facet_integral(const FE_Q<dim - 1> &fe, const std::vector<Point<dim>> &nodes,
                        const std::function<double(const Point<dim - 1> &)> &f)
  {
    const QGauss<dim - 1> quadrature(6);
    double result = 0.;
    for (unsigned int q = 0; q < quadrature.size(); ++q)
      {
        std::array<Tensor<1, dim>, dim - 1> t;
        for (unsigned int b = 0; b < nodes.size(); ++b)
          for (unsigned int j = 0; j < dim - 1; ++j)
            t[j] += fe.shape_grad(b, quadrature.point(q))[j] * nodes[b];
        const double J = dim == 2 ? t[0].norm() : cross_product_3d(t[0], t[dim - 2]).norm();
        result += f(quadrature.point(q)) * J * quadrature.weight(q);
      }
    return result;
  }

  template <int dim>
  void check_dual_basis(const unsigned int degree)
  {
    const FE_Q<dim - 1> fe(degree);
    // A distorted facet: the unit support points mapped by a non-affine map.
    std::vector<Point<dim>> nodes;
    for (const auto &p : fe.get_unit_support_points())
      {
        // Planar (so that the surface element is a polynomial and both rules are exact) but not
        // a parallelogram in 3D: a bilinear map of the unit square, tilted.
        Point<dim> x;
        x[0] = p[0] * (1. + 0.3 * (dim == 3 ? p[1] : 0.)) + 0.1;
        if (dim == 3)
          x[1] = p[1] + 0.2 * p[0];
        x[dim - 1] = 0.05 * x[0] + (dim == 3 ? 0.02 * x[1] : 0.);
        nodes.push_back(x);
      }
    const FullMatrix<double> A = percussion::Contact::dual_basis_coefficients<dim>(fe, nodes);
    const unsigned int n = nodes.size();
    for (unsigned int j = 0; j < n; ++j)
      {
        const double Nj = facet_integral<dim>(fe, nodes, [&](const Point<dim - 1> &x) { return fe.shape_value(j, x); });
        BOOST_TEST(Nj > 0.);
        for (unsigned int k = 0; k < n; ++k)
          {
            const double psi_n = facet_integral<dim>(fe, nodes, [&](const Point<dim - 1> &x) {
              double psi = 0.;
              for (unsigned int i = 0; i < n; ++i)
                psi += A(j, i) * fe.shape_value(i, x);
              return psi * fe.shape_value(k, x);
            });
            BOOST_TEST(psi_n == (j == k ? Nj : 0.), boost::test_tools::tolerance(1e-12));
          }
      }
    // Σ_j Ψ_j = 1: the column sums of A are 1.
    for (unsigned int k = 0; k < n; ++k)
      {
        double sum = 0.;
        for (unsigned int j = 0; j < n; ++j)
          sum += A(j, k);
        BOOST_TEST(sum == 1., boost::test_tools::tolerance(1e-12));
      }
  }

  constexpr types::boundary_id slave_id = two_boxes_slave_id;
  constexpr types::boundary_id master_id = two_boxes_master_id;

  /// Serial only (on several ranks the column sums are split over ranks and the master DoFs need
  /// not be locally relevant), degree 1: the mortar coupling's column sums.
  template <int dim>
  void check_master_column_sums(Problem<dim> &problem, const ContactGeometry<dim> &geometry)
  {
    // Σ_j M_jm = ∫ N_m dΓ over the slave region (Σ_j Ψ_j = 1): the consistent load of a unit
    // pressure on each master node, a product of integrals of 1D hats (master spacing 1/8).
    std::map<types::global_dof_index, Point<dim>> support;
    DoFTools::map_dofs_to_support_points(MappingQ1<dim>(), problem.dof_handler, support);
    std::map<types::global_dof_index, double> column_sum;
    for (const auto &point : geometry.owned_points())
      for (unsigned int m = 0; m < point.master_dofs.size(); ++m)
        column_sum[point.master_dofs[m][0]] += point.master_weights[m] * point.area;
    auto hat_integral = [](const double center, const double a, const double b) {
      // ∫_a^b max(0, 1 − |x − center|/h) dx, exactly (Simpson on each linear piece).
      const double h = 0.125;
      double result = 0.;
      const double breaks[4] = {center - h, center, center, center + h};
      for (unsigned int piece = 0; piece < 2; ++piece)
        {
          const double lo = std::max(a, breaks[2 * piece]), hi = std::min(b, breaks[2 * piece + 1]);
          if (hi > lo)
            {
              auto f = [&](double x) { return 1. - std::abs(x - center) / h; };
              result += (hi - lo) / 6. * (f(lo) + 4. * f(0.5 * (lo + hi)) + f(hi));
            }
        }
      return result;
    };
    double largest = 0.;
    for (const auto &[dof, sum] : column_sum)
      {
        const Point<dim> &x = support.at(dof);
        double exact = hat_integral(x[0], 0.13, 0.83);
        if (dim == 3)
          exact *= hat_integral(x[1], 0.21, 0.91);
        largest = std::max(largest, std::abs(sum - exact));
      }
    BOOST_TEST(largest <= 1e-14);
  }

  /**
   * Large sliding: the upper body translated by a non-grid-aligned tangential shift (still above
   * the master surface) and 4 mm down: the overlaps are clipped again, the gap is 6 mm, the
   * weighted areas still sum to the slave area and Σ_m M_jm/D_jj = 1.
   */
  template <int dim>
  void check_large_sliding(Problem<dim> &problem, ContactGeometry<dim> &geometry, const double gap,
                           const unsigned int n_expected)
  {
    Tensor<1, dim> shift;
    shift[0] = 0.137;
    if (dim == 3)
      shift[1] = -0.083;
    shift[dim - 1] = -0.004;
    const auto q =
      problem.interpolate([&](const Point<dim> &x) { return x[dim - 1] > 0.502 ? shift : Tensor<1, dim>(); });
    geometry.update(problem.ghosted(q), 0.);
    BOOST_TEST(geometry.n_global_points() == n_expected);
    double shifted_area = 0., gap_error = 0., weight_error = 0.;
    for (const auto &point : geometry.owned_points())
      {
        shifted_area += point.area;
        gap_error = std::max(gap_error, std::abs(point.gap - (gap - 0.004)));
        double sum = 0.;
        for (const double w : point.master_weights)
          sum += w;
        weight_error = std::max(weight_error, std::abs(sum - 1.));
      }
    BOOST_TEST(Utilities::MPI::sum(shifted_area, MPI_COMM_WORLD) == std::pow(0.7, dim - 1),
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(Utilities::MPI::max(gap_error, MPI_COMM_WORLD) <= 1e-14);
    BOOST_TEST(Utilities::MPI::max(weight_error, MPI_COMM_WORLD) <= 1e-13);
    geometry.update(problem.ghosted(problem.vector()), 0.);
  }

  template <int dim>
  void check_two_boxes(const unsigned int degree)
  {
    const double gap = 0.01;
    Problem<dim> problem(MPI_COMM_WORLD, degree);
    make_two_boxes<dim>(problem, gap, 1);
    ContactParameters parameters;
    parameters.search_distance = 0.05;
    parameters.pairs.push_back(make_pair(PairType::body, slave_id, master_id));
    parameters.pairs.back().formulation = Formulation::integrated;
    ContactGeometry<dim> geometry(problem.dof_handler, parameters);
    geometry.update(problem.ghosted(problem.vector()), 0.);

    // 6 slave cells across (3, refined once): (6p + 1)^{dim−1} nodes.
    const unsigned int n_expected = std::pow(6 * degree + 1, dim - 1);
    BOOST_TEST(geometry.n_global_points() == n_expected);
    double area = 0., largest_gap_error = 0., largest_weight_error = 0., largest_normal_error = 0.;
    for (const auto &point : geometry.owned_points())
      {
        area += point.area;
        largest_gap_error = std::max(largest_gap_error, std::abs(point.gap - gap));
        double sum = 0.;
        for (const double w : point.master_weights)
          sum += w;
        largest_weight_error = std::max(largest_weight_error, std::abs(sum - 1.));
        Tensor<1, dim> e;
        e[dim - 1] = 1.;
        largest_normal_error = std::max(largest_normal_error, (point.normal() - e).norm());
      }
    BOOST_TEST(Utilities::MPI::sum(area, MPI_COMM_WORLD) == std::pow(0.7, dim - 1),
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(Utilities::MPI::max(largest_gap_error, MPI_COMM_WORLD) <= 1e-14);
    BOOST_TEST(Utilities::MPI::max(largest_weight_error, MPI_COMM_WORLD) <= 1e-13);
    BOOST_TEST(Utilities::MPI::max(largest_normal_error, MPI_COMM_WORLD) <= 1e-14);

    if (degree == 1 && Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) == 1)
      check_master_column_sums(problem, geometry);
    check_large_sliding(problem, geometry, gap, n_expected);

    // A rigid translation of both bodies gives u = Hᵀv = 0; moving the slave body alone by v
    // gives u = frame·v at every point.
    Tensor<1, dim> velocity;
    for (unsigned int d = 0; d < dim; ++d)
      velocity[d] = 0.3 + 0.1 * d;
    const auto rigid = problem.interpolate([&](const Point<dim> &) { return velocity; });
    PETScWrappers::MPI::Vector u;
    geometry.local_velocity(rigid, u);
    BOOST_TEST(u.linfty_norm() <= 1e-13);
    const auto upper =
      problem.interpolate([&](const Point<dim> &x) { return x[dim - 1] > 0.502 ? velocity : Tensor<1, dim>(); });
    geometry.local_velocity(upper, u);
    double largest = 0.;
    for (const auto &point : geometry.owned_points())
      for (unsigned int k = 0; k < dim; ++k)
        largest = std::max(largest, std::abs(u(dim * point.global_index + k) - point.frame.vectors[k] * velocity));
    BOOST_TEST(Utilities::MPI::max(largest, MPI_COMM_WORLD) <= 1e-13);
  }
} // namespace

BOOST_AUTO_TEST_CASE(clipping)
{
  using percussion::Contact::clip_polygon;
  const std::vector<Point<2>> square = {Point<2>(0, 0), Point<2>(1, 0), Point<2>(1, 1), Point<2>(0, 1)};
  // A shifted square: overlap 0.5 × 0.75.
  const std::vector<Point<2>> shifted = {Point<2>(0.5, 0.25), Point<2>(1.5, 0.25), Point<2>(1.5, 1.25),
                                         Point<2>(0.5, 1.25)};
  BOOST_TEST(polygon_area(clip_polygon(shifted, square)) == 0.375, boost::test_tools::tolerance(1e-15));
  // The square turned by 45° about its center: a regular octagon of area 2(√2 − 1).
  std::vector<Point<2>> turned;
  for (unsigned int i = 0; i < 4; ++i)
    turned.emplace_back(0.5 + std::sqrt(0.5) * std::cos(M_PI / 4 + i * M_PI / 2 + M_PI / 4),
                        0.5 + std::sqrt(0.5) * std::sin(M_PI / 4 + i * M_PI / 2 + M_PI / 4));
  const auto octagon = clip_polygon(turned, square);
  BOOST_TEST(octagon.size() == 8u);
  BOOST_TEST(polygon_area(octagon) == 2. * (std::sqrt(2.) - 1.), boost::test_tools::tolerance(1e-14));
  // Coincident squares, a square sharing an edge only, and disjoint squares.
  BOOST_TEST(polygon_area(clip_polygon(square, square)) == 1., boost::test_tools::tolerance(1e-15));
  const std::vector<Point<2>> beside = {Point<2>(1, 0), Point<2>(2, 0), Point<2>(2, 1), Point<2>(1, 1)};
  BOOST_TEST(std::abs(polygon_area(clip_polygon(beside, square))) <= 1e-15);
  // Vertices within round-off outside a clip edge (a master facet edge on a slave facet edge after
  // a tiny drift): the overlap is the subject, not an extrapolation beyond it.
  // One end counts as inside (within the tolerance 1e-14), the other not; unclamped, the edge's
  // intersection ratio would be −4.5 and the polygon would reach x = −2.5.
  const std::vector<Point<2>> nearly = {Point<2>(0.2, -0.9e-14), Point<2>(0.8, -1.1e-14), Point<2>(0.8, 0.5),
                                        Point<2>(0.2, 0.5)};
  BOOST_TEST(polygon_area(clip_polygon(nearly, square)) == 0.3, boost::test_tools::tolerance(1e-12));
  const std::vector<Point<2>> far = {Point<2>(3, 0), Point<2>(4, 0), Point<2>(4, 1), Point<2>(3, 1)};
  BOOST_TEST(clip_polygon(far, square).empty());
}

BOOST_AUTO_TEST_CASE(dual_basis)
{
  check_dual_basis<2>(1);
  check_dual_basis<2>(2);
  check_dual_basis<3>(1);
  check_dual_basis<3>(2);
  // Q1 on a straight segment: Ψ_0 = 2N_0 − N_1 (Wohlmuth 2000).
  const FE_Q<1> fe(1);
  const auto A = percussion::Contact::dual_basis_coefficients<2>(fe, {Point<2>(0, 0), Point<2>(2, 0)});
  BOOST_TEST(A(0, 0) == 2., boost::test_tools::tolerance(1e-14));
  BOOST_TEST(A(0, 1) == -1., boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(segment_integrals)
{
  // Slave segment [0,1] at y = 0.1 (body above, outward normal −y) on master segments
  // [−0.3, 0.4] and [0.4, 1.2] at y = 0 (body below). Exact values: D_jj = ½, g̃_j = 0.1 D_jj,
  // Σ_j M_jm = ∫_0^1 N_m dx (Σ Ψ_j = 1), e.g. for the master node at 0.4:
  // ∫_0^0.4 (x + 0.3)/0.7 dx + ∫_0.4^1 (1.2 − x)/0.8 dx = 0.2/0.7 + 0.375 (the three sum to 1).
  const FE_Q<1> fe(1);
  percussion::Contact::SlaveFacet<2> slave{{Point<2>(0, 0.1), Point<2>(1, 0.1)}, {{{0, 1}}, {{2, 3}}}, 1.};
  // The parametric normal of (0,0.1) → (1,0.1) is (0, −1): outward for the upper body.
  std::vector<percussion::Contact::MasterFacet<2>> masters(2);
  masters[0].nodes = {Point<2>(-0.3, 0), Point<2>(0.4, 0)};
  masters[0].dofs = {{{10, 11}}, {{12, 13}}};
  masters[1].nodes = {Point<2>(0.4, 0), Point<2>(1.2, 0)};
  masters[1].dofs = {{{12, 13}}, {{14, 15}}};
  // Their parametric normal (0, −1) points into the lower body.
  masters[0].orientation = masters[1].orientation = -1.;
  std::map<types::global_dof_index, percussion::Contact::MortarNode<2>> rows;
  rows[0];
  rows[2];
  percussion::Contact::integrate_slave_facet<2>(fe, slave, masters, {0, 1}, 0.5, rows);
  std::map<types::global_dof_index, double> column_sums;
  for (const auto &[dof, row] : rows)
    {
      BOOST_TEST(row.weighted_area == 0.5, boost::test_tools::tolerance(1e-14));
      BOOST_TEST(row.support_area == 0.5, boost::test_tools::tolerance(1e-14));
      BOOST_TEST(row.weighted_gap == 0.05, boost::test_tools::tolerance(1e-13));
      BOOST_TEST(row.normal_sum[1] == -1., boost::test_tools::tolerance(1e-14));
      double sum = 0.;
      for (const auto &[master_dof, entry] : row.master)
        {
          sum += entry.second;
          column_sums[master_dof] += entry.second;
        }
      BOOST_TEST(sum == row.weighted_area, boost::test_tools::tolerance(1e-13));
    }
  BOOST_TEST(column_sums[10] == 0.08 / 0.7, boost::test_tools::tolerance(1e-13));
  BOOST_TEST(column_sums[12] == 0.2 / 0.7 + 0.375, boost::test_tools::tolerance(1e-13));
  BOOST_TEST(column_sums[14] == 0.6 * 0.6 / 1.6, boost::test_tools::tolerance(1e-13));
}

BOOST_AUTO_TEST_CASE(two_boxes_2d_q1)
{
  check_two_boxes<2>(1);
}
BOOST_AUTO_TEST_CASE(two_boxes_2d_q2)
{
  check_two_boxes<2>(2);
}
BOOST_AUTO_TEST_CASE(two_boxes_3d_q1)
{
  check_two_boxes<3>(1);
}
BOOST_AUTO_TEST_CASE(two_boxes_3d_q2)
{
  check_two_boxes<3>(2);
}
