#include <percussion/contact/contact_geometry.h>
#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/core/exceptions.h>

#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/exceptions.h>
#include <deal.II/lac/sparsity_tools.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

// The contact layer links deal.II only (not percussion_core's check_petsc): PETSc errors become
// deal.II's ExcPETScError.
#define CONTACT_PETSC_CALL(call)                                                                                       \
  do                                                                                                                   \
    {                                                                                                                  \
      const PetscErrorCode contact_petsc_error = (call);                                                               \
      AssertThrow(contact_petsc_error == 0, dealii::ExcPETScError(contact_petsc_error));                               \
    }                                                                                                                  \
  while (false)
#include <set>

namespace percussion
{
  namespace Contact
  {
    template <int dim>
    ContactGeometry<dim>::ContactGeometry(const dealii::DoFHandler<dim> &dof_handler,
                                          const ContactParameters &parameters)
      : dof_handler(&dof_handler)
      , parameters(parameters)
      , communicator(dof_handler.get_triangulation().get_communicator())
    {
      this->parameters.validate();
      for (const PairParameters &pair : this->parameters.pairs)
        if (pair.formulation == Formulation::integrated)
          {
            // Checked before any computation: the mortar integration needs (dim−1)-dimensional
            // facets and a dual basis, which exist for FE_Q(1) and the Lagrange FE_Q(2) only
            // (∫ N_j dΓ > 0 for every node; Popp et al. 2012 for the other quadratic cases).
            if (dim == 1)
              throw InputError(pair.name + "/Formulation: 'integrated' needs Dimension 2 or 3 (1D body pairs "
                                           "are node-to-node)");
            const unsigned int degree = dof_handler.get_fe().base_element(0).degree;
            if (degree > 2)
              throw InputError(pair.name +
                               "/Formulation: 'integrated' supports finite element degree 1 and 2, "
                               "not " +
                               std::to_string(degree));
          }
      check_boundary_ids();
      for (const PairParameters &pair : this->parameters.pairs)
        {
          if (pair.has_master_surface())
            {
              obstacles.emplace_back();
              if constexpr (dim > 1)
                masters.push_back(std::make_unique<MasterSurface<dim>>(dof_handler.get_fe(), pair.master_boundary));
              else
                masters.emplace_back();
            }
          else
            {
              obstacles.push_back(std::make_unique<RigidObstacle<dim>>(pair));
              masters.emplace_back();
            }
        }
      master_nodes.assign(this->parameters.pairs.size(), {});
      collect_slave_nodes();
      // Slave nodes are owned DoFs (collect_slave_nodes()): only master surfaces and master ends
      // read DoFs that may belong to another rank.
      for (const PairParameters &pair : this->parameters.pairs)
        needs_ghosts = needs_ghosts || pair.has_master_surface();
      if (needs_ghosts)
        dealii::DoFTools::extract_locally_relevant_dofs(dof_handler, relevant_dofs);
      const bool general_contact =
        std::any_of(this->parameters.pairs.begin(), this->parameters.pairs.end(),
                    [](const PairParameters &pair) { return pair.type == PairType::bodies; });
      if ((dim > 1 && needs_ghosts) || general_contact)
        mesh_bodies = std::make_unique<ConnectedBodies<dim>>(dof_handler);
    }

    template <int dim>
    const dealii::PETScWrappers::MPI::Vector &
    ContactGeometry<dim>::with_needed_ghosts(const dealii::PETScWrappers::MPI::Vector &displacement)
    {
      if (!needs_ghosts || displacement.has_ghost_elements())
        return displacement;
      if (ghosted_displacement.size() != displacement.size())
        ghosted_displacement.reinit(dof_handler->locally_owned_dofs(), relevant_dofs, communicator);
      ghosted_displacement = displacement;
      return ghosted_displacement;
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
          for (const unsigned int id : pair.slave_boundary.ids)
            if (all_ids.count(id) == 0)
              throw InputError(pair.name + ": slave boundary id " + std::to_string(id) + " does not exist in the mesh");
          if (pair.has_master_surface())
            for (const unsigned int id : pair.master_boundary.ids)
              if (all_ids.count(id) == 0)
                throw InputError(pair.name + ": master boundary id " + std::to_string(id) +
                                 " does not exist in the mesh");
        }
    }

