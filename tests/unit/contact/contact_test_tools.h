// Shared helpers for the contact-geometry unit tests: small two-body meshes on a
// parallel::distributed::Triangulation, vectors, and the finite-difference check of Hᵀv.
#ifndef PERCUSSION_TESTS_CONTACT_TEST_TOOLS_H
#define PERCUSSION_TESTS_CONTACT_TEST_TOOLS_H

#include <percussion/contact/contact_geometry.h>
#include <percussion/contact_step/active_set_rule.h>

#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/distributed/shared_tria.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/petsc_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <vector>

namespace contact_test
{
  using namespace dealii;
  using percussion::Contact::ContactGeometry;
  using percussion::Contact::ContactParameters;
  using percussion::Contact::PairParameters;
  using percussion::Contact::PairType;

  /** The active cells of @p source (no hanging nodes) appended as raw coarse-mesh data. */
  template <int dim>
  void append_triangulation(std::vector<Point<dim>> &vertices, std::vector<CellData<dim>> &cells,
                            const Triangulation<dim> &source, const types::material_id material)
  {
    const unsigned int offset = vertices.size();
    vertices.insert(vertices.end(), source.get_vertices().begin(), source.get_vertices().end());
    for (const auto &cell : source.active_cell_iterators())
      {
        CellData<dim> data(GeometryInfo<dim>::vertices_per_cell);
        for (unsigned int v = 0; v < GeometryInfo<dim>::vertices_per_cell; ++v)
          data.vertices[v] = cell->vertex_index(v) + offset;
        data.material_id = material;
        cells.push_back(data);
      }
  }

  /** A box subdivided uniformly, as raw coarse-mesh data (vertices, cells). */
  template <int dim>
  void append_box(std::vector<Point<dim>> &vertices, std::vector<CellData<dim>> &cells, const Point<dim> &lower,
                  const Point<dim> &upper, const std::vector<unsigned int> &subdivisions,
                  const types::material_id material)
  {
    Triangulation<dim> box;
    GridGenerator::subdivided_hyper_rectangle(box, subdivisions, lower, upper);
    append_triangulation(vertices, cells, box, material);
  }

  /**
   * Build @p tria from coarse data without merging coincident vertices of different bodies
   * (touching bodies stay disconnected), then set boundary ids with @p boundary_id(face center,
   * material id) and refine.
   */
  template <int dim>
  void create_mesh(Triangulation<dim> &tria, const std::vector<Point<dim>> &vertices,
                   const std::vector<CellData<dim>> &cells,
                   const std::function<types::boundary_id(const Point<dim> &, types::material_id)> &boundary_id,
                   const unsigned int n_refinements = 0)
  {
    std::vector<Point<dim>> used_vertices = vertices;
    std::vector<CellData<dim>> used_cells = cells;
    SubCellData subcell_data;
    GridTools::delete_unused_vertices(used_vertices, used_cells, subcell_data);
    tria.create_triangulation(used_vertices, used_cells, subcell_data);
    for (const auto &cell : tria.active_cell_iterators())
      for (const unsigned int f : cell->face_indices())
        if (cell->face(f)->at_boundary())
          cell->face(f)->set_boundary_id(boundary_id(cell->face(f)->center(), cell->material_id()));
    tria.refine_global(n_refinements);
  }

  /// Boundary ids of make_two_boxes(): the upper body's bottom face, the lower body's top face, the
  /// lower body's bottom face and the upper body's top face.
  constexpr types::boundary_id two_boxes_slave_id = 1;
  constexpr types::boundary_id two_boxes_master_id = 2;
  constexpr types::boundary_id two_boxes_bottom_id = 3;
  constexpr types::boundary_id two_boxes_top_id = 4;

