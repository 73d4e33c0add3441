#ifndef PERCUSSION_SIMULATOR_SIMULATOR_H
#define PERCUSSION_SIMULATOR_SIMULATOR_H

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/grid/tria.h>

#include <percussion/body/elastic_body.h>
#include <percussion/contact/contact_geometry.h>
#include <percussion/postprocess/body_motion.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/postprocess/probe_points.h>
#include <percussion/postprocess/energy_audit.h>
#include <percussion/postprocess/postprocessor.h>
#include <percussion/postprocess/contact_force_table.h>
#include <percussion/postprocess/statistics_output.h>
#include <percussion/postprocess/vtu_output.h>
#include <percussion/simulator/body_motion_monitor.h>
#include <percussion/simulator/checkpointer.h>
#include <percussion/simulator/contact_reporting.h>
#include <percussion/simulator/energy_guard.h>
#include <percussion/simulator/step_snapshots.h>
#include <percussion/simulator/run_parameters.h>
#include <percussion/simulator/run_report.h>
#include <percussion/simulator/adaptive_step_policy.h>
#include <percussion/simulator/step_retry_policy.h>
#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/time_integrator.h>

#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>

namespace percussion
{
  /**
   * One run: builds the mesh and the bodies, integrates in time, audits the energy of every step
   * and writes the statistics table and the ParaView output. Reads in the order things happen:
   * setup() → run() → (per step) contact geometry at q_k → free velocity → contact problem →
   * impulse → end of step → audit → output.
   */
  template <int dim>
  class Simulator
  {
  public:
    using Geometry = Contact::ContactGeometry<dim>;

    /// Checks the output directory, builds the mesh, DoFs and matrices. @throws InputError.
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
    void resume_from(const std::string &path);

    /// The statistics.csv table (once run() has started).
    const Postprocess::StatisticsTable &statistics() const
    {
      return postprocessors.find<Postprocess::StatisticsOutput>()->table();
    }
    const Postprocess::EnergyAudit     &energy_audit() const { return audit; }
    /// The per-body table (nullptr unless 'Output/Postprocessors' lists bodies).
    const Postprocess::BodyMotion<dim> *body_table() const { return postprocessors.find<Postprocess::BodyMotion<dim>>(); }
    /// The probes' table (nullptr without 'Output/Probe points').
    const Postprocess::ProbePoints<dim> *probe_table() const { return postprocessors.find<Postprocess::ProbePoints<dim>>(); }
    /// The contact forces' table (nullptr unless 'Output/Postprocessors' lists contact forces).
    const Postprocess::ContactForceTable<dim> *contact_force_table() const
    {
      return postprocessors.find<Postprocess::ContactForceTable<dim>>();
    }
    const Body::ElasticBody<dim>       &body() const { return *bodies; }
    const TimeIntegration::TimeIntegrator &integrator() const { return *time_integrator; }
    /// The contact geometry (nullptr without contact pairs).
    const Geometry *contact_geometry() const { return geometry.get(); }
    /// The last step's contact result (empty without contact).
    const ContactStep::ContactStepResult &last_contact_result() const { return contact_result; }
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
    void set_step_observer(std::function<void(const Simulator<dim> &)> observer) { step_observer = std::move(observer); }

    /// The last step's end-of-step gap check and position projection.
    const ContactStep::PositionProjectionResult &last_projection() const { return projection_result; }

