#ifndef PERCUSSION_POSTPROCESS_SOLUTION_OUTPUT_H
#define PERCUSSION_POSTPROCESS_SOLUTION_OUTPUT_H

#include <deal.II/base/data_out_base.h>
#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/petsc_vector.h>
#include <deal.II/lac/vector.h>
#include <deal.II/numerics/data_postprocessor.h>

#include <percussion/postprocess/output_parameters.h>
#include <percussion/postprocess/time_series.h>

#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace percussion::Postprocess
{
  /**
   * ParaView output: one `.pvtu` (+ one `.vtu` per rank, or per group of ranks) per output step and a `.pvd` time
   * series
   * (`solution.pvd`) rewritten after every output, with displacement, velocity, stress tensor and
   * von Mises stress, material id and MPI subdomain.
   */
  template <int dim>
  class SolutionOutput
  {
  public:
    /// @p compression: 'Output/VTU compression' (OutputParameters);
    /// @p files_per_record: 0 one .vtu per rank, N ≥ 1 N files grouped with MPI-IO.
    /// @p in_background: with one file per rank, build each record's patches (the stress
    /// postprocessor included) and encode, compress and write its file in a thread of its own
    /// while the run goes on; write() copies the fields and returns.
    SolutionOutput(const std::string &directory, MPI_Comm communicator,
                   VtuCompression compression = VtuCompression::best_speed, unsigned int files_per_record = 0,
                   bool in_background = false);

    /// Waits for a record still being written (finish()).
    ~SolutionOutput();

    /// Writes the fields at @p time (their locally owned entries are read: ghosted or not). The
    /// stress is computed by @p stress from @p strain_displacement if given (large rotations: the
    /// elastic displacement in the bodies' frames), else from @p displacement; the record keeps
    /// @p stress until it is written. @p cell_fields: more cell data by name (one value per
    /// active cell, e.g. Body::ElasticBody::viscoelastic_fields()). @p dof_handler must outlive
    /// the record (finish()).
    void write(double time, unsigned int step, const dealii::DoFHandler<dim> &dof_handler,
               const dealii::PETScWrappers::MPI::Vector &displacement,
               const dealii::PETScWrappers::MPI::Vector &velocity,
               std::shared_ptr<const dealii::DataPostprocessor<dim>> stress,
               const dealii::PETScWrappers::MPI::Vector *strain_displacement = nullptr,
               std::vector<std::pair<std::string, dealii::Vector<float>>> cell_fields = {});

    /// Waits until the last record is on disk; rethrows what its writing threw (InputError if the
    /// file could not be written). Called before checkpoints and at the end of a run.
    void finish();

    const std::vector<std::pair<double, std::string>> &written() const { return series.written(); }
    /// A resumed run: solution.pvd lists the checkpoint's @p records (TimeSeries::restore()).
    void restore(std::vector<std::pair<double, std::string>> records) { series.restore(std::move(records)); }

  private:
    std::string directory;
    MPI_Comm communicator;
    dealii::DataOutBase::VtkFlags::ZlibCompressionLevel compression_level;
    unsigned int files_per_record;
    bool in_background;
    TimeSeries series;
    dealii::IndexSet relevant_dofs;  ///< the DoF handler's locally relevant DoFs, found at the first record
    std::thread writer;              ///< the record being written in the background, if any
    std::exception_ptr writer_error; ///< what it threw
  };
} // namespace percussion::Postprocess

#endif
