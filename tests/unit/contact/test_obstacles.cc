// Rigid obstacles (plane, sphere, cylinder, moving plane) in 2D/3D with Q1/Q2:
// Hᵀv + w against finite differences of the gaps, frames, analytic gaps, H reuse, active set,
// rigid motion with the obstacle, point-cloud output. Runs with 1 and 2 MPI ranks.
#define BOOST_TEST_MODULE contact_obstacles
#include "../../mpi_test_fixture.h"
#include "contact_test_tools.h"

#include <percussion/core/exceptions.h>

#include <percussion/contact/contact_point_output.h>

#include <fstream>
#include <sstream>

using namespace contact_test;

namespace
{
  // A box [−0.5, 0.5]^{dim−1} × [bottom, bottom + 0.5]; its lower face (vertical = last
  // coordinate) has boundary id 1, the rest 0.
  template <int dim>
  void make_box(Problem<dim> &problem, const double bottom, const unsigned int subdivisions = 3)
  {
    std::vector<Point<dim>> vertices;
    std::vector<CellData<dim>> cells;
    Point<dim> lower, upper;
    for (unsigned int d = 0; d < dim - 1; ++d)
      {
        lower[d] = -0.5;
        upper[d] = 0.5;
      }
    lower[dim - 1] = bottom;
    upper[dim - 1] = bottom + 0.5;
    append_box<dim>(vertices, cells, lower, upper, std::vector<unsigned int>(dim, subdivisions), 0);
    create_mesh<dim>(problem.tria, vertices, cells, [bottom](const Point<dim> &c, types::material_id) {
      return std::abs(c[dim - 1] - bottom) < 1e-12 ? types::boundary_id(1) : types::boundary_id(0);
    });
    problem.setup();
  }

  template <int dim>
  std::vector<double> vec(const double a, const double b, const double c)
  {
    return dim == 2 ? std::vector<double>{a, b} : std::vector<double>{a, b, c};
  }

  template <int dim>
  ContactParameters obstacle_parameters(const PairType type, const bool moving)
  {
    ContactParameters parameters;
    parameters.search_distance = 10.;
    PairParameters pair = make_pair(type, 1);
    switch (type)
      {
      case PairType::plane:
        pair.point = vec<dim>(0., 0., 0.1);
        pair.normal = dim == 2 ? vec<dim>(0.2, 1., 0.) : vec<dim>(0.2, -0.1, 1.);
        if (dim == 2)
          pair.point = vec<dim>(0., 0.1, 0.);
        break;
      case PairType::sphere:
        pair.point = dim == 2 ? vec<dim>(0.1, -1., 0.) : vec<dim>(0.1, 0.05, -1.);
        pair.radius = 1.2;
        break;
      case PairType::cylinder:
        pair.point = dim == 2 ? vec<dim>(0.1, -1., 0.) : vec<dim>(0.1, 0.05, -1.);
        pair.axis = vec<dim>(1., 0.2, 0.3);
        pair.radius = 1.2;
        break;
      default:
        break;
      }
    if (moving)
      pair.obstacle_velocity = dim == 2 ? "0.3*t; -0.5+t" : "0.1; 0.3*t; -0.5+t*t";
    parameters.pairs.push_back(pair);
    return parameters;
  }

