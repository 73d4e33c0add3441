// The mesh partition of a run with contact: the contact work of a step is done by the owners of
// the slave nodes, so that cells with slave faces weigh more when p4est cuts its curve.
#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria.h>

#include <percussion/simulator/contact_work_partition.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  void partition_by_contact_work(Triangulation<dim> &triangulation, const Contact::ContactParameters &contact,
                                 MPI_Comm communicator)
  {
    // 1D meshes are shared, partitioned by METIS (create_triangulation()).
    if constexpr (dim > 1)
      {
        const double extra = contact.slave_face_partition_weight;
        auto *distributed = dynamic_cast<parallel::distributed::Triangulation<dim> *>(&triangulation);
        if (distributed == nullptr || contact.pairs.empty() || !(extra > 0.) ||
            Utilities::MPI::n_mpi_processes(communicator) == 1)
          return;
        std::vector<Contact::BoundaryIds> slave_ids;
        for (const auto &pair : contact.pairs)
          slave_ids.push_back(pair.slave_boundary);
        // p4est's weights are integers: a cell weighs 100, each slave face 100 · extra more. The
        // space-filling curve is then cut where the sums of the weights are equal, so that the
        // contact surface is shared with the cells.
        const auto connection = distributed->signals.weight.connect(
          [slave_ids, extra](const typename Triangulation<dim>::cell_iterator &cell,
                             const typename Triangulation<dim>::CellStatus) -> unsigned int {
            unsigned int slave_faces = 0;
            for (const unsigned int f : cell->face_indices())
              if (cell->face(f)->at_boundary() &&
                  std::any_of(slave_ids.begin(), slave_ids.end(),
                              [&](const Contact::BoundaryIds &ids) { return ids.contains(cell->face(f)->boundary_id()); }))
                ++slave_faces;
            return 100 + static_cast<unsigned int>(std::lround(100. * extra * slave_faces));
          });
        distributed->repartition();
        connection.disconnect();
      }
  }

  template void partition_by_contact_work(Triangulation<1> &, const Contact::ContactParameters &, MPI_Comm);
  template void partition_by_contact_work(Triangulation<2> &, const Contact::ContactParameters &, MPI_Comm);
  template void partition_by_contact_work(Triangulation<3> &, const Contact::ContactParameters &, MPI_Comm);
} // namespace percussion
