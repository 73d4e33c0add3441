#include <deal.II/base/data_out_base.h>
#include <deal.II/base/utilities.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/data_out.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_check.h>
#include <percussion/postprocess/solution_output.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <utility>

namespace percussion::Postprocess
{
  using namespace dealii;

  template <int dim>
  SolutionOutput<dim>::SolutionOutput(const std::string &directory, MPI_Comm communicator,
                                      const VtuCompression compression, const unsigned int files_per_record,
                                      const bool in_background)
    : directory(directory)
    , communicator(communicator)
    // (deal.II's default is best_compression: on the default example zlib then took half of the
    // whole run's time, for files 7 % smaller than with best_speed.)
    , compression_level(compression == VtuCompression::none               ? DataOutBase::VtkFlags::no_compression
                        : compression == VtuCompression::best_compression ? DataOutBase::VtkFlags::best_compression
                                                                          : DataOutBase::VtkFlags::best_speed)
    , files_per_record(files_per_record)
    , in_background(in_background)
    , series(directory, "solution", communicator)
  {
  }

  template <int dim>
  SolutionOutput<dim>::~SolutionOutput()
  {
    try
      {
        finish();
      }
    catch (const std::exception &e)
      {
        std::cerr << "error while writing the last VTU record: " << e.what() << std::endl;
      }
  }

  template <int dim>
  void SolutionOutput<dim>::finish()
  {
    if (writer.joinable())
      writer.join();
    if (writer_error)
      std::rethrow_exception(std::exchange(writer_error, nullptr));
  }

  namespace
  {
    /**
     * One record's DataOut and what it reads: copies of the fields (deal.II vectors with their
     * ghost entries, so that building the patches reads no PETSc object and makes no MPI call) and
     * the stress postprocessor. A thread of its own can build the patches and write the file while
     * the run goes on.
     */
    template <int dim>
    struct Record
    {
      DataOut<dim> data_out;
      LinearAlgebra::distributed::Vector<double> displacement, velocity, strain_displacement;
      Vector<float> material, subdomain;
      std::vector<std::pair<std::string, Vector<float>>> cell_fields;
      std::shared_ptr<const DataPostprocessor<dim>> stress;
    };

    /// The locally owned entries of @p source, with the ghost entries of @p relevant brought in
    /// (a collective call: every rank writes the record at the same step).
    void copy_with_ghosts(const PETScWrappers::MPI::Vector &source, const IndexSet &relevant,
                          LinearAlgebra::distributed::Vector<double> &copy)
    {
      const IndexSet owned = source.locally_owned_elements();
      copy.reinit(owned, relevant, source.get_mpi_communicator());
      const PetscScalar *values = nullptr;
      PERCUSSION_PETSC_CALL(VecGetArrayRead(source, &values));
      std::copy(values, values + owned.n_elements(), copy.begin());
      PERCUSSION_PETSC_CALL(VecRestoreArrayRead(source, &values));
      copy.update_ghost_values();
    }
  } // namespace

  template <int dim>
  void SolutionOutput<dim>::write(const double time, const unsigned int step, const DoFHandler<dim> &dof_handler,
                                  const PETScWrappers::MPI::Vector &displacement,
                                  const PETScWrappers::MPI::Vector &velocity,
                                  std::shared_ptr<const DataPostprocessor<dim>> stress,
                                  const PETScWrappers::MPI::Vector *strain_displacement,
                                  std::vector<std::pair<std::string, Vector<float>>> cell_fields)
  {
    // The previous record first: one record in flight at a time, and its error reported here.
    finish();
    if (relevant_dofs.size() != dof_handler.n_dofs())
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant_dofs);

    auto record = std::make_unique<Record<dim>>();
    copy_with_ghosts(displacement, relevant_dofs, record->displacement);
    copy_with_ghosts(velocity, relevant_dofs, record->velocity);
    if (strain_displacement != nullptr)
      copy_with_ghosts(*strain_displacement, relevant_dofs, record->strain_displacement);
    record->stress = std::move(stress);
    record->cell_fields = std::move(cell_fields);

