// Body-to-body pairs (node-to-segment in 2D, node-to-face in 3D) with Q1/Q2, 1 and 2 MPI ranks:
// gaps and normals of two offset boxes, master weights, Hᵀv against finite differences (flat and
// curved masters), rigid translation and rotation.
#define BOOST_TEST_MODULE contact_body_to_body
#include "../../mpi_test_fixture.h"
#include "contact_test_tools.h"

using namespace contact_test;

namespace
{
  constexpr types::boundary_id slave_id = two_boxes_slave_id;
  constexpr types::boundary_id master_id = two_boxes_master_id;

  // A box above a ball (radius 0.5, centre 0): the master surface is curved.
  template <int dim>
  void make_box_over_ball(Problem<dim> &problem)
  {
    Triangulation<dim> ball;
    GridGenerator::hyper_ball(ball, Point<dim>(), 0.5);
    ball.refine_global(1);
    std::vector<Point<dim>> vertices;
    std::vector<CellData<dim>> cells;
    append_triangulation(vertices, cells, ball, 0);
    Point<dim> lower, upper;
    for (unsigned int d = 0; d < dim - 1; ++d)
      {
        lower[d] = -0.27;
        upper[d] = 0.31;
      }
    lower[dim - 1] = 0.56;
    upper[dim - 1] = 0.8;
    append_box<dim>(vertices, cells, lower, upper, std::vector<unsigned int>(dim, 3), 1);
    create_mesh<dim>(problem.tria, vertices, cells, [](const Point<dim> &c, types::material_id m) {
      if (m == 0)
        return master_id;
      if (m == 1 && std::abs(c[dim - 1] - 0.56) < 1e-12)
        return slave_id;
      return types::boundary_id(0);
    });
    problem.setup();
  }

  ContactParameters body_parameters(const double search_distance)
  {
    ContactParameters parameters;
    parameters.search_distance = search_distance;
    parameters.pairs.push_back(make_pair(PairType::body, slave_id, master_id));
    parameters.pairs.back().friction_coefficient = 0.3;
    return parameters;
  }

  unsigned int n_slave_nodes(const int dim, const unsigned int degree)
  {
    const unsigned int per_line = 3 * degree + 1;
    return dim == 2 ? per_line : per_line * per_line;
  }

  template <int dim>
  void check_offset_boxes(const unsigned int degree)
  {
    BOOST_TEST_CONTEXT(dim << "D Q" << degree)
    {
      Problem<dim> problem(MPI_COMM_WORLD, degree);
      make_two_boxes<dim>(problem, 0.05);
      ContactGeometry<dim> geometry(problem.dof_handler, body_parameters(0.1));
      geometry.update(problem.ghosted(problem.vector()), 0.);
      BOOST_TEST(geometry.n_global_points() == n_slave_nodes(dim, degree));
      double error = 0.;
      for (const auto &point : geometry.owned_points())
        {
          error = std::max(error, std::abs(point.gap - 0.05));
          error = std::max(error, std::abs(point.normal()[dim - 1] - 1.));
          double weight_sum = 0.;
          for (const double w : point.master_weights)
            weight_sum += w;
          error = std::max(error, std::abs(weight_sum - 1.));
          BOOST_TEST(point.friction_coefficient == 0.3);
        }
      BOOST_TEST(Utilities::MPI::max(error, problem.comm) < 1e-13);
      BOOST_TEST(frame_orthonormality_error(geometry) < 1e-12);

      // The master body moving up at unit speed approaches every slave node: u_N = −1, u_T = 0.
      const auto v = problem.interpolate([](const Point<dim> &x) {
        Tensor<1, dim> velocity;
        if (x[dim - 1] < 0.5 + 1e-9)
          velocity[dim - 1] = 1.;
        return velocity;
      });
      PETScWrappers::MPI::Vector u;
      geometry.local_velocity(v, u);
      double u_error = 0.;
      for (const auto &point : geometry.owned_points())
        for (unsigned int k = 0; k < dim; ++k)
          u_error = std::max(u_error, std::abs(u(dim * point.global_index + k) - (k == 0 ? -1. : 0.)));
      BOOST_TEST(Utilities::MPI::max(u_error, problem.comm) < 1e-13);

      // Search distance below the gap: no candidates.
      ContactGeometry<dim> far(problem.dof_handler, body_parameters(0.04));
      far.update(problem.ghosted(problem.vector()), 0.);
      BOOST_TEST(far.n_global_points() == 0u);
    }
  }

