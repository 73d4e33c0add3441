#include <deal.II/base/mpi.h>
#include <deal.II/fe/fe.h>

#include <percussion/postprocess/body_motion.h>

#include <algorithm>
#include <set>

namespace percussion::Postprocess
{
  template <int dim>
  BodyMotion<dim>::BodyMotion(const dealii::DoFHandler<dim> &dof_handler,
                              const dealii::PETScWrappers::MPI::SparseMatrix &mass_matrix,
                              const dealii::IndexSet &owned, MPI_Comm communicator,
                              std::map<unsigned int, unsigned int> rigid_body_of_material)
    : mass(&mass_matrix)
    , rigid_body(std::move(rigid_body_of_material))
  {
    // The bodies: the material ids of all ranks' cells.
    std::set<unsigned int> local_ids;
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        local_ids.insert(cell->material_id());
    std::vector<unsigned int> ids(local_ids.begin(), local_ids.end());
    for (const auto &rank_ids : dealii::Utilities::MPI::all_gather(communicator, ids))
      local_ids.insert(rank_ids.begin(), rank_ids.end());
    bodies.assign(local_ids.begin(), local_ids.end());

    const auto &fe = dof_handler.get_fe();
    std::vector<dealii::types::global_dof_index> cell_dofs(fe.n_dofs_per_cell());
    indicator.resize(bodies.size());
    mass_indicator.resize(bodies.size());
    std::vector<std::vector<dealii::PETScWrappers::MPI::Vector>> components(bodies.size());
    for (unsigned int b = 0; b < bodies.size(); ++b)
      {
        indicator[b].reinit(owned, communicator);
        components[b].resize(dim);
        mass_indicator[b].resize(dim);
        for (unsigned int c = 0; c < dim; ++c)
          {
            components[b][c].reinit(owned, communicator);
            mass_indicator[b][c].reinit(owned, communicator);
          }
      }
    // Mark the DoFs of each body's cells (a ghost cell's DoFs may be owned here; the owner of a DoF
    // sets it from any cell it can see, and every owned DoF belongs to a locally owned or ghost cell).
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (!cell->is_artificial())
        {
          const unsigned int b = std::lower_bound(bodies.begin(), bodies.end(), cell->material_id()) - bodies.begin();
          if (b == bodies.size() || bodies[b] != cell->material_id())
            continue;
          cell->get_dof_indices(cell_dofs);
          for (unsigned int i = 0; i < cell_dofs.size(); ++i)
            if (owned.is_element(cell_dofs[i]))
              {
                indicator[b](cell_dofs[i]) = 1.0;
                components[b][fe.system_to_component_index(i).first](cell_dofs[i]) = 1.0;
              }
        }
    body_mass.resize(bodies.size());
    for (unsigned int b = 0; b < bodies.size(); ++b)
      {
        indicator[b].compress(dealii::VectorOperation::insert);
        for (unsigned int c = 0; c < dim; ++c)
          {
            components[b][c].compress(dealii::VectorOperation::insert);
            mass->vmult(mass_indicator[b][c], components[b][c]);
          }
        body_mass[b] = components[b][0] * mass_indicator[b][0];
      }
    masked.reinit(owned, communicator);
    mass_masked.reinit(owned, communicator);

    std::vector<std::string> names{"step", "time", "body", "mass"};
    const char *axes[] = {"x", "y", "z"};
    for (unsigned int c = 0; c < dim; ++c)
      names.push_back(std::string("momentum_") + axes[c]);
    for (unsigned int c = 0; c < dim; ++c)
      names.push_back(std::string("mean_velocity_") + axes[c]);
    names.push_back("kinetic_energy");
    if (!rigid_body.empty())
      {
        for (unsigned int c = (dim == 2 ? 2 : 0); c < 3; ++c)
          names.push_back(std::string("angular_velocity_") + axes[c]);
        for (unsigned int c = (dim == 2 ? 2 : 0); c < 3; ++c)
          names.push_back(std::string("angular_momentum_") + axes[c]);
        names.push_back("rotation_angle");
        names.push_back("kinetic_energy_translation");
        names.push_back("kinetic_energy_rotation");
      }
    table = std::make_unique<StatisticsTable>(names);
  }

  template <int dim>
  BodyMotion<dim>::~BodyMotion() = default;

  template <int dim>
  void BodyMotion<dim>::open(const std::string &file_name, const bool write,
                             const std::optional<unsigned int> resume_after_step)
  {
    table->open(file_name, write, resume_after_step);
  }

  template <int dim>
  void BodyMotion<dim>::record(const unsigned int step, const double time, const dealii::PETScWrappers::MPI::Vector &v,
                               const std::vector<RigidMotion> &rigid)
  {
    for (unsigned int b = 0; b < bodies.size(); ++b)
      {
        std::vector<double> row{static_cast<double>(step), time, static_cast<double>(bodies[b]), body_mass[b]};
        std::vector<double> momentum(dim);
        for (unsigned int c = 0; c < dim; ++c)
          row.push_back(momentum[c] = mass_indicator[b][c] * v);
        for (unsigned int c = 0; c < dim; ++c)
          row.push_back(body_mass[b] > 0 ? momentum[c] / body_mass[b] : 0.0);
        masked = v;
        masked.scale(indicator[b]);
        mass->vmult(mass_masked, masked);
        row.push_back(0.5 * (masked * mass_masked));
        if (!rigid_body.empty())
          {
            const RigidMotion m = rigid.empty() ? RigidMotion() : rigid.at(rigid_body.at(bodies[b]));
            for (unsigned int c = (dim == 2 ? 2 : 0); c < 3; ++c)
              row.push_back(m.angular_velocity[c]);
            for (unsigned int c = (dim == 2 ? 2 : 0); c < 3; ++c)
              row.push_back(m.angular_momentum[c]);
            row.push_back(m.rotation_angle);
            row.push_back(m.kinetic_energy_translation);
            row.push_back(m.kinetic_energy_rotation);
          }
        table->add_row(row);
      }
  }

  template <int dim>
  void BodyMotion<dim>::execute(const StepView &view)
  {
    if (view.adds_rows())
      record(view.step(), view.time(), view.integrator.velocity(), view.rigid_motions);
  }

  template class BodyMotion<1>;
  template class BodyMotion<2>;
  template class BodyMotion<3>;
} // namespace percussion::Postprocess