    DataOut<dim> &data_out = record->data_out;
    data_out.attach_dof_handler(dof_handler);
    const std::vector<DataComponentInterpretation::DataComponentInterpretation>
      vector_field(dim, DataComponentInterpretation::component_is_part_of_vector);
    data_out.add_data_vector(record->displacement, std::vector<std::string>(dim, "displacement"),
                             DataOut<dim>::type_dof_data, vector_field);
    data_out.add_data_vector(record->velocity, std::vector<std::string>(dim, "velocity"), DataOut<dim>::type_dof_data,
                             vector_field);
    data_out.add_data_vector(strain_displacement != nullptr ? record->strain_displacement : record->displacement,
                             *record->stress);

    const auto &triangulation = dof_handler.get_triangulation();
    record->material.reinit(triangulation.n_active_cells());
    record->subdomain.reinit(triangulation.n_active_cells());
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          record->material(cell->active_cell_index()) = cell->material_id();
          record->subdomain(cell->active_cell_index()) = cell->subdomain_id();
        }
    data_out.add_data_vector(record->material, "material_id");
    data_out.add_data_vector(record->subdomain, "subdomain");
    for (const auto &[name, values] : record->cell_fields)
      data_out.add_data_vector(values, name);

    DataOutBase::VtkFlags flags;
    flags.time = time;
    flags.cycle = step;
    flags.compression_level = compression_level;
    data_out.set_flags(flags);
    const unsigned int degree = dof_handler.get_fe().degree;
    // (On one rank deal.II writes a single .vtu whatever the number of groups.)
    const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(communicator);
    const unsigned int groups = n_ranks > 1 ? files_per_record : 0;
    if (!in_background || groups != 0)
      {
        data_out.build_patches(degree);
        series.add(time, data_out.write_vtu_with_pvtu_record(directory + "/", "solution", series.size(), communicator,
                                                             5, groups));
        return;
      }

    // One file per rank, named as write_vtu_with_pvtu_record() names them (solution_NNNNN.R.vtu,
    // solution_NNNNN.pvtu), so that the output is the same with and without the thread. The
    // thread makes no MPI call: rank 0 writes the .pvtu (small; it needs the data sets' names
    // only) here.
    const std::string stem = "solution_" + Utilities::int_to_string(series.size(), 5);
    const unsigned int rank_digits = Utilities::needed_digits(n_ranks - 1);
    auto piece = [&](const unsigned int rank) {
      return stem + "." + Utilities::int_to_string(rank, rank_digits) + ".vtu";
    };
    if (Utilities::MPI::this_mpi_process(communicator) == 0)
      {
        std::vector<std::string> pieces;
        for (unsigned int r = 0; r < n_ranks; ++r)
          pieces.push_back(piece(r));
        std::ofstream pvtu(directory + "/" + stem + ".pvtu");
        data_out.write_pvtu_record(pvtu, pieces);
        if (!pvtu)
          throw InputError("Output: cannot write " + directory + "/" + stem + ".pvtu");
      }
    const std::string path = directory + "/" + piece(Utilities::MPI::this_mpi_process(communicator));
    // (deal.II runs build_patches() on the calling thread: the run has one task thread.)
    writer = std::thread([this, path, degree, record = std::move(record)]() {
      try
        {
          record->data_out.build_patches(degree);
          std::ofstream file(path);
          record->data_out.write_vtu(file);
          file.close();
          if (!file)
            throw InputError("Output: cannot write " + path);
        }
      catch (...)
        {
          writer_error = std::current_exception();
        }
    });
    series.add(time, stem + ".pvtu");
  }

  template class SolutionOutput<1>;
  template class SolutionOutput<2>;
  template class SolutionOutput<3>;
} // namespace percussion::Postprocess