  private:
    /// The checks of the input that need the run's dimension or its number of ranks, and that the
    /// output directory can be written. @throws InputError.
    void check_run_input() const;
    /// The mesh (partitioned by contact work), the bodies' DoFs and matrices, and their frames (2D/3D).
    void build_mesh_and_bodies();
    /// Locates 'Output/Probe points' in the mesh. @throws InputError for a point outside it.
    void locate_probes();
    /// The linear elastodynamic system of the bodies and the scheme's integrator, with the
    /// preconditioner 'auto' resolved.
    void set_up_time_integrator();
    /// With contact pairs: the contact geometry, the contact step and the position projection's
    /// settings (nothing without).
    void set_up_contact();
    /// The log's lines on the mesh, the kinematics and the modes the step leaves unresolved.
    void log_set_up() const;
    /// The state the postprocessors record, on @p occasion; after a step, whether it is the
    /// @p last_step and its wall-clock seconds (@p before: run_timings before it).
    Postprocess::StepView step_view(Postprocess::StepView::Occasion occasion, bool last_step = false,
                                    double step_seconds = 0, const RunTimings *before = nullptr) const;
    /// Runs the postprocessors on @p view, after the rigid motions of a state they add rows of.
    /// Collective.
    void record(const Postprocess::StepView &view);
    /// With several ranks and contact pairs (2D/3D), partitions the mesh again with cells weighted by
    /// their slave faces ('Contact/Slave face partition weight'): a step's contact work belongs to the
    /// slave nodes' owners. Before the DoFs are distributed. Collective.
    void partition_by_contact_work();
    /// The smallest gap of the geometry's candidates (the search distance without any). Collective.
    double smallest_candidate_gap() const;
    /// Initial state (its contact geometry checked first), output files (kept up to a resumed
    /// step), the first row and record; returns the step a resumed run starts from (0 otherwise).
    /// Collective.
    unsigned int start_run();
    /**
     * With the geometry of the initial displacement q0: @throws InputError, on every rank, when a
     * slave node starts inside its obstacle or master surface by more than the position
     * projection's tolerance ('Contact solver/Penetration tolerance' × the smallest cell
     * diameter), naming the pair, the slave surface and its body, the depth and the deepest node.
     * Before the output directory is created and the iteration matrix factorised. Collective.
     */
    void check_initial_overlap() const;
    /**
     * Adds the postprocessors of 'Output/Postprocessors' (Postprocess::add_postprocessors(), in the
     * registry's order; with the VTU records @p vtu) and then the step observer, and opens their
     * files. A resumed run keeps their rows up to its step.
     */
    void open_outputs(std::unique_ptr<Postprocess::VtuOutput<dim>> vtu);
    /// After a SIGTERM/SIGINT (before the last step): the step's output, a checkpoint unless one
    /// was just written, then throws Interrupted. Collective.
    void stop_if_interrupted(unsigned int nominal_steps, bool last_step, bool checkpoint_written);
    /// After a SolverError: the last good step's output, and a checkpoint where the
    /// non-convergence policy stopped the run.
    void save_after_failed_step(unsigned int nominal_steps);
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
    void compute_free_velocity();
    void end_step();
    /// H(q_k), gaps, frames and the owned contact points of the step.
    void update_contact_geometry();
    /**
     * Adaptive steps, after update_contact_geometry(): the finest level where an open candidate's
     * gap g and normal velocity u_N predict closing within two steps of the present size
     * (g + 2h u_N < 0), and the integrator's step size of the policy's level. Collective.
     */
    void choose_step_size();
    /// Adaptive steps, at the end of a step: whether a contact opened or closed in it (the set of
    /// active contacts changed), to the policy. Collective.
    void note_step_for_adaptivity();
    /// Adaptive steps: whether the run has reached its end time (exactly, in nominal steps).
    bool adaptive_run_finished() const;
    /// The step's frictional contact problem and its impulse (FrictionalContactStep::solve).
    void solve_contact_problem();
    /// The end-of-step gaps and the optional position projection.
    void check_contact_positions();
    /// The most energy the step's position projection may add: what the step took out before it
    /// (E_k + W_ext − E_{k+1}, where positive) plus 'Contact solver/Projection energy tolerance' ×
    /// the energy scale (the audit's, and the step's new energy).
    double allowed_projection_energy() const;
    /// Puts back the state before a step at halving level @p level (step_snapshots), and the
    /// frames derived from it; the energy guard counts the retry.
    void restore_state(unsigned int level);
    /// Every scalar a checkpoint keeps, by name: the simulator's counters and extremes, the step of
    /// the last VTU record, the integrator's (TimeIntegrator::saved_values()), the audit's
    /// (EnergyAudit::saved_values()) and with large rotations the bodies' frames.
    SavedValues saved_values();

