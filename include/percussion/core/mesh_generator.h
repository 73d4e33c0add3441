#ifndef PERCUSSION_CORE_MESH_GENERATOR_H
#define PERCUSSION_CORE_MESH_GENERATOR_H

#include <deal.II/grid/tria.h>

#include <percussion/core/mesh_parameters.h>

#include <memory>

namespace percussion
{
  /**
   * The triangulation type used in @p dim: parallel::distributed (p4est) in 2D/3D,
   * parallel::shared in 1D (p4est has no 1D). Each rank owns a part of the cells.
   */
  template <int dim>
  std::unique_ptr<dealii::Triangulation<dim>> create_triangulation(MPI_Comm communicator);

  /**
   * Fills @p triangulation with the shape of @p parameters and refines it globally.
   * @throws InputError when the mesh file is missing or unreadable, or the shape does not exist in
   *         this dimension.
   */
  template <int dim>
  void generate_mesh(const MeshParameters &parameters, dealii::Triangulation<dim> &triangulation);
} // namespace percussion

#endif
