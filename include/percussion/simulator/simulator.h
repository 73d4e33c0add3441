#ifndef PERCUSSION_SIMULATOR_SIMULATOR_H
#define PERCUSSION_SIMULATOR_SIMULATOR_H

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/grid/tria.h>

#include <percussion/body/elastic_body.h>
#include <percussion/postprocess/body_motion.h>
#include <percussion/postprocess/contact_force_table.h>
#include <percussion/postprocess/energy_audit.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/probe_points.h>
#include <percussion/postprocess/statistics_output.h>
#include <percussion/postprocess/vtu_output.h>
#include <percussion/simulator/adaptive_step_policy.h>
#include <percussion/simulator/body_motion_monitor.h>
#include <percussion/simulator/checkpointer.h>
#include <percussion/simulator/contact_reporting.h>
#include <percussion/simulator/contact_stepping.h>
#include <percussion/simulator/early_stop.h>
#include <percussion/simulator/energy_guard.h>
#include <percussion/simulator/run_parameters.h>
#include <percussion/simulator/run_report.h>
#include <percussion/simulator/run_set_up.h>
#include <percussion/simulator/step_retry_policy.h>
#include <percussion/simulator/step_snapshots.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/time_integrator.h>

#include <functional>
#include <memory>
#include <ostream>

namespace percussion
{
  /**
   * One run, in the shape of deal.II's tutorial programs (step-40). The constructor does the
   * set-up that decides whether the input is acceptable, in order — input checks, mesh and bodies,
   * probes, system and integrator, contact, checkpointer — so that every input error is raised
   * before anything is computed or written and resume_from() can compare a checkpoint with the
   * run. run() then starts the run (initial state, output directory and outputs, a restored
   * checkpoint) and loops over do_time_step(): contact geometry at q_k → free velocity → contact
   * problem → end of step (audit, reports, energy guard) → postprocessors → checkpoint, with
   * StepRetryPolicy consulted where a step went wrong. Its other jobs are collaborators':
   * ContactStepping (the contact part of a step), ContactReporting (contact warnings, events, FCLIB
   * dumps, the non-convergence policy), EnergyGuard, StepSnapshots, BodyMotionMonitor (rigid
   * motions, rotation warnings), RunReport (the log's set-up lines, the end-of-run report and the
   * wave-speed estimates), the Checkpointer, EarlyStop (what a run stopped by a signal or a failure
   * leaves behind) and the postprocessors.
   */
  template <int dim>
  class Simulator
  {
  public:
    using Geometry = Contact::ContactGeometry<dim>;

    /// Checks the input and the output directory, builds the mesh, DoFs, matrices, integrator and
    /// contact step. @throws InputError.
    Simulator(const RunParameters &parameters, MPI_Comm communicator, std::ostream &log);
    ~Simulator();

    /// Runs from the start (or the checkpoint of resume_from()) to the end time. @throws SolverError on
    /// a numerical failure (after writing the last good state).
    void run();
    /**
     * run() continues from the checkpoint @p path: a checkpoint directory, or a directory whose
     * `checkpoints/` folder (or itself) holds `step-*` checkpoints, of which the newest complete one
     * is taken. Checks at once, before anything is written, that the checkpoint is this run's:
     * dimension, element degree, scheme and its parameters, step size, start time, mesh (a
     * fingerprint of its cells), DoFs, contact pairs. The end time, output settings and solver
     * tolerances may differ. @throws InputError naming the first difference and its parameter.
     */
    void resume_from(const std::string &path) { checkpointer->resume_from(path); }

