// Benchmark (prints figures, not a test): cost of ContactGeometry::update() — master-surface
// gathering, R-tree search, closest-point projection, frames and assembly of H — against the
// number of contact points, for a 3D body-to-body pair (two boxes, Q1) and a sphere obstacle.
// With the R-tree the cost per contact point should stay about constant (an all-pairs search
// would grow like the number of master facets).
//
// Usage: search_scaling [max_subdivisions=48]   (also under mpirun)
#include <percussion/contact/contact_geometry.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>

#include <chrono>
#include <cstdio>
#include <iostream>

using namespace dealii;
using namespace percussion::Contact;

namespace
{
  // Lower box [0,1]² × [0,0.1] with n × n × 1 cells (top face: master, id 2); upper box
  // [0.01,0.99]² × [0.11, 0.21] with (n−1) × (n−1) × 1 cells (bottom face: slave, id 1).
  void make_mesh(Triangulation<3> &tria, const unsigned int n)
  {
    std::vector<Point<3>> vertices;
    std::vector<CellData<3>> cells;
    auto append = [&](const Point<3> &lower, const Point<3> &upper, const unsigned int m,
                      const types::material_id material) {
      Triangulation<3> box;
      GridGenerator::subdivided_hyper_rectangle(box, {m, m, 1}, lower, upper);
      const unsigned int offset = vertices.size();
      vertices.insert(vertices.end(), box.get_vertices().begin(), box.get_vertices().end());
      for (const auto &cell : box.active_cell_iterators())
        {
          CellData<3> data(8);
          for (unsigned int v = 0; v < 8; ++v)
            data.vertices[v] = cell->vertex_index(v) + offset;
          data.material_id = material;
          cells.push_back(data);
        }
    };
    append(Point<3>(0, 0, 0), Point<3>(1, 1, 0.1), n, 0);
    append(Point<3>(0.01, 0.01, 0.11), Point<3>(0.99, 0.99, 0.21), n - 1, 1);
    tria.create_triangulation(vertices, cells, SubCellData());
    for (const auto &cell : tria.active_cell_iterators())
      for (const unsigned int f : cell->face_indices())
        if (cell->face(f)->at_boundary())
          {
            const double z = cell->face(f)->center()[2];
            if (cell->material_id() == 0 && std::abs(z - 0.1) < 1e-12)
              cell->face(f)->set_boundary_id(2);
            else if (cell->material_id() == 1 && std::abs(z - 0.11) < 1e-12)
              cell->face(f)->set_boundary_id(1);
            else
              cell->face(f)->set_boundary_id(0);
          }
  }

  // Returns the time of the first update (which also assembles H) and the best of three later
  // ones (same configuration: H is found unchanged and reused, so this is the search proper:
  // gathering, R-tree walk, projections, frames, comparison of the entries).
  std::pair<double, double> seconds_per_update(ContactGeometry<3> &geometry, const PETScWrappers::MPI::Vector &q)
  {
    double first = 0.;
    double best = 1e30;
    for (unsigned int repetition = 0; repetition < 4; ++repetition)
      {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto start = std::chrono::steady_clock::now();
        geometry.update(q, 0.);
        MPI_Barrier(MPI_COMM_WORLD);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (repetition == 0)
          first = seconds;
        else
          best = std::min(best, seconds);
      }
    return {first, best};
  }
} // namespace

int main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const unsigned int max_n = argc > 1 ? std::stoi(argv[1]) : 48;
  const bool root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  if (root)
    std::printf("# ranks = %u; 'with H': first update incl. assembly of H; others: H reused\n"
                "# %-5s %8s %8s %14s %12s %16s %12s %16s\n",
                Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD), "n", "points", "facets", "body+H [s]", "body [s]",
                "body/point [us]", "sphere [s]", "sphere/point [us]");
  for (unsigned int n = 6; n <= max_n; n = (n * 3) / 2)
    {
      parallel::distributed::Triangulation<3> tria(MPI_COMM_WORLD);
      make_mesh(tria, n);
      FESystem<3> fe(FE_Q<3>(1), 3);
      DoFHandler<3> dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      PETScWrappers::MPI::Vector q(dof_handler.locally_owned_dofs(), relevant, MPI_COMM_WORLD);

      ContactParameters body;
      body.search_distance = 0.05;
      PairParameters pair;
      pair.name = "Contact/Pair 1";
      pair.type = PairType::body;
      pair.slave_boundary_id = 1;
      pair.master_boundary_id = 2;
      body.pairs.push_back(pair);
      ContactGeometry<3> body_geometry(dof_handler, body);
      const auto body_times = seconds_per_update(body_geometry, q);

      ContactParameters sphere = body;
      sphere.pairs[0].type = PairType::sphere;
      sphere.pairs[0].point = {0.5, 0.5, -10.};
      sphere.pairs[0].radius = 10.;
      sphere.search_distance = 1.;
      ContactGeometry<3> sphere_geometry(dof_handler, sphere);
      const double sphere_time = seconds_per_update(sphere_geometry, q).second;

      const double points = body_geometry.n_global_points();
      if (root)
        std::printf("  %-5u %8.0f %8u %14.4f %12.4f %16.2f %12.4f %16.2f\n", n, points, n * n, body_times.first,
                    body_times.second, 1e6 * body_times.second / points, sphere_time,
                    1e6 * sphere_time / sphere_geometry.n_global_points());
    }
  return 0;
}