    template <int dim>
    void ContactGeometry<dim>::collect_slave_nodes()
    {
      if constexpr (dim == 1)
        {
          // A face of a 1D cell is a vertex: each slave surface is one node per boundary vertex
          // with the slave id, and FaceNodeLayout (built on FE_Q<0>) cannot be used.
          const dealii::FiniteElement<1> &fe = dof_handler->get_fe();
          if (fe.n_components() != 1 || fe.n_base_elements() != 1 || fe.base_element(0).get_name().find("FE_Q<") != 0)
            throw InputError("Contact: the displacement element must be FESystem(FE_Q(p), 1), got " + fe.get_name());
          const dealii::IndexSet &owned_dofs = dof_handler->locally_owned_dofs();
          slave_nodes.assign(parameters.pairs.size(), {});
          for (unsigned int p = 0; p < parameters.pairs.size(); ++p)
            {
              std::map<dealii::types::global_dof_index, SlaveNode> nodes;
              for (const auto &cell : dof_handler->active_cell_iterators())
                if (!cell->is_artificial())
                  for (const unsigned int f : cell->face_indices())
                    if (cell->face(f)->at_boundary() &&
                        parameters.pairs[p].slave_boundary.contains(cell->face(f)->boundary_id()))
                      {
                        const dealii::types::global_dof_index dof = cell->vertex_dof_index(f, 0);
                        if (owned_dofs.is_element(dof))
                          {
                            SlaveNode node;
                            node.dofs[0] = dof;
                            node.reference = cell->vertex(f);
                            // Face 0 is the left end of the cell, face 1 the right end.
                            node.outward = (f == 0) ? -1. : 1.;
                            node.material = cell->material_id();
                            nodes[dof] = node;
                          }
                      }
              for (const auto &entry : nodes)
                slave_nodes[p].push_back(entry.second);
            }
          return;
        }
      else
        {
          collect_slave_nodes_of_faces();
        }
    }

    template <int dim>
    void ContactGeometry<dim>::collect_slave_nodes_of_faces()
    {
      // Only instantiated with a body for dim > 1: FaceNodeLayout<1> would need FE_Q<0>.
      if constexpr (dim > 1)
        {
          const FaceNodeLayout<dim> layout(dof_handler->get_fe());
          const dealii::IndexSet &owned_dofs = dof_handler->locally_owned_dofs();
          slave_nodes.assign(parameters.pairs.size(), {});
          slave_facets.assign(parameters.pairs.size(), {});
          std::vector<std::array<dealii::types::global_dof_index, dim>> node_dofs;
          std::vector<dealii::Point<dim>> reference;
          for (unsigned int p = 0; p < parameters.pairs.size(); ++p)
            {
              // Ghost cells are visited too: a node owned here may lie only on slave faces of a
              // neighbouring rank's cells. Keyed (and hence ordered) by the x-component DoF.
              std::map<dealii::types::global_dof_index, SlaveNode> nodes;
              for (const auto &cell : dof_handler->active_cell_iterators())
                if (!cell->is_artificial())
                  for (const unsigned int f : cell->face_indices())
                    if (cell->face(f)->at_boundary() &&
                        parameters.pairs[p].slave_boundary.contains(cell->face(f)->boundary_id()))
                      {
                        layout.get_nodes(cell->face(f), node_dofs, reference);
                        // Each boundary face belongs to one cell: the areas of the faces around
                        // a node are added once each.
                        const std::vector<double> areas = facet_node_areas<dim>(layout.facet_fe(), reference);
                        bool has_owned_node = false;
                        for (unsigned int b = 0; b < node_dofs.size(); ++b)
                          if (owned_dofs.is_element(node_dofs[b][0]))
                            {
                              const bool new_node = nodes.count(node_dofs[b][0]) == 0;
                              SlaveNode &node = nodes[node_dofs[b][0]];
                              if (new_node)
                                node.material = cell->material_id();
                              node.dofs = node_dofs[b];
                              node.reference = reference[b];
                              node.area += areas[b];
                              has_owned_node = true;
                            }
                        if (has_owned_node && parameters.pairs[p].formulation == Formulation::integrated)
                          {
                            // The orientation is a property of the reference configuration, as for
                            // the master facets (small strains).
                            dealii::Point<dim - 1> center;
                            for (unsigned int j = 0; j < dim - 1; ++j)
                              center[j] = 0.5;
                            const double side = facet_unit_normal<dim>(layout.facet_fe(), reference, center) *
                                                (cell->face(f)->center() - cell->center());
                            slave_facets[p].push_back(SlaveFacet<dim>{reference, node_dofs, side >= 0. ? 1. : -1.});
                          }
                      }
              for (const auto &entry : nodes)
                slave_nodes[p].push_back(entry.second);
            }
        }
    }

