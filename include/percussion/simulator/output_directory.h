#ifndef PERCUSSION_SIMULATOR_OUTPUT_DIRECTORY_H
#define PERCUSSION_SIMULATOR_OUTPUT_DIRECTORY_H

#include <deal.II/base/conditional_ostream.h>

#include <percussion/simulator/run_parameters.h>

#include <mpi.h>

namespace percussion
{
  /**
   * Creates 'Output/Directory' on rank 0 (OutputParameters::create_directory()). @throws
   * InputError on every rank where rank 0 cannot. Collective.
   */
  void create_output_directory(const RunParameters &parameters, MPI_Comm communicator);

  /// The parameters as run (the file with its --set overrides) into <Output/Directory>/parameters.prm
  /// on rank 0, and a line of @p log that says where; nothing where the run has no such text.
  void write_parameters_as_run(const RunParameters &parameters, dealii::ConditionalOStream &log,
                               MPI_Comm communicator);
} // namespace percussion

#endif