    /// The statistics.csv table (once run() has started).
    const Postprocess::StatisticsTable &statistics() const
    {
      return postprocessors.find<Postprocess::StatisticsOutput>()->table();
    }
    const Postprocess::EnergyAudit &energy_audit() const { return audit; }
    /// The per-body table (nullptr unless 'Output/Postprocessors' lists bodies).
    const Postprocess::BodyMotion<dim> *body_table() const
    {
      return postprocessors.find<Postprocess::BodyMotion<dim>>();
    }
    /// The probes' table (nullptr without 'Output/Probe points').
    const Postprocess::ProbePoints<dim> *probe_table() const
    {
      return postprocessors.find<Postprocess::ProbePoints<dim>>();
    }
    /// The contact forces' table (nullptr unless 'Output/Postprocessors' lists contact forces).
    const Postprocess::ContactForceTable<dim> *contact_force_table() const
    {
      return postprocessors.find<Postprocess::ContactForceTable<dim>>();
    }
    const Body::ElasticBody<dim> &body() const { return *bodies; }
    const TimeIntegration::TimeIntegrator &integrator() const { return *time_integrator; }
    /// The contact geometry (nullptr without contact pairs).
    const Geometry *contact_geometry() const { return contact ? &contact->geometry() : nullptr; }
    /// The last step's contact result (empty without contact).
    const ContactStep::ContactStepResult &last_contact_result() const
    {
      static const ContactStep::ContactStepResult none;
      return contact ? contact->result() : none;
    }
    dealii::types::global_dof_index n_dofs() const { return bodies->get_dof_handler().n_dofs(); }
    const RunTimings &timings() const { return run_timings; }
    /// The rigid motion of each body (BodyFrames' bodies, 2D/3D; empty in 1D) at the last recorded step.
    const std::vector<RigidMotion> &rigid_motion() const { return body_motion->motions(); }
    /// The bodies' frames (2D/3D; nullptr in 1D).
    const BodyFrames *body_frames() const { return frames.get(); }

    /**
     * Whether statistics(), body_table() and probe_table() keep their rows in memory (the default,
     * for programs that read them back). The `percussion` executable keeps none, so that a run's
     * memory does not grow with its steps; the files are written either way. Before run().
     */
    void keep_tables_in_memory(bool keep) { keep_rows = keep; }
    /// Called after every step (tests and drivers that look at the state as it evolves).
    void set_step_observer(std::function<void(const Simulator<dim> &)> observer)
    {
      step_observer = std::move(observer);
    }

    /// The last step's end-of-step gap check and position projection.
    const ContactStep::PositionProjectionResult &last_projection() const
    {
      static const ContactStep::PositionProjectionResult none;
      return contact ? contact->projection() : none;
    }

  private:
    /// The mesh (partitioned by contact work), the bodies' DoFs and matrices, and their frames (2D/3D).
    void build_mesh_and_bodies();
    /// The linear elastodynamic system of the bodies and the scheme's integrator, with the
    /// preconditioner 'auto' resolved.
    void set_up_time_integrator();
    /// With contact pairs, their ContactStepping; the contact reports (also without: a checkpoint
    /// keeps their counters).
    void set_up_contact();
    /// The state the postprocessors record, on @p occasion; after a step, whether it is the
    /// @p last_step and its wall-clock seconds (@p before: run_timings before it).
    Postprocess::StepView step_view(Postprocess::StepView::Occasion occasion, bool last_step = false,
                                    double step_seconds = 0, const RunTimings *before = nullptr) const;
    /// Runs the postprocessors on @p view, after the rigid motions of a state they add rows of.
    /// Collective.
    void record(const Postprocess::StepView &view);
    /// Initial state (its contact geometry checked first), output files (kept up to a resumed
    /// step), the first row and record; returns the step a resumed run starts from (0 otherwise).
    /// Collective.
    unsigned int start_run();
    /**
     * Adds the postprocessors of 'Output/Postprocessors' (Postprocess::add_postprocessors(), in the
     * registry's order; with the VTU records @p vtu) and then the step observer, and opens their
     * files. A resumed run keeps their rows up to its step.
     */
    void open_outputs(std::unique_ptr<Postprocess::VtuOutput<dim>> vtu);
    /**
     * The loop's body: one step of the nominal size (advance()), then the postprocessors on it,
     * the checkpoint if one is due and the stop on a signal. @p k: the nominal steps done before it.
     * Collective.
     */
    void do_time_step(unsigned int k);
    /**
     * One step of the present size at halving level @p level: contact geometry → free velocity →
     * contact problem → end of step (the scheme's, gaps and projection, audit, reports; without
     * contact pairs only the scheme's parts and the audit), with what retry_policy says where the
     * contact problem is not solved or the step created energy. Collective.
     */
    void advance(unsigned int level);
    /// Two steps of half the present size in place of one, at @p level + 1.
    void advance_in_halves(unsigned int level);
    /// The step's contact problem, solved again or the step halved where retry_policy says; false
    /// where the step was made in halves (nothing of it is left to finish).
    bool solve_contact_problem_or_halve(unsigned int level);
    /// The scheme's free velocity (timed).
    void compute_free_velocity();
    /// The end of the step: the scheme's, the end-of-step gaps and projection, the audit, the
    /// contact reports, the energy guard, and with adaptive steps the step's contacts to the policy.
    void end_step();
    /// Adaptive steps: whether the run has reached its end time (exactly, in nominal steps).
    bool adaptive_run_finished() const;
    /// Puts back the state before a step at halving level @p level (step_snapshots), and the
    /// frames derived from it.
    void restore_state(unsigned int level);
    /// The frames the next step starts from, from the values a checkpoint or a snapshot restored.
    void restore_frames();
    /// Every scalar a checkpoint keeps, by name, in the header's order: ContactReporting's and
    /// EnergyGuard's counters and extremes, the step of the last VTU record, the integrator's
    /// (TimeIntegrator::saved_values()), the postprocessors' (the audit's sums among them), the
    /// adaptive steps' and with large rotations the bodies' frames.
    SavedValues saved_values();