  template <int dim>
  void check_finite_differences(const unsigned int degree)
  {
    Problem<dim> problem(MPI_COMM_WORLD, degree);
    make_box<dim>(problem, 0.3);
    const auto q = problem.random(1, 0.01);
    const auto v = problem.random(2, 1.);
    struct Case
    {
      PairType type;
      bool moving;
      const char *name;
    };
    for (const Case c : {Case{PairType::plane, false, "plane"}, Case{PairType::sphere, false, "sphere"},
                         Case{PairType::cylinder, false, "cylinder"}, Case{PairType::plane, true, "moving plane"},
                         Case{PairType::sphere, true, "moving sphere"}})
      {
        BOOST_TEST_CONTEXT(dim << "D Q" << degree << " " << c.name)
        {
          ContactGeometry<dim> geometry(problem.dof_handler, obstacle_parameters<dim>(c.type, c.moving));
          const auto result = finite_difference_check(problem, geometry, q, v, 0.7);
          BOOST_TEST(result.same_points);
          const unsigned int nodes_per_line = degree * 3 + 1;
          BOOST_TEST(result.n_points == (dim == 2 ? nodes_per_line : nodes_per_line * nodes_per_line));
          BOOST_TEST(result.max_rate > 0.1);
          BOOST_TEST(result.max_error < 1e-6);
          BOOST_TEST(frame_orthonormality_error(geometry) < 1e-12);
          // Normals point from the obstacle to the slave: the slave is on the positive side.
          for (const auto &point : geometry.owned_points())
            {
              if (c.type == PairType::plane)
                {
                  auto n =
                    percussion::Contact::to_tensor<dim>(obstacle_parameters<dim>(c.type, false).pairs[0].normal, "");
                  n /= n.norm();
                  BOOST_TEST((point.normal() - n).norm() < 1e-14);
                }
              else
                {
                  const Point<dim> center(
                    percussion::Contact::to_tensor<dim>(obstacle_parameters<dim>(c.type, false).pairs[0].point, ""));
                  if (!c.moving)
                    BOOST_TEST(point.normal() * (point.position - center) > 0.);
                }
            }
        }
      }
  }

  // The box translates with exactly the obstacle velocity: all relative velocities vanish.
  template <int dim>
  void check_rigid_motion_with_obstacle(const unsigned int degree)
  {
    Problem<dim> problem(MPI_COMM_WORLD, degree);
    make_box<dim>(problem, 0.3);
    const double time = 0.7;
    Tensor<1, dim> velocity;
    if (dim == 2)
      {
        velocity[0] = 0.3 * time;
        velocity[1] = -0.5 + time;
      }
    else
      {
        velocity[0] = 0.1;
        velocity[1] = 0.3 * time;
        velocity[2] = -0.5 + time * time;
      }
    const auto v = problem.interpolate([&](const Point<dim> &) { return velocity; });
    const auto q = problem.random(3, 0.01);
    for (const PairType type : {PairType::plane, PairType::sphere, PairType::cylinder})
      {
        ContactGeometry<dim> geometry(problem.dof_handler, obstacle_parameters<dim>(type, true));
        geometry.update(problem.ghosted(q), time);
        PETScWrappers::MPI::Vector u;
        geometry.local_velocity(v, u);
        BOOST_TEST(geometry.n_global_points() > 0u);
        BOOST_TEST(u.linfty_norm() < 1e-12);
        BOOST_TEST(geometry.obstacle_velocity_offset().linfty_norm() > 0.1);
      }
  }

  // Sphere mesh (radius 1) above a plane, and a box above a sphere obstacle: gaps are the exact
  // distances of the nodes, whose positions are checked against deal.II's support points.
  template <int dim>
  void check_analytic_gaps(const unsigned int degree)
  {
    {
      Problem<dim> problem(MPI_COMM_WORLD, degree);
      Point<dim> center;
      center[0] = 0.1;
      center[dim - 1] = 1.5;
      GridGenerator::hyper_ball(problem.tria, center, 1.);
      problem.tria.refine_global(1);
      problem.setup();
      ContactParameters parameters;
      parameters.search_distance = 10.;
      PairParameters pair = make_pair(PairType::plane, 0);
      pair.point = vec<dim>(0., 0., 0.);
      pair.point[dim - 1] = 0.2;
      pair.normal = vec<dim>(0., 0., 0.);
      pair.normal[dim - 1] = 2.;
      parameters.pairs.push_back(pair);
      ContactGeometry<dim> geometry(problem.dof_handler, parameters);
      geometry.update(problem.ghosted(problem.vector()), 0.);
      std::map<types::global_dof_index, Point<dim>> support_points;
      DoFTools::map_dofs_to_support_points(MappingQ1<dim>(), problem.dof_handler, support_points);
      double min_gap = 1e30, error = 0.;
      for (const auto &point : geometry.owned_points())
        {
          const Point<dim> x = support_points.at(point.slave_dofs[0]);
          error = std::max(error, (x - point.position).norm());
          error = std::max(error, std::abs(point.gap - (x[dim - 1] - 0.2)));
          min_gap = std::min(min_gap, point.gap);
        }
      BOOST_TEST(Utilities::MPI::max(error, problem.comm) < 1e-13);
      BOOST_TEST(std::abs(Utilities::MPI::min(min_gap, problem.comm) - 0.3) < 1e-12);
    }
    {
      Problem<dim> problem(MPI_COMM_WORLD, degree);
      make_box<dim>(problem, 1.2, 4);
      ContactParameters parameters;
      parameters.search_distance = 10.;
      PairParameters pair = make_pair(PairType::sphere, 1);
      pair.point = vec<dim>(0., 0., 0.);
      pair.radius = 1.;
      parameters.pairs.push_back(pair);
      ContactGeometry<dim> geometry(problem.dof_handler, parameters);
      geometry.update(problem.ghosted(problem.vector()), 0.);
      std::map<types::global_dof_index, Point<dim>> support_points;
      DoFTools::map_dofs_to_support_points(MappingQ1<dim>(), problem.dof_handler, support_points);
      double min_gap = 1e30, error = 0.;
      for (const auto &point : geometry.owned_points())
        {
          const Point<dim> x = support_points.at(point.slave_dofs[0]);
          error = std::max(error, std::abs(point.gap - (x.norm() - 1.)));
          error = std::max(error, (point.normal() - x / x.norm()).norm());
          min_gap = std::min(min_gap, point.gap);
        }
      BOOST_TEST(Utilities::MPI::max(error, problem.comm) < 1e-13);
      BOOST_TEST(std::abs(Utilities::MPI::min(min_gap, problem.comm) - 0.2) < 1e-12);
    }
  }

