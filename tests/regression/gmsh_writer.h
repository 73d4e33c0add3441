// The gmsh meshes that regression tests make for themselves (graded Hertz meshes, non-matching
// contact patches): one writer of gmsh's ASCII format 2.2 for them.
#ifndef PERCUSSION_TESTS_REGRESSION_GMSH_WRITER_H
#define PERCUSSION_TESTS_REGRESSION_GMSH_WRITER_H

#include <fstream>
#include <string>

namespace percussion::testing
{
  /**
   * Writes @p nodes (points of @p node_dimension coordinates; z = 0 when 2) and the elements
   * @p faces, then @p cells — (tag, node numbers from 1) pairs, the tag both the physical and the
   * elementary one — to @p file in gmsh's ASCII format 2.2 (meshes/README.md: physical tags are
   * material and boundary ids). The element type follows from the number of nodes: 2 a line, 4 a
   * quadrilateral, 8 a hexahedron.
   */
  template <typename Nodes, typename Faces, typename Cells>
  void write_gmsh(const std::string &file, const Nodes &nodes, const unsigned int node_dimension, const Faces &faces,
                  const Cells &cells)
  {
    std::ofstream out(file);
    out.precision(17);
    out << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n" << nodes.size() << "\n";
    for (unsigned int k = 0; k < nodes.size(); ++k)
      {
        out << k + 1;
        for (unsigned int c = 0; c < 3; ++c)
          {
            out << ' ';
            if (c < node_dimension)
              out << nodes[k][c];
            else
              out << 0;
          }
        out << "\n";
      }
    out << "$EndNodes\n$Elements\n" << faces.size() + cells.size() << "\n";
    unsigned int number = 0;
    const auto write = [&out, &number](const auto &elements) {
      for (const auto &[tag, vertices] : elements)
        {
          const int type = vertices.size() == 2 ? 1 : vertices.size() == 4 ? 3 : 5;
          out << ++number << ' ' << type << " 2 " << tag << ' ' << tag;
          for (const int i : vertices)
            out << ' ' << i;
          out << "\n";
        }
    };
    write(faces);
    write(cells);
    out << "$EndElements\n";
  }
} // namespace percussion::testing

#endif