    const RunParameters parameters;
    /// What becomes of a step whose contact problem is not solved or that created energy.
    const StepRetryPolicy retry_policy;
    MPI_Comm communicator;
    dealii::ConditionalOStream log;
    std::unique_ptr<dealii::Triangulation<dim>> triangulation;
    std::unique_ptr<Body::ElasticBody<dim>> bodies;
    /// The wave-speed estimates of the set-up and the log's report at the end.
    std::unique_ptr<RunReport<dim>> run_report;
    /// The bodies' frames (2D/3D): their rigid motion, and with large rotations the kinematics.
    std::shared_ptr<BodyFrames> frames;
    /// The bodies' rigid motions and the rotation warnings.
    std::unique_ptr<BodyMotionMonitor> body_motion;
    TimeIntegration::LinearElastodynamicSystem system;
    std::unique_ptr<TimeIntegration::TimeIntegrator> time_integrator;
    /// The outputs, run after every step: from the start the energy audit and the event log, from
    /// open_outputs() those of 'Output/Postprocessors'.
    Postprocess::PostprocessorList postprocessors;
    /// The audit (the energy guard judges each step by it) and the event log (the simulator's parts
    /// add events as they happen), found in the list at construction.
    Postprocess::EnergyAudit &audit;
    Postprocess::EventLog &events; ///< events.csv
    /// solution.pvd, contact.pvd: made before the list has them, as a checkpoint lists their records.
    Postprocess::VtuOutput<dim> *vtu_output = nullptr;
    /// The contact geometry and step, and the contact part of each step (null without contact pairs).
    std::unique_ptr<ContactStepping<dim>> contact;
    /// The contact warnings, events, FCLIB dumps and non-convergence policy, the end-of-step gaps.
    std::unique_ptr<ContactReporting> contact_reporting;
    /// The probes, located by the constructor, until open_outputs() lists them.
    std::unique_ptr<Postprocess::ProbePoints<dim>> located_probes;
    /// Judges each step by the energy it created, once the audit has booked it.
    EnergyGuard energy_guard;
    /// The state before a step, per halving level, where the energy creation policy is retry.
    StepSnapshots step_snapshots;
    RunTimings run_timings;
    std::function<void(const Simulator<dim> &)> step_observer;
    bool keep_rows = true; ///< keep_tables_in_memory()
    /// 'Adaptive steps': the level of the next step (null with a fixed step).
    std::unique_ptr<AdaptiveStepPolicy> adaptive;
    /// Writes the checkpoints, and restores the one of resume_from().
    std::unique_ptr<Checkpointer<dim>> checkpointer;
    /// What a run stopped by a signal or a numerical failure leaves behind (from start_run()).
    std::unique_ptr<EarlyStop<dim>> early_stop;
  };
} // namespace percussion

#endif
