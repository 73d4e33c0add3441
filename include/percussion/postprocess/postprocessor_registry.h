#ifndef PERCUSSION_POSTPROCESS_POSTPROCESSOR_REGISTRY_H
#define PERCUSSION_POSTPROCESS_POSTPROCESSOR_REGISTRY_H

#include <deal.II/base/parameter_handler.h>

#include <percussion/body/elastic_body.h>
#include <percussion/contact/contact_geometry.h>
#include <percussion/postprocess/output_parameters.h>
#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/probe_points.h>
#include <percussion/postprocess/vtu_output.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace percussion::Postprocess
{
  /**
   * What a postprocessor of the registry is made from when a run opens its outputs (after a
   * checkpoint to resume from has been read): the output settings, the bodies, and the parts the
   * Simulator has made already. The Simulator locates the probes at set-up, so that a point outside
   * the mesh stops the run before it starts, and makes the VTU records before a checkpoint lists
   * them: their entries take them from here.
   */
  template <int dim>
  struct PostprocessorContext
  {
    const OutputParameters &output;
    MPI_Comm communicator;
    /// Whether this rank writes the files (rank 0).
    bool root;
    /// The step a resumed run starts from: the files keep their rows up to it.
    std::optional<unsigned int> resumed_step;
    /// The number of events before the checkpoint of a resumed run (0 otherwise).
    unsigned int resumed_events;
    /// Whether the tables keep their rows in memory (Simulator::keep_tables_in_memory()).
    bool keep_rows;
    const Body::ElasticBody<dim> &bodies;
    /// The bodies' frames (2D/3D; nullptr in 1D), and whether they are the large rotations' frames.
    const BodyFrames *frames;
    bool large_rotations;
    /// The contact geometry (nullptr without contact pairs).
    const Contact::ContactGeometry<dim> *geometry;
    /// The state before the first step (the statistics' columns are found from it).
    const StepView &initial_view;
    /// The probes of 'Output/Probe points' (nullptr without), until their entry lists them.
    std::unique_ptr<ProbePoints<dim>> probes;
    /// The VTU records, until their entry lists them.
    std::unique_ptr<VtuOutput<dim>> vtu;
    /// The run's postprocessors: an entry adds its own, or opens one the Simulator holds already
    /// (the event log).
    PostprocessorList &list;
  };

  /**
   * One postprocessor the run can list in 'Output/Postprocessors': its name there, the entries it
   * declares in `subsection Output` and reads back, and how it joins a run. Adding a postprocessor
   * is a class with these four static members and a line of postprocessor_plugins().
   */
  template <int dim>
  struct PostprocessorPlugin
  {
    /// The name in 'Output/Postprocessors'.
    std::string name;
    /// Whether the Simulator reads it whatever the list says (the statistics table, the VTU
    /// records, the event log): add() is then called in every run, its files written only when
    /// it is listed.
    bool always;
    /// Declares its entries (inside `subsection Output`); may declare none.
    void (*declare_parameters)(dealii::ParameterHandler &prm);
    /**
     * Reads its entries back (inside `subsection Output`) into @p output, where a postprocessor
     * keeps its settings, and adds its name to OutputParameters::postprocessors where an older
     * entry asks for it (e.g. 'Write bodies' = true). @throws InputError naming the entry.
     */
    void (*parse_parameters)(dealii::ParameterHandler &prm, OutputParameters &output);
    /// Adds the postprocessor to @p context.list; @p write: whether it is listed. Collective.
    void (*add)(PostprocessorContext<dim> &context, bool write);
  };

  /**
   * The registry: every postprocessor, in the order they run after a step (the tables first, the
   * VTU records last, whose writing flushes the tables). The names and parameters are the same
   * for every dimension.
   */
  template <int dim>
  const std::vector<PostprocessorPlugin<dim>> &postprocessor_plugins();

  /// The names of postprocessor_plugins(), separated by '|' (the pattern of 'Output/Postprocessors').
  std::string postprocessor_names();

  /// Adds the postprocessors of @p context.output's list (and the ones the Simulator always reads)
  /// to @p context.list, in the registry's order. Collective.
  template <int dim>
  void add_postprocessors(PostprocessorContext<dim> &context);
} // namespace percussion::Postprocess

#endif
