#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <percussion/core/connected_bodies.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

namespace percussion
{
  template <int dim>
  ConnectedBodies<dim>::ConnectedBodies(const dealii::DoFHandler<dim> &dof_handler)
  {
    using namespace dealii;
    const MPI_Comm communicator = dof_handler.get_communicator();
    const IndexSet &owned = dof_handler.locally_owned_dofs();
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    const std::size_t n_relevant = relevant.n_elements();

    // The parts this rank sees: union–find over the DoFs of its cells (by index within `relevant`).
    std::vector<std::size_t> parent(n_relevant);
    std::iota(parent.begin(), parent.end(), std::size_t(0));
    const auto find = [&parent](std::size_t i) {
      while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
      return i;
    };
    std::vector<types::global_dof_index> dofs(dof_handler.get_fe().n_dofs_per_cell());
    cell_first_dof.assign(dof_handler.get_triangulation().n_active_cells(), numbers::invalid_dof_index);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (!cell->is_artificial())
        {
          cell->get_dof_indices(dofs);
          cell_first_dof[cell->active_cell_index()] = dofs[0];
          const std::size_t first = find(relevant.index_within_set(dofs[0]));
          for (const auto dof : dofs)
            {
              const std::size_t root = find(relevant.index_within_set(dof));
              if (root != first)
                parent[root] = first;
            }
        }

    // Each part takes the smallest label it holds; owners and ghosts exchange labels (the
    // minimum) until no label changes on any rank.
    std::vector<double> current(n_relevant);
    for (std::size_t i = 0; i < n_relevant; ++i)
      current[i] = static_cast<double>(relevant.nth_index_in_set(i));
    LinearAlgebra::distributed::Vector<double> label(owned, relevant, communicator);
    std::vector<double> smallest(n_relevant);
    for (bool changed = true; changed;)
      {
        std::fill(smallest.begin(), smallest.end(), std::numeric_limits<double>::infinity());
        for (std::size_t i = 0; i < n_relevant; ++i)
          smallest[find(i)] = std::min(smallest[find(i)], current[i]);
        label.zero_out_ghost_values();
        for (std::size_t i = 0; i < n_relevant; ++i)
          label(relevant.nth_index_in_set(i)) = current[i] = smallest[find(i)];
        label.compress(VectorOperation::min);
        label.update_ghost_values();
        bool local_change = false;
        for (std::size_t i = 0; i < n_relevant; ++i)
          if (const double value = label(relevant.nth_index_in_set(i)); value != current[i])
            {
              current[i] = value;
              local_change = true;
            }
        changed = Utilities::MPI::logical_or(local_change, communicator);
      }

    // Bodies numbered by their labels (the smallest DoF index in each), on every rank.
    std::set<types::global_dof_index> own_labels;
    for (const auto dof : owned)
      own_labels.insert(static_cast<types::global_dof_index>(label(dof)));
    std::set<types::global_dof_index> all_labels;
    for (const auto &rank_labels :
         Utilities::MPI::all_gather(communicator,
                                    std::vector<types::global_dof_index>(own_labels.begin(), own_labels.end())))
      all_labels.insert(rank_labels.begin(), rank_labels.end());
    const std::vector<types::global_dof_index> sorted(all_labels.begin(), all_labels.end());
    n = static_cast<unsigned int>(sorted.size());
    body_of_relevant.resize(n_relevant);
    for (std::size_t i = 0; i < n_relevant; ++i)
      body_of_relevant[i] = static_cast<unsigned int>(
        std::lower_bound(sorted.begin(), sorted.end(), static_cast<types::global_dof_index>(current[i])) -
        sorted.begin());
  }

  template <int dim>
  unsigned int ConnectedBodies<dim>::body_of_dof(const dealii::types::global_dof_index dof) const
  {
    return body_of_relevant[relevant.index_within_set(dof)];
  }

  template <int dim>
  unsigned int
  ConnectedBodies<dim>::body_of_cell(const typename dealii::DoFHandler<dim>::active_cell_iterator &cell) const
  {
    return body_of_dof(cell_first_dof[cell->active_cell_index()]);
  }

  template class ConnectedBodies<1>;
  template class ConnectedBodies<2>;
  template class ConnectedBodies<3>;
} // namespace percussion
