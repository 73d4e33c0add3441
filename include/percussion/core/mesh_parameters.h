#ifndef PERCUSSION_CORE_MESH_PARAMETERS_H
#define PERCUSSION_CORE_MESH_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <string>
#include <vector>

namespace percussion
{
  /// The shapes of `Mesh/Type` (described at MeshParameters).
  enum class MeshType
  {
    bar,
    box,
    boxes,
    ball,
    cylinder,
    gmsh
  };

  /// The name of @p type in the parameter file ("bar", "box", "boxes", "ball", "cylinder", "gmsh").
  std::string mesh_type_name(MeshType type);

  /**
   * The MeshType called @p name in the parameter file.
   * @throws InputError "Parameter 'Mesh/Type': unknown shape '...'." for any other name.
   */
  MeshType mesh_type_from_name(const std::string &name);

  /**
   * `subsection Mesh`: a built-in shape or a gmsh file, its refinement and the finite element.
   *
   * Built-in shapes and their boundary ids (see meshes/README.md):
   * - `bar`: [0, L] in 1D; [0, L] × [0, W] (× [0, W]) in 2D/3D. Ids 0/1 at x = 0/L, 2/3 at y = 0/W,
   *   4/5 at z = 0/W.
   * - `box`: the box between `Lower corner` and `Upper corner`; ids as for the bar (face 2i at the
   *   lower and 2i+1 at the upper side of direction i).
   * - `boxes`: several disjoint boxes (bodies) `x0,y0,z0 : x1,y1,z1; ...`; box b has material id b and
   *   boundary ids 10 b + (face id of a single box).
   * - `ball`: ball of `Radius` around `Center`; boundary id 0.
   * - `cylinder` (3D): radius `Radius`, axis along x from 0 to `Length`; id 0 hull, 1 at x = 0,
   *   2 at x = L.
   * - `gmsh`: a `.msh` file (`File name`); physical tags become boundary ids (surfaces) and material
   *   ids (volumes).
   */
  struct MeshParameters
  {
    MeshType type = MeshType::box;
    std::string file_name;
    double length = 1.0;
    double width = 0.1;
    std::vector<double> lower_corner = {0, 0, 0};
    std::vector<double> upper_corner = {1, 1, 1};
    std::string boxes;
    std::vector<double> center = {0, 0, 0};
    double radius = 1.0;
    std::vector<unsigned int> subdivisions = {1};
    unsigned int global_refinements = 0;
    unsigned int fe_degree = 1;
    /// Ball: grading s ∈ [0, 0.95] of the cells toward the boundary point in direction
    /// `ball_grading_direction` from the center (a Möbius automorphism of the ball, applied after
    /// the global refinements; the cells there shrink by (1 − s)/(1 + s)). 0: none.
    double ball_grading = 0;
    std::vector<double> ball_grading_direction = {0, 0, -1};
    /// Rigid placement applied after generation: rotation (degrees, about z in 2D, about
    /// `rotation_axis` in 3D) about the origin, then translation.
    double rotation_angle = 0;
    std::vector<double> rotation_axis = {0, 0, 1};
    std::vector<double> translation = {0, 0, 0};
    /// 1D only: the bar's cross-section area S; M, K and loads are per unit length times S.
    double cross_section_area = 1.0;

    static void declare_parameters(dealii::ParameterHandler &prm);
    /// @throws InputError for values out of range, naming the entry.
    void parse_parameters(dealii::ParameterHandler &prm, unsigned int dim);
  };
} // namespace percussion

#endif