  template <int dim>
  void check_reuse_active_set_and_output(const unsigned int degree)
  {
    Problem<dim> problem(MPI_COMM_WORLD, degree);
    make_box<dim>(problem, 0.01);
    const unsigned int nodes_per_line = degree * 3 + 1;
    const unsigned int n_bottom = dim == 2 ? nodes_per_line : nodes_per_line * nodes_per_line;
    ContactParameters parameters;
    parameters.search_distance = 0.5;
    PairParameters pair = make_pair(PairType::plane, 1);
    pair.point = vec<dim>(0., 0., 0.);
    pair.normal = vec<dim>(0., 0., 0.);
    pair.normal[dim - 1] = 1.;
    parameters.pairs.push_back(pair);

    ContactGeometry<dim> geometry(problem.dof_handler, parameters);
    auto q = problem.vector();
    geometry.update(problem.ghosted(q), 0.);
    BOOST_TEST(geometry.operator_changed());
    BOOST_TEST(geometry.n_global_points() == n_bottom);
    // Fixed plane: another configuration changes the gaps, not H.
    const auto q2 = problem.random(5, 0.001);
    geometry.update(problem.ghosted(q2), 0.1);
    BOOST_TEST(!geometry.operator_changed());

    // Active set: g = 0.01, u_N = −1, γ = 0.5: active iff 0.01 − 0.5 h ≤ 0.
    Tensor<1, dim> down;
    down[dim - 1] = -1.;
    const auto v = problem.interpolate([&](const Point<dim> &) { return down; });
    geometry.update(problem.ghosted(q), 0.);
    PETScWrappers::MPI::Vector u;
    geometry.local_velocity(v, u);
    BOOST_TEST(percussion::testing::count_entering(geometry, u, 0.01) == 0u);
    BOOST_TEST(percussion::testing::count_entering(geometry, u, 0.03) == n_bottom);

    // Penetrated (g = −0.001) but separating (u_N = +1).
    Tensor<1, dim> sink;
    sink[dim - 1] = -0.011;
    const auto q_sunk = problem.interpolate([&](const Point<dim> &) { return sink; });
    geometry.update(problem.ghosted(q_sunk), 0.);
    const auto v_up = problem.interpolate([&](const Point<dim> &) { return -down; });
    geometry.local_velocity(v_up, u);
    // Penetrated and separating fast enough that the predicted gap is open: still active (a
    // penetrated contact is never left without a constraint).
    BOOST_TEST(percussion::testing::count_entering(geometry, u, 1.0) == n_bottom);
    BOOST_TEST(percussion::testing::count_entering(geometry, u, 0.001) == n_bottom);

    // Search distance: lifted by 0.6 the box is beyond the search distance 0.5.
    Tensor<1, dim> lift;
    lift[dim - 1] = 0.6;
    geometry.update(problem.ghosted(problem.interpolate([&](const Point<dim> &) { return lift; })), 0.);
    BOOST_TEST(geometry.n_global_points() == 0u);
    BOOST_TEST(geometry.operator_changed());

    // Output: the point cloud has one point per owned contact point.
    geometry.update(problem.ghosted(q), 0.);
    percussion::Contact::ContactPointFields fields;
    fields.status.assign(geometry.n_owned_points(), percussion::ContactSolvers::ContactState::stick);
    fields.reaction.assign(dim * geometry.n_owned_points(), 1.);
    fields.dissipated_energy.assign(geometry.n_owned_points(), 0.5);
    const std::string name = percussion::Contact::write_contact_points_vtu(geometry, fields, ".",
                                                                           "contact-test-" + std::to_string(dim) +
                                                                             "d-q" + std::to_string(degree),
                                                                           3);
    const unsigned int rank = Utilities::MPI::this_mpi_process(problem.comm);
    std::string piece = name;
    if (Utilities::MPI::n_mpi_processes(problem.comm) > 1)
      {
        piece = name.substr(0, name.size() - 5) + "." + Utilities::int_to_string(rank, 4) + ".vtu";
        if (rank == 0)
          BOOST_TEST(std::ifstream(name).good());
      }
    std::ifstream in(piece);
    std::stringstream text;
    text << in.rdbuf();
    BOOST_TEST(text.str().find("NumberOfPoints=\"" + std::to_string(geometry.n_owned_points()) + "\"") !=
               std::string::npos);
    BOOST_TEST(text.str().find("Name=\"status\"") != std::string::npos);
    BOOST_TEST(text.str().find("Name=\"dissipated_energy\"") != std::string::npos);
    BOOST_TEST((text.str().find("Name=\"tangent2\"") != std::string::npos) == (dim == 3));

    // A dissipated-energy array of the wrong size is an InputError (on every rank: one more entry).
    fields.dissipated_energy.push_back(0.);
    bool thrown = false;
    try
      {
        percussion::Contact::write_contact_points_vtu(geometry, fields, ".", "contact-test-bad", 3);
      }
    catch (const percussion::InputError &error)
      {
        thrown = std::string(error.what()).find("dissipated energy") != std::string::npos;
      }
    BOOST_TEST(thrown);
  }
} // namespace

