// subsection Contact: parsing of several pairs, and every bad input → percussion::InputError
// naming the pair (μ < 0, e ∉ [0,1], degenerate obstacles, master = slave, boundary ids missing
// from the mesh, wrong vector sizes, unparsable obstacle velocity).
#define BOOST_TEST_MODULE contact_parameters
#include "../../mpi_test_fixture.h"
#include "contact_test_tools.h"

#include <percussion/core/exceptions.h>

using namespace contact_test;
using percussion::InputError;

namespace
{
  ContactParameters parse(const std::string &text, const unsigned int dimension = 3)
  {
    ParameterHandler prm;
    ContactParameters::declare_parameters(prm);
    prm.parse_input_from_string(text);
    ContactParameters parameters;
    parameters.parse_parameters(prm, dimension);
    return parameters;
  }

  // Runs @p f and checks that it throws InputError whose message contains every @p fragment.
  template <typename F>
  void check_input_error(F f, const std::vector<std::string> &fragments)
  {
    bool thrown = false;
    try
      {
        f();
      }
    catch (const InputError &error)
      {
        thrown = true;
        for (const std::string &fragment : fragments)
          BOOST_TEST(std::string(error.what()).find(fragment) != std::string::npos,
                     "message '" << error.what() << "' lacks '" << fragment << "'");
      }
    BOOST_TEST(thrown, "no InputError for " << fragments.front());
  }

  const std::string two_pairs = R"(
subsection Contact
  set Number of pairs = 2
  set Gap prediction factor = 0.25
  set Search distance = 0.3
  subsection Pair 1
    set Type = sphere
    set Slave boundary id = 1
    set Friction coefficient = 0.4
    set Restitution coefficient = 0.5
    set Point = 0, 0, -1
    set Radius = 0.75
    set Obstacle velocity = 0; 0; -0.1*t
  end
  subsection Pair 2
    set Type = body
    set Slave boundary id = 1
    set Master boundary id = 2
    set Friction coefficient = 0.2
  end
end
)";

  // Two pairs: a complete Pair 1 and @p entries as Pair 2.
  std::string with_pair2(const std::string &entries)
  {
    return "subsection Contact\n set Number of pairs = 2\n subsection Pair 1\n set Type = plane\n"
           " set Slave boundary id = 0\n set Point = 0, 0, 0\n set Normal = 0, 0, 1\n end\n subsection Pair 2\n" +
           entries + "\n end\nend\n";
  }

  // @p entries as a Pair 2 of the given type that sets what its type needs.
  std::string body_pair2(const std::string &entries)
  {
    return with_pair2("set Type = body\nset Slave boundary id = 1\nset Master boundary id = 2\n" + entries);
  }
} // namespace

BOOST_AUTO_TEST_CASE(parse_two_pairs)
{
  const ContactParameters p = parse(two_pairs);
  BOOST_TEST(p.pairs.size() == 2u);
  BOOST_TEST(p.gap_prediction_factor == 0.25);
  BOOST_TEST(p.search_distance == 0.3);
  BOOST_TEST((p.pairs[0].type == PairType::sphere));
  BOOST_TEST(p.pairs[0].radius == 0.75);
  BOOST_TEST(p.pairs[0].point[2] == -1.);
  BOOST_TEST(p.pairs[0].friction_coefficient == 0.4);
  BOOST_TEST(p.pairs[0].restitution_coefficient == 0.5);
  BOOST_TEST(p.pairs[0].obstacle_velocity == "0; 0; -0.1*t");
  BOOST_TEST((p.pairs[1].type == PairType::body));
  BOOST_TEST(p.pairs[1].master_boundary.ids == std::vector<unsigned int>{2u});
  BOOST_TEST(p.pairs[1].name == "Contact/Pair 2");
  // Defaults.
  const ContactParameters d = parse("");
  BOOST_TEST(d.pairs.empty());
  BOOST_TEST(d.gap_prediction_factor == 0.5);

  // A moving sphere built from the file: its position at t is the integral of V.
  const percussion::Contact::RigidObstacle<3> sphere(p.pairs[0]);
  BOOST_TEST(std::abs(sphere.displacement(2.)[2] - (-0.1 * 2. * 2. / 2.)) < 1e-14);
  BOOST_TEST(std::abs(sphere.velocity(2.)[2] - (-0.2)) < 1e-14);
  Point<3> x(0., 0., 0.);
  BOOST_TEST(std::abs(sphere.project(x, 2.).gap - (1. + 0.2 - 0.75)) < 1e-14);
}

