#include <deal.II/base/utilities.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/function_parsing.h>
#include <percussion/core/mesh_parameters.h>

#include <array>
#include <fstream>
#include <utility>

namespace percussion
{
  namespace
  {
    /// Every MeshType with its name in the parameter file: the one place the names are written.
    constexpr std::array<std::pair<MeshType, const char *>, 6> mesh_type_names{{{MeshType::bar, "bar"},
                                                                                {MeshType::box, "box"},
                                                                                {MeshType::boxes, "boxes"},
                                                                                {MeshType::ball, "ball"},
                                                                                {MeshType::cylinder, "cylinder"},
                                                                                {MeshType::gmsh, "gmsh"}}};
  } // namespace

  std::string mesh_type_name(const MeshType type)
  {
    for (const auto &[value, name] : mesh_type_names)
      if (value == type)
        return name;
    return "unknown";
  }

  MeshType mesh_type_from_name(const std::string &name)
  {
    for (const auto &[value, known_name] : mesh_type_names)
      if (name == known_name)
        return value;
    throw InputError("Parameter 'Mesh/Type': unknown shape '" + name + "'.");
  }

  void MeshParameters::declare_parameters(dealii::ParameterHandler &prm)
  {
    using namespace dealii::Patterns;
    prm.enter_subsection("Mesh");
    prm.declare_entry("Type", "box", Selection("bar|box|boxes|ball|cylinder|gmsh"),
                      "The body's shape. bar: [0,L] in 1D, [0,L]x[0,W](x[0,W]) in 2D/3D, boundary "
                      "ids 0/1 at x=0/L, 2/3 at y=0/W, 4/5 at z=0/W. box: between 'Lower corner' and "
                      "'Upper corner', same ids. boxes: several disjoint bodies (see 'Boxes'). ball: "
                      "'Radius' around 'Center', boundary id 0. cylinder (3D): radius 'Radius', axis "
                      "along x from 0 to 'Length', ids 0 hull, 1 at x=0, 2 at x=L. gmsh: the .msh "
                      "file 'File name'; physical tags become boundary and material ids.");
    prm.declare_entry("File name", "", Anything(),
                      "gmsh mesh file (.msh) for Type = gmsh; relative paths are relative to the "
                      "directory the program is started in.");
    prm.declare_entry("Length", "1", Double(), "Length L of the bar and the cylinder.");
    prm.declare_entry("Width", "0.1", Double(), "Width W of the bar's square cross-section (2D/3D).");
    prm.declare_entry("Cross section area", "1", Double(),
                      "1D only: the bar's cross-section area S (mass, stiffness and loads scale "
                      "with S).");
    prm.declare_entry("Lower corner", "0, 0, 0", List(Double(), 1, 3),
                      "Box: the corner with the smallest coordinates (first dim values are used).");
    prm.declare_entry("Upper corner", "1, 1, 1", List(Double(), 1, 3), "Box: the corner with the largest coordinates.");
    prm.declare_entry("Boxes", "", Anything(),
                      "Type = boxes: 'lower : upper; lower : upper; ...' with comma-separated "
                      "coordinates, e.g. '0,0,0 : 1,1,1; 0,0,1.01 : 1,1,2'. Box b gets material id b "
                      "and boundary ids 10 b + (the face ids of a single box). Boxes must not overlap; "
                      "touching boxes stay separate bodies. In 1D, intervals 'a : b; c : d' (bars end "
                      "to end; bar b has the end ids 10 b (left) and 10 b + 1 (right)).");
    prm.declare_entry("Center", "0, 0, 0", List(Double(), 1, 3), "Ball: its center.");
    prm.declare_entry("Radius", "1", Double(), "Ball and cylinder: the radius.");
    prm.declare_entry("Subdivisions", "1", List(Integer(1), 1, 3),
                      "bar, box, boxes: number of cells per direction before global refinement "
                      "(one value: along x only for the bar, in every direction for boxes).");
    prm.declare_entry("Rotation angle", "0", Double(),
                      "Rotate the mesh by this angle in degrees about the origin (about the z axis in "
                      "2D, about 'Rotation axis' in 3D), before the translation. 2D and 3D only.");
    prm.declare_entry("Rotation axis", "0, 0, 1", List(Double(), 3, 3), "3D: the axis of the rotation.");
    prm.declare_entry("Translation", "0, 0, 0", List(Double(), 1, 3),
                      "Shift the mesh by this vector (first dim values) after the rotation.");
    prm.declare_entry("Global refinements", "0", Integer(0, 12), "Number of times every cell is split in 2^dim.");
    prm.declare_entry("Ball grading", "0", Double(),
                      "Ball: concentrate the cells toward the boundary point in 'Ball grading "
                      "direction' from the center, e.g. where the ball will touch an obstacle: the "
                      "refined mesh is mapped by the Moebius automorphism of the ball that fixes that "
                      "point and moves the center toward it by this fraction s of the radius "
                      "(0 <= s <= 0.95). The map is conformal (cells keep their shapes) and keeps the "
                      "sphere; cells at the point shrink by (1-s)/(1+s), at the opposite point they "
                      "grow by (1+s)/(1-s). 0: no grading.");
    prm.declare_entry("Ball grading direction", "0, 0, -1", List(Double(), 1, 3),
                      "Ball: the direction (from the center, before 'Rotation angle'; first dim "
                      "values) of the point toward which 'Ball grading' concentrates the cells.");
    prm.declare_entry("Finite element degree", "1", Integer(1, 2),
                      "Degree of the Lagrange (Q) elements for the displacement: 1 or 2.");
    prm.leave_subsection();
  }

