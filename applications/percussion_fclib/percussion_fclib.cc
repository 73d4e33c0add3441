// percussion-fclib FILE.hdf5 [--solver NAME] [--tolerance T] [--max-iterations N] [--time-limit S]
//                            [--verbose] [--header] [--write-local OUT.hdf5]
// Reads an FCLIB problem, solves it from r = 0 and prints one CSV line:
//   file,contacts,solver,status,iterations,error,seconds
// Global problems are condensed to local form first (W = Hᵀ M⁻¹ H); as for the Siconos reference
// figures the time is that of the solve only, without reading and condensation.

#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/fclib_reader.h>
#include <percussion/contact_solvers/fclib_writer.h>
#include <percussion/contact_solvers/global_petsc_solver.h>
#include <percussion/contact_solvers/solve.h>

#include <percussion/core/exceptions.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

namespace
{
  void print_help(const char *program)
  {
    std::cout << "Usage: " << program << " FILE.hdf5 [options]\n"
              << "Solve the frictional contact problem of an FCLIB file from r = 0 and print one CSV line\n"
              << "  file,contacts,solver,status,iterations,error,seconds\n"
              << "(error: the FCLIB/Siconos normalised natural-map residual; seconds: solve only).\n\n"
              << "Options:\n"
              << "  --solver NAME          alart_curnier (default), alart_curnier_pure, proximal_point, nsgs, or for global\n"
              << "                         files global_petsc (Newton on (v, r) with PETSc, W never formed)\n"
              << "  --tolerance T          stop when error <= T (default 1e-8)\n"
              << "  --max-iterations N     Newton iterations / NSGS sweeps (default 1000)\n"
              << "  --time-limit S         wall-clock cap in seconds (default none)\n"
              << "  --no-nsgs-probe        alart_curnier: no short NSGS attempt before Newton\n"
              << "  --rho-scale S          Alart-Curnier rho = S / diagonal of W (default 1)\n"
              << "  --proximal-cap C       cap of the proximal regularisation of Newton, 0 = plain (default 0.5)\n"
              << "  --proximal-point-initial A  first alpha of the proximal-point loop (W + alpha D, default 1)\n"
              << "  --proximal-point-min A      smallest alpha of the proximal-point loop (default 1e-6)\n"
              << "  --proximal-point-nsgs-sweeps N  NSGS sweeps tried on each sub-problem before Newton (default 10)\n"
              << "  --verbose              iteration log on stderr\n"
              << "  --header               print the CSV header line first\n"
              << "  --write-local OUT      also write the (condensed, for global files) local problem and\n"
              << "                         the solution found to the FCLIB file OUT\n"
              << "  --help                 this text\n"
              << "Exit status: 0 if the file was read and solved (whatever the convergence status),\n"
              << "1 on bad input (missing file, not FCLIB, inconsistent sizes, negative mu, bad option).\n";
  }

  double parse_number(const std::string &option, const std::string &text)
  {
    try
      {
        std::size_t  used  = 0;
        const double value = std::stod(text, &used);
        if (used != text.size())
          throw std::invalid_argument(text);
        return value;
      }
    catch (const std::exception &)
      {
        throw percussion::InputError("option " + option + ": '" + text + "' is not a number");
      }
  }
} // namespace

