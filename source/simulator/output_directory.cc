// What a run puts into its output directory before its first output: the directory itself, made
// only once the whole input has been accepted (a refused run leaves nothing on disk), and the
// parameters as run beside the results.
#include <deal.II/base/mpi.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/output_directory.h>

#include <fstream>
#include <string>

namespace percussion
{
  void create_output_directory(const RunParameters &parameters, MPI_Comm communicator)
  {
    // Every rank stops if rank 0 cannot create it.
    std::string failure;
    if (dealii::Utilities::MPI::this_mpi_process(communicator) == 0)
      try
        {
          parameters.output.create_directory();
        }
      catch (const InputError &error)
        {
          failure = error.what();
        }
    failure = dealii::Utilities::MPI::broadcast(communicator, failure, 0);
    if (!failure.empty())
      throw InputError(failure);
  }

  void write_parameters_as_run(const RunParameters &parameters, dealii::ConditionalOStream &log,
                               MPI_Comm communicator)
  {
    if (dealii::Utilities::MPI::this_mpi_process(communicator) != 0 || parameters.effective_parameters.empty())
      return;
    const std::string &directory = parameters.output.directory;
    std::ofstream(directory + "/parameters.prm") << parameters.effective_parameters;
    log << "parameters as run: " << directory << "/parameters.prm" << std::endl;
  }
} // namespace percussion
