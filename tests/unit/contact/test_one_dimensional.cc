// Contact in 1D (bars, FESystem(FE_Q(p), 1)): point walls (plane obstacles, fixed and moving),
// sphere = exterior of [c − r, c + r], node-to-node between two bars of one mesh. Analytic gaps and
// H entries, finite-difference check Hᵀv + w = dg/dt, active set, output (with dissipated_energy),
// serial reference vs parallel::shared on 1 or 2 ranks, and bad input.
#define BOOST_TEST_MODULE contact_one_dimensional
#include "../../mpi_test_fixture.h"
#include "contact_test_tools.h"

#include <percussion/contact/contact_point_output.h>
#include <percussion/core/exceptions.h>

#include <fstream>
#include <sstream>

using namespace contact_test;
using percussion::InputError;

namespace
{
  using SharedTria = parallel::shared::Triangulation<1>;

  // Bar 0 on [0, 1] (ids 0 left, 2 right) and bar 1 on [1.1, 2] (ids 3 left, 1 right), not merged.
  template <typename ProblemType>
  void make_two_bars(ProblemType &problem, const unsigned int n_refinements = 2)
  {
    std::vector<Point<1>> vertices;
    std::vector<CellData<1>> cells;
    append_box<1>(vertices, cells, Point<1>(0.), Point<1>(1.), {3}, 0);
    append_box<1>(vertices, cells, Point<1>(1.1), Point<1>(2.), {2}, 1);
    create_mesh<1>(
      problem.tria, vertices, cells,
      [](const Point<1> &c, types::material_id m) {
        if (m == 0)
          return types::boundary_id(c[0] < 0.5 ? 0 : 2);
        return types::boundary_id(c[0] < 1.5 ? 3 : 1);
      },
      n_refinements);
    problem.setup();
  }

  // Pair 1: fixed wall at x = −0.05 under the left end (n = +1). Pair 2: wall at x = 2.05 moving
  // with V(t) = 0.3 − 0.2 t against the right end (n = −1). Pair 3: bar 0's right end (slave)
  // against bar 1's left end (master). Pair 4: a "sphere" = the exterior of [2.1, 2.5], a wall at
  // 2.1 facing the right end (n = −1).
  ContactParameters bar_parameters()
  {
    ContactParameters p;
    p.search_distance = 0.5;
    p.pairs.push_back(make_pair(PairType::plane, 0));
    p.pairs.back().point = {-0.05};
    p.pairs.back().normal = {1.};
    p.pairs.push_back(make_pair(PairType::plane, 1));
    p.pairs.back().point = {2.05, 0., 0.}; // surplus zeros are accepted
    p.pairs.back().normal = {-3.};         // normalised to −1
    p.pairs.back().obstacle_velocity = "0.3 - 0.2*t; 0; 0";
    p.pairs.push_back(make_pair(PairType::body, 2, 3));
    p.pairs.back().friction_coefficient = 0.2;
    p.pairs.push_back(make_pair(PairType::sphere, 1));
    p.pairs.back().point = {2.3};
    p.pairs.back().radius = 0.2;
    for (unsigned int i = 0; i < p.pairs.size(); ++i)
      p.pairs[i].name = "Contact/Pair " + std::to_string(i + 1);
    return p;
  }

  // Exact gap of each pair for a displacement q(x), at time t.
  double expected_gap(const unsigned int pair, const std::function<double(double)> &q, const double t)
  {
    switch (pair)
      {
      case 0:
        return (0. + q(0.)) - (-0.05);
      case 1:
        return -((2. + q(2.)) - (2.05 + 0.3 * t - 0.1 * t * t));
      case 2:
        return (1.1 + q(1.1)) - (1. + q(1.));
      case 3:
        return std::abs(2. + q(2.) - 2.3) - 0.2;
      }
    return 0.;
  }