    template <int dim>
    void ContactGeometry<dim>::collect_master_nodes(const dealii::PETScWrappers::MPI::Vector &ghosted_displacement)
    {
      for (unsigned int p = 0; p < parameters.pairs.size(); ++p)
        {
          master_nodes[p].clear();
          if (!parameters.pairs[p].has_master_surface())
            continue;
          // (dof, current position, outward normal) of the master ends on owned cells, where the
          // ghosted displacement is known; a boundary vertex belongs to exactly one cell in 1D.
          std::vector<double> local;
          for (const auto &cell : dof_handler->active_cell_iterators())
            if (cell->is_locally_owned())
              for (const unsigned int f : cell->face_indices())
                if (cell->face(f)->at_boundary() &&
                    parameters.pairs[p].master_boundary.contains(cell->face(f)->boundary_id()))
                  {
                    const dealii::types::global_dof_index dof = cell->vertex_dof_index(f, 0);
                    local.push_back(static_cast<double>(dof));
                    local.push_back(cell->vertex(f)[0] + ghosted_displacement(dof));
                    local.push_back(f == 0 ? -1. : 1.);
                    local.push_back(mesh_bodies ? static_cast<double>(mesh_bodies->body_of_cell(cell)) : 0.);
                    local.push_back(static_cast<double>(cell->material_id()));
                  }
          std::vector<double> data;
          ContactSolvers::plain_all_gather(local, data, communicator);
          for (unsigned int i = 0; i + 4 < data.size(); i += 5)
            master_nodes[p].push_back(MasterNode{static_cast<dealii::types::global_dof_index>(data[i]), data[i + 1],
                                                 data[i + 2], static_cast<unsigned int>(data[i + 3]),
                                                 static_cast<unsigned int>(data[i + 4])});
        }
    }

    template <int dim>
    bool ContactGeometry<dim>::project_on_master_node(const unsigned int p, const ContactPoint<dim> &point,
                                                      const SlaveNode &node, MasterProjection<dim> &projection,
                                                      dealii::types::global_dof_index &master_dof) const
    {
      const unsigned int i = closest_facing_master_end(p, point.position[0], node.outward, node.dofs[0],
                                                       mesh_bodies ? mesh_bodies->body_of_dof(node.dofs[0]) : 0);
      if (i == master_nodes[p].size())
        return false;
      const MasterNode &master = master_nodes[p][i];
      master_dof = master.dof;
      projection.facet = i;
      projection.normal = dealii::Tensor<1, dim>();
      projection.normal[0] = master.outward;
      projection.gap = (point.position[0] - master.position) * master.outward;
      projection.weights = {1.};
      return true;
    }

