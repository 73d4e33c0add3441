// The Simulator's checkpoints: what a checkpoint must match, the scalars it keeps, writing one
// (atomically) and resuming from one. The file format is in checkpoint.cc.
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/simulator.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  Checkpoint::Header Simulator<dim>::run_identity() const
  {
    Checkpoint::Header identity;
    identity.set_count("dimension", dim);
    identity.set_count("element_degree", parameters.mesh.fe_degree);
    // (The description gives the scheme's parameters, the name its contact law.)
    identity.set("scheme", TimeIntegration::to_string(parameters.time.scheme) + ", " + time_integrator->description());
    identity.set_real("time_step", parameters.time.time_step);
    identity.set_real("start_time", parameters.time.start_time);
    identity.set_count("active_cells", triangulation->n_global_active_cells());
    // The mesh does not change during a run: its fingerprint is computed once (collective: every
    // caller of run_identity() is).
    if (!mesh_fingerprint_value)
      mesh_fingerprint_value = Checkpoint::mesh_fingerprint(bodies->get_dof_handler(), communicator);
    identity.set_count("mesh_fingerprint", *mesh_fingerprint_value);
    identity.set_count("dofs", bodies->get_dof_handler().n_dofs());
    identity.set_count("contact_pairs", parameters.contact.pairs.size());
    std::string names;
    for (const auto &[name, vector] : time_integrator->saved_vectors())
      names += (names.empty() ? "" : " ") + name;
    identity.set("vectors", names);
    return identity;
  }

  template <int dim>
  SavedValues Simulator<dim>::saved_values()
  {
    SavedValues values{{"lowest_gap", &lowest_gap},
                       {"end_of_step_min_gap", &end_of_step_min_gap},
                       {"projection_steps", nullptr, &n_projection_steps},
                       {"projection_warnings", nullptr, &n_projection_warnings},
                       {"positive_work_warnings", nullptr, &n_positive_work_warnings},
                       {"unconverged_steps", nullptr, &n_unconverged_steps},
                       {"last_written_step", nullptr, &vtu_output->last_recorded_step()}};
    for (SavedValues layer : {time_integrator->saved_values(), audit.saved_values()})
      values.insert(values.end(), layer.begin(), layer.end());
    // The frames the next step starts from (large rotations: taken anew only past an angle, so
    // they depend on the history, not on q alone).
    if (system.frames)
      for (std::size_t i = 0; i < frames->frame_values().size(); ++i)
        values.push_back({"body_frame_" + std::to_string(i), &frames->frame_values()[i]});
    return values;
  }

  template <int dim>
  void Simulator<dim>::resume_from(const std::string &path)
  {
    // On every rank: each reads the header (a shared file system, as for the mesh file).
    resume_directory = Checkpoint::locate(path);
    Checkpoint::Header header = Checkpoint::Header::read(resume_directory + "/" + Checkpoint::header_file);
    // What makes a checkpoint another run's, with the parameter a user would have changed, in the
    // order that names the cause before its consequences (another dimension changes the mesh too).
    const std::vector<std::pair<std::string, std::string>> parameter_of{
      {"dimension", "Dimension"},
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
        throw InputError("The checkpoint " + resume_directory + " is not of this run: its " + key + " is '" +
                         header.get(key) + "', this run's is '" + identity.get(key) + "' (parameter '" + parameter +
                         "').");
    for (unsigned int rank = 0; rank < header.get_count("ranks"); ++rank)
      if (!std::filesystem::exists(resume_directory + "/" + Checkpoint::dofs_file(rank)))
        throw InputError("The checkpoint " + resume_directory + " is incomplete: " + Checkpoint::dofs_file(rank) +
                         " is missing.");
    if (geometry && !std::filesystem::exists(resume_directory + "/" + Checkpoint::history_file))
      throw InputError("The checkpoint " + resume_directory + " is incomplete: " + Checkpoint::history_file +
                       " is missing.");
    if (header.get_count("nominal_steps_done") > parameters.time.n_steps())
      throw InputError("The checkpoint " + resume_directory + " is after the end of this run (step " +
                       header.get("nominal_steps_done") + " of " + std::to_string(parameters.time.n_steps()) +
                       "): parameter 'Time integration/End time'.");
    resumed_step = static_cast<unsigned int>(header.get_count("integrator_step"));
    resume_header = std::move(header);
    log << "resuming from " << resume_directory << ": step " << *resumed_step << ", t = "
        << resume_header->get_real("integrator_current_time") << " (written on " << resume_header->get("ranks")
        << " rank(s))" << std::endl;
  }

  template <int dim>
  void Simulator<dim>::write_checkpoint(const unsigned int nominal_steps, const std::string &reason)
  {
    Timer timer;
    // The records the checkpoint lists are complete on disk before it is written.
    if (vtu_output)
      vtu_output->finish_writing();
    namespace fs = std::filesystem;
    const bool root = Utilities::MPI::this_mpi_process(communicator) == 0;
    const unsigned int step = time_integrator->step_number();
    char name[32];
    std::snprintf(name, sizeof(name), "step-%010u", step);
    const fs::path folder = fs::path(parameters.output.directory) / "checkpoints";
    const fs::path final_path = folder / name;
    const fs::path partial = folder / (std::string(name) + ".partial");
    // Rank 0 makes the directory; an error there stops every rank (the broadcast carries it).
    std::string error;
    if (root)
      {
        std::error_code code;
        fs::remove_all(partial, code);
        fs::create_directories(partial, code);
        if (code)
          error = "cannot create the checkpoint directory '" + partial.string() + "': " + code.message();
      }
    error = Utilities::MPI::broadcast(communicator, error, 0);
    if (!error.empty())
      throw InputError("Parameter 'Output/Directory': " + error + ".");

    // The vectors with ghost entries: a locally owned cell's DoFs may belong to a neighbour.
    std::vector<PETScWrappers::MPI::Vector> ghosted;
    std::vector<const PETScWrappers::MPI::Vector *> pointers;
    const auto vectors = time_integrator->saved_vectors();
    ghosted.reserve(vectors.size());
    for (const auto &[vector_name, vector] : vectors)
      {
        ghosted.emplace_back(bodies->locally_owned_dofs(), bodies->locally_relevant_dofs(), communicator);
        ghosted.back() = *vector;
        pointers.push_back(&ghosted.back());
      }
    Checkpoint::write_dof_values((partial / Checkpoint::dofs_file(Utilities::MPI::this_mpi_process(communicator))).string(),
                                 bodies->get_dof_handler(), pointers);
    Checkpoint::Header header = run_identity(); // (collective: the mesh fingerprint)
    // (collective: each rank holds its own contacts' history)
    std::optional<TimeIntegration::FrictionalContactStep::History> contact_history;
    if (contact_step)
      contact_history = contact_step->history();
    if (root)
      {
        header.set_count("ranks", Utilities::MPI::n_mpi_processes(communicator));
        header.set_count("nominal_steps_done", nominal_steps);
        header.set("reason", reason);
        header.set_count("events", events.count());
        for (const SavedValue &value : saved_values())
          {
            if (value.real != nullptr)
              header.set_real(value.name, *value.real);
            else
              header.set_count(value.name, *value.count);
          }
        const auto series = [&header](const std::string &prefix, const std::vector<std::pair<double, std::string>> &records) {
          header.set_count(prefix + "_records", records.size());
          for (std::size_t i = 0; i < records.size(); ++i)
            {
              header.set_real(prefix + "_time_" + std::to_string(i), records[i].first);
              header.set(prefix + "_file_" + std::to_string(i), records[i].second);
            }
        };
        series("solution", vtu_output->solution_records());
        if (vtu_output->contact_records() != nullptr)
          series("contact", *vtu_output->contact_records());
        if (contact_history)
          Checkpoint::write_contact_history((partial / Checkpoint::history_file).string(), *contact_history);
        // The header last: a checkpoint without one is not complete (Checkpoint::locate()).
        header.write((partial / Checkpoint::header_file).string());
      }
    // Every rank's part is closed before rank 0 renames the directory.
    MPI_Barrier(communicator);
    if (root)
      {
        std::error_code code;
        fs::remove_all(final_path, code);
        fs::rename(partial, final_path, code);
        if (code)
          throw InputError("Parameter 'Output/Directory': cannot rename the checkpoint '" + partial.string() +
                           "': " + code.message() + ".");
        // The newest 'Checkpoints kept' stay (names sort by step).
        std::vector<fs::path> complete;
        for (const auto &entry : fs::directory_iterator(folder, code))
          {
            const std::string entry_name = entry.path().filename().string();
            if (entry_name.rfind("step-", 0) == 0 && entry_name.find('.') == std::string::npos)
              complete.push_back(entry.path());
          }
        std::sort(complete.begin(), complete.end());
        for (std::size_t i = 0; i + parameters.output.checkpoints_kept < complete.size(); ++i)
          fs::remove_all(complete[i], code);
      }
    MPI_Barrier(communicator);
    log << "checkpoint: " << final_path.string() << " (step " << step << ", t = " << time_integrator->time() << "; "
        << reason << ")" << std::endl;
    run_timings.output += timer.wall_time();
  }

  template <int dim>
  unsigned int Simulator<dim>::restore_checkpoint()
  {
    const Checkpoint::Header &header = *resume_header;
    std::vector<std::string> files;
    for (unsigned int rank = 0; rank < header.get_count("ranks"); ++rank)
      files.push_back(resume_directory + "/" + Checkpoint::dofs_file(rank));
    std::vector<PETScWrappers::MPI::Vector *> vectors;
    for (const auto &[name, vector] : time_integrator->saved_vectors())
      vectors.push_back(vector);
    const auto dof_map = Checkpoint::read_dof_values(files, bodies->get_dof_handler(), vectors);
    std::optional<TimeIntegration::FrictionalContactStep::History> history;
    if (contact_step)
      history = Checkpoint::translate_contact_keys(
        Checkpoint::read_contact_history(resume_directory + "/" + Checkpoint::history_file), dof_map,
        bodies->get_dof_handler().n_dofs(), communicator);
    for (const SavedValue &value : saved_values())
      {
        if (value.real != nullptr)
          *value.real = header.get_real(value.name);
        else
          *value.count = static_cast<unsigned int>(header.get_count(value.name));
      }
    if (contact_step)
      contact_step->restore_history(std::move(*history));
    if (system.frames)
      frames->frames_from_values();
    // Everything is read: from here on the output files are rewritten.
    const auto series = [&header](const std::string &prefix) {
      std::vector<std::pair<double, std::string>> records(header.get_count(prefix + "_records"));
      for (std::size_t i = 0; i < records.size(); ++i)
        records[i] = {header.get_real(prefix + "_time_" + std::to_string(i)),
                      header.get(prefix + "_file_" + std::to_string(i))};
      return records;
    };
    vtu_output->restore(series("solution"), geometry ? series("contact") : std::vector<std::pair<double, std::string>>());
    return static_cast<unsigned int>(header.get_count("nominal_steps_done"));
  }

  // The checkpoint members of Simulator, for the dimensions Simulator is instantiated for in
  // simulator.cc.
#define PERCUSSION_INSTANTIATE(dim)                                                                  \
  template Checkpoint::Header Simulator<dim>::run_identity() const;                                  \
  template SavedValues        Simulator<dim>::saved_values();                                        \
  template void               Simulator<dim>::resume_from(const std::string &);                      \
  template void               Simulator<dim>::write_checkpoint(unsigned int, const std::string &);   \
  template unsigned int       Simulator<dim>::restore_checkpoint();
  PERCUSSION_INSTANTIATE(1)
  PERCUSSION_INSTANTIATE(2)
  PERCUSSION_INSTANTIATE(3)
#undef PERCUSSION_INSTANTIATE
} // namespace percussion