  template <typename TriangulationType>
  void check_analytic(const MPI_Comm comm, const unsigned int degree)
  {
    Problem<1, TriangulationType> problem(comm, degree);
    make_two_bars(problem);
    const auto q_function = [](const double x) { return 0.01 * std::sin(3. * x) + 0.002 * x * x; };
    const auto q = problem.interpolate([&](const Point<1> &x) {
      Tensor<1, 1> t;
      t[0] = q_function(x[0]);
      return t;
    });
    ContactGeometry<1> geometry(problem.dof_handler, bar_parameters());
    const double time = 0.7;
    geometry.update(problem.ghosted(q), time);
    BOOST_TEST(geometry.n_global_points() == 4u);
    BOOST_TEST(frame_orthonormality_error(geometry) < 1e-15);
    const auto &H = geometry.contact_operator();
    for (const auto &point : geometry.owned_points())
      {
        BOOST_TEST(std::abs(point.gap - expected_gap(point.pair, q_function, time)) < 1e-13,
                   "pair " << point.pair << " gap " << point.gap);
        const double n = point.normal()[0];
        BOOST_TEST(std::abs(std::abs(n) - 1.) < 1e-15);
        BOOST_TEST(H.el(point.slave_dofs[0], point.global_index) == n);
        if (point.pair == 2)
          {
            BOOST_TEST(n == -1.);
            BOOST_TEST(point.master_dofs.size() == 1u);
            if (problem.owned.is_element(point.master_dofs[0][0])) // el() needs an owned row
              BOOST_TEST(H.el(point.master_dofs[0][0], point.global_index) == -n);
            BOOST_TEST(point.friction_coefficient == 0.2);
          }
        if (point.pair == 0)
          BOOST_TEST(n == 1.);
        if (point.pair == 1 || point.pair == 3)
          BOOST_TEST(n == -1.);
      }

    // u = Hᵀv + w against dg/dt for the fixed wall, the moving wall and node-to-node.
    for (const double t : {0., 0.7})
      {
        const auto v = problem.random(7, 1.);
        const auto r = finite_difference_check(problem, geometry, q, v, t);
        BOOST_TEST(r.same_points);
        BOOST_TEST(r.n_points == 4u);
        BOOST_TEST(r.max_rate > 0.1);
        BOOST_TEST(r.max_error < 1e-7, "degree " << degree << " t " << t << " error " << r.max_error);
      }

    // Rigid translation of both bars: only the moving wall and the sphere see a relative velocity.
    Tensor<1, 1> one;
    one[0] = 1.;
    const auto v = problem.interpolate([&](const Point<1> &) { return one; });
    geometry.update(problem.ghosted(q), time);
    PETScWrappers::MPI::Vector u;
    geometry.local_velocity(v, u);
    for (const auto &point : geometry.owned_points())
      {
        const double un = u(point.global_index);
        const double expected = point.pair == 0   ? 1.
                                : point.pair == 1 ? -(1. - (0.3 - 0.2 * time))
                                : point.pair == 2 ? 0.
                                                  : -1.;
        BOOST_TEST(std::abs(un - expected) < 1e-14, "pair " << point.pair << " u_N " << un);
      }
    // Plane walls never change H; H is reused.
    geometry.update(problem.ghosted(q), time + 0.1);
    BOOST_TEST(!geometry.operator_changed());
  }

  template <typename TriangulationType>
  std::vector<double> sorted_gaps(const MPI_Comm comm, const unsigned int degree, unsigned int &n_active)
  {
    Problem<1, TriangulationType> problem(comm, degree);
    make_two_bars(problem, 3);
    const auto q = problem.interpolate([](const Point<1> &x) {
      Tensor<1, 1> t;
      t[0] = 0.03 * std::cos(2. * x[0]) - 0.1 * (x[0] > 1.05 ? 1. : 0.);
      return t;
    });
    Tensor<1, 1> left;
    left[0] = -1.;
    const auto v = problem.interpolate([&](const Point<1> &x) { return x[0] > 1.05 ? left : -left; });
    ContactGeometry<1> geometry(problem.dof_handler, bar_parameters());
    geometry.update(problem.ghosted(q), 0.2);
    PETScWrappers::MPI::Vector u;
    geometry.local_velocity(v, u);
    n_active = percussion::testing::count_entering(geometry, u, 0.05);
    std::vector<double> gaps;
    for (const auto &g : Utilities::MPI::all_gather(comm, geometry.gaps()))
      gaps.insert(gaps.end(), g.begin(), g.end());
    std::sort(gaps.begin(), gaps.end());
    return gaps;
  }
} // namespace