    template <int dim>
    unsigned int ContactGeometry<dim>::closest_facing_master_end(const unsigned int p, const double position,
                                                                 const double outward,
                                                                 const dealii::types::global_dof_index dof,
                                                                 const unsigned int body) const
    {
      // Node-to-node: only master ends facing the slave end (opposite outward normals) are
      // candidates, so that the two ends of one bar, or a bar end and the far end of the other
      // bar, are never paired; general contact (bodies) also skips the ends of the slave's own
      // bar and the ends more than the search distance behind. The closest one wins.
      const bool other_bodies_only = parameters.pairs[p].type == PairType::bodies;
      double best = std::numeric_limits<double>::max();
      unsigned int closest = master_nodes[p].size();
      for (unsigned int i = 0; i < master_nodes[p].size(); ++i)
        {
          const MasterNode &master = master_nodes[p][i];
          if (master.dof == dof || !(master.outward * outward < 0.) || (other_bodies_only && master.body == body))
            continue;
          // General contact lists every end of every bar: an end facing this one by its normal
          // but far behind it (the far end of the other bar) is not a contact.
          if (other_bodies_only && (position - master.position) * master.outward < -parameters.search_distance)
            continue;
          const double distance = std::abs(position - master.position);
          if (distance < best)
            {
              best = distance;
              closest = i;
            }
        }
      return closest;
    }

    namespace
    {
      /// Two nodes closer than this fraction of a facet's diagonal give copies of one constraint.
      constexpr double mutual_node_distance = 0.1;
    } // namespace

    template <int dim>
    bool ContactGeometry<dim>::yields_to_mutual_node(const unsigned int p, const SlaveNode &node,
                                                     const dealii::Point<dim> &node_position,
                                                     const MasterProjection<dim> &projection) const
    {
      if (parameters.pairs[p].type != PairType::bodies)
        return false;
      if constexpr (dim == 1)
        {
          // The master end faces this end; it is mutual if this end is the closest it faces (the
          // two ends' constraints are the same whatever their distance: one node each).
          (void)node_position;
          const MasterNode &master = master_nodes[p][projection.facet];
          const unsigned int back =
            closest_facing_master_end(p, master.position, master.outward, master.dof, master.body);
          // Mutual: the end whose master end faces -x keeps the contact (a rule of the geometry,
          // not of the DoF numbering, which depends on the partition).
          return back < master_nodes[p].size() && master_nodes[p][back].dof == node.dofs[0] && master.outward > 0.;
        }
      else
        {
          const MasterFacet<dim> &facet = masters[p]->get_facets()[projection.facet];
          const unsigned int nearest = projection.nearest_node();
          const dealii::types::global_dof_index other_dof = facet.dofs[nearest][0];
          // Only nodes that (nearly) coincide give copies of one constraint: an edge node striking
          // the middle of a facet is a contact of its own even if the facet's nearest node has it
          // as its own nearest node.
          if (facet.nodes[nearest].distance(node_position) > mutual_node_distance * facet.diagonal())
            return false;
          // The other node's own contact, as its owner computes it: the same surface, the same
          // search, the same acceptance (its gap within the search distance).
          const MasterProjection<dim> *found = projection_of_node(p, facet.nodes[nearest], other_dof, facet.body);
          if (found == nullptr || found->gap > parameters.search_distance)
            return false;
          const MasterProjection<dim> &back = *found;
          if (masters[p]->get_facets()[back.facet].dofs[back.nearest_node()][0] != node.dofs[0])
            return false;
          if (projection.along_facet_normal != back.along_facet_normal)
            return back.along_facet_normal;
          // Both along a normal (a conforming interface): the node whose master normal's largest
          // component is negative yields (on a stack, the lower block's node: the upper block's
          // bottom is the slave, as one would declare it). A rule of the geometry, not of the DoF
          // numbering, which depends on the partition; the lower DoF only if the normal is exactly
          // diagonal.
          const auto dominant = [](const dealii::Tensor<1, dim> &n) {
            unsigned int largest = 0;
            for (unsigned int d = 1; d < dim; ++d)
              if (std::abs(n[d]) > std::abs(n[largest]))
                largest = d;
            return n[largest];
          };
          const double mine = dominant(projection.normal), theirs = dominant(back.normal);
          if ((mine < 0.) != (theirs < 0.))
            return mine < 0.;
          return other_dof < node.dofs[0];
        }
    }