// A tangent reference direction gives t1 = normalised projection of it (continuous in n).
BOOST_AUTO_TEST_CASE(tangent_reference_direction)
{
  Problem<3> problem(MPI_COMM_WORLD, 1);
  make_box<3>(problem, 0.3);
  ContactParameters parameters = obstacle_parameters<3>(PairType::sphere, false);
  parameters.pairs[0].tangent_reference = {1., 0.5, 0.};
  ContactGeometry<3> geometry(problem.dof_handler, parameters);
  geometry.update(problem.ghosted(problem.random(7, 0.01)), 0.);
  BOOST_TEST(geometry.n_global_points() == 16u);
  Tensor<1, 3> e;
  e[0] = 1.;
  e[1] = 0.5;
  double error = 0.;
  for (const auto &point : geometry.owned_points())
    {
      Tensor<1, 3> expected = e - (e * point.normal()) * point.normal();
      expected /= expected.norm();
      error = std::max(error, (point.frame.vectors[1] - expected).norm());
      error = std::max(error, (point.frame.vectors[2] - cross_product_3d(point.normal(), expected)).norm());
    }
  BOOST_TEST(Utilities::MPI::max(error, problem.comm) < 1e-14);
}

BOOST_AUTO_TEST_CASE(finite_differences_2d)
{
  check_finite_differences<2>(1);
  check_finite_differences<2>(2);
}

BOOST_AUTO_TEST_CASE(finite_differences_3d)
{
  check_finite_differences<3>(1);
  check_finite_differences<3>(2);
}

BOOST_AUTO_TEST_CASE(rigid_motion_with_obstacle)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_rigid_motion_with_obstacle<2>(degree);
      check_rigid_motion_with_obstacle<3>(degree);
    }
}

BOOST_AUTO_TEST_CASE(analytic_gaps)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_analytic_gaps<2>(degree);
      check_analytic_gaps<3>(degree);
    }
}

BOOST_AUTO_TEST_CASE(reuse_active_set_output)
{
  for (const unsigned int degree : {1u, 2u})
    {
      check_reuse_active_set_and_output<2>(degree);
      check_reuse_active_set_and_output<3>(degree);
    }
}