BOOST_AUTO_TEST_CASE(walls_and_node_to_node_serial)
{
  for (const unsigned int degree : {1u, 2u})
    check_analytic<Triangulation<1>>(MPI_COMM_SELF, degree);
}

BOOST_AUTO_TEST_CASE(walls_and_node_to_node_shared)
{
  for (const unsigned int degree : {1u, 2u})
    check_analytic<SharedTria>(MPI_COMM_WORLD, degree);
}

// parallel::shared on all ranks gives the serial result (computed on every rank).
BOOST_AUTO_TEST_CASE(shared_matches_serial)
{
  for (const unsigned int degree : {1u, 2u})
    {
      unsigned int active_serial = 0, active_shared = 0;
      const auto serial = sorted_gaps<Triangulation<1>>(MPI_COMM_SELF, degree, active_serial);
      const auto shared = sorted_gaps<SharedTria>(MPI_COMM_WORLD, degree, active_shared);
      BOOST_TEST(serial.size() == 4u);
      BOOST_TEST(shared.size() == serial.size());
      for (unsigned int i = 0; i < std::min(serial.size(), shared.size()); ++i)
        BOOST_TEST(std::abs(serial[i] - shared[i]) < 1e-14);
      // Closing, slightly penetrated bars (g = 0.03(cos 2.2 − cos 2) ≈ −0.005, u_N = −2): the
      // node-to-node contact is active, the walls and the sphere are not.
      BOOST_TEST(active_serial == active_shared);
      BOOST_TEST(active_serial == 1u);
    }
}

BOOST_AUTO_TEST_CASE(active_set_and_output)
{
  Problem<1, SharedTria> problem(MPI_COMM_WORLD, 1);
  make_two_bars(problem);
  ContactParameters parameters = bar_parameters();
  parameters.pairs.resize(1); // the fixed wall at −0.05 under the left end
  ContactGeometry<1> geometry(problem.dof_handler, parameters);
  Tensor<1, 1> shift;
  shift[0] = -0.04; // g = 0.01
  const auto q = problem.interpolate([&](const Point<1> &) { return shift; });
  geometry.update(problem.ghosted(q), 0.);
  BOOST_TEST(geometry.n_global_points() == 1u);
  const auto v = problem.interpolate([&](const Point<1> &) { return shift * 25.; }); // u_N = −1
  PETScWrappers::MPI::Vector u;
  geometry.local_velocity(v, u);
  BOOST_TEST(percussion::testing::count_entering(geometry, u, 0.01) == 0u); // 0.01 − 0.5·0.01 > 0
  BOOST_TEST(percussion::testing::count_entering(geometry, u, 0.03) == 1u); // 0.01 − 0.5·0.03 ≤ 0

  percussion::Contact::ContactPointFields fields;
  fields.status.assign(geometry.n_owned_points(), percussion::ContactSolvers::ContactState::stick);
  fields.reaction.assign(geometry.n_owned_points(), 2.);
  fields.dissipated_energy.assign(geometry.n_owned_points(), 0.125);
  const std::string name = percussion::Contact::write_contact_points_vtu(geometry, fields, ".", "contact-test-1d", 2);
  const unsigned int rank = Utilities::MPI::this_mpi_process(problem.comm);
  std::string piece = name;
  if (Utilities::MPI::n_mpi_processes(problem.comm) > 1)
    {
      piece = name.substr(0, name.size() - 5) + "." + Utilities::int_to_string(rank, 4) + ".vtu";
      MPI_Barrier(problem.comm);
      if (rank == 0)
        {
          std::ifstream pin(name);
          std::stringstream ptext;
          ptext << pin.rdbuf();
          BOOST_TEST(ptext.str().find("Name=\"dissipated_energy\"") != std::string::npos);
        }
    }
  std::ifstream in(piece);
  std::stringstream text;
  text << in.rdbuf();
  BOOST_TEST(text.str().find("NumberOfPoints=\"" + std::to_string(geometry.n_owned_points()) + "\"") !=
             std::string::npos);
  BOOST_TEST(text.str().find("Name=\"dissipated_energy\"") != std::string::npos);
  BOOST_TEST(text.str().find("Name=\"tangent1\"") == std::string::npos);
  if (geometry.n_owned_points() == 1)
    {
      BOOST_TEST(text.str().find(" 0.125\n") != std::string::npos);
      BOOST_TEST(text.str().find(" 2 0 0\n") != std::string::npos); // reaction padded to 3 components
    }

  fields.dissipated_energy.push_back(1.);
  bool thrown = false;
  try
    {
      percussion::Contact::write_contact_points_vtu(geometry, fields, ".", "contact-test-1d-bad", 2);
    }
  catch (const InputError &error)
    {
      thrown = std::string(error.what()).find("dissipated energy") != std::string::npos;
    }
  BOOST_TEST(thrown);
}

