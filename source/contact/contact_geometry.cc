#include <percussion/contact/contact_geometry.h>
#include <percussion/core/exceptions.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparsity_tools.h>

#include <algorithm>
#include <map>
#include <set>

namespace percussion
{
  namespace Contact
  {
    template <int dim>
    ContactGeometry<dim>::ContactGeometry(const dealii::DoFHandler<dim> &dof_handler,
                                          const ContactParameters &      parameters)
      : dof_handler(&dof_handler)
      , parameters(parameters)
      , communicator(dof_handler.get_triangulation().get_communicator())
    {
      this->parameters.validate();
      check_boundary_ids();
      for (const PairParameters &pair : this->parameters.pairs)
        {
          if (pair.type == PairType::body)
            {
              obstacles.emplace_back();
              masters.push_back(std::make_unique<MasterSurface<dim>>(dof_handler.get_fe(),
                                                                      pair.master_boundary_id));
            }
          else
            {
              obstacles.push_back(std::make_unique<RigidObstacle<dim>>(pair));
              masters.emplace_back();
            }
        }
      collect_slave_nodes();
    }

    template <int dim>
    void ContactGeometry<dim>::check_boundary_ids() const
    {
      // Triangulation::get_boundary_ids() only sees the local part of a distributed mesh:
      // gather the ids over all ranks.
      std::vector<unsigned int> local_ids;
      {
        std::set<unsigned int> ids;
        for (const auto &cell : dof_handler->get_triangulation().active_cell_iterators())
          if (cell->is_locally_owned())
            for (const unsigned int f : cell->face_indices())
              if (cell->face(f)->at_boundary())
                ids.insert(cell->face(f)->boundary_id());
        local_ids.assign(ids.begin(), ids.end());
      }
      std::set<unsigned int> all_ids;
      for (const auto &ids : dealii::Utilities::MPI::all_gather(communicator, local_ids))
        all_ids.insert(ids.begin(), ids.end());
      for (const PairParameters &pair : parameters.pairs)
        {
          if (all_ids.count(pair.slave_boundary_id) == 0)
            throw InputError(pair.name + ": slave boundary id " + std::to_string(pair.slave_boundary_id) +
                             " does not exist in the mesh");
          if (pair.type == PairType::body && all_ids.count(pair.master_boundary_id) == 0)
            throw InputError(pair.name + ": master boundary id " +
                             std::to_string(pair.master_boundary_id) + " does not exist in the mesh");
        }
    }

    template <int dim>
    void ContactGeometry<dim>::collect_slave_nodes()
    {
      const FaceNodeLayout<dim> layout(dof_handler->get_fe());
      const dealii::IndexSet &  owned_dofs = dof_handler->locally_owned_dofs();
      slave_nodes.assign(parameters.pairs.size(), {});
      std::vector<std::array<dealii::types::global_dof_index, dim>> node_dofs;
      std::vector<dealii::Point<dim>>                               reference;
      for (unsigned int p = 0; p < parameters.pairs.size(); ++p)
        {
          // Ghost cells are visited too: a node owned here may lie only on slave faces of a
          // neighbouring rank's cells. Keyed (and hence ordered) by the x-component DoF.
          std::map<dealii::types::global_dof_index, SlaveNode> nodes;
          for (const auto &cell : dof_handler->active_cell_iterators())
            if (!cell->is_artificial())
              for (const unsigned int f : cell->face_indices())
                if (cell->face(f)->at_boundary() &&
                    cell->face(f)->boundary_id() == parameters.pairs[p].slave_boundary_id)
                  {
                    layout.get_nodes(cell->face(f), node_dofs, reference);
                    for (unsigned int b = 0; b < node_dofs.size(); ++b)
                      if (owned_dofs.is_element(node_dofs[b][0]))
                        nodes[node_dofs[b][0]] = SlaveNode{node_dofs[b], reference[b]};
                  }
          for (const auto &entry : nodes)
            slave_nodes[p].push_back(entry.second);
        }
    }

