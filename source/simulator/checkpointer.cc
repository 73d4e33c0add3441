// The checkpoints of a run: what a checkpoint must match, writing one (atomically) and resuming
// from one. The file format is in checkpoint.cc.
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/checkpointer.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  Checkpointer<dim>::Checkpointer(const RunParameters &parameters, MPI_Comm communicator, ConditionalOStream &log,
                                  RunState state, double &output_seconds)
    : parameters(parameters)
    , communicator(communicator)
    , log(log)
    , state(std::move(state))
    , output_seconds(output_seconds)
    , last_written(std::chrono::steady_clock::now())
  {
  }

  template <int dim>
  Checkpoint::Header Checkpointer<dim>::run_identity() const
  {
    Checkpoint::Header identity;
    identity.set_count("dimension", dim);
    identity.set_count("element_degree", parameters.mesh.fe_degree);
    // (The description gives the scheme's parameters, the name its contact law.)
    identity.set("scheme", TimeIntegration::to_string(parameters.time.scheme) + ", " + state.integrator.description());
    identity.set_real("time_step", parameters.time.time_step);
    identity.set_real("start_time", parameters.time.start_time);
    identity.set_count("active_cells", state.triangulation.n_global_active_cells());
    // The mesh does not change during a run: its fingerprint is computed once (collective: every
    // caller of run_identity() is).
    if (!mesh_fingerprint_value)
      mesh_fingerprint_value = Checkpoint::mesh_fingerprint(state.bodies.get_dof_handler(), communicator);
    identity.set_count("mesh_fingerprint", *mesh_fingerprint_value);
    identity.set_count("dofs", state.bodies.get_dof_handler().n_dofs());
    identity.set_count("contact_pairs", parameters.contact.pairs.size());
    std::string names;
    for (const auto &[name, vector] : state.integrator.saved_vectors())
      names += (names.empty() ? "" : " ") + name;
    identity.set("vectors", names);
    return identity;
  }

  template <int dim>
  void Checkpointer<dim>::resume_from(const std::string &path)
  {
    // On every rank: each reads the header (a shared file system, as for the mesh file).
    const std::string directory = Checkpoint::locate(path);
    Checkpoint::Header header = Checkpoint::Header::read(directory + "/" + Checkpoint::header_file);
    // What makes a checkpoint another run's, with the parameter a user would have changed, in the
    // order that names the cause before its consequences (another dimension changes the mesh too).
    const std::vector<std::pair<std::string, std::string>>
      parameter_of{{"dimension", "Dimension"},
                   {"element_degree", "Mesh/Finite element degree"},
                   {"scheme", "Time integration/Scheme and its parameters"},
                   {"vectors", "Time integration/Scheme"},
                   {"time_step", "Time integration/Time step"},
                   {"start_time", "Time integration/Start time"},
                   {"contact_pairs", "Contact/Number of pairs"},
                   {"active_cells", "Mesh (its size or refinement)"},
                   {"dofs", "Mesh"},
                   {"mesh_fingerprint", "Mesh (its geometry, refinement or materials)"}};
    const Checkpoint::Header identity = run_identity();
    for (const auto &[key, parameter] : parameter_of)
      if (header.get(key) != identity.get(key))
        throw InputError("The checkpoint " + directory + " is not of this run: its " + key + " is '" + header.get(key) +
                         "', this run's is '" + identity.get(key) + "' (parameter '" + parameter + "').");
    for (unsigned int rank = 0; rank < header.get_count("ranks"); ++rank)
      if (!std::filesystem::exists(directory + "/" + Checkpoint::dofs_file(rank)))
        throw InputError("The checkpoint " + directory + " is incomplete: " + Checkpoint::dofs_file(rank) +
                         " is missing.");
    if (state.contact_step != nullptr && !std::filesystem::exists(directory + "/" + Checkpoint::history_file))
      throw InputError("The checkpoint " + directory + " is incomplete: " + Checkpoint::history_file + " is missing.");
    // (In nominal steps of the clock: with adaptive steps more steps than that reach the end.)
    if (header.get_real("integrator_elapsed_steps") > parameters.time.n_steps())
      throw InputError("The checkpoint " + directory + " is after the end of this run (t = " +
                       header.get("integrator_current_time") + ", " + std::to_string(parameters.time.n_steps()) +
                       " steps of 'Time integration/Time step' to its end): parameter 'Time integration/End time'.");
    directory_to_resume = directory;
    step_to_resume = static_cast<unsigned int>(header.get_count("integrator_step"));
    header_to_resume = std::move(header);
    log << "resuming from " << directory_to_resume << ": step " << *step_to_resume
        << ", t = " << header_to_resume->get_real("integrator_current_time") << " (written on "
        << header_to_resume->get("ranks") << " rank(s))" << std::endl;
  }

  template <int dim>
  unsigned int Checkpointer<dim>::resumed_events() const
  {
    return header_to_resume ? header_to_resume->get_count("events") : 0;
  }

  template <int dim>
  unsigned int Checkpointer<dim>::restore()
  {
    const Checkpoint::Header &header = *header_to_resume;
    std::vector<std::string> files;
    for (unsigned int rank = 0; rank < header.get_count("ranks"); ++rank)
      files.push_back(directory_to_resume + "/" + Checkpoint::dofs_file(rank));
    std::vector<PETScWrappers::MPI::Vector *> vectors;
    for (const auto &[name, vector] : state.integrator.saved_vectors())
      vectors.push_back(vector);
    const auto dof_map = Checkpoint::read_dof_values(files, state.bodies.get_dof_handler(), vectors);
    std::optional<ContactStep::FrictionalContactStep::History> history;
    if (state.contact_step)
      history = Checkpoint::translate_contact_keys(Checkpoint::read_contact_history(directory_to_resume + "/" +
                                                                                    Checkpoint::history_file),
                                                   dof_map, state.bodies.get_dof_handler().n_dofs(), communicator);
    for (const SavedValue &value : state.saved_values())
      {
        if (value.real != nullptr)
          *value.real = header.get_real(value.name);
        else
          *value.count = static_cast<unsigned int>(header.get_count(value.name));
      }
    if (state.contact_step)
      state.contact_step->restore_history(std::move(*history));
    state.after_restore();
    // Everything is read: from here on the output files are rewritten.
    const auto series = [&header](const std::string &prefix) {
      std::vector<std::pair<double, std::string>> records(header.get_count(prefix + "_records"));
      for (std::size_t i = 0; i < records.size(); ++i)
        records[i] = {header.get_real(prefix + "_time_" + std::to_string(i)),
                      header.get(prefix + "_file_" + std::to_string(i))};
      return records;
    };
    vtu->restore(series("solution"),
                 vtu->contact_records() != nullptr ? series("contact") : std::vector<std::pair<double, std::string>>());
    return static_cast<unsigned int>(header.get_count("nominal_steps_done"));
  }

  template <int dim>
  bool Checkpointer<dim>::write_if_due(const unsigned int nominal_steps)
  {
    // Every 'Checkpoint interval' steps and every 'Checkpoint minutes' (rank 0's clock decides, so
    // that every rank writes its part).
    const auto &out = parameters.output;
    bool due = out.checkpoint_interval > 0 && nominal_steps % out.checkpoint_interval == 0;
    if (out.checkpoint_minutes > 0)
      due =
        Utilities::MPI::broadcast(communicator,
                                  due || std::chrono::duration<double>(std::chrono::steady_clock::now() - last_written)
                                             .count() >= 60 * out.checkpoint_minutes,
                                  0);
    if (!due)
      return false;
    write(nominal_steps,
          "every " + (out.checkpoint_interval > 0 ? std::to_string(out.checkpoint_interval) + " steps"
                                                  : std::to_string(out.checkpoint_minutes) + " minutes"));
    last_written = std::chrono::steady_clock::now();
    return true;
  }

  template <int dim>
  void Checkpointer<dim>::write_on_signal(const unsigned int nominal_steps, const std::string &signal_name)
  {
    write(nominal_steps, "stopped by " + signal_name);
  }

  template <int dim>
  void Checkpointer<dim>::write_on_policy_stop(const unsigned int nominal_steps)
  {
    write(nominal_steps, "contact problem not solved, policy stop");
  }

  template <int dim>
  void Checkpointer<dim>::write(const unsigned int nominal_steps, const std::string &reason)
  {
    Timer timer;
    // The records the checkpoint lists are complete on disk before it is written.
    if (vtu)
      vtu->finish_writing();
    namespace fs = std::filesystem;
    char name[32];
    std::snprintf(name, sizeof(name), "step-%010u", state.integrator.step_number());
    const fs::path folder = fs::path(parameters.output.directory) / "checkpoints";
    const fs::path final_path = folder / name;
    const fs::path partial = folder / (std::string(name) + ".partial");
    create_directory(partial);
    write_files(partial, nominal_steps, reason);
    // Every rank's part is closed before rank 0 renames the directory.
    MPI_Barrier(communicator);
    publish(partial, final_path);
    MPI_Barrier(communicator);
    last_path = final_path.string();
    log << "checkpoint: " << final_path.string() << " (step " << state.integrator.step_number()
        << ", t = " << state.integrator.time() << "; " << reason << ")" << std::endl;
    output_seconds += timer.wall_time();
  }

  template <int dim>
  void Checkpointer<dim>::create_directory(const std::filesystem::path &partial) const
  {
    // Rank 0 makes the directory; an error there stops every rank (the broadcast carries it).
    std::string error;
    if (Utilities::MPI::this_mpi_process(communicator) == 0)
      {
        std::error_code code;
        std::filesystem::remove_all(partial, code);
        std::filesystem::create_directories(partial, code);
        if (code)
          error = "cannot create the checkpoint directory '" + partial.string() + "': " + code.message();
      }
    error = Utilities::MPI::broadcast(communicator, error, 0);
    if (!error.empty())
      throw InputError("Parameter 'Output/Directory': " + error + ".");
  }

  template <int dim>
  void Checkpointer<dim>::write_files(const std::filesystem::path &partial, const unsigned int nominal_steps,
                                      const std::string &reason)
  {
    // The vectors with ghost entries: a locally owned cell's DoFs may belong to a neighbour.
    const auto &bodies = state.bodies;
    std::vector<PETScWrappers::MPI::Vector> ghosted;
    std::vector<const PETScWrappers::MPI::Vector *> pointers;
    const auto vectors = state.integrator.saved_vectors();
    ghosted.reserve(vectors.size());
    for (const auto &[vector_name, vector] : vectors)
      {
        ghosted.emplace_back(bodies.locally_owned_dofs(), bodies.locally_relevant_dofs(), communicator);
        ghosted.back() = *vector;
        pointers.push_back(&ghosted.back());
      }
    Checkpoint::write_dof_values((partial / Checkpoint::dofs_file(Utilities::MPI::this_mpi_process(communicator)))
                                   .string(),
                                 bodies.get_dof_handler(), pointers);
    Checkpoint::Header header = run_identity(); // (collective: the mesh fingerprint)
    // (collective: each rank holds its own contacts' history)
    std::optional<ContactStep::FrictionalContactStep::History> contact_history;
    if (state.contact_step)
      contact_history = state.contact_step->history(state.integrator);
    if (Utilities::MPI::this_mpi_process(communicator) != 0)
      return;
    header.set_count("ranks", Utilities::MPI::n_mpi_processes(communicator));
    header.set_count("nominal_steps_done", nominal_steps);
    header.set("reason", reason);
    header.set_count("events", state.events.count());
    for (const SavedValue &value : state.saved_values())
      {
        if (value.real != nullptr)
          header.set_real(value.name, *value.real);
        else
          header.set_count(value.name, *value.count);
      }
    const auto series = [&header](const std::string &prefix,
                                  const std::vector<std::pair<double, std::string>> &records) {
      header.set_count(prefix + "_records", records.size());
      for (std::size_t i = 0; i < records.size(); ++i)
        {
          header.set_real(prefix + "_time_" + std::to_string(i), records[i].first);
          header.set(prefix + "_file_" + std::to_string(i), records[i].second);
        }
    };
    series("solution", vtu->solution_records());
    if (vtu->contact_records() != nullptr)
      series("contact", *vtu->contact_records());
    if (contact_history)
      Checkpoint::write_contact_history((partial / Checkpoint::history_file).string(), *contact_history);
    // The header last: a checkpoint without one is not complete (Checkpoint::locate()).
    header.write((partial / Checkpoint::header_file).string());
  }

  template <int dim>
  void Checkpointer<dim>::publish(const std::filesystem::path &partial, const std::filesystem::path &final_path) const
  {
    namespace fs = std::filesystem;
    if (Utilities::MPI::this_mpi_process(communicator) != 0)
      return;
    std::error_code code;
    fs::remove_all(final_path, code);
    fs::rename(partial, final_path, code);
    if (code)
      throw InputError("Parameter 'Output/Directory': cannot rename the checkpoint '" + partial.string() +
                       "': " + code.message() + ".");
    // The newest 'Checkpoints kept' stay (names sort by step).
    std::vector<fs::path> complete;
    for (const auto &entry : fs::directory_iterator(final_path.parent_path(), code))
      {
        const std::string entry_name = entry.path().filename().string();
        if (entry_name.rfind("step-", 0) == 0 && entry_name.find('.') == std::string::npos)
          complete.push_back(entry.path());
      }
    std::sort(complete.begin(), complete.end());
    for (std::size_t i = 0; i + parameters.output.checkpoints_kept < complete.size(); ++i)
      fs::remove_all(complete[i], code);
  }

  template class Checkpointer<1>;
  template class Checkpointer<2>;
  template class Checkpointer<3>;
} // namespace percussion