BOOST_AUTO_TEST_CASE(boundary_id_lists)
{
  // Lists and 'all' for the slave and master surfaces.
  ContactParameters p =
    parse(with_pair2("set Type = body\nset Slave boundary id = 4, 1,4\nset Master boundary id = 2, 7"));
  BOOST_TEST(p.pairs[1].slave_boundary.ids == (std::vector<unsigned int>{4u, 1u}));
  BOOST_TEST(!p.pairs[1].slave_boundary.contains(2));
  BOOST_TEST(p.pairs[1].master_boundary.contains(7));
  p = parse(with_pair2("set Type = plane\nset Slave boundary id = all\nset Point = 0, 0, 0\nset Normal = 0, 0, 1"));
  BOOST_TEST(p.pairs[1].slave_boundary.all);
  BOOST_TEST(p.pairs[1].slave_boundary.contains(123));
  BOOST_TEST(p.pairs[1].slave_boundary.to_string() == "all");
}

BOOST_AUTO_TEST_CASE(general_contact_pairs)
{
  // Type = bodies names one set of surfaces, slave and master alike; 'all' unless set.
  ContactParameters p = parse(with_pair2("set Type = bodies\nset Boundary ids = 3, 5"));
  BOOST_TEST((p.pairs[1].type == PairType::bodies));
  BOOST_TEST(p.pairs[1].has_master_surface());
  BOOST_TEST(p.pairs[1].slave_boundary.ids == (std::vector<unsigned int>{3u, 5u}));
  BOOST_TEST(p.pairs[1].master_boundary.ids == (std::vector<unsigned int>{3u, 5u}));
  p = parse(with_pair2("set Type = bodies\nset Friction coefficient = 0.3"));
  BOOST_TEST(p.pairs[1].slave_boundary.all);
  BOOST_TEST(p.pairs[1].master_boundary.all);
  BOOST_TEST(p.pairs[1].friction_coefficient == 0.3);
  // The entries of the other types' surfaces are refused with bodies, and 'Boundary ids' elsewhere.
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Slave boundary id = 1")); },
                    {"Contact/Pair 2/Slave boundary id", "does not apply to Type = bodies", "'Boundary ids'"});
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Master boundary id = 1")); },
                    {"Contact/Pair 2/Master boundary id", "does not apply to Type = bodies"});
  check_input_error(
    [] {
      parse(with_pair2("set Type = body\nset Slave boundary id = 1\nset Master boundary id = 2\n"
                       "set Boundary ids = 3"));
    },
    {"Contact/Pair 2/Boundary ids applies to Type = bodies only", "'body'"});
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Boundary ids = 1, x")); },
                    {"Contact/Pair 2/Boundary ids"});
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Formulation = integrated")); },
                    {"Contact/Pair 2/Formulation", "Type = body only"});
}

BOOST_AUTO_TEST_CASE(coefficients_by_pair_of_materials)
{
  // 'a-b: value' on a body pair (either way round), 'a: value' on an obstacle; the pair's own
  // coefficients elsewhere.
  ContactParameters p = parse(with_pair2("set Type = bodies\nset Friction coefficient = 0.3\n"
                                         "set Friction by materials = 2-1: 0.5; 1-1: 0.1\n"
                                         "set Restitution by materials = 1-3: 0.25"));
  const auto &bodies = p.pairs[1];
  BOOST_TEST(bodies.friction(1, 2) == 0.5);
  BOOST_TEST(bodies.friction(2, 1) == 0.5);
  BOOST_TEST(bodies.friction(1, 1) == 0.1);
  BOOST_TEST(bodies.friction(2, 2) == 0.3);
  BOOST_TEST(bodies.restitution(3, 1) == 0.25);
  BOOST_TEST(bodies.restitution(1, 2) == 0.0);
  BOOST_TEST(bodies.restitution_values() == (std::vector<double>{0.0, 0.25}));
  p = parse("subsection Contact\n set Number of pairs = 1\n subsection Pair 1\n set Type = plane\n"
            " set Slave boundary id = 0\n set Point = 0, 0, 0\n set Normal = 0, 0, 1\n"
            " set Friction by materials = 4: 0.7\n end\nend\n");
  BOOST_TEST(p.pairs[0].friction(4, percussion::Contact::PairParameters::no_material) == 0.7);
  BOOST_TEST(p.pairs[0].friction(3, percussion::Contact::PairParameters::no_material) == 0.0);
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Friction by materials = 1: 0.5")); },
                    {"Contact/Pair 2/Friction by materials", "'1: 0.5'", "'a-b: value; ...'"});
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Friction by materials = 1-2 0.5")); },
                    {"Contact/Pair 2/Friction by materials", "is not of the form"});
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Friction by materials = 1-2: 0.5; 2-1: 0.4")); },
                    {"Contact/Pair 2/Friction by materials", "listed twice"});
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Friction by materials = 1-2: -0.5")); },
                    {"Contact/Pair 2/Friction by materials", "negative"});
  check_input_error([] { parse(with_pair2("set Type = bodies\nset Restitution by materials = 1-2: 1.5")); },
                    {"Contact/Pair 2/Restitution by materials", "outside [0, 1]"});
  check_input_error(
    [] {
      parse("subsection Contact\n set Number of pairs = 1\n subsection Pair 1\n set Type = plane\n"
            " set Slave boundary id = 0\n set Point = 0, 0, 0\n set Normal = 0, 0, 1\n"
            " set Friction by materials = 1-2: 0.5\n end\nend\n");
    },
    {"Contact/Pair 1/Friction by materials", "'a: value; ...'"});
  check_input_error([] { parse(body_pair2("set Formulation = integrated\nset Friction by materials = 1-2: 0.5")); },
                    {"Contact/Pair 2", "Formulation = integrated"});
}