BOOST_AUTO_TEST_CASE(parse_and_bad_input_1d)
{
  // Parsing a 1D input: one-entry vectors and a single velocity expression.
  ParameterHandler prm;
  ContactParameters::declare_parameters(prm);
  prm.parse_input_from_string(R"(
subsection Contact
  set Number of pairs = 2
  set Search distance = 0.5
  subsection Pair 1
    set Type = plane
    set Slave boundary id = 1
    set Point = 1.05
    set Normal = -1
    set Obstacle velocity = -0.1*t
  end
  subsection Pair 2
    set Type = body
    set Slave boundary id = 2
    set Master boundary id = 3
  end
end
)");
  ContactParameters parsed;
  parsed.parse_parameters(prm, 1);
  BOOST_TEST(parsed.pairs.size() == 2u);
  const percussion::Contact::RigidObstacle<1> wall(parsed.pairs[0]);
  BOOST_TEST(std::abs(wall.displacement(2.)[0] - (-0.2)) < 1e-14);
  BOOST_TEST(std::abs(wall.project(Point<1>(0.5), 2.).gap - 0.35) < 1e-14);
  BOOST_TEST(wall.project(Point<1>(0.5), 2.).normal[0] == -1.);

  Problem<1, SharedTria> problem(MPI_COMM_WORLD, 1);
  make_two_bars(problem);
  ContactGeometry<1> geometry(problem.dof_handler, parsed);
  geometry.update(problem.ghosted(problem.vector()), 0.);
  BOOST_TEST(geometry.n_global_points() == 2u);

  const auto expect_error = [&](ContactParameters p, const std::vector<std::string> &fragments) {
    bool thrown = false;
    try
      {
        ContactGeometry<1> g(problem.dof_handler, p);
      }
    catch (const InputError &error)
      {
        thrown = true;
        for (const std::string &fragment : fragments)
          BOOST_TEST(std::string(error.what()).find(fragment) != std::string::npos,
                     "message '" << error.what() << "' lacks '" << fragment << "'");
      }
    BOOST_TEST(thrown, "no InputError for " << fragments.front());
  };
  ContactParameters bad = parsed;
  bad.pairs[0].normal = {0., 0., 1.}; // the 3D default normal
  expect_error(bad, {"Contact/Pair 1/Normal", "must be 0 in 1D"});
  bad = parsed;
  bad.pairs[0].normal = {0.};
  expect_error(bad, {"Contact/Pair 1", "normal is zero"});
  bad = parsed;
  bad.pairs[0].obstacle_velocity = "0; 1";
  expect_error(bad, {"Contact/Pair 1/Obstacle velocity", "must be 0 in 1D"});
  bad = parsed;
  bad.pairs[1].master_boundary = {false, {7}};
  expect_error(bad, {"Contact/Pair 2: master boundary id 7 does not exist in the mesh"});
  bad = parsed;
  bad.pairs[0].slave_boundary = {false, {9}};
  expect_error(bad, {"Contact/Pair 1: slave boundary id 9 does not exist in the mesh"});
}