    const RunParameters       parameters;
    /// What becomes of a step whose contact problem is not solved or that created energy.
    const StepRetryPolicy     retry_policy;
    MPI_Comm                  communicator;
    dealii::ConditionalOStream log;
    std::unique_ptr<dealii::Triangulation<dim>>            triangulation;
    std::unique_ptr<Body::ElasticBody<dim>>                bodies;
    /// The wave-speed estimates of the set-up and the log's report at the end.
    std::unique_ptr<RunReport<dim>>                        run_report;
    /// The bodies' frames (2D/3D): their rigid motion, and with large rotations the kinematics.
    std::shared_ptr<BodyFrames>                            frames;
    /// The bodies' rigid motions and the rotation warnings.
    std::unique_ptr<BodyMotionMonitor>                     body_motion;
    TimeIntegration::LinearElastodynamicSystem             system;
    std::unique_ptr<TimeIntegration::TimeIntegrator>       time_integrator;
    /// The outputs, run after every step: from the start the energy audit and the event log, from
    /// open_outputs() those of 'Output/Postprocessors'.
    Postprocess::PostprocessorList                         postprocessors;
    /// The audit (the energy guard judges each step by it) and the event log (the simulator's parts
    /// add events as they happen), found in the list at construction.
    Postprocess::EnergyAudit                              &audit;
    Postprocess::EventLog                                 &events; ///< events.csv
    /// solution.pvd, contact.pvd: made before the list has them, as a checkpoint lists their records.
    Postprocess::VtuOutput<dim>                           *vtu_output = nullptr;
    std::unique_ptr<Geometry>                              geometry;
    std::unique_ptr<ContactStep::FrictionalContactStep> contact_step;
    ContactStep::ContactStepResult                     contact_result;
    std::vector<ContactStep::OwnedContactPoint>        contact_points;
    ContactStep::PositionProjectionResult              projection_result;
    /// q_k during a step, then q_{k+1} − q_k (for the end-of-step gaps).
    dealii::PETScWrappers::MPI::Vector                     displacement_increment;
    /// Absolute penetration tolerance: 'Penetration tolerance' × the smallest cell diameter.
    double penetration_tolerance = 0;
    /// Whether the end-of-step position projection is on ('Contact solver/Position projection').
    bool projects_positions = false;
    /// The contact warnings, events, FCLIB dumps and non-convergence policy, the end-of-step gaps.
    std::unique_ptr<ContactReporting>                  contact_reporting;
    /// The probes, located by the constructor, until open_outputs() lists them.
    std::unique_ptr<Postprocess::ProbePoints<dim>>         located_probes;
    /// Judges each step by the energy it created, once the audit has booked it.
    EnergyGuard energy_guard;
    /// The state before a step, per halving level, where the energy creation policy is retry.
    StepSnapshots step_snapshots;
    RunTimings   run_timings;
    std::function<void(const Simulator<dim> &)> step_observer;
    /// Whether a policy (energy creation, or the contact non-convergence policy) ended the run
    /// (its step was accepted).
    bool stopped_by_policy() const { return energy_guard.stopped_the_run() || contact_reporting->stopped_the_run(); }
    bool keep_rows = true; ///< keep_tables_in_memory()
    /// 'Adaptive steps': the level of the next step (null with a fixed step).
    std::unique_ptr<AdaptiveStepPolicy> adaptive;
    /// Writes the checkpoints, and restores the one of resume_from().
    std::unique_ptr<Checkpointer<dim>> checkpointer;
  };
} // namespace percussion

#endif