    template <int dim>
    void ContactGeometry<dim>::update(const dealii::PETScWrappers::MPI::Vector &displacement, const double time)
    {
      const dealii::PETScWrappers::MPI::Vector &ghosted_displacement = with_needed_ghosts(displacement);
      if constexpr (dim == 1)
        collect_master_nodes(ghosted_displacement);
      else
        for (auto &master : masters)
          if (master)
            master->build(*dof_handler, ghosted_displacement, parameters.search_distance, *mesh_bodies);

      std::vector<ContactPoint<dim>> new_points;
      for (unsigned int p = 0; p < parameters.pairs.size(); ++p)
        {
          const PairParameters &pair = parameters.pairs[p];
          dealii::Tensor<1, dim> reference_direction;
          if (dim == 3 && !pair.tangent_reference.empty())
            reference_direction = to_tensor<dim>(pair.tangent_reference, pair.name + "/Tangent reference direction");
          if (pair.formulation == Formulation::integrated)
            add_integrated_points(p, ghosted_displacement, reference_direction, new_points);
          else
            add_node_points(p, ghosted_displacement, time, reference_direction, new_points);
        }
      const bool columns_changed = number_points(std::move(new_points));

      std::vector<Entry> entries = operator_entries();
      std::vector<double> w_values = obstacle_velocity_terms();

      // Whether H and w changed on some rank, in one reduction: writing w is collective too
      // (compress), and for fixed obstacles neither changes after the first call.
      const bool h_changed_here = !initialized || !(entries == previous_entries);
      const bool w_changed_here = columns_changed || w_values != previous_w_values;
      unsigned int changed[2] = {h_changed_here ? 1u : 0u, w_changed_here ? 1u : 0u};
      dealii::Utilities::MPI::max(dealii::ArrayView<const unsigned int>(changed, 2), communicator,
                                  dealii::ArrayView<unsigned int>(changed, 2));
      h_changed = changed[0] != 0;
      if (h_changed)
        assemble_operator(entries);
      previous_entries = std::move(entries);
      initialized = true;

      if (changed[1] != 0)
        {
          std::vector<dealii::types::global_dof_index> indices(w_values.size());
          for (unsigned int i = 0; i < indices.size(); ++i)
            indices[i] = dim * first_point + i;
          w.set(indices, w_values);
          w.compress(dealii::VectorOperation::insert);
          previous_w_values = std::move(w_values);
        }
    }

    template <int dim>
    void ContactGeometry<dim>::add_node_points(const unsigned int p,
                                               const dealii::PETScWrappers::MPI::Vector &ghosted_displacement,
                                               const double time, const dealii::Tensor<1, dim> &reference_direction,
                                               std::vector<ContactPoint<dim>> &new_points) const
    {
      node_projections.clear(); // (they are this update's, of this pair's master surface)
      for (const SlaveNode &node : slave_nodes[p])
        {
          ContactPoint<dim> point = point_of_slave_node(p, node, ghosted_displacement);
          point.area = node.area;
          dealii::Tensor<1, dim> normal;
          if (!project_point(p, node, time, point, normal))
            continue;
          if (point.gap > parameters.search_distance)
            continue;
          point.frame = ContactFrame<dim>::from_normal(normal, reference_direction);
          new_points.push_back(std::move(point));
        }
    }

