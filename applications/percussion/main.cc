// The percussion driver: reads a parameter file, chooses the dimension from it, runs the simulation.
#include <deal.II/base/mpi.h>
#include <deal.II/base/parameter_handler.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/interruption.h>
#include <percussion/simulator/run_parameters.h>
#include <percussion/simulator/simulator.h>

#include <iostream>
#include <string>
#include <vector>

namespace
{
  const char *usage =
    "percussion: finite-element elastodynamics with unilateral contact, impact and Coulomb friction.\n"
    "\n"
    "Usage:\n"
    "  percussion FILE.prm            run the simulation described by FILE.prm\n"
    "  percussion FILE.prm --set \"Section/Subsection/Entry=value\" ...\n"
    "                                 the same with entries overridden (repeatable; checked like\n"
    "                                 the file's; the effective parameters are written to\n"
    "                                 <Output/Directory>/parameters.prm)\n"
    "  percussion FILE.prm --resume DIR\n"
    "                                 continue the run of FILE.prm from a checkpoint: DIR is a\n"
    "                                 checkpoint (OUTPUT/checkpoints/step-N) or an output directory\n"
    "                                 (its newest complete checkpoint); the checkpoint must be of\n"
    "                                 this run (mesh, scheme, step size), the end time may be later\n"
    "  percussion --print-parameters  print every parameter with its default value and help text\n"
    "  percussion --help              this text\n"
    "\n"
    "Run in parallel with: mpirun -np N percussion FILE.prm\n"
    "Output: <Output/Directory>/statistics.csv (one row per step: energies, works, energy-balance\n"
    "residual), solution_*.pvtu/.vtu and solution.pvd for ParaView.\n"
    "Exit status: 0 success, 1 bad input, 2 numerical failure, 3 other error, 128 + signal when\n"
    "SIGTERM/SIGINT stopped the run (after finishing and writing the current step).\n";

  template <int dim>
  void run(const percussion::RunParameters &parameters, const std::string &resume)
  {
    percussion::Simulator<dim> simulator(parameters, MPI_COMM_WORLD, std::cout);
    // The tables go to their files; a long run's memory must not grow with its steps.
    simulator.keep_tables_in_memory(false);
    if (!resume.empty())
      simulator.resume_from(resume);
    simulator.run();
  }
} // namespace

int main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const bool root = dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  if (argc < 2)
    {
      if (root)
        std::cerr << "percussion: input error: no parameter file given\n\n" << usage;
      return 1;
    }
  const std::string argument = argv[1];
  // FILE.prm followed by any number of --set overrides; anything else is a usage error.
  std::vector<std::string> overrides;
  std::string resume;
  for (int i = 2; i < argc; ++i)
    {
      if (std::string(argv[i]) == "--set" && i + 1 < argc)
        overrides.emplace_back(argv[++i]);
      else if (std::string(argv[i]) == "--resume" && i + 1 < argc && resume.empty())
        resume = argv[++i];
      else
        {
          if (root)
            std::cerr << "percussion: input error: unexpected argument '" << argv[i] << "' (expected --set "
                      << "\"Section/Entry=value\" or one --resume DIR)\n\n"
                      << usage;
          return 1;
        }
    }
  if (argument == "--help" || argument == "-h")
    {
      if (root)
        std::cout << usage;
      return 0;
    }
  if (argument == "--print-parameters")
    {
      dealii::ParameterHandler prm;
      percussion::RunParameters::declare_parameters(prm);
      if (root)
        prm.print_parameters(std::cout, dealii::ParameterHandler::Text);
      return 0;
    }
  try
    {
      const percussion::RunParameters parameters = percussion::RunParameters::from_file(argument, overrides);
      switch (parameters.dimension)
        {
        case 1:
          run<1>(parameters, resume);
          break;
        case 2:
          run<2>(parameters, resume);
          break;
        default:
          run<3>(parameters, resume);
        }
    }
  catch (const percussion::Interrupted &interrupted)
    {
      if (root)
        std::cerr << "percussion: " << interrupted.what() << std::endl;
      return 128 + interrupted.signal();
    }
  catch (const percussion::InputError &error)
    {
      if (root)
        std::cerr << "percussion: input error: " << error.what() << std::endl;
      return 1;
    }
  catch (const percussion::SolverError &error)
    {
      if (root)
        std::cerr << "percussion: numerical failure: " << error.what() << std::endl;
      return 2;
    }
  catch (const std::exception &error)
    {
      if (root)
        std::cerr << "percussion: error: " << error.what() << std::endl;
      return 3;
    }
  return 0;
}