  void MeshParameters::parse_parameters(dealii::ParameterHandler &prm, const unsigned int dim)
  {
    prm.enter_subsection("Mesh");
    type = mesh_type_from_name(prm.get("Type"));
    file_name = prm.get("File name");
    length = prm.get_double("Length");
    width = prm.get_double("Width");
    cross_section_area = prm.get_double("Cross section area");
    lower_corner = parse_number_list(prm.get("Lower corner"), "Mesh/Lower corner");
    upper_corner = parse_number_list(prm.get("Upper corner"), "Mesh/Upper corner");
    boxes = prm.get("Boxes");
    center = parse_number_list(prm.get("Center"), "Mesh/Center");
    radius = prm.get_double("Radius");
    subdivisions.clear();
    for (const int s :
         dealii::Utilities::string_to_int(dealii::Utilities::split_string_list(prm.get("Subdivisions"), ',')))
      subdivisions.push_back(static_cast<unsigned int>(s));
    global_refinements = prm.get_integer("Global refinements");
    rotation_angle = prm.get_double("Rotation angle");
    rotation_axis = parse_number_list(prm.get("Rotation axis"), "Mesh/Rotation axis");
    translation = parse_number_list(prm.get("Translation"), "Mesh/Translation");
    fe_degree = prm.get_integer("Finite element degree");
    ball_grading = prm.get_double("Ball grading");
    ball_grading_direction = parse_number_list(prm.get("Ball grading direction"), "Mesh/Ball grading direction");
    prm.leave_subsection();
    if (!(ball_grading >= 0 && ball_grading <= 0.95))
      throw InputError("Parameter 'Mesh/Ball grading' must lie in [0, 0.95] (got " + std::to_string(ball_grading) +
                       ").");
    if (ball_grading > 0)
      {
        if (type != MeshType::ball)
          throw InputError("Parameter 'Mesh/Ball grading' applies to 'Mesh/Type' = ball only (the type is '" +
                           mesh_type_name(type) + "').");
        double norm = 0;
        for (unsigned int d = 0; d < dim && d < ball_grading_direction.size(); ++d)
          norm += ball_grading_direction[d] * ball_grading_direction[d];
        if (ball_grading_direction.size() < dim || !(norm > 0))
          throw InputError("Parameter 'Mesh/Ball grading direction' needs " + std::to_string(dim) +
                           " coordinates, not all zero.");
      }

    auto require_positive = [](const double value, const std::string &entry) {
      if (!(value > 0))
        throw InputError("Parameter 'Mesh/" + entry + "' must be positive (got " + std::to_string(value) + ").");
    };
    if (type == MeshType::bar || type == MeshType::cylinder)
      require_positive(length, "Length");
    if (rotation_angle != 0 && dim == 1)
      throw InputError("Parameter 'Mesh/Rotation angle' needs dimension 2 or 3.");
    if (rotation_angle != 0 && dim == 3 &&
        rotation_axis[0] * rotation_axis[0] + rotation_axis[1] * rotation_axis[1] +
            rotation_axis[2] * rotation_axis[2] ==
          0)
      throw InputError("Parameter 'Mesh/Rotation axis' must not be the zero vector.");
    if (type == MeshType::bar && dim > 1)
      require_positive(width, "Width");
    if (dim == 1)
      require_positive(cross_section_area, "Cross section area");
    if (type == MeshType::ball || type == MeshType::cylinder)
      require_positive(radius, "Radius");
    if (type == MeshType::box)
      {
        if (lower_corner.size() < dim || upper_corner.size() < dim)
          throw InputError("Parameters 'Mesh/Lower corner' and 'Mesh/Upper corner' need " + std::to_string(dim) +
                           " coordinates.");
        for (unsigned int d = 0; d < dim; ++d)
          if (!(upper_corner[d] > lower_corner[d]))
            throw InputError("Parameter 'Mesh/Upper corner' must exceed 'Mesh/Lower corner' in "
                             "every coordinate.");
      }
    if ((type == MeshType::box || type == MeshType::boxes) && subdivisions.size() != 1 && subdivisions.size() != dim)
      throw InputError("Parameter 'Mesh/Subdivisions' needs 1 or " + std::to_string(dim) + " values.");
    if (type == MeshType::ball && (dim == 1 || center.size() < dim))
      throw InputError(dim == 1 ? "Parameter 'Mesh/Type' = ball does not exist in 1D."
                                : "Parameter 'Mesh/Center' needs " + std::to_string(dim) + " coordinates.");
    if (type == MeshType::cylinder && dim != 3)
      throw InputError("Parameter 'Mesh/Type' = cylinder exists only in 3D (use bar or box in " + std::to_string(dim) +
                       "D).");
    if (type == MeshType::boxes && boxes.empty())
      throw InputError("Parameter 'Mesh/Boxes' is empty but 'Mesh/Type' = boxes.");
    if (type == MeshType::gmsh)
      {
        if (file_name.empty())
          throw InputError("Parameter 'Mesh/File name' is empty but 'Mesh/Type' = gmsh.");
        std::ifstream file(file_name);
        if (!file)
          throw InputError("Parameter 'Mesh/File name': cannot open the mesh file '" + file_name + "'.");
      }
  }
} // namespace percussion
