#include <percussion/core/exceptions.h>
#include <percussion/core/name_table.h>
#include <percussion/postprocess/output_parameters.h>
#include <percussion/postprocess/postprocessor_registry.h>

#include <deal.II/base/utilities.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace percussion::Postprocess
{
  namespace
  {
    constexpr NameTable<VtuCompression, 3> vtu_compressions{{{VtuCompression::best_speed, "best speed"},
                                                             {VtuCompression::best_compression, "best compression"},
                                                             {VtuCompression::none, "none"}}};
  } // namespace

  void OutputParameters::declare_parameters(dealii::ParameterHandler &prm)
  {
    using namespace dealii::Patterns;
    prm.enter_subsection("Output");
    prm.declare_entry("Directory", "output", Anything(),
                      "Directory for statistics.csv, the VTU/PVTU files and solution.pvd; created if "
                      "missing.");
    prm.declare_entry("VTU interval", "10", Integer(0),
                      "Write ParaView output every this many steps (and at the start and the end); "
                      "0 writes none.");
    prm.declare_entry("VTU time interval", "0", Double(0),
                      "Write ParaView output every this many seconds of simulated time from 'Time "
                      "integration/Start time' (and at the start and the end), in place of 'VTU "
                      "interval': the records stay at fixed times when the step size changes (adaptive "
                      "steps, retries). A whole multiple of 'Time integration/Time step', so that every "
                      "record falls on the end of a step. 0: records every 'VTU interval' steps.");
    prm.declare_entry("VTU compression", "best speed", Selection(names_pattern(vtu_compressions)),
                      "zlib level of the solution's VTU files. On the default 3D example (51 records of "
                      "2 187 DoFs) 'best compression' makes files 7 % smaller than 'best speed' and "
                      "takes 2.6 times as long to write; 'none' makes them 2.6 times larger "
                      "(doc/user_guide.md, 'Output').");
    prm.declare_entry("VTU files per record", "0", Integer(0),
                      "On several MPI ranks: 0 writes one solution .vtu per rank and record (and a "
                      ".pvtu that lists them); N >= 1 writes N files per record, the ranks' pieces "
                      "grouped with MPI-IO (1: a single .vtu per record, the contact points as well), "
                      "for parallel file systems and runs on many ranks. No effect on one rank.");
    prm.declare_entry("Write in background", "true", Bool(),
                      "With one solution file per rank ('VTU files per record' = 0, or one rank): "
                      "build each record's patches (the stress included) and encode, compress and "
                      "write its .vtu in a thread of its own while the time steps go on (the fields "
                      "are copied first; the run waits for the last record before a checkpoint and "
                      "at its end). It uses a core the ranks leave free; where every core runs a "
                      "rank, false writes in the step loop.");
    prm.declare_entry("Progress interval", "2", Double(0),
                      "Print a progress line (step, time, wall time, ETA) every this many wall-clock "
                      "seconds on rank 0; 0 prints none.");
    prm.declare_entry("Postprocessors", "statistics, vtu, events", Anything(),
                      "The outputs of the run, a comma-separated list: statistics (statistics.csv, one "
                      "row per step), vtu (the ParaView records of 'VTU interval'), events (events.csv), "
                      "step timings (step_timings.csv), bodies (bodies.csv), probes (probes.csv at "
                      "'Probe points'), contact forces (contact_forces.csv, the contact force on each "
                      "body per step). After every step the tables are written first, then the VTU "
                      "records, whatever the order of the list. The older entries 'Write statistics', 'Write step "
                      "timings', 'Write "
                      "bodies' and a non-empty 'Probe points' still add (or, 'Write statistics' = false, "
                      "take out) their postprocessor.");
    for (const auto &plugin : postprocessor_plugins<1>())
      if (plugin.declare_parameters != nullptr)
        plugin.declare_parameters(prm);
    prm.declare_entry("Checkpoint interval", "0", Integer(0),
                      "Write a checkpoint every this many steps into <Directory>/checkpoints/step-N "
                      "(restart with 'percussion FILE.prm --resume <Directory>'); 0: none at intervals. "
                      "A run stopped by SIGTERM/SIGINT or by 'Contact solver/Non-convergence policy' = "
                      "stop writes one whatever this is.");
    prm.declare_entry("Checkpoint minutes", "0", Double(0),
                      "Also write a checkpoint when this many wall-clock minutes have passed since the "
                      "last one (or the start); 0: no time-based checkpoints.");
    prm.declare_entry("Checkpoints kept", "2", Integer(1),
                      "How many of the newest checkpoints are kept; older ones are deleted once a new "
                      "one is complete.");
    prm.leave_subsection();
  }

  void OutputParameters::parse_parameters(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Output");
    directory = prm.get("Directory");
    vtu_interval = prm.get_integer("VTU interval");
    vtu_time_interval = prm.get_double("VTU time interval");
    vtu_compression = value_of(vtu_compressions, prm.get("VTU compression"), "Output/VTU compression");
    vtu_files_per_record = prm.get_integer("VTU files per record");
    write_in_background = prm.get_bool("Write in background");
    progress_interval = prm.get_double("Progress interval");
    postprocessors = dealii::Utilities::split_string_list(prm.get("Postprocessors"), ',');
    // (Checked here rather than by a pattern: the message names the entry and the unknown name.)
    const auto &plugins = postprocessor_plugins<1>();
    for (const std::string &name : postprocessors)
      if (std::none_of(plugins.begin(), plugins.end(), [&](const auto &plugin) { return plugin.name == name; }))
        {
          std::string known;
          for (const auto &plugin : plugins)
            known += (known.empty() ? "" : ", ") + plugin.name;
          throw InputError("Parameter 'Output/Postprocessors': '" + name + "' is not a postprocessor; they are " +
                           known + ".");
        }
    for (const auto &plugin : postprocessor_plugins<1>())
      if (plugin.parse_parameters != nullptr)
        plugin.parse_parameters(prm, *this);
    checkpoint_interval = prm.get_integer("Checkpoint interval");
    checkpoint_minutes = prm.get_double("Checkpoint minutes");
    checkpoints_kept = prm.get_integer("Checkpoints kept");
    prm.leave_subsection();
    if (directory.empty())
      throw InputError("Parameter 'Output/Directory' is empty.");
  }

  bool OutputParameters::lists(const std::string &name) const
  {
    return std::find(postprocessors.begin(), postprocessors.end(), name) != postprocessors.end();
  }

  void OutputParameters::set_listed(const std::string &name, const bool listed)
  {
    if (listed && !lists(name))
      postprocessors.push_back(name);
    if (!listed)
      postprocessors.erase(std::remove(postprocessors.begin(), postprocessors.end(), name), postprocessors.end());
  }

  void OutputParameters::check_writable() const
  {
    namespace fs = std::filesystem;
    std::error_code error;
    if (fs::exists(directory, error))
      {
        if (!fs::is_directory(directory, error))
          throw InputError("Parameter 'Output/Directory': '" + directory + "' exists and is not a directory.");
        const std::string probe = directory + "/.percussion_write_test_" + std::to_string(::getpid());
        {
          std::ofstream test(probe);
          if (!test || !(test << "test"))
            throw InputError("Parameter 'Output/Directory': the directory '" + directory + "' is not writable (" +
                             std::strerror(errno) + ").");
        }
        fs::remove(probe, error);
        return;
      }
    // A missing directory is created by create_directory() once the whole input is accepted; here
    // only its nearest existing ancestor is checked.
    fs::path ancestor = fs::path(directory).lexically_normal();
    do
      ancestor = ancestor.has_relative_path() && ancestor.has_parent_path() ? ancestor.parent_path() : fs::path(".");
    while (ancestor != "." && !fs::exists(ancestor, error));
    if (!fs::is_directory(ancestor, error))
      throw InputError("Parameter 'Output/Directory': cannot create the directory '" + directory + "' ('" +
                       ancestor.string() + "' is not a directory).");
    if (::access(ancestor.c_str(), W_OK | X_OK) != 0)
      throw InputError("Parameter 'Output/Directory': cannot create the directory '" + directory + "' in '" +
                       ancestor.string() + "' (" + std::strerror(errno) + ").");
  }

  void OutputParameters::create_directory() const
  {
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    if (!std::filesystem::is_directory(directory))
      throw InputError("Parameter 'Output/Directory': cannot create the directory '" + directory + "'" +
                       (error ? " (" + error.message() + ")" : std::string()) + ".");
  }
} // namespace percussion::Postprocess
