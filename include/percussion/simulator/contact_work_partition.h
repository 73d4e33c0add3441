#ifndef PERCUSSION_SIMULATOR_CONTACT_WORK_PARTITION_H
#define PERCUSSION_SIMULATOR_CONTACT_WORK_PARTITION_H

#include <deal.II/grid/tria.h>

#include <percussion/contact/contact_parameters.h>

#include <mpi.h>

namespace percussion
{
  /**
   * With several ranks and contact pairs (2D/3D, a distributed mesh), partitions @p triangulation
   * again with cells weighted by their slave faces ('Contact/Slave face partition weight'): a
   * step's contact work belongs to the slave nodes' owners. Nothing otherwise (1D meshes are
   * shared, partitioned by METIS). Before the DoFs are distributed. Collective.
   */
  template <int dim>
  void partition_by_contact_work(dealii::Triangulation<dim> &triangulation, const Contact::ContactParameters &contact,
                                 MPI_Comm communicator);
} // namespace percussion

#endif