BOOST_AUTO_TEST_CASE(any_number_of_pairs)
{
  // As many 'Pair i' subsections are declared as the input names; Number of pairs has no limit.
  std::string text = "subsection Contact\n  set Number of pairs = 12\n";
  for (unsigned int i = 1; i <= 12; ++i)
    text += "  subsection Pair " + std::to_string(i) +
            "\n    set Type = plane\n    set Slave boundary id = " + std::to_string(i) + "\n    set Point = 0, 0, " +
            std::to_string(i) + "\n    set Normal = 0, 0, 1\n  end\n";
  text += "end\n";
  BOOST_TEST(ContactParameters::pairs_named_in(text) == 12u);
  BOOST_TEST(ContactParameters::pairs_named_in("Contact/Pair 31/Type") == 31u);
  BOOST_TEST(ContactParameters::pairs_named_in("set Pairs = 3") == 0u);
  ParameterHandler prm;
  ContactParameters::declare_parameters(prm, ContactParameters::pairs_named_in(text));
  prm.parse_input_from_string(text);
  ContactParameters p;
  p.parse_parameters(prm, 3);
  BOOST_REQUIRE(p.pairs.size() == 12u);
  BOOST_TEST(p.pairs[11].name == "Contact/Pair 12");
  BOOST_TEST(p.pairs[11].point[2] == 12.);
  // A count beyond the subsections the input has: the missing pair is named.
  check_input_error([] { parse("subsection Contact\n set Number of pairs = 9\nend\n"); },
                    {"Contact/Pair 1", "is missing"});
  check_input_error(
    [] {
      ParameterHandler prm;
      ContactParameters::declare_parameters(prm);
      prm.parse_input_from_string("subsection Contact\n set Number of pairs = 9\nend\n");
      prm.enter_subsection("Contact");
      for (unsigned int i = 1; i <= 8; ++i)
        {
          prm.enter_subsection("Pair " + std::to_string(i));
          prm.set("Type", "plane");
          prm.set("Slave boundary id", std::to_string(i));
          prm.set("Point", "0, 0, 0");
          prm.set("Normal", "0, 0, 1");
          prm.leave_subsection();
        }
      prm.leave_subsection();
      ContactParameters q;
      q.parse_parameters(prm, 3);
    },
    {"Contact/Pair 9", "'Contact/Number of pairs' = 9", "is missing from 'Contact'"});
}

