#include <deal.II/base/data_out_base.h>
#include <deal.II/base/utilities.h>
#include <deal.II/numerics/data_out.h>

#include <percussion/core/exceptions.h>
#include <percussion/postprocess/solution_output.h>

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
    , compression_level(compression == VtuCompression::none             ? DataOutBase::VtkFlags::no_compression :
                        compression == VtuCompression::best_compression ? DataOutBase::VtkFlags::best_compression :
                                                                          DataOutBase::VtkFlags::best_speed)
    , files_per_record(files_per_record)
    , in_background(in_background)
    , series(directory, "solution", communicator)
  {}

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
    /// DataOut with the names and ranges of its data sets public, and its patches to be taken,
    /// so that a thread of its own can write them (DataOutBase::write_vtu) after the DataOut is gone.
    template <int dim>
    class DataOutWithNames : public DataOut<dim>
    {
    public:
      std::vector<std::string> names() const { return this->get_dataset_names(); }
      auto                     ranges() const { return this->get_nonscalar_data_ranges(); }
      /// The patches of build_patches(), moved out (a copy cost as much as a tenth of the record).
      std::vector<typename DataOut<dim>::Patch> take_patches() { return std::move(this->patches); }
    };
  } // namespace

  template <int dim>
  void SolutionOutput<dim>::write(const double time,
                                  const unsigned int step,
                                  const DoFHandler<dim> &dof_handler,
                                  const PETScWrappers::MPI::Vector &displacement,
                                  const PETScWrappers::MPI::Vector &velocity,
                                  const DataPostprocessor<dim> &stress,
                                  const PETScWrappers::MPI::Vector *strain_displacement,
                                  const std::vector<std::pair<std::string, Vector<float>>> *cell_fields)
  {
    // The previous record first: one file in flight at a time, and its error reported here.
    finish();
    DataOutWithNames<dim> data_out;
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
    if (cell_fields != nullptr)
      for (const auto &[name, values] : *cell_fields)
        data_out.add_data_vector(values, name);
    data_out.build_patches(dof_handler.get_fe().degree);

    DataOutBase::VtkFlags flags;
    flags.time = time;
    flags.cycle = step;
    flags.compression_level = compression_level;
    data_out.set_flags(flags);
    // (On one rank deal.II writes a single .vtu whatever the number of groups.)
    const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(communicator);
    const unsigned int groups = n_ranks > 1 ? files_per_record : 0;
    if (!in_background || groups != 0)
      {
        series.add(time, data_out.write_vtu_with_pvtu_record(directory + "/", "solution", series.size(), communicator,
                                                             5, groups));
        return;
      }

    // One file per rank, named as write_vtu_with_pvtu_record() names them (solution_NNNNN.R.vtu,
    // solution_NNNNN.pvtu), so that the output is the same with and without the thread. The
    // thread makes no MPI call: rank 0 writes the .pvtu (small) here.
    const std::string stem = "solution_" + Utilities::int_to_string(series.size(), 5);
    const unsigned int rank_digits = Utilities::needed_digits(n_ranks - 1);
    auto piece = [&](const unsigned int rank) { return stem + "." + Utilities::int_to_string(rank, rank_digits) + ".vtu"; };
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
    writer = std::thread([this, path, flags, names = data_out.names(), ranges = data_out.ranges(),
                          patches = data_out.take_patches()]() {
      try
        {
          std::ofstream file(path);
          DataOutBase::write_vtu(patches, names, ranges, flags, file);
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
