#ifndef PERCUSSION_SIMULATOR_CHECKPOINTER_H
#define PERCUSSION_SIMULATOR_CHECKPOINTER_H

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/grid/tria.h>

#include <percussion/body/elastic_body.h>
#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/core/saved_value.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/postprocess/vtu_output.h>
#include <percussion/simulator/checkpoint.h>
#include <percussion/simulator/run_parameters.h>
#include <percussion/time_integration/time_integrator.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace percussion
{
  /**
   * The checkpoints of a run (doc/user_guide.md, "Checkpoints and restart"; the files in
   * checkpoint.h): writes one when 'Output/Checkpoint interval' or 'Checkpoint minutes' asks for it,
   * when a signal stops the run and when the contact 'Non-convergence policy' = stop does; checks
   * that a checkpoint to resume from is this run's, and restores the run's state from it.
   */
  template <int dim>
  class Checkpointer
  {
  public:
    /// The parts of a run a checkpoint identifies, saves and restores.
    struct RunState
    {
      const dealii::Triangulation<dim> &triangulation;
      const Body::ElasticBody<dim> &bodies;
      TimeIntegration::TimeIntegrator &integrator;
      /// The contact step (its impulses' history; nullptr without contact pairs).
      ContactStep::FrictionalContactStep *contact_step;
      const Postprocess::EventLog &events;
      /// Every scalar of the run's state, by name, in the header's order.
      std::function<SavedValues()> saved_values;
      /// Called once the scalars are restored (state derived from them, e.g. the bodies' frames).
      std::function<void()> after_restore;
    };

    /// The seconds spent writing checkpoints are added to @p output_seconds.
    Checkpointer(const RunParameters &parameters, MPI_Comm communicator, dealii::ConditionalOStream &log,
                 RunState state, double &output_seconds);

    /// What a checkpoint must match to continue this run (the keys resume_from() compares). Collective.
    Checkpoint::Header run_identity() const;
    /**
     * Takes the checkpoint @p path (Simulator::resume_from()) and checks at once, before anything
     * is written, that it is this run's. @throws InputError naming the first difference and its
     * parameter, or a missing file. Collective.
     */
    void resume_from(const std::string &path);
    /// Whether the run continues from a checkpoint (resume_from()).
    bool resuming() const { return header_to_resume.has_value(); }
    /// The step number (statistics' `step`) the checkpoint to resume from was written after.
    std::optional<unsigned int> resumed_step() const { return step_to_resume; }
    /// The number of events before the checkpoint to resume from (0 without one).
    unsigned int resumed_events() const;
    /// The run's ParaView records: a checkpoint lists them, and waits for them to be on disk.
    void attach(Postprocess::VtuOutput<dim> &records) { vtu = &records; }
    /**
     * Restores the state of resume_from()'s checkpoint after the integrator is initialized, and the
     * records of the attached VtuOutput; returns the number of nominal steps it had done. Reads the
     * whole checkpoint before it rewrites any output. Collective.
     */
    unsigned int restore();

    /// Starts the clock of 'Checkpoint minutes'.
    void start_clock() { last_written = std::chrono::steady_clock::now(); }
    /// Writes a checkpoint after @p nominal_steps when 'Checkpoint interval' or 'Checkpoint
    /// minutes' asks for one; returns whether it did. Collective.
    bool write_if_due(unsigned int nominal_steps);
    /// The checkpoint of a run stopped by the signal @p signal_name after @p nominal_steps. Collective.
    void write_on_signal(unsigned int nominal_steps, const std::string &signal_name);
    /// The checkpoint of a run the contact 'Non-convergence policy' = stop ended. Collective.
    void write_on_policy_stop(unsigned int nominal_steps);
    /**
     * Writes the state after the last step, @p nominal_steps steps of the nominal size from the
     * start, to <Output/Directory>/checkpoints/step-N, atomically (written as step-N.partial, then
     * renamed), and deletes the checkpoints beyond 'Checkpoints kept'. Collective.
     */
    void write(unsigned int nominal_steps, const std::string &reason);
    /// The folder of the last checkpoint this run wrote, or the one it resumed from; empty if none.
    const std::string &last_checkpoint() const { return last_path.empty() ? directory_to_resume : last_path; }

  private:
    /// Rank 0 makes @p partial afresh; an error there stops every rank. Collective.
    void create_directory(const std::filesystem::path &partial) const;
    /// Every rank writes its DoF values, rank 0 the contact history and then the header. Collective.
    void write_files(const std::filesystem::path &partial, unsigned int nominal_steps, const std::string &reason);
    /// Rank 0 renames @p partial to @p final_path and deletes the checkpoints beyond 'Checkpoints kept'.
    void publish(const std::filesystem::path &partial, const std::filesystem::path &final_path) const;

    const RunParameters &parameters;
    MPI_Comm communicator;
    dealii::ConditionalOStream &log;
    RunState state;
    double &output_seconds;
    Postprocess::VtuOutput<dim> *vtu = nullptr;
    /// The checkpoint to resume from and its header.
    std::string directory_to_resume;
    std::optional<Checkpoint::Header> header_to_resume;
    std::optional<unsigned int> step_to_resume;
    std::chrono::steady_clock::time_point last_written; ///< for 'Checkpoint minutes'
    std::string last_path;                              ///< last_checkpoint()
    /// Checkpoint::mesh_fingerprint() of this run's mesh, once computed (run_identity()).
    mutable std::optional<std::uint64_t> mesh_fingerprint_value;
  };
} // namespace percussion

#endif