  template <int dim>
  void check_finite_differences_and_rigid_motion(const unsigned int degree)
  {
    BOOST_TEST_CONTEXT(dim << "D Q" << degree)
    {
      {
        Problem<dim> problem(MPI_COMM_WORLD, degree);
        make_two_boxes<dim>(problem, 0.05);
        ContactGeometry<dim> geometry(problem.dof_handler, body_parameters(0.1));
        const auto q = problem.random(11, 0.005);
        const auto v = problem.random(12, 1.);
        const auto result = finite_difference_check(problem, geometry, q, v, 0.);
        BOOST_TEST(result.same_points);
        BOOST_TEST(result.n_points == n_slave_nodes(dim, degree));
        BOOST_TEST(result.max_rate > 0.1);
        BOOST_TEST(result.max_error < 1e-6);
        BOOST_TEST(frame_orthonormality_error(geometry) < 1e-12);

        // Rigid translation of both bodies: no relative velocity at all.
        Tensor<1, dim> translation;
        for (unsigned int d = 0; d < dim; ++d)
          translation[d] = 0.3 - 0.5 * d;
        const auto v_translation = problem.interpolate([&](const Point<dim> &) { return translation; });
        geometry.update(problem.ghosted(q), 0.);
        PETScWrappers::MPI::Vector u;
        geometry.local_velocity(v_translation, u);
        BOOST_TEST(u.linfty_norm() < 1e-13);

        // Rigid rotation about a point: the gaps do not change (finite differences) and neither
        // does Hᵀv give a normal rate; the tangential rates do not vanish (separated bodies).
        const auto rotation = [](const Point<dim> &x) {
          Tensor<1, dim> velocity;
          velocity[0] = -(x[dim - 1] - 0.5);
          velocity[dim - 1] = x[0] - 0.4;
          return velocity;
        };
        const auto rotation_result =
          finite_difference_check(problem, geometry, problem.vector(), problem.interpolate(rotation), 0.);
        BOOST_TEST(rotation_result.same_points);
        BOOST_TEST(rotation_result.max_rate < 1e-13);
        BOOST_TEST(rotation_result.max_error < 1e-6);
        geometry.local_velocity(problem.interpolate(rotation), u);
        BOOST_TEST(u.linfty_norm() > 0.01);
      }
      {
        // Touching bodies (zero gap): a rigid rotation gives zero normal and tangential velocity,
        // since every slave node coincides with its projection.
        Problem<dim> problem(MPI_COMM_WORLD, degree);
        make_two_boxes<dim>(problem, 0.);
        ContactGeometry<dim> geometry(problem.dof_handler, body_parameters(0.1));
        geometry.update(problem.ghosted(problem.vector()), 0.);
        BOOST_TEST(geometry.n_global_points() == n_slave_nodes(dim, degree));
        const auto v = problem.interpolate([](const Point<dim> &x) {
          Tensor<1, dim> velocity;
          velocity[0] = -(x[dim - 1] - 0.5);
          velocity[dim - 1] = x[0] - 0.4;
          if (dim == 3)
            {
              velocity[1] += 0.7 * (x[0] - 0.4);
              velocity[0] -= 0.7 * x[1];
            }
          return velocity;
        });
        PETScWrappers::MPI::Vector u;
        geometry.local_velocity(v, u);
        BOOST_TEST(u.linfty_norm() < 1e-13);
        BOOST_TEST(u.size() == dim * n_slave_nodes(dim, degree));
      }
    }
  }

  template <int dim>
  void check_curved_master(const unsigned int degree)
  {
    BOOST_TEST_CONTEXT(dim << "D Q" << degree << " box over ball")
    {
      Problem<dim> problem(MPI_COMM_WORLD, degree);
      make_box_over_ball<dim>(problem);
      ContactGeometry<dim> geometry(problem.dof_handler, body_parameters(0.3));
      const auto q = problem.random(21, 0.005);
      const auto v = problem.random(22, 1.);
      const auto result = finite_difference_check(problem, geometry, q, v, 0.);
      BOOST_TEST(result.same_points);
      BOOST_TEST(result.n_points == n_slave_nodes(dim, degree));
      BOOST_TEST(result.max_rate > 0.1);
      BOOST_TEST(result.max_error < 1e-6);
      BOOST_TEST(frame_orthonormality_error(geometry) < 1e-12);
      // Normals point out of the ball toward the slave box (upward here).
      double lowest = 1.;
      for (const auto &point : geometry.owned_points())
        lowest = std::min(lowest, point.normal()[dim - 1]);
      BOOST_TEST(Utilities::MPI::min(lowest, problem.comm) > 0.5);
    }
  }
} // namespace

BOOST_AUTO_TEST_CASE(offset_boxes)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_offset_boxes<2>(degree);
      check_offset_boxes<3>(degree);
    }
}

BOOST_AUTO_TEST_CASE(finite_differences_and_rigid_motion)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_finite_differences_and_rigid_motion<2>(degree);
      check_finite_differences_and_rigid_motion<3>(degree);
    }
}

BOOST_AUTO_TEST_CASE(curved_master)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_curved_master<2>(degree);
      check_curved_master<3>(degree);
    }
}
