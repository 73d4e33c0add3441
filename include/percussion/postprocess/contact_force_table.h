#ifndef PERCUSSION_POSTPROCESS_CONTACT_FORCE_TABLE_H
#define PERCUSSION_POSTPROCESS_CONTACT_FORCE_TABLE_H

#include <deal.II/base/parameter_handler.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/body/elastic_body.h>
#include <percussion/contact/contact_geometry.h>
#include <percussion/postprocess/output_parameters.h>
#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/statistics_table.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace percussion::Postprocess
{
  template <int dim>
  struct PostprocessorContext;

  /**
   * `contact_forces.csv` ('Output/Postprocessors' = contact forces): the contact force on each
   * body per step, one row per body and state, `step,time,body,material_id,force_x[,force_y[,force_z]]`.
   * A body is a connected part of the mesh (ElasticBody::node_layout()), named also by its
   * smallest material id. The force is the step's contact impulse on the body's nodes over the step
   * size: each contact point's impulse p = (p_N, p_T) in its frame (n, t), p_N n + p_T t, acts on
   * the slave node and, for a pair of bodies, its opposite on the master nodes in proportion to
   * their weights; obstacles are not bodies. Summed over a body, the impulses are its momentum's
   * change by contact in the step, so that a body resting on an obstacle under gravity has a
   * normal force m g once at rest. The state before the first step has zero forces.
   */
  template <int dim>
  class ContactForceTable : public Postprocessor
  {
  public:
    /// The registry's members (PostprocessorPlugin): its name, not always made, no entries of its own.
    static constexpr const char *name = "contact forces";
    static constexpr bool always = false;
    static constexpr void (*declare_parameters)(dealii::ParameterHandler &) = nullptr;
    static constexpr void (*parse_parameters)(dealii::ParameterHandler &, OutputParameters &) = nullptr;
    /// Adds the table to the run's list and opens `<Directory>/contact_forces.csv`. Collective.
    static void add(PostprocessorContext<dim> &context, bool write);

    /// Finds the bodies of the owned nodes; @p geometry: the run's contact geometry (nullptr without
    /// contact pairs: the forces are zero). Collective.
    ContactForceTable(const Body::ElasticBody<dim> &bodies, const Contact::ContactGeometry<dim> *geometry,
                      MPI_Comm communicator);
    /// Opens (truncates) @p file_name on the ranks where @p write is true; a resumed run keeps the
    /// rows up to @p resume_after_step (StatisticsTable::open()).
    void open(const std::string &file_name, bool write, std::optional<unsigned int> resume_after_step = std::nullopt);
    /// Adds a row per body of the forces of @p view's contact step (all occasions but
    /// StepView::Occasion::last_state). Collective.
    void execute(const StepView &view) override;
    void flush() override { rows->flush(); }
    /// StatisticsTable::keep_rows_in_memory() of the table.
    void keep_rows_in_memory(bool keep) { rows->keep_rows_in_memory(keep); }
    const StatisticsTable &table() const { return *rows; }
    unsigned int n_bodies() const { return n_body; }
    /// The force on body @p b in the last row (every rank).
    const std::array<double, dim> &force(unsigned int b) const { return forces[b]; }

  private:
    /// The step's impulse on every DoF, H p, from the contact points' impulses. Collective.
    void assemble_reaction(const StepView &view);

    const Contact::ContactGeometry<dim> *geometry;
    MPI_Comm communicator;
    /// The owned nodes' DoFs (one per component) and bodies.
    std::vector<std::array<dealii::types::global_dof_index, 3>> node_dofs;
    std::vector<unsigned int> node_body;
    unsigned int n_body = 0;
    std::vector<unsigned int> body_material; ///< the smallest material id of each body
    dealii::PETScWrappers::MPI::Vector reaction;
    std::vector<std::array<double, dim>> forces;
    std::unique_ptr<StatisticsTable> rows;
  };
} // namespace percussion::Postprocess

#endif