int main(int argc, char **argv)
{
  using namespace percussion::ContactSolvers;
  try
    {
      std::string   filename;
      SolverOptions options;
      bool          header = false;
      std::string   write_local;
      for (int k = 1; k < argc; ++k)
        {
          const std::string arg = argv[k];
          auto              value = [&]() -> std::string {
            if (k + 1 >= argc)
              throw percussion::InputError("option " + arg + " needs a value");
            return argv[++k];
          };
          if (arg == "--help" || arg == "-h")
            {
              print_help(argv[0]);
              return 0;
            }
          else if (arg == "--solver")
            options.solver = value();
          else if (arg == "--tolerance")
            {
              options.tolerance = parse_number(arg, value());
              if (!(options.tolerance > 0.0))
                throw percussion::InputError("option --tolerance must be > 0");
            }
          else if (arg == "--max-iterations")
            {
              const double n = parse_number(arg, value());
              if (!(n >= 0.0) || n != static_cast<int>(n))
                throw percussion::InputError("option --max-iterations must be a non-negative integer");
              options.max_iterations = static_cast<int>(n);
            }
          else if (arg == "--time-limit")
            {
              options.time_limit_seconds = parse_number(arg, value());
              if (!(options.time_limit_seconds > 0.0))
                throw percussion::InputError("option --time-limit must be > 0");
            }
          else if (arg == "--rho-scale")
            {
              options.rho_scale = parse_number(arg, value());
              if (!(options.rho_scale > 0.0))
                throw percussion::InputError("option --rho-scale must be > 0");
            }
          else if (arg == "--no-nsgs-probe")
            options.nsgs_probe = false;
          else if (arg == "--proximal-cap")
            {
              options.proximal_cap = parse_number(arg, value());
              if (!(options.proximal_cap >= 0.0 && options.proximal_cap < 1.0))
                throw percussion::InputError("option --proximal-cap must be in [0, 1)");
            }
          else if (arg == "--proximal-point-initial")
            options.proximal_point_initial = parse_number(arg, value()); // checked by solve(), naming the parameter
          else if (arg == "--proximal-point-min")
            options.proximal_point_min = parse_number(arg, value());
          else if (arg == "--proximal-point-nsgs-sweeps")
            {
              const double n = parse_number(arg, value());
              if (!(n >= 0.0) || n != static_cast<int>(n))
                throw percussion::InputError("option --proximal-point-nsgs-sweeps must be a non-negative integer");
              options.proximal_point_nsgs_sweeps = static_cast<int>(n);
            }
          else if (arg == "--verbose")
            options.verbose = true;
          else if (arg == "--header")
            header = true;
          else if (arg == "--write-local")
            write_local = value();
          else if (!arg.empty() && arg[0] == '-')
            throw percussion::InputError("unknown option " + arg + " (see --help)");
          else if (filename.empty())
            filename = arg;
          else
            throw percussion::InputError("more than one file given ('" + filename + "' and '" + arg + "')");
        }
      if (filename.empty())
        throw percussion::InputError("no FCLIB file given (see --help)");
      {
        const auto names = available_solvers();
        bool       known = options.solver == "global_petsc";
        for (const auto &n : names)
          known = known || n == options.solver;
        if (!known)
          throw percussion::InputError("option --solver: unknown solver '" + options.solver + "' (see --help)");
      }

      FclibProblem problem = read_fclib_file(filename);
      std::vector<double> r, u;
      SolverResult        result;
      LocalProblem        local;
      if (options.solver == "global_petsc")
        {
          if (!problem.is_global)
            throw percussion::InputError(filename + ": --solver global_petsc needs a global FCLIB problem (/fclib_global)");
          PetscScope          petsc(&argc, &argv);
          std::vector<double> v;
          result                   = solve_global_petsc(problem.global, r, v, u, options);
          local.number_of_contacts = problem.global.number_of_contacts;
          if (!write_local.empty())
            local = condense_to_local(problem.global);
        }
      else
        {
          local  = problem.is_global ? condense_to_local(problem.global) : std::move(problem.local);
          result = solve(local, r, u, options);
        }

      if (!write_local.empty())
        {
          if (options.solver == "global_petsc")
            local.compute_velocity(r, u);
          write_fclib_local(write_local, local, problem.title.empty() ? "percussion" : problem.title,
                          "written by percussion-fclib from " + filename + (problem.is_global ? " (condensed)" : ""), &r, &u);
        }
      if (header)
        std::printf("file,contacts,solver,status,iterations,error,seconds\n");
      std::string base = filename.substr(filename.find_last_of('/') == std::string::npos ? 0 : filename.find_last_of('/') + 1);
      std::printf("%s,%d,%s,%s,%d,%.3e,%.6g\n", base.c_str(), local.number_of_contacts, options.solver.c_str(),
                  to_string(result.status).c_str(), result.iterations, result.error, result.seconds);
      return 0;
    }
  catch (const percussion::InputError &e)
    {
      std::cerr << "percussion-fclib: error: " << e.what() << "\n";
      return 1;
    }
  catch (const std::exception &e)
    {
      std::cerr << "percussion-fclib: failure: " << e.what() << "\n";
      return 2;
    }
}
