#include <deal.II/base/utilities.h>
#include <deal.II/distributed/shared_tria.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_in.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/physics/transformations.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/mesh_generator.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  std::unique_ptr<Triangulation<dim>> create_triangulation(MPI_Comm communicator)
  {
    if constexpr (dim == 1)
      return std::make_unique<
        parallel::shared::Triangulation<dim>>(communicator, Triangulation<dim>::none, /*allow_artificial_cells=*/false,
                                              parallel::shared::Triangulation<dim>::partition_metis);
    else
      return std::make_unique<parallel::distributed::Triangulation<dim>>(communicator);
  }

  namespace
  {
    template <int dim>
    Point<dim> to_point(const std::vector<double> &values)
    {
      Point<dim> p;
      for (unsigned int d = 0; d < dim && d < values.size(); ++d)
        p[d] = values[d];
      return p;
    }

    /**
     * Refuses, before anything is allocated, a mesh whose @p coarse_cells refined
     * 'Global refinements' times could not fit in the node's memory: the estimate is a lower
     * bound of what a run needs per active cell (the triangulation, M and K, the vectors; not the
     * factor: 8 kB in 3D, 2 kB in 2D, 0.3 kB in 1D, measured runs need 2–7× more), shared by the
     * ranks of the run, against the physical memory of one node.
     */
    template <int dim>
    void check_mesh_size(const double coarse_cells, const MeshParameters &parameters)
    {
      const double cells = coarse_cells * std::pow(2.0, dim * static_cast<double>(parameters.global_refinements));
      const double bytes_per_cell = dim == 3 ? 8e3 : (dim == 2 ? 2e3 : 300.0);
      const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
      if (pages <= 0 || page_size <= 0)
        return;
      const double memory = static_cast<double>(pages) * static_cast<double>(page_size);
      int n_ranks = 1;
      int initialized = 0;
      MPI_Initialized(&initialized);
      if (initialized)
        MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
      const double needed = cells * bytes_per_cell / n_ranks;
      if (needed > memory)
        {
          std::ostringstream message;
          message.precision(3);
          message << "Parameters 'Mesh/Subdivisions' and 'Mesh/Global refinements' = " << parameters.global_refinements
                  << " ask for about " << cells << " cells, which need at least " << needed / 1073741824.0
                  << " GiB per rank on " << n_ranks << " rank(s); this computer has " << memory / 1073741824.0
                  << " GiB. Use fewer subdivisions or refinements (each refinement multiplies the cells by "
                  << (1 << dim) << ").";
          throw InputError(message.str());
        }
    }

    /**
     * Reads an ASCII gmsh file (formats 2.2 and 4.x) line by line and checks its node references:
     * the sections $MeshFormat, $Nodes and $Elements, every other line skipped. Errors name the file
     * and the line.
     */
    class MshFileChecker
    {
    public:
      explicit MshFileChecker(const std::string &file_name)
        : input(file_name)
        , where("Parameter 'Mesh/File name': the gmsh file '" + file_name + "'")
      {
      }

      /// @throws InputError at the first malformed section or unknown node reference.
      void check()
      {
        while (std::getline(input, line))
          {
            ++line_number;
            const std::string section = Utilities::trim(line);
            if (section == "$MeshFormat")
              {
                if (!read_format())
                  return; // binary: left to deal.II's reader
              }
            else if (section == "$Nodes")
              read_nodes();
            else if (section == "$Elements")
              read_elements();
          }
        if (!have_nodes || !have_elements)
          throw InputError(where + " has no " + std::string(have_nodes ? "$Elements" : "$Nodes") + " section.");
      }

    private:
      /// The next line; a file that ends inside section @p what is an error.
      std::string next(const char *what)
      {
        if (!std::getline(input, line))
          throw InputError(where + " ends early (in " + what + ", after line " + std::to_string(line_number) + ").");
        ++line_number;
        return line;
      }

      /// The integers of the next line (reading stops at the first non-integer).
      std::vector<long long> numbers(const char *what)
      {
        std::istringstream in(next(what));
        std::vector<long long> values;
        long long v;
        while (in >> v)
          values.push_back(v);
        return values;
      }

      /// The error @p message at the current line.
      InputError bad(const std::string &message) const
      {
        return InputError(where + ", line " + std::to_string(line_number) + ": " + message + ".");
      }

      /// The version line of $MeshFormat; false for a binary file.
      bool read_format()
      {
        std::istringstream in(next("$MeshFormat"));
        int file_type = -1;
        if (!(in >> version >> file_type))
          throw bad("malformed $MeshFormat");
        return file_type == 0;
      }

      /// $Nodes: collects the node tags (sorted, each once).
      void read_nodes()
      {
        if (version >= 4)
          read_node_blocks();
        else
          read_node_lines();
        std::sort(nodes.begin(), nodes.end());
        if (std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end())
          throw bad("a node tag is defined twice");
        have_nodes = true;
      }

      /// Format 4: blocks of node tags, then their coordinates.
      void read_node_blocks()
      {
        const auto header = numbers("$Nodes");
        if (header.size() < 4 || header[0] < 0 || header[1] < 0)
          throw bad("malformed $Nodes header");
        for (long long b = 0; b < header[0]; ++b)
          {
            const auto block = numbers("$Nodes");
            if (block.size() < 4 || block[3] < 0 || block[3] > header[1])
              throw bad("malformed node block");
            for (long long k = 0; k < block[3]; ++k)
              {
                const auto tag = numbers("$Nodes");
                if (tag.size() != 1)
                  throw bad("a node tag expected");
                nodes.push_back(tag[0]);
              }
            for (long long k = 0; k < block[3]; ++k)
              next("$Nodes");
          }
      }

      /// Format 2.2: one line 'tag x y z' per node.
      void read_node_lines()
      {
        const auto header = numbers("$Nodes");
        if (header.size() != 1 || header[0] < 0)
          throw bad("malformed number of nodes");
        for (long long k = 0; k < header[0]; ++k)
          {
            std::istringstream in(next("$Nodes"));
            long long tag;
            double x, y, z;
            if (!(in >> tag >> x >> y >> z))
              throw bad("a node line 'tag x y z' expected");
            nodes.push_back(tag);
          }
      }

      /// $Elements: every node an element names must be one of $Nodes.
      void read_elements()
      {
        if (!have_nodes)
          throw bad("$Elements before $Nodes");
        if (version >= 4)
          read_element_blocks();
        else
          read_element_lines();
        have_elements = true;
      }

      void check_node(const long long tag) const
      {
        if (!std::binary_search(nodes.begin(), nodes.end(), tag))
          throw bad("an element refers to node " + std::to_string(tag) + ", which the file does not define");
      }

      /// Format 4: blocks of lines 'tag node node ...'.
      void read_element_blocks()
      {
        const auto header = numbers("$Elements");
        if (header.size() < 4 || header[0] < 0)
          throw bad("malformed $Elements header");
        for (long long b = 0; b < header[0]; ++b)
          {
            const auto block = numbers("$Elements");
            if (block.size() < 4 || block[3] < 0 || block[3] > header[1])
              throw bad("malformed element block");
            for (long long k = 0; k < block[3]; ++k)
              {
                const auto element = numbers("$Elements");
                if (element.size() < 2)
                  throw bad("an element line 'tag node node ...' expected");
                for (std::size_t i = 1; i < element.size(); ++i)
                  check_node(element[i]);
              }
          }
      }

      /// Format 2.2: lines 'tag type n_tags tags... nodes...'.
      void read_element_lines()
      {
        const auto header = numbers("$Elements");
        if (header.size() != 1 || header[0] < 0)
          throw bad("malformed number of elements");
        for (long long k = 0; k < header[0]; ++k)
          {
            const auto element = numbers("$Elements");
            if (element.size() < 3 || element[2] < 0 || element.size() < static_cast<std::size_t>(3 + element[2] + 1))
              throw bad("an element line 'tag type n_tags tags... nodes...' expected");
            for (std::size_t i = 3 + element[2]; i < element.size(); ++i)
              check_node(element[i]);
          }
      }

      std::ifstream input;
      const std::string where;
      std::string line;
      unsigned long long line_number = 0;
      double version = 0;
      /// The node tags defined, sorted at the end of $Nodes.
      std::vector<long long> nodes;
      bool have_nodes = false, have_elements = false;
    };

    /**
     * Checks the node references of an ASCII gmsh file (formats 2.2 and 4.x) before deal.II reads
     * it: GridIn::read_msh does not, and an element naming a node that does not exist crashes it
     * (found by benchmarks/fuzz). @throws InputError naming the file and the line.
     */
    void check_msh_file(const std::string &file_name)
    {
      MshFileChecker(file_name).check();
    }

    template <int dim>
    std::vector<unsigned int> repetitions(const MeshParameters &parameters, const Point<dim> &lower,
                                          const Point<dim> &upper, const bool first_only)
    {
      std::vector<unsigned int> result(dim, 1);
      if (parameters.subdivisions.size() == dim)
        result = parameters.subdivisions;
      else if (first_only)
        {
          // One value for a bar: cells along x; keep the cross-section cells near-cubic.
          result[0] = parameters.subdivisions[0];
          const double h = (upper[0] - lower[0]) / result[0];
          for (unsigned int d = 1; d < dim; ++d)
            result[d] = std::max(1u, static_cast<unsigned int>(std::lround((upper[d] - lower[d]) / h)));
        }
      else
        std::fill(result.begin(), result.end(), parameters.subdivisions[0]);
      // The coarse cells this asks for, checked before deal.II allocates them.
      double coarse = 1;
      for (const unsigned int n : result)
        coarse *= n;
      check_mesh_size<dim>(coarse, parameters);
      return result;
    }

    /// Boxes as "lower : upper; lower : upper".
    template <int dim>
    std::vector<std::pair<Point<dim>, Point<dim>>> parse_boxes(const std::string &text)
    {
      std::vector<std::pair<Point<dim>, Point<dim>>> boxes;
      for (const std::string &box : Utilities::split_string_list(text, ';'))
        {
          const auto corners = Utilities::split_string_list(box, ':');
          if (corners.size() != 2)
            throw InputError("Parameter 'Mesh/Boxes': '" + box + "' is not of the form 'lower : upper'.");
          std::vector<double> lower, upper;
          try
            {
              lower = Utilities::string_to_double(Utilities::split_string_list(corners[0], ','));
              upper = Utilities::string_to_double(Utilities::split_string_list(corners[1], ','));
            }
          catch (...)
            {
              throw InputError("Parameter 'Mesh/Boxes': '" + box + "' has a non-numeric coordinate.");
            }
          if (lower.size() != dim || upper.size() != dim)
            throw InputError("Parameter 'Mesh/Boxes': '" + box + "' needs " + std::to_string(dim) +
                             " coordinates per corner.");
          for (unsigned int d = 0; d < dim; ++d)
            if (!(upper[d] > lower[d]))
              throw InputError("Parameter 'Mesh/Boxes': in '" + box +
                               "' the upper corner must exceed "
                               "the lower one in every coordinate.");
          boxes.emplace_back(to_point<dim>(lower), to_point<dim>(upper));
        }
      return boxes;
    }
  } // namespace

  namespace
  {
    // One generator per 'Mesh/Type' (the coarse mesh; placement, refinement and grading follow in
    // generate_mesh()).

    template <int dim>
    void make_bar(const MeshParameters &parameters, Triangulation<dim> &triangulation)
    {
      Point<dim> upper;
      upper[0] = parameters.length;
      for (unsigned int d = 1; d < dim; ++d)
        upper[d] = parameters.width;
      GridGenerator::subdivided_hyper_rectangle(triangulation, repetitions<dim>(parameters, Point<dim>(), upper, true),
                                                Point<dim>(), upper,
                                                /*colorize=*/true);
    }

    template <int dim>
    void make_box(const MeshParameters &parameters, Triangulation<dim> &triangulation)
    {
      const Point<dim> lower = to_point<dim>(parameters.lower_corner);
      const Point<dim> upper = to_point<dim>(parameters.upper_corner);
      GridGenerator::subdivided_hyper_rectangle(triangulation, repetitions<dim>(parameters, lower, upper, false), lower,
                                                upper, true);
    }

    template <int dim>
    void make_boxes(const MeshParameters &parameters, Triangulation<dim> &triangulation)
    {
      if constexpr (dim == 1)
        {
          // Bars end to end: the intervals' cells concatenated without merging vertices, so that
          // bars that touch stay separate bodies (node-to-node contact in 1D). Bar b has material
          // id b and the end ids 10 b (left) and 10 b + 1 (right), as a box's faces in 2D/3D.
          const auto boxes = parse_boxes<dim>(parameters.boxes);
          std::vector<Point<dim>> vertices;
          std::vector<CellData<dim>> cells;
          for (unsigned int b = 0; b < boxes.size(); ++b)
            {
              const unsigned int n = repetitions<dim>(parameters, boxes[b].first, boxes[b].second, false)[0];
              const unsigned int offset = vertices.size();
              for (unsigned int i = 0; i <= n; ++i)
                vertices.push_back(boxes[b].first + (boxes[b].second - boxes[b].first) * (double(i) / n));
              for (unsigned int i = 0; i < n; ++i)
                {
                  CellData<dim> cell;
                  cell.vertices = {offset + i, offset + i + 1};
                  cell.material_id = b;
                  cells.push_back(cell);
                }
            }
          triangulation.create_triangulation(vertices, cells, SubCellData());
          for (const auto &cell : triangulation.active_cell_iterators())
            for (const unsigned int f : cell->face_indices())
              if (cell->face(f)->at_boundary())
                cell->face(f)->set_boundary_id(10 * cell->material_id() + f);
        }
      else
        {
          const auto boxes = parse_boxes<dim>(parameters.boxes);
          // Concatenate the boxes' coarse meshes without merging vertices: touching boxes stay
          // separate bodies that can only interact through contact.
          std::vector<Point<dim>> vertices;
          std::vector<CellData<dim>> cells;
          SubCellData faces;
          for (unsigned int b = 0; b < boxes.size(); ++b)
            {
              Triangulation<dim> box;
              GridGenerator::subdivided_hyper_rectangle(box,
                                                        repetitions<dim>(parameters, boxes[b].first, boxes[b].second,
                                                                         false),
                                                        boxes[b].first, boxes[b].second, true);
              for (const auto &cell : box.active_cell_iterators())
                {
                  cell->set_material_id(b);
                  for (const auto &face : cell->face_iterators())
                    if (face->at_boundary())
                      face->set_boundary_id(10 * b + face->boundary_id());
                }
              auto [box_vertices, box_cells, box_faces] = GridTools::get_coarse_mesh_description(box);
              const unsigned int offset = vertices.size();
              vertices.insert(vertices.end(), box_vertices.begin(), box_vertices.end());
              for (auto &cell : box_cells)
                {
                  for (auto &v : cell.vertices)
                    v += offset;
                  cells.push_back(cell);
                }
              for (auto &line : box_faces.boundary_lines)
                {
                  for (auto &v : line.vertices)
                    v += offset;
                  faces.boundary_lines.push_back(line);
                }
              for (auto &quad : box_faces.boundary_quads)
                {
                  for (auto &v : quad.vertices)
                    v += offset;
                  faces.boundary_quads.push_back(quad);
                }
            }
          triangulation.create_triangulation(vertices, cells, faces);
        }
    }

    template <int dim>
    void make_ball(const MeshParameters &parameters, Triangulation<dim> &triangulation)
    {
      if constexpr (dim > 1)
        GridGenerator::hyper_ball(triangulation, to_point<dim>(parameters.center), parameters.radius);
    }

    template <int dim>
    void make_cylinder(const MeshParameters &parameters, Triangulation<dim> &triangulation)
    {
      if constexpr (dim == 3)
        {
          GridGenerator::cylinder(triangulation, parameters.radius, parameters.length / 2);
          GridTools::shift(Point<dim>(parameters.length / 2, 0, 0), triangulation);
        }
    }

    template <int dim>
    void read_gmsh(const MeshParameters &parameters, Triangulation<dim> &triangulation)
    {
      GridIn<dim> grid_in;
      grid_in.attach_triangulation(triangulation);
      std::ifstream input(parameters.file_name);
      if (!input)
        throw InputError("Parameter 'Mesh/File name': cannot open the mesh file '" + parameters.file_name + "'.");
      check_msh_file(parameters.file_name);
      try
        {
          grid_in.read_msh(input);
        }
      catch (const ExceptionBase &error)
        {
          std::ostringstream message;
          error.print_info(message);
          throw InputError("Parameter 'Mesh/File name': cannot read the gmsh file '" + parameters.file_name +
                           "': " + message.str());
        }
    }

    /// Rotates the mesh by 'Rotation angle' about 'Rotation axis' (the origin), then translates it.
    template <int dim>
    Tensor<1, dim> place_rigidly(const MeshParameters &parameters, Triangulation<dim> &triangulation)
    {
      if (parameters.rotation_angle != 0)
        {
          const double angle = parameters.rotation_angle * numbers::PI / 180;
          if constexpr (dim == 2)
            GridTools::rotate(angle, triangulation);
          else if constexpr (dim == 3)
            {
              Tensor<1, 3> axis(
                {parameters.rotation_axis[0], parameters.rotation_axis[1], parameters.rotation_axis[2]});
              GridTools::rotate(axis / axis.norm(), angle, triangulation);
            }
        }
      Tensor<1, dim> shift;
      for (unsigned int d = 0; d < dim && d < parameters.translation.size(); ++d)
        shift[d] = parameters.translation[d];
      if (shift.norm() > 0)
        GridTools::shift(shift, triangulation);
      return shift;
    }

    /// 'Ball grading': a conformal map of the ball that makes its cells smaller towards one point
    /// of its surface, applied to the refined mesh. @p shift is the translation place_rigidly() made.
    template <int dim>
    void grade_ball(const MeshParameters &parameters, const Tensor<1, dim> &shift, Triangulation<dim> &triangulation)
    {
      // The ball's center and the grading direction after the rigid placement above.
      Point<dim> center = to_point<dim>(parameters.center);
      Tensor<1, dim> direction;
      for (unsigned int d = 0; d < dim; ++d)
        direction[d] = parameters.ball_grading_direction[d];
      direction /= direction.norm();
      if (parameters.rotation_angle != 0)
        {
          const double angle = parameters.rotation_angle * numbers::PI / 180;
          if constexpr (dim == 2)
            {
              const auto rotation = Physics::Transformations::Rotations::rotation_matrix_2d(angle);
              center = Point<dim>(rotation * center);
              direction = rotation * direction;
            }
          else if constexpr (dim == 3)
            {
              Tensor<1, 3> axis(
                {parameters.rotation_axis[0], parameters.rotation_axis[1], parameters.rotation_axis[2]});
              const auto rotation =
                Physics::Transformations::Rotations::rotation_matrix_3d(Point<3>(axis / axis.norm()), angle);
              center = Point<dim>(rotation * center);
              direction = rotation * direction;
            }
        }
      center += shift;
      // φ_a(y) = ((1 − |a|²)(y − a) − |y − a|² a) / (1 − 2 y·a + |y|²|a|²) on the unit ball,
      // a = −s d: an automorphism of the ball (spheres to spheres, conformal) that fixes the
      // boundary point d and maps 0 to s d; its stretch (1 − |a|²)/(1 − 2 y·a + |y|²|a|²) is
      // (1 − s)/(1 + s) at d. Applied to the refined mesh, so every level is graded.
      const double radius = parameters.radius, s = parameters.ball_grading;
      const Tensor<1, dim> a = -s * direction;
      GridTools::transform(
        [&](const Point<dim> &x) {
          const Tensor<1, dim> y = (x - center) / radius, y_minus_a = y - a;
          const double denominator = 1 - 2 * (y * a) + (y * y) * (a * a);
          return Point<dim>(center + radius * (((1 - a * a) * y_minus_a - (y_minus_a * y_minus_a) * a) / denominator));
        },
        triangulation);
    }
  } // namespace

  template <int dim>
  void generate_mesh(const MeshParameters &parameters, Triangulation<dim> &triangulation)
  {
    using Generator = void (*)(const MeshParameters &, Triangulation<dim> &);
    static const std::map<MeshType, Generator> generators{{MeshType::bar, &make_bar<dim>},
                                                          {MeshType::box, &make_box<dim>},
                                                          {MeshType::boxes, &make_boxes<dim>},
                                                          {MeshType::ball, &make_ball<dim>},
                                                          {MeshType::cylinder, &make_cylinder<dim>},
                                                          {MeshType::gmsh, &read_gmsh<dim>}};
    const MeshType type = parameters.type;
    const auto generator = generators.find(type);
    if (generator == generators.end())
      throw InputError("Parameter 'Mesh/Type': unknown shape '" + mesh_type_name(type) + "'.");
    generator->second(parameters, triangulation);

    // colorize = true also numbers the cells' material ids by octant; a built-in bar or box is one
    // material (id 0).
    if (type == MeshType::bar || type == MeshType::box)
      for (const auto &cell : triangulation.active_cell_iterators())
        cell->set_material_id(0);
    const Tensor<1, dim> shift = place_rigidly(parameters, triangulation);
    check_mesh_size<dim>(triangulation.n_active_cells(), parameters);
    triangulation.refine_global(parameters.global_refinements);
    if (type == MeshType::ball && parameters.ball_grading > 0)
      grade_ball(parameters, shift, triangulation);
  }

  template std::unique_ptr<Triangulation<1>> create_triangulation<1>(MPI_Comm);
  template std::unique_ptr<Triangulation<2>> create_triangulation<2>(MPI_Comm);
  template std::unique_ptr<Triangulation<3>> create_triangulation<3>(MPI_Comm);
  template void generate_mesh<1>(const MeshParameters &, Triangulation<1> &);
  template void generate_mesh<2>(const MeshParameters &, Triangulation<2> &);
  template void generate_mesh<3>(const MeshParameters &, Triangulation<3> &);
} // namespace percussion
