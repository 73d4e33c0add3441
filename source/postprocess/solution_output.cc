#include <deal.II/base/data_out_base.h>
#include <deal.II/base/utilities.h>
#include <deal.II/numerics/data_out.h>

#include <percussion/postprocess/solution_output.h>


namespace percussion::Postprocess
{
  using namespace dealii;

  template <int dim>
  SolutionOutput<dim>::SolutionOutput(const std::string &directory, MPI_Comm communicator,
                                      const std::string &compression, const unsigned int files_per_record)
    : directory(directory)
    , communicator(communicator)
    // (deal.II's default is best_compression: on the default example zlib then took half of the
    // whole run's time, for files 7 % smaller than with best_speed.)
    , compression_level(compression == "none"             ? DataOutBase::VtkFlags::no_compression :
                        compression == "best compression" ? DataOutBase::VtkFlags::best_compression :
                                                            DataOutBase::VtkFlags::best_speed)
    , files_per_record(files_per_record)
    , series(directory, "solution", communicator)
  {}

  template <int dim>
  void SolutionOutput<dim>::write(const double time,
                                  const unsigned int step,
                                  const DoFHandler<dim> &dof_handler,
                                  const PETScWrappers::MPI::Vector &displacement,
                                  const PETScWrappers::MPI::Vector &velocity,
                                  const DataPostprocessor<dim> &stress,
                                  const PETScWrappers::MPI::Vector *strain_displacement)
  {
    DataOut<dim> data_out;
    data_out.attach_dof_handler(dof_handler);
    const std::vector<DataComponentInterpretation::DataComponentInterpretation> vector_field(
      dim, DataComponentInterpretation::component_is_part_of_vector);
    data_out.add_data_vector(displacement, std::vector<std::string>(dim, "displacement"),
                             DataOut<dim>::type_dof_data, vector_field);
    data_out.add_data_vector(velocity, std::vector<std::string>(dim, "velocity"),
                             DataOut<dim>::type_dof_data, vector_field);
    data_out.add_data_vector(strain_displacement != nullptr ? *strain_displacement : displacement, stress);

    const auto &triangulation = dof_handler.get_triangulation();
    Vector<float> material(triangulation.n_active_cells()), subdomain(triangulation.n_active_cells());
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          material(cell->active_cell_index()) = cell->material_id();
          subdomain(cell->active_cell_index()) = cell->subdomain_id();
        }
    data_out.add_data_vector(material, "material_id");
    data_out.add_data_vector(subdomain, "subdomain");
    data_out.build_patches(dof_handler.get_fe().degree);

    DataOutBase::VtkFlags flags;
    flags.time = time;
    flags.cycle = step;
    flags.compression_level = compression_level;
    data_out.set_flags(flags);
    // (On one rank deal.II writes a single .vtu whatever the number of groups.)
    const unsigned int groups = Utilities::MPI::n_mpi_processes(communicator) > 1 ? files_per_record : 0;
    series.add(time, data_out.write_vtu_with_pvtu_record(directory + "/", "solution", series.size(), communicator, 5,
                                                         groups));
  }

  template class SolutionOutput<1>;
  template class SolutionOutput<2>;
  template class SolutionOutput<3>;
} // namespace percussion::Postprocess
