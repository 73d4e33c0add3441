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
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace
{
  using namespace percussion::ContactSolvers;

  void print_help(const char *program)
  {
    std::cout
      << "Usage: " << program << " FILE.hdf5 [options]\n"
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
        std::size_t used = 0;
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

  /** The options of the command line (see print_help()). */
  enum class Option
  {
    help,
    solver,
    tolerance,
    max_iterations,
    time_limit,
    rho_scale,
    no_nsgs_probe,
    proximal_cap,
    proximal_point_initial,
    proximal_point_min,
    proximal_point_nsgs_sweeps,
    verbose,
    header,
    write_local
  };

  /** The option spelt @p arg, or std::nullopt if @p arg is not one of them. */
  std::optional<Option> find_option(const std::string &arg)
  {
    static const std::pair<const char *, Option> spellings[] = {{"--help", Option::help},
                                                                {"-h", Option::help},
                                                                {"--solver", Option::solver},
                                                                {"--tolerance", Option::tolerance},
                                                                {"--max-iterations", Option::max_iterations},
                                                                {"--time-limit", Option::time_limit},
                                                                {"--rho-scale", Option::rho_scale},
                                                                {"--no-nsgs-probe", Option::no_nsgs_probe},
                                                                {"--proximal-cap", Option::proximal_cap},
                                                                {"--proximal-point-initial",
                                                                 Option::proximal_point_initial},
                                                                {"--proximal-point-min", Option::proximal_point_min},
                                                                {"--proximal-point-nsgs-sweeps",
                                                                 Option::proximal_point_nsgs_sweeps},
                                                                {"--verbose", Option::verbose},
                                                                {"--header", Option::header},
                                                                {"--write-local", Option::write_local}};
    for (const auto &[spelling, option] : spellings)
      if (arg == spelling)
        return option;
    return std::nullopt;
  }

  /**
   * How the problem is solved: solve() on the local form (global files condensed first), or the
   * PETSc Newton method on the global form (solve_global_petsc(), solver name "global_petsc").
   */
  enum class Method
  {
    local_form,
    global_petsc
  };

  /** The command line, parsed and checked. */
  struct CommandLine
  {
    bool help_requested = false; ///< --help or -h: print the help and do nothing else
    std::string filename;
    std::string solver_name = "alart_curnier"; ///< --solver as given (also "global_petsc")
    SolverOptions options;
    Method method = Method::local_form;
    bool header = false;     ///< print the CSV header line first
    std::string write_local; ///< FCLIB file to write the local problem and its solution to; empty: none
  };

  /** A non-negative integer given as a number (so that 1e3 is accepted), else percussion::InputError. */
  int parse_count(const std::string &option, const std::string &text)
  {
    const double n = parse_number(option, text);
    if (!(n >= 0.0) || n != static_cast<int>(n))
      throw percussion::InputError("option " + option + " must be a non-negative integer");
    return static_cast<int>(n);
  }

  /**
   * Applies @p option (spelt @p arg) to @p command_line; @p value gives the option's argument (and
   * throws percussion::InputError if there is none). Values out of range throw percussion::InputError
   * naming the option; the proximal-point parameters are checked by solve(), which names them.
   */
  template <typename ValueReader>
  void apply_option(Option option, const std::string &arg, ValueReader &&value, CommandLine &command_line)
  {
    SolverOptions &options = command_line.options;
    switch (option)
      {
      case Option::help:
        command_line.help_requested = true;
        break;
      case Option::solver:
        command_line.solver_name = value();
        break;
      case Option::tolerance:
        options.tolerance = parse_number(arg, value());
        if (!(options.tolerance > 0.0))
          throw percussion::InputError("option --tolerance must be > 0");
        break;
      case Option::max_iterations:
        options.max_iterations = parse_count(arg, value());
        break;
      case Option::time_limit:
        options.time_limit_seconds = parse_number(arg, value());
        if (!(options.time_limit_seconds > 0.0))
          throw percussion::InputError("option --time-limit must be > 0");
        break;
      case Option::rho_scale:
        options.rho_scale = parse_number(arg, value());
        if (!(options.rho_scale > 0.0))
          throw percussion::InputError("option --rho-scale must be > 0");
        break;
      case Option::no_nsgs_probe:
        options.nsgs_probe = false;
        break;
      case Option::proximal_cap:
        options.proximal_cap = parse_number(arg, value());
        if (!(options.proximal_cap >= 0.0 && options.proximal_cap < 1.0))
          throw percussion::InputError("option --proximal-cap must be in [0, 1)");
        break;
      case Option::proximal_point_initial:
        options.proximal_point_initial = parse_number(arg, value());
        break;
      case Option::proximal_point_min:
        options.proximal_point_min = parse_number(arg, value());
        break;
      case Option::proximal_point_nsgs_sweeps:
        options.proximal_point_nsgs_sweeps = parse_count(arg, value());
        break;
      case Option::verbose:
        options.verbose = true;
        break;
      case Option::header:
        command_line.header = true;
        break;
      case Option::write_local:
        command_line.write_local = value();
        break;
      }
  }

  /**
   * The solving method for the solver name @p solver, and for the local form the solver in
   * @p options; percussion::InputError for an unknown name.
   */
  Method method_of_solver(const std::string &solver, SolverOptions &options)
  {
    if (solver == "global_petsc")
      return Method::global_petsc;
    const std::optional<SolverKind> kind = solver_kind_from_name(solver);
    if (!kind)
      throw percussion::InputError("option --solver: unknown solver '" + solver + "' (see --help)");
    options.solver = *kind;
    return Method::local_form;
  }

  /**
   * Parses the arguments in order; the first error throws percussion::InputError. --help stops the
   * parsing (the arguments after it are not looked at).
   */
  CommandLine parse_command_line(int argc, char **argv)
  {
    CommandLine command_line;
    for (int k = 1; k < argc; ++k)
      {
        const std::string arg = argv[k];
        auto value = [&]() -> std::string {
          if (k + 1 >= argc)
            throw percussion::InputError("option " + arg + " needs a value");
          return argv[++k];
        };
        if (const std::optional<Option> option = find_option(arg))
          {
            apply_option(*option, arg, value, command_line);
            if (command_line.help_requested)
              return command_line;
          }
        else if (!arg.empty() && arg[0] == '-')
          throw percussion::InputError("unknown option " + arg + " (see --help)");
        else if (command_line.filename.empty())
          command_line.filename = arg;
        else
          throw percussion::InputError("more than one file given ('" + command_line.filename + "' and '" + arg + "')");
      }
    if (command_line.filename.empty())
      throw percussion::InputError("no FCLIB file given (see --help)");
    command_line.method = method_of_solver(command_line.solver_name, command_line.options);
    return command_line;
  }

  /**
   * What a solve gives: the reactions r and velocities u, the solver's report, and the local
   * problem (the condensed one for global files; for the global PETSc method only its number of
   * contacts unless it is to be written).
   */
  struct Solution
  {
    LocalProblem local;
    std::vector<double> r, u;
    SolverResult result;
  };

  /** solve() on the local form of @p problem (global problems condensed first). */
  Solution solve_local_form(FclibProblem &problem, const SolverOptions &options)
  {
    Solution solution;
    solution.local = problem.is_global ? condense_to_local(problem.global) : std::move(problem.local);
    solution.result = solve(solution.local, solution.r, solution.u, options);
    return solution;
  }

  /**
   * solve_global_petsc() on a global problem; PETSc lives for the solve only. The local problem is
   * condensed only if it is to be written (@p condense).
   */
  Solution solve_global_form(const FclibProblem &problem, const std::string &filename, const SolverOptions &options,
                             bool condense, int *argc, char ***argv)
  {
    if (!problem.is_global)
      throw percussion::InputError(filename + ": --solver global_petsc needs a global FCLIB problem (/fclib_global)");
    Solution solution;
    PetscScope petsc(argc, argv);
    std::vector<double> v;
    solution.result = solve_global_petsc(problem.global, solution.r, v, solution.u, options);
    solution.local.number_of_contacts = problem.global.number_of_contacts;
    if (condense)
      solution.local = condense_to_local(problem.global);
    return solution;
  }

  /** Writes the local problem and the solution to the FCLIB file command_line.write_local. */
  void write_solution(const CommandLine &command_line, const FclibProblem &problem, Solution &solution)
  {
    // The global method's u is Hᵀ v + w; the file gets u = W r + q of the condensed problem it holds.
    if (command_line.method == Method::global_petsc)
      solution.local.compute_velocity(solution.r, solution.u);
    write_fclib_local(command_line.write_local, solution.local, problem.title.empty() ? "percussion" : problem.title,
                      "written by percussion-fclib from " + command_line.filename +
                        (problem.is_global ? " (condensed)" : ""),
                      &solution.r, &solution.u);
  }

  /** The CSV line (and first the header line if asked for) on stdout. */
  void print_csv(const CommandLine &command_line, const Solution &solution)
  {
    const std::string &filename = command_line.filename;
    if (command_line.header)
      std::printf("file,contacts,solver,status,iterations,error,seconds\n");
    std::string base =
      filename.substr(filename.find_last_of('/') == std::string::npos ? 0 : filename.find_last_of('/') + 1);
    std::printf("%s,%d,%s,%s,%d,%.3e,%.6g\n", base.c_str(), solution.local.number_of_contacts,
                command_line.solver_name.c_str(), to_string(solution.result.status).c_str(), solution.result.iterations,
                solution.result.error, solution.result.seconds);
  }
} // namespace

int main(int argc, char **argv)
{
  try
    {
      const CommandLine command_line = parse_command_line(argc, argv);
      if (command_line.help_requested)
        {
          print_help(argv[0]);
          return 0;
        }
      FclibProblem problem = read_fclib_file(command_line.filename);
      Solution solution = command_line.method == Method::global_petsc
                            ? solve_global_form(problem, command_line.filename, command_line.options,
                                                !command_line.write_local.empty(), &argc, &argv)
                            : solve_local_form(problem, command_line.options);
      if (!command_line.write_local.empty())
        write_solution(command_line, problem, solution);
      print_csv(command_line, solution);
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
