#ifndef PERCUSSION_SIMULATOR_RUN_REPORT_H
#define PERCUSSION_SIMULATOR_RUN_REPORT_H

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/grid/tria.h>

#include <percussion/postprocess/energy_audit.h>
#include <percussion/postprocess/postprocessor_interface.h>
#include <percussion/simulator/adaptive_step_policy.h>
#include <percussion/simulator/contact_reporting.h>
#include <percussion/simulator/energy_guard.h>
#include <percussion/simulator/run_parameters.h>
#include <percussion/time_integration/time_integrator.h>

#include <string>

#include <mpi.h>

namespace percussion
{
  /// Wall-clock seconds of the phases of a run and the peak memory (for benchmarks and the log).
  struct RunTimings
  {
    double mesh = 0, setup_and_assembly = 0, factorisation = 0, time_stepping = 0, output = 0;
    /// Parts of the time stepping: contact geometry (search, H), free-velocity solve, contact step
    /// (Delassus columns, the local problem and its solve, the impulse), and the contact solver alone.
    double contact_geometry = 0, free_velocity = 0, contact_step = 0, contact_solver = 0;
    /// The end-of-step gap check and the position projections (without the factorisation below).
    double projection = 0;
    /// The quasi-static projection metric's factorisation (at the first projection; not in
    /// time_stepping nor in projection).
    double projection_metric_factorisation = 0;
    unsigned int steps = 0;
    double peak_memory_mib_max_rank = 0, peak_memory_mib_total = 0;

    /// The step phases' seconds since @p before (one step's share, for step_timings.csv).
    Postprocess::StepView::PhaseSeconds phases_since(const RunTimings &before) const;
    /**
     * At the end of the loop: @p n_steps steps took @p stepping_seconds of wall clock, of which the
     * output took what `output` gained since @p output_before; the projection metric's
     * factorisation (@p metric_seconds, once per run like the iteration matrix's) is a set-up cost,
     * reported apart from the steps and from the projections.
     */
    void close_time_stepping(unsigned int n_steps, double stepping_seconds, double output_before,
                             double metric_seconds);
  };

  /**
   * What a run estimates from its materials, mesh and step (the fastest and slowest wave speeds,
   * the Courant number, the quasi-static projection metric's time), and the log's report at its
   * end: timings and memory, the energy balance, the contact and energy-guard summaries, the
   * adaptive steps' levels, and the note on modes the step leaves unresolved.
   */
  template <int dim>
  class RunReport
  {
  public:
    /// Measures the smallest cell of @p triangulation (the final mesh). Collective.
    RunReport(const RunParameters &parameters, const dealii::Triangulation<dim> &triangulation, MPI_Comm communicator,
              dealii::ConditionalOStream &log);

    /// The bar speed √(E/ρ) in 1D, the dilatational speed √((λ+2μ)/ρ) otherwise, of the fastest material.
    double fastest_wave_speed() const;
    /// The smallest cell diameter of the mesh (the contact tolerances' scale).
    double smallest_cell() const { return smallest_cell_diameter; }
    /// c h / Δx: the fastest wave speed times the step over the node spacing.
    double courant_number() const;
    /// T of the quasi-static projection metric K + M/T² (QuasiStaticMetric): 100 × the slowest
    /// wave's transit of the mesh's bounding box. Collective.
    double quasi_static_time() const;

    /// The log's lines on the mesh (@p n_dofs DoFs) and the kinematics (@p n_bodies bodies).
    void log_set_up(dealii::types::global_dof_index n_dofs, unsigned int n_bodies) const;
    /// The log's lines on @p integrator's scheme and its iteration matrix.
    void log_scheme(const TimeIntegration::TimeIntegrator &integrator) const;

    /// What the end-of-run report reads.
    struct Run
    {
      /// The step a resumed run started from (0 otherwise), the nominal steps at the end.
      unsigned int first_step, n_steps;
      double wall_seconds;
      const Postprocess::EnergyAudit &audit;
      const TimeIntegration::TimeIntegrator &integrator;
      /// nullptr without contact pairs.
      const ContactReporting *contact;
      const EnergyGuard &energy_guard;
      /// nullptr with a fixed step.
      const AdaptiveStepPolicy *adaptive;
    };
    /// Writes the report of @p run, after measuring the peak memory into @p timings. Collective.
    void write(RunTimings &timings, const Run &run) const;

    /**
     * The message of a run that @p signal_name stopped after @p integrator's step (with adaptive
     * steps, @p adaptive, by time, as the number of steps is not known in advance): where it
     * stopped, what was written, how to go on.
     */
    std::string interruption_message(const std::string &signal_name, const TimeIntegration::TimeIntegrator &integrator,
                                     bool adaptive) const;
    /**
     * The log's line after a numerical failure: the failed step (the integrator's last step where
     * a policy stopped after accepting it, @p step_accepted; the next one otherwise), the last
     * @p checkpoint (empty: none) and the step of the last VTU record (@p last_vtu_step, −1: none).
     */
    void write_failure(const TimeIntegration::TimeIntegrator &integrator, bool step_accepted,
                       const std::string &checkpoint, unsigned int last_vtu_step) const;

  private:
    /// The adaptive steps' summary: steps and time per level, and the factors kept (@p factors_mib
    /// MiB, TimeIntegrator::factors_memory_mib()).
    void write_adaptive_steps(const AdaptiveStepPolicy &adaptive, double factors_mib) const;
    /**
     * At the end of a run with contact that lasted (a contact active for 100 steps in a row) and a
     * scheme that damps no mode (e.g. θ = ½): says in the log when the step leaves the mesh's
     * stiff modes unresolved, which can then ring at the lasting contacts. Collective.
     */
    void note_unresolved_modes(const TimeIntegration::TimeIntegrator &integrator,
                               unsigned int longest_contact_streak) const;

    /// Δx: the smallest cell's diameter over √dim and the element degree.
    double node_spacing() const;

    const RunParameters &parameters;
    const dealii::Triangulation<dim> &triangulation;
    MPI_Comm communicator;
    dealii::ConditionalOStream &log;
    /// Measured once: the mesh does not change after the set-up.
    const double smallest_cell_diameter;
  };
} // namespace percussion

#endif