  /**
   * Two bodies for body-to-body tests: the lower one (material 0) [0,1]^{dim−1} × [0, 0.5] with 4
   * subdivisions, its top face the master (two_boxes_master_id); the upper one (material 1)
   * [0.13, 0.83] × [0.21, 0.91] × [0.5 + gap, 1 + gap] with 3 subdivisions, its bottom face the slave
   * (two_boxes_slave_id); the lower body's bottom and the upper body's top faces two_boxes_bottom_id
   * and two_boxes_top_id; refined @p n_refinements times; then @p problem.setup(). The slave nodes
   * project strictly inside master facets.
   */
  template <int dim, typename ProblemType>
  void make_two_boxes(ProblemType &problem, const double gap, const unsigned int n_refinements = 0)
  {
    std::vector<Point<dim>> vertices;
    std::vector<CellData<dim>> cells;
    Point<dim> lower0, upper0, lower1, upper1;
    for (unsigned int d = 0; d < dim - 1; ++d)
      {
        upper0[d] = 1.;
        lower1[d] = d == 0 ? 0.13 : 0.21;
        upper1[d] = lower1[d] + 0.7;
      }
    upper0[dim - 1] = 0.5;
    lower1[dim - 1] = 0.5 + gap;
    upper1[dim - 1] = 1. + gap;
    append_box<dim>(vertices, cells, lower0, upper0, std::vector<unsigned int>(dim, 4), 0);
    append_box<dim>(vertices, cells, lower1, upper1, std::vector<unsigned int>(dim, 3), 1);
    create_mesh<dim>(
      problem.tria, vertices, cells,
      [gap](const Point<dim> &c, types::material_id m) {
        if (m == 0 && std::abs(c[dim - 1] - 0.5) < 1e-12)
          return two_boxes_master_id;
        if (m == 0 && std::abs(c[dim - 1]) < 1e-12)
          return two_boxes_bottom_id;
        if (m == 1 && std::abs(c[dim - 1] - 0.5 - gap) < 1e-12)
          return two_boxes_slave_id;
        if (m == 1 && std::abs(c[dim - 1] - 1. - gap) < 1e-12)
          return two_boxes_top_id;
        return types::boundary_id(0);
      },
      n_refinements);
    problem.setup();
  }

  /** A FE problem (distributed, shared or serial mesh) with vectors of the right partition. */
  template <int dim, typename TriangulationType = parallel::distributed::Triangulation<dim>>
  struct Problem
  {
    Problem(const MPI_Comm comm, const unsigned int degree)
      : comm(comm)
      , tria(make_triangulation(comm))
      , fe(FE_Q<dim>(degree), dim)
      , dof_handler(tria)
    {
    }

    void setup()
    {
      dof_handler.distribute_dofs(fe);
      owned = dof_handler.locally_owned_dofs();
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    }

    PETScWrappers::MPI::Vector vector() const { return PETScWrappers::MPI::Vector(owned, comm); }

    PETScWrappers::MPI::Vector ghosted(const PETScWrappers::MPI::Vector &v) const
    {
      PETScWrappers::MPI::Vector g(owned, relevant, comm);
      g = v;
      return g;
    }

    PETScWrappers::MPI::Vector random(const unsigned int seed, const double amplitude) const
    {
      std::mt19937 generator(seed + 1000 * Utilities::MPI::this_mpi_process(comm));
      std::uniform_real_distribution<> distribution(-amplitude, amplitude);
      PETScWrappers::MPI::Vector v = vector();
      for (const auto i : owned)
        v(i) = distribution(generator);
      v.compress(VectorOperation::insert);
      return v;
    }

    PETScWrappers::MPI::Vector interpolate(const std::function<Tensor<1, dim>(const Point<dim> &)> &f) const
    {
      struct Wrapper : public Function<dim>
      {
        Wrapper(const std::function<Tensor<1, dim>(const Point<dim> &)> &f)
          : Function<dim>(dim)
          , f(f)
        {
        }
        double value(const Point<dim> &p, const unsigned int c) const override { return f(p)[c]; }
        const std::function<Tensor<1, dim>(const Point<dim> &)> &f;
      } wrapper(f);
      PETScWrappers::MPI::Vector v = vector();
      VectorTools::interpolate(dof_handler, wrapper, v);
      return v;
    }

    static TriangulationType make_triangulation(const MPI_Comm comm)
    {
      if constexpr (std::is_constructible_v<TriangulationType, MPI_Comm>)
        return TriangulationType(comm);
      else
        return TriangulationType();
    }

    MPI_Comm comm;
    TriangulationType tria;
    FESystem<dim> fe;
    DoFHandler<dim> dof_handler;
    IndexSet owned, relevant;
  };

  /** Value of an owned entry of a PETSc vector. */
  inline double entry(const PETScWrappers::MPI::Vector &v, const types::global_dof_index i)
  {
    return v(i);
  }

  struct FiniteDifferenceResult
  {
    double max_error = 0.;     // max |FD(g) − u_N| over all points and ranks
    double max_rate = 0.;      // max |u_N| (the check is meaningful only if not 0)
    unsigned int n_points = 0; // global number of contact points
    bool same_points = true;
  };