    template <int dim>
    const MasterProjection<dim> *
    ContactGeometry<dim>::projection_of_node(const unsigned int p, const dealii::Point<dim> &x,
                                             const dealii::types::global_dof_index dof, const unsigned int body) const
    {
      auto found = node_projections.find(dof);
      if (found == node_projections.end() || !(found->second.first == x))
        {
          std::optional<MasterProjection<dim>> result;
          if constexpr (dim > 1)
            {
              MasterProjection<dim> projection;
              if (masters[p]->project(x, dof, body, projection))
                result = std::move(projection);
            }
          found = node_projections.insert_or_assign(dof, std::make_pair(x, std::move(result))).first;
        }
      return found->second.second ? &*found->second.second : nullptr;
    }

    template <int dim>
    bool ContactGeometry<dim>::project_point(const unsigned int p, const SlaveNode &node, const double time,
                                             ContactPoint<dim> &point, dealii::Tensor<1, dim> &normal) const
    {
      if (obstacles[p])
        {
          const ObstacleProjection<dim> projection = obstacles[p]->project(point.position, time);
          point.gap = projection.gap;
          normal = projection.normal;
          point.obstacle_velocity = projection.velocity;
          point.friction_coefficient = parameters.pairs[p].friction(node.material, PairParameters::no_material);
          point.restitution_coefficient = parameters.pairs[p].restitution(node.material, PairParameters::no_material);
          return true;
        }
      MasterProjection<dim> projection;
      if constexpr (dim == 1)
        {
          dealii::types::global_dof_index master_dof = 0;
          if (!project_on_master_node(p, point, node, projection, master_dof) ||
              yields_to_mutual_node(p, node, point.position, projection))
            return false;
          point.gap = projection.gap;
          normal = projection.normal;
          point.master_dofs.push_back({{master_dof}});
          point.master_weights.push_back(1.);
          const unsigned int master_material = master_nodes[p][projection.facet].material;
          point.friction_coefficient = parameters.pairs[p].friction(node.material, master_material);
          point.restitution_coefficient = parameters.pairs[p].restitution(node.material, master_material);
        }
      else
        {
          const MasterProjection<dim> *found =
            projection_of_node(p, point.position, node.dofs[0], mesh_bodies->body_of_dof(node.dofs[0]));
          if (found == nullptr)
            return false;
          projection = *found;
          if (yields_to_mutual_node(p, node, point.position, projection))
            return false;
          point.gap = projection.gap;
          normal = projection.normal;
          const MasterFacet<dim> &facet = masters[p]->get_facets()[projection.facet];
          point.friction_coefficient = parameters.pairs[p].friction(node.material, facet.material);
          point.restitution_coefficient = parameters.pairs[p].restitution(node.material, facet.material);
          for (unsigned int b = 0; b < facet.dofs.size(); ++b)
            if (projection.weights[b] != 0.)
              {
                point.master_dofs.push_back(facet.dofs[b]);
                point.master_weights.push_back(projection.weights[b]);
              }
        }
      return true;
    }

    template <int dim>
    bool ContactGeometry<dim>::number_points(std::vector<ContactPoint<dim>> &&new_points)
    {
      const dealii::types::global_dof_index n_owned = new_points.size();
      const std::vector<dealii::types::global_dof_index> counts =
        dealii::Utilities::MPI::all_gather(communicator, n_owned);
      const unsigned int rank = dealii::Utilities::MPI::this_mpi_process(communicator);
      first_point = 0;
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

      // The counts are known on every rank, so this decision (and the collective reallocation
      // below) is the same everywhere. With a fixed set of candidates nothing is reallocated.
      const bool columns_changed = counts != previous_counts;
      if (columns_changed)
        {
          owned_columns = dealii::IndexSet(dim * n_points_global);
          owned_columns.add_range(dim * first_point, dim * (first_point + n_owned));
          w.reinit(owned_columns, communicator);
          local_velocity_storage.reinit(owned_columns, communicator);
          previous_counts = counts;
        }
      return columns_changed;
    }

    template <int dim>
    std::vector<typename ContactGeometry<dim>::Entry> ContactGeometry<dim>::operator_entries() const
    {
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
      return entries;
    }