BOOST_AUTO_TEST_CASE(bad_values)
{
  check_input_error([] { parse(body_pair2("set Friction coefficient = -0.1")); }, {"Contact/Pair 2", "friction"});
  check_input_error([] { parse(body_pair2("set Restitution coefficient = 1.5")); }, {"Contact/Pair 2", "restitution"});
  check_input_error([] { parse(body_pair2("set Restitution coefficient = -0.5")); }, {"Contact/Pair 2", "restitution"});
  check_input_error(
    [] { parse(with_pair2("set Type = plane\nset Slave boundary id = 1\nset Point = 0, 0, 0\nset Normal = 0, 0, 0")); },
    {"Contact/Pair 2", "normal is zero"});
  check_input_error(
    [] { parse(with_pair2("set Type = sphere\nset Slave boundary id = 1\nset Point = 0, 0, 0\nset Radius = 0")); },
    {"Contact/Pair 2", "radius"});
  check_input_error(
    [] {
      parse(with_pair2(
        "set Type = cylinder\nset Slave boundary id = 1\nset Point = 0, 0, 0\nset Axis = 1, 0, 0\nset Radius = -1"));
    },
    {"Contact/Pair 2", "radius"});
  check_input_error(
    [] {
      parse(with_pair2(
        "set Type = cylinder\nset Slave boundary id = 1\nset Point = 0, 0, 0\nset Radius = 1\nset Axis = 0, 0, 0"));
    },
    {"Contact/Pair 2", "axis is zero"});
  check_input_error([] { parse(with_pair2("set Type = body\nset Slave boundary id = 3\nset Master boundary id = 3")); },
                    {"Contact/Pair 2", "master boundary ids (3)", "slave boundary ids (3)", "share"});
  check_input_error(
    [] { parse(with_pair2("set Type = body\nset Slave boundary id = 1, 3\nset Master boundary id = 2, 3")); },
    {"Contact/Pair 2", "share"});
  check_input_error(
    [] { parse(with_pair2("set Type = body\nset Slave boundary id = 1\nset Master boundary id = all")); },
    {"Contact/Pair 2", "share"});
  check_input_error(
    [] {
      parse(with_pair2("set Type = plane\nset Slave boundary id = 1, x\nset Point = 0, 0, 0\nset Normal = 0, 0, 1"));
    },
    {"Contact/Pair 2/Slave boundary id", "'1, x'", "comma-separated list"});
  check_input_error(
    [] { parse(with_pair2("set Type = body\nset Slave boundary id = 1\nset Master boundary id = -1")); },
    {"Contact/Pair 2/Master boundary id", "'-1'"});

  // Dimension-dependent checks happen when the obstacle is built.
  PairParameters pair = make_pair(PairType::plane, 0);
  pair.normal = {0., 1., 1.};
  check_input_error([&] { percussion::Contact::RigidObstacle<2> plane(pair); }, {"Contact/Pair 1/Normal", "must be 0"});
  pair.normal = {0., 1.};
  pair.obstacle_velocity = "0; 1; 2; 3";
  check_input_error([&] { percussion::Contact::RigidObstacle<2> plane(pair); }, {"Contact/Pair 1/Obstacle velocity"});
  pair.obstacle_velocity = "0; sin(";
  check_input_error([&] { percussion::Contact::RigidObstacle<2> plane(pair); }, {"Contact/Pair 1/Obstacle velocity"});
  pair.obstacle_velocity = "0; 0";
  pair.point = {1.};
  check_input_error([&] { percussion::Contact::RigidObstacle<2> plane(pair); }, {"Contact/Pair 1/Point"});

  // 1D: one-entry vectors, surplus entries must be 0 (a 2D normal is not a 1D wall).
  pair.point = {0.5};
  pair.normal = {0., 1.};
  pair.obstacle_velocity = "0";
  check_input_error([&] { percussion::Contact::RigidObstacle<1> wall(pair); },
                    {"Contact/Pair 1/Normal", "must be 0 in 1D"});
  pair.normal = {-2.};
  BOOST_TEST(percussion::Contact::RigidObstacle<1>(pair).project(Point<1>(0.25), 0.).gap == 0.25);
}