  /**
   * Central finite difference of the gap vector along (q + s v, t + s) against
   * u_N = (Hᵀ v + w)_N at s = 0. The error is O(ε²) plus round-off O(1e-16/ε).
   */
  template <int dim, typename ProblemType>
  FiniteDifferenceResult finite_difference_check(const ProblemType &problem, ContactGeometry<dim> &geometry,
                                                 const PETScWrappers::MPI::Vector &q,
                                                 const PETScWrappers::MPI::Vector &v, const double time,
                                                 const double epsilon = 1e-6)
  {
    FiniteDifferenceResult result;
    geometry.update(problem.ghosted(q), time);
    PETScWrappers::MPI::Vector u;
    geometry.local_velocity(v, u);
    std::vector<double> normal_rate;
    std::vector<types::global_dof_index> slave;
    for (const auto &point : geometry.owned_points())
      {
        normal_rate.push_back(u(dim * point.global_index));
        slave.push_back(point.slave_dofs[0] * 16 + point.pair);
      }
    result.n_points = geometry.n_global_points();

    std::vector<std::vector<double>> gaps(2);
    for (unsigned int side = 0; side < 2; ++side)
      {
        const double s = (side == 0 ? 1. : -1.) * epsilon;
        PETScWrappers::MPI::Vector qs = q;
        qs.add(s, v);
        geometry.update(problem.ghosted(qs), time + s);
        if (geometry.n_owned_points() != slave.size())
          result.same_points = false;
        else
          for (unsigned int i = 0; i < slave.size(); ++i)
            if (geometry.owned_points()[i].slave_dofs[0] * 16 + geometry.owned_points()[i].pair != slave[i])
              result.same_points = false;
        gaps[side] = geometry.gaps();
      }
    result.same_points = Utilities::MPI::min(result.same_points ? 1 : 0, problem.comm) == 1;
    if (result.same_points)
      for (unsigned int i = 0; i < slave.size(); ++i)
        {
          const double fd = (gaps[0][i] - gaps[1][i]) / (2 * epsilon);
          result.max_error = std::max(result.max_error, std::abs(fd - normal_rate[i]));
          result.max_rate = std::max(result.max_rate, std::abs(normal_rate[i]));
        }
    result.max_error = Utilities::MPI::max(result.max_error, problem.comm);
    result.max_rate = Utilities::MPI::max(result.max_rate, problem.comm);
    geometry.update(problem.ghosted(q), time);
    return result;
  }

  /** Max over points of |frames·frameᵀ − I| and, for dim > 1, of |det − 1| (right-handedness). */
  template <int dim>
  double frame_orthonormality_error(const ContactGeometry<dim> &geometry)
  {
    double error = 0.;
    for (const auto &point : geometry.owned_points())
      {
        for (unsigned int i = 0; i < dim; ++i)
          for (unsigned int j = 0; j < dim; ++j)
            error = std::max(error, std::abs(point.frame.vectors[i] * point.frame.vectors[j] - (i == j ? 1. : 0.)));
        Tensor<2, dim> m;
        for (unsigned int i = 0; i < dim; ++i)
          for (unsigned int j = 0; j < dim; ++j)
            m[i][j] = point.frame.vectors[i][j];
        if (dim > 1) // in 1D the frame is (n) with n = ±1: no handedness
          error = std::max(error, std::abs(determinant(m) - 1.));
      }
    return Utilities::MPI::max(error, geometry.get_communicator());
  }

  /** A pair with defaults for tests. */
  inline PairParameters make_pair(const PairType type, const unsigned int slave, const unsigned int master = 99)
  {
    PairParameters pair;
    pair.name = "Contact/Pair 1";
    pair.type = type;
    pair.slave_boundary = {false, {slave}};
    pair.master_boundary = {false, {master}};
    return pair;
  }
} // namespace contact_test

namespace percussion::testing
{
  /**
   * How many candidates of @p geometry (all ranks) the time stepper's active-set rule takes with
   * u = @p u (column partition of H) as both u_k and the free velocity.
   */
  template <int dim>
  unsigned int count_entering(const Contact::ContactGeometry<dim> &geometry,
                              const dealii::PETScWrappers::MPI::Vector &u, const double time_step)
  {
    const ContactStep::ActiveSetRule rule{geometry.get_parameters().gap_prediction_factor, false};
    unsigned int n = 0;
    for (const auto &point : geometry.owned_points())
      {
        const double u_normal = u(dim * point.global_index);
        n += rule.enters(point.gap, u_normal, u_normal, time_step) ? 1 : 0;
      }
    return dealii::Utilities::MPI::sum(n, geometry.get_communicator());
  }
} // namespace percussion::testing

#endif