    template <int dim>
    std::vector<double> ContactGeometry<dim>::obstacle_velocity_terms() const
    {
      std::vector<double> w_values(dim * points.size(), 0.);
      for (unsigned int i = 0; i < points.size(); ++i)
        if (points[i].obstacle_velocity.norm() != 0.)
          for (unsigned int k = 0; k < dim; ++k)
            w_values[dim * i + k] = -(points[i].frame.vectors[k] * points[i].obstacle_velocity);
      return w_values;
    }

    template <int dim>
    ContactPoint<dim>
    ContactGeometry<dim>::point_of_slave_node(const unsigned int p, const SlaveNode &node,
                                              const dealii::PETScWrappers::MPI::Vector &ghosted_displacement) const
    {
      const PairParameters &pair = parameters.pairs[p];
      ContactPoint<dim> point;
      point.pair = p;
      point.reference_position = node.reference;
      point.slave_dofs = node.dofs;
      point.friction_coefficient = pair.friction_coefficient;
      point.restitution_coefficient = pair.restitution_coefficient;
      point.position = node.reference;
      for (unsigned int c = 0; c < dim; ++c)
        point.position[c] += ghosted_displacement(node.dofs[c]);
      return point;
    }

    template <int dim>
    void ContactGeometry<dim>::add_integrated_points(const unsigned int p,
                                                     const dealii::PETScWrappers::MPI::Vector &ghosted_displacement,
                                                     const dealii::Tensor<1, dim> &reference_direction,
                                                     std::vector<ContactPoint<dim>> &new_points) const
    {
      if constexpr (dim > 1)
        {
          // One row per owned slave node; facets on ghost cells contribute to the owned nodes
          // they carry, so each row is complete on the rank that owns the node.
          std::map<dealii::types::global_dof_index, MortarNode<dim>> rows;
          for (const SlaveNode &node : slave_nodes[p])
            rows[node.dofs[0]];
          const MasterSurface<dim> &master = *masters[p];
          for (const SlaveFacet<dim> &reference_facet : slave_facets[p])
            {
              SlaveFacet<dim> facet = reference_facet;
              for (unsigned int b = 0; b < facet.nodes.size(); ++b)
                for (unsigned int c = 0; c < dim; ++c)
                  facet.nodes[b][c] += ghosted_displacement(facet.dofs[b][c]);
              dealii::BoundingBox<dim> box(facet.nodes);
              box.extend(parameters.search_distance);
              // A body's own master facets are no contact of its slave facets.
              std::vector<unsigned int> candidates = master.facets_in_box(box);
              const unsigned int body = mesh_bodies->body_of_dof(facet.dofs[0][0]);
              candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                              [&](const unsigned int i) {
                                                return master.get_facets()[i].body == body;
                                              }),
                               candidates.end());
              integrate_slave_facet<dim>(master.get_layout().facet_fe(), facet, master.get_facets(), candidates,
                                         parameters.search_distance, rows);
            }
          for (const SlaveNode &node : slave_nodes[p])
            {
              const MortarNode<dim> &row = rows[node.dofs[0]];
              if (!(row.support_area > 0.) || !(row.weighted_area >= 0.5 * row.support_area))
                continue;
              ContactPoint<dim> point = point_of_slave_node(p, node, ghosted_displacement);
              point.gap = row.weighted_gap / row.weighted_area;
              point.area = row.weighted_area;
              if (point.gap > parameters.search_distance)
                continue;
              for (const auto &entry : row.master)
                if (entry.second.second != 0.)
                  {
                    point.master_dofs.push_back(entry.second.first);
                    point.master_weights.push_back(entry.second.second / row.weighted_area);
                  }
              // The averaged normal of the slave surface points toward the master: the contact
              // normal (master → slave) is its opposite.
              point.frame =
                ContactFrame<dim>::from_normal(-row.normal_sum / row.normal_sum.norm(), reference_direction);
              new_points.push_back(std::move(point));
            }
        }
      else
        {
          (void)p;
          (void)ghosted_displacement;
          (void)reference_direction;
          (void)new_points;
        }
    }

    template <int dim>
    void ContactGeometry<dim>::assemble_operator(const std::vector<Entry> &entries)
    {
      const dealii::IndexSet &owned_rows = dof_handler->locally_owned_dofs();
      dealii::IndexSet touched_rows(dof_handler->n_dofs());
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
      // The matrix is made with PETSc directly, preallocated from the distributed pattern's row
      // lengths: deal.II 9.4's reinit from a DynamicSparsityPattern walks its row iterators, and
      // finding the end of a row scans the following empty rows, so with H's mostly empty rows it
      // costs O(rows²) (3.8 s per step for a body pair at 1.1e5 DoFs, against 1 ms now).
      const PetscInt n_local_rows = owned_rows.n_elements(), n_local_columns = owned_columns.n_elements();
      const PetscInt first_row = n_local_rows > 0 ? owned_rows.nth_index_in_set(0) : 0;
      const PetscInt first_column = n_local_columns > 0 ? owned_columns.nth_index_in_set(0) : 0;
      std::vector<PetscInt> diagonal_nnz(n_local_rows, 0), off_diagonal_nnz(n_local_rows, 0);
      for (PetscInt i = 0; i < n_local_rows; ++i)
        {
          const auto row = static_cast<dealii::types::global_dof_index>(first_row + i);
          const auto length = pattern.row_length(row);
          for (unsigned int j = 0; j < length; ++j)
            {
              const auto column = static_cast<PetscInt>(pattern.column_number(row, j));
              (column >= first_column && column < first_column + n_local_columns ? diagonal_nnz
                                                                                 : off_diagonal_nnz)[i]++;
            }
        }
      MatHandle matrix;
      CONTACT_PETSC_CALL(MatCreate(communicator, matrix.out()));
      CONTACT_PETSC_CALL(
        MatSetSizes(matrix, n_local_rows, n_local_columns, dof_handler->n_dofs(), dim * n_points_global));
      CONTACT_PETSC_CALL(MatSetType(matrix, MATMPIAIJ));
      CONTACT_PETSC_CALL(MatMPIAIJSetPreallocation(matrix, 0, diagonal_nnz.data(), 0, off_diagonal_nnz.data()));
      for (const Entry &e : entries)
        CONTACT_PETSC_CALL(
          MatSetValue(matrix, static_cast<PetscInt>(e.row), static_cast<PetscInt>(e.column), e.value, ADD_VALUES));
      CONTACT_PETSC_CALL(MatAssemblyBegin(matrix, MAT_FINAL_ASSEMBLY));
      CONTACT_PETSC_CALL(MatAssemblyEnd(matrix, MAT_FINAL_ASSEMBLY));
      // A new PETSc matrix each time (users such as the contact step recognise a reassembled H
      // by its object id).
      H.adopt(std::move(matrix));
    }

    template <int dim>
    void ContactGeometry<dim>::local_velocity(const dealii::PETScWrappers::MPI::Vector &v,
                                              dealii::PETScWrappers::MPI::Vector &u) const
    {
      u.reinit(owned_columns, communicator);
      H.Tvmult(u, v);
      u += w;
    }

    template <int dim>
    const dealii::PETScWrappers::MPI::Vector &
    ContactGeometry<dim>::local_velocity(const dealii::PETScWrappers::MPI::Vector &v)
    {
      // The storage has the column partition since the last update() (reallocated there when it
      // changes).
      H.Tvmult(local_velocity_storage, v);
      local_velocity_storage += w;
      return local_velocity_storage;
    }

    template <int dim>
    std::vector<double> ContactGeometry<dim>::gaps() const
    {
      std::vector<double> result;
      for (const auto &point : points)
        result.push_back(point.gap);
      return result;
    }

    template class ContactGeometry<1>;
    template class ContactGeometry<2>;
    template class ContactGeometry<3>;
  } // namespace Contact
} // namespace percussion