BOOST_AUTO_TEST_CASE(used_pairs_must_be_set)
{
  // A pair that 'Number of pairs' counts and the input does not describe is refused, not run as the
  // defaults (a plane z = 0 touched by boundary id 0).
  check_input_error([] { parse(with_pair2("")); },
                    {"Contact/Pair 2", "'Contact/Number of pairs' = 2",
                     "is missing from 'Contact' or sets none of 'Type', 'Slave boundary id'"});
  check_input_error([] { parse("subsection Contact\n set Number of pairs = 1\nend\n"); },
                    {"Contact/Pair 1", "is missing"});
  check_input_error([] { parse(with_pair2("set Friction coefficient = 0.3")); },
                    {"Contact/Pair 2 does not set 'Type', 'Slave boundary id'"});
  check_input_error([] { parse(with_pair2("set Type = plane\nset Slave boundary id = 1\nset Normal = 0, 0, 1")); },
                    {"Contact/Pair 2 (Type = plane) does not set 'Point'"});
  check_input_error([] { parse(with_pair2("set Type = sphere\nset Slave boundary id = 1")); },
                    {"Contact/Pair 2 (Type = sphere) does not set 'Point', 'Radius'"});
  check_input_error([] { parse(with_pair2("set Type = body\nset Slave boundary id = 1")); },
                    {"Contact/Pair 2 (Type = body) does not set 'Master boundary id'"});
  check_input_error(
    [] { parse(with_pair2("set Type = cylinder\nset Slave boundary id = 1\nset Point = 0, 0, 0\nset Radius = 1")); },
    {"Contact/Pair 2 (Type = cylinder) does not set 'Axis'"});
  // A value equal to the default counts as set, in the file or by ParameterHandler::set() (the
  // command line's --set); a cylinder's axis is needed in 3D only.
  BOOST_TEST(parse(with_pair2("set Type = plane\nset Slave boundary id = 0\nset Point = 0, 0, 0\nset Normal = 0, 0, 1"))
               .pairs.size() == 2u);
  {
    ParameterHandler prm;
    ContactParameters::declare_parameters(prm);
    prm.parse_input_from_string(
      with_pair2("set Type = cylinder\nset Slave boundary id = 1\nset Point = 0, 0\nset Radius = 1"));
    ContactParameters in_2d;
    in_2d.parse_parameters(prm, 2);
    BOOST_TEST((in_2d.pairs[1].type == PairType::cylinder));
    prm.enter_subsection("Contact");
    prm.enter_subsection("Pair 2");
    prm.set("Axis", "0, 0, 1");
    prm.leave_subsection();
    prm.leave_subsection();
    ContactParameters in_3d;
    in_3d.parse_parameters(prm, 3);
    BOOST_TEST(in_3d.pairs.size() == 2u);
  }
}

BOOST_AUTO_TEST_CASE(boundary_ids_must_exist)
{
  Problem<2> problem(MPI_COMM_WORLD, 1);
  std::vector<Point<2>> vertices;
  std::vector<CellData<2>> cells;
  append_box<2>(vertices, cells, Point<2>(0., 0.), Point<2>(1., 1.), {2, 2}, 0);
  create_mesh<2>(
    problem.tria, vertices, cells,
    [](const Point<2> &c, types::material_id) { return c[1] < 1e-12 ? types::boundary_id(1) : types::boundary_id(0); },
    1);
  problem.setup();

  ContactParameters parameters;
  parameters.pairs.push_back(make_pair(PairType::plane, 7));
  parameters.pairs[0].name = "Contact/Pair 1";
  parameters.pairs[0].normal = {0., 1.};
  check_input_error([&] { ContactGeometry<2> g(problem.dof_handler, parameters); },
                    {"Contact/Pair 1", "slave boundary id 7 does not exist in the mesh"});

  parameters.pairs[0] = make_pair(PairType::body, 1, 7);
  parameters.pairs.insert(parameters.pairs.begin(), make_pair(PairType::sphere, 1));
  parameters.pairs[0].point = {0., -1.};
  parameters.pairs[1].name = "Contact/Pair 2";
  check_input_error([&] { ContactGeometry<2> g(problem.dof_handler, parameters); },
                    {"Contact/Pair 2: master boundary id 7 does not exist in the mesh"});

  // Valid ids: constructing and updating works.
  parameters.pairs[1].master_boundary = {false, {0}};
  parameters.search_distance = 10.;
  ContactGeometry<2> geometry(problem.dof_handler, parameters);
  geometry.update(problem.ghosted(problem.vector()), 0.);
  BOOST_TEST(geometry.n_global_points() >= 5u);

  // A list of slave ids is the union of its ids' surfaces, and 'all' every boundary face: a plane
  // far below with a search distance that reaches every node sees the nodes of ids 0 and 1.
  const auto count = [&](const percussion::Contact::BoundaryIds &slave) {
    ContactParameters plane;
    plane.pairs.push_back(make_pair(PairType::plane, 0));
    plane.pairs[0].slave_boundary = slave;
    plane.pairs[0].normal = {0., 1.};
    plane.pairs[0].point = {0., -1.};
    plane.search_distance = 100.;
    ContactGeometry<2> g(problem.dof_handler, plane);
    g.update(problem.ghosted(problem.vector()), 0.);
    return g.n_global_points();
  };
  const auto on_0 = count({false, {0}}), on_1 = count({false, {1}}), on_both = count({false, {0, 1}});
  BOOST_TEST(on_0 > 0u);
  BOOST_TEST(on_1 > 0u);
  BOOST_TEST(on_both > std::max(on_0, on_1));
  BOOST_TEST(on_both <= on_0 + on_1); // (a node on both surfaces is one contact point)
  BOOST_TEST(count({true, {}}) == on_both);
  check_input_error([&] { count({false, {0, 7}}); }, {"Contact/Pair 1", "slave boundary id 7 does not exist"});
}