    template <int dim>
    void ContactGeometry<dim>::update(const dealii::PETScWrappers::MPI::Vector &ghosted_displacement,
                                      const double                              time)
    {
      for (auto &master : masters)
        if (master)
          master->build(*dof_handler, ghosted_displacement, parameters.search_distance);

      std::vector<ContactPoint<dim>> new_points;
      for (unsigned int p = 0; p < parameters.pairs.size(); ++p)
        {
          const PairParameters &pair = parameters.pairs[p];
          dealii::Tensor<1, dim> reference_direction;
          if (dim == 3 && !pair.tangent_reference.empty())
            reference_direction = to_tensor<dim>(pair.tangent_reference, pair.name + "/Tangent reference direction");
          for (const SlaveNode &node : slave_nodes[p])
            {
              ContactPoint<dim> point;
              point.pair                    = p;
              point.reference_position      = node.reference;
              point.slave_dofs              = node.dofs;
              point.friction_coefficient    = pair.friction_coefficient;
              point.restitution_coefficient = pair.restitution_coefficient;
              point.position                = node.reference;
              for (unsigned int c = 0; c < dim; ++c)
                point.position[c] += ghosted_displacement(node.dofs[c]);

              dealii::Tensor<1, dim> normal;
              if (obstacles[p])
                {
                  const ObstacleProjection<dim> projection = obstacles[p]->project(point.position, time);
                  point.gap               = projection.gap;
                  normal                  = projection.normal;
                  point.obstacle_velocity = projection.velocity;
                }
              else
                {
                  MasterProjection<dim> projection;
                  if (!masters[p]->project(point.position, node.dofs[0], projection))
                    continue;
                  point.gap = projection.gap;
                  normal    = projection.normal;
                  const MasterFacet<dim> &facet = masters[p]->get_facets()[projection.facet];
                  for (unsigned int b = 0; b < facet.dofs.size(); ++b)
                    if (projection.weights[b] != 0.)
                      {
                        point.master_dofs.push_back(facet.dofs[b]);
                        point.master_weights.push_back(projection.weights[b]);
                      }
                }
              if (point.gap > parameters.search_distance)
                continue;
              point.frame = ContactFrame<dim>::from_normal(normal, reference_direction);
              new_points.push_back(std::move(point));
            }
        }

      // Columns are numbered by owning rank: this rank's points come after those of lower ranks.
      const dealii::types::global_dof_index n_owned = new_points.size();
      const std::vector<dealii::types::global_dof_index> counts =
        dealii::Utilities::MPI::all_gather(communicator, n_owned);
      const unsigned int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
      first_point     = 0;
      n_points_global = 0;
      for (unsigned int r = 0; r < counts.size(); ++r)
        {
          if (r < rank)
            first_point += counts[r];
          n_points_global += counts[r];
        }
      for (unsigned int i = 0; i < new_points.size(); ++i)
        new_points[i].global_index = first_point + i;
      points = std::move(new_points);

      owned_columns = dealii::IndexSet(dim * n_points_global);
      owned_columns.add_range(dim * first_point, dim * (first_point + n_owned));

      std::vector<Entry> entries;
      for (const ContactPoint<dim> &point : points)
        for (unsigned int k = 0; k < dim; ++k)
          {
            const dealii::types::global_dof_index column = dim * point.global_index + k;
            for (unsigned int c = 0; c < dim; ++c)
              {
                entries.push_back({point.slave_dofs[c], column, point.frame.vectors[k][c]});
                for (unsigned int b = 0; b < point.master_dofs.size(); ++b)
                  entries.push_back(
                    {point.master_dofs[b][c], column, -point.master_weights[b] * point.frame.vectors[k][c]});
              }
          }
      const bool changed_here = !initialized || !(entries == previous_entries);
      h_changed = dealii::Utilities::MPI::logical_or(changed_here, communicator);
      if (h_changed)
        assemble_operator(entries);
      previous_entries = std::move(entries);
      initialized      = true;

      w.reinit(owned_columns, communicator);
      for (const ContactPoint<dim> &point : points)
        if (point.obstacle_velocity.norm() != 0.)
          for (unsigned int k = 0; k < dim; ++k)
            w(dim * point.global_index + k) = -(point.frame.vectors[k] * point.obstacle_velocity);
      w.compress(dealii::VectorOperation::insert);
      n_active_global = 0;
    }

