#include <deal.II/base/mpi.h>

#include <percussion/postprocess/contact_force_table.h>
#include <percussion/postprocess/postprocessor_registry.h>

namespace percussion::Postprocess
{
  template <int dim>
  void ContactForceTable<dim>::add(PostprocessorContext<dim> &context, bool)
  {
    auto &table = context.list.add(
      std::make_unique<ContactForceTable<dim>>(context.bodies, context.geometry, context.communicator));
    table.keep_rows_in_memory(context.keep_rows);
    table.open(context.output.directory + "/contact_forces.csv", context.root, context.resumed_step);
  }

  template <int dim>
  ContactForceTable<dim>::ContactForceTable(const Body::ElasticBody<dim> &bodies,
                                            const Contact::ContactGeometry<dim> *geometry, MPI_Comm communicator)
    : geometry(geometry)
    , communicator(communicator)
    , reaction(bodies.locally_owned_dofs(), communicator)
  {
    const NodeLayout layout = bodies.node_layout();
    node_dofs = layout.dofs;
    node_body = layout.body;
    n_body = layout.n_bodies;
    for (const auto &materials : layout.body_materials)
      body_material.push_back(materials.empty() ? 0 : materials.front());
    forces.assign(n_body, std::array<double, dim>{});
    std::vector<std::string> columns{"step", "time", "body", "material_id"};
    for (unsigned int d = 0; d < dim; ++d)
      columns.push_back(std::string("force_") + "xyz"[d]);
    rows = std::make_unique<StatisticsTable>(columns);
  }

  template <int dim>
  void ContactForceTable<dim>::open(const std::string &file_name, const bool write,
                                    const std::optional<unsigned int> resume_after_step)
  {
    rows->open(file_name, write, resume_after_step);
  }

  template <int dim>
  void ContactForceTable<dim>::assemble_reaction(const StepView &view)
  {
    reaction = 0;
    const auto &c = view.contact;
    // Before the first step, and in a step without a contact problem, the impulses are not the
    // owned points' (the VTU's contact points read them the same way).
    const bool stepped = view.occasion != StepView::Occasion::initial_state && geometry != nullptr &&
                         c.impulse.size() == dim * geometry->n_owned_points();
    std::vector<dealii::types::global_dof_index> indices;
    std::vector<double> values;
    if (stepped)
      {
        std::size_t i = 0;
        for (const auto &point : geometry->owned_points())
          {
            // The impulse in world axes: p_N n + p_T t, on the slave node; its opposite on the
            // master nodes by their weights (the master's share of the contact's H column).
            dealii::Tensor<1, dim> impulse;
            for (unsigned int j = 0; j < dim; ++j)
              impulse += c.impulse[dim * i + j] * point.frame.vectors[j];
            for (unsigned int d = 0; d < dim; ++d)
              {
                indices.push_back(point.slave_dofs[d]);
                values.push_back(impulse[d]);
                for (std::size_t b = 0; b < point.master_dofs.size(); ++b)
                  {
                    indices.push_back(point.master_dofs[b][d]);
                    values.push_back(-point.master_weights[b] * impulse[d]);
                  }
              }
            ++i;
          }
      }
    // (Master nodes may be other ranks': PETSc sends their entries to their owners.)
    reaction.add(indices, values);
    reaction.compress(dealii::VectorOperation::add);
  }

  template <int dim>
  void ContactForceTable<dim>::execute(const StepView &view)
  {
    if (!view.adds_rows())
      return;
    assemble_reaction(view);
    std::vector<double> sums(n_body * dim, 0.0);
    for (std::size_t n = 0; n < node_dofs.size(); ++n)
      for (unsigned int d = 0; d < dim; ++d)
        sums[node_body[n] * dim + d] += reaction(node_dofs[n][d]);
    dealii::Utilities::MPI::sum(sums, communicator, sums);
    const double h = view.integrator.time_step();
    std::vector<double> row(4 + dim);
    for (unsigned int b = 0; b < n_body; ++b)
      {
        row[0] = view.step();
        row[1] = view.time();
        row[2] = b;
        row[3] = body_material[b];
        for (unsigned int d = 0; d < dim; ++d)
          {
            forces[b][d] = sums[b * dim + d] / h;
            row[4 + d] = forces[b][d];
          }
        rows->add_row(row);
      }
  }

  template class ContactForceTable<1>;
  template class ContactForceTable<2>;
  template class ContactForceTable<3>;
} // namespace percussion::Postprocess