    template <int dim>
    void ContactGeometry<dim>::assemble_operator(const std::vector<Entry> &entries)
    {
      const dealii::IndexSet &owned_rows = dof_handler->locally_owned_dofs();
      dealii::IndexSet        touched_rows(dof_handler->n_dofs());
      touched_rows.add_indices(owned_rows);
      {
        std::vector<dealii::types::global_dof_index> rows;
        rows.reserve(entries.size());
        for (const Entry &e : entries)
          rows.push_back(e.row);
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        touched_rows.add_indices(rows.begin(), rows.end());
      }
      // Master DoFs may belong to any rank: their rows are sent to the owners.
      dealii::DynamicSparsityPattern pattern(dof_handler->n_dofs(), dim * n_points_global, touched_rows);
      for (const Entry &e : entries)
        pattern.add(e.row, e.column);
      dealii::SparsityTools::distribute_sparsity_pattern(pattern, owned_rows, communicator, touched_rows);
      H.reinit(owned_rows, owned_columns, pattern, communicator);
      for (const Entry &e : entries)
        H.add(e.row, e.column, e.value);
      H.compress(dealii::VectorOperation::add);
    }

    template <int dim>
    void ContactGeometry<dim>::reinit_local_vector(dealii::PETScWrappers::MPI::Vector &u) const
    {
      u.reinit(owned_columns, communicator);
    }

    template <int dim>
    void ContactGeometry<dim>::local_velocity(const dealii::PETScWrappers::MPI::Vector &v,
                                              dealii::PETScWrappers::MPI::Vector &      u) const
    {
      reinit_local_vector(u);
      H.Tvmult(u, v);
      u += w;
    }

    template <int dim>
    dealii::types::global_dof_index
    ContactGeometry<dim>::update_active_set(const dealii::PETScWrappers::MPI::Vector &u, const double time_step)
    {
      const double                    gamma  = parameters.gap_prediction_factor;
      dealii::types::global_dof_index active = 0;
      for (ContactPoint<dim> &point : points)
        {
          const double normal_velocity = u(dim * point.global_index);
          point.active = (point.gap + gamma * time_step * normal_velocity <= 0.) &&
                         (!parameters.require_approaching || normal_velocity <= 0.);
          active += point.active ? 1 : 0;
        }
      n_active_global = dealii::Utilities::MPI::sum(active, communicator);
      return n_active_global;
    }

    template <int dim>
    dealii::IndexSet ContactGeometry<dim>::active_local_dofs() const
    {
      dealii::IndexSet active(dim * n_points_global);
      for (const ContactPoint<dim> &point : points)
        if (point.active)
          active.add_range(dim * point.global_index, dim * point.global_index + dim);
      active.compress();
      return active;
    }

    template <int dim>
    std::vector<double> ContactGeometry<dim>::gaps() const
    {
      std::vector<double> result;
      for (const auto &point : points)
        result.push_back(point.gap);
      return result;
    }

    template <int dim>
    std::vector<double> ContactGeometry<dim>::friction_coefficients() const
    {
      std::vector<double> result;
      for (const auto &point : points)
        result.push_back(point.friction_coefficient);
      return result;
    }

    template <int dim>
    std::vector<double> ContactGeometry<dim>::restitution_coefficients() const
    {
      std::vector<double> result;
      for (const auto &point : points)
        result.push_back(point.restitution_coefficient);
      return result;
    }

    template <int dim>
    std::vector<bool> ContactGeometry<dim>::active_set() const
    {
      std::vector<bool> result;
      for (const auto &point : points)
        result.push_back(point.active);
      return result;
    }

    template class ContactGeometry<2>;
    template class ContactGeometry<3>;
  } // namespace Contact
} // namespace percussion
