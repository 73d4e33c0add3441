// The run: its set-up (the constructor's, which decides whether the input is acceptable before
// anything is computed or written, and start_run()'s), the time loop, the postprocessors' view of
// the state, and what is left behind when a run stops early. One time step is in
// simulator_step.cc; the other jobs are the collaborators' (simulator.h).
#include <deal.II/base/mpi.h>
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>
#include <deal.II/grid/grid_tools.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/interruption.h>
#include <percussion/core/mesh_generator.h>
#include <percussion/postprocess/postprocessor_registry.h>
#include <percussion/postprocess/progress_reporter.h>
#include <percussion/simulator/simulator.h>
#include <percussion/time_integration/scheme.h>
#include <percussion/time_integration/time_integrator_factory.h>

#include <iomanip>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  Simulator<dim>::Simulator(const RunParameters &run_parameters, MPI_Comm communicator, std::ostream &out)
    : parameters(run_parameters)
    , retry_policy(parameters.contact_solver.non_convergence_policy == ContactStep::NonConvergencePolicy::retry,
                   parameters.contact_solver.retry_step_halvings,
                   parameters.time.energy_creation_policy == TimeIntegration::EnergyCreationPolicy::retry
                     ? parameters.time.energy_retry_halvings
                     : 0)
    , communicator(communicator)
    , log(out, Utilities::MPI::this_mpi_process(communicator) == 0)
    , audit(postprocessors.add(std::make_unique<Postprocess::EnergyAudit>()))
    , events(postprocessors.add(std::make_unique<Postprocess::EventLog>()))
    , energy_guard(parameters.time, audit, events, log)
  {
    // Every input check comes before any computation, and before any existing output is touched.
    check_run_input();
    build_mesh_and_bodies();
    located_probes = locate_probes(*bodies, parameters.output.probe_points, communicator);
    for (const std::string &warning : parameters.warnings)
      log << "warning: " << warning << std::endl;
    set_up_time_integrator();
    if (parameters.time.adaptive_steps)
      adaptive = std::make_unique<AdaptiveStepPolicy>(parameters.time.time_step, parameters.time.adaptive_levels,
                                                      parameters.time.quiet_steps, parameters.time.quiet_force_change,
                                                      parameters.time.dissipation_tolerance);
    set_up_contact();
    log_set_up();
    checkpointer =
      std::make_unique<Checkpointer<dim>>(parameters, communicator, log,
                                          typename Checkpointer<dim>::RunState{*triangulation, *bodies,
                                                                               *time_integrator,
                                                                               contact ? &contact->step() : nullptr,
                                                                               events,
                                                                               [this]() { return saved_values(); },
                                                                               [this]() {
                                                                                 // The frames the next step starts
                                                                                 // from.
                                                                                 if (system.frames)
                                                                                   frames->frames_from_values();
                                                                               }},
                                          run_timings.output);
  }

  template <int dim>
  void Simulator<dim>::check_run_input() const
  {
    if (parameters.dimension != dim)
      throw InputError("Simulator<" + std::to_string(dim) +
                       "> cannot run a file with Dimension = " + std::to_string(parameters.dimension) + ".");
    if (parameters.linear_solver.direct_package == DirectSolverPackage::petsc &&
        parameters.linear_solver.type != LinearSolverType::cg && Utilities::MPI::n_mpi_processes(communicator) > 1)
      throw InputError("Parameter 'Linear solver/Direct solver package' = petsc works on one MPI rank only (this run "
                       "has " +
                       std::to_string(Utilities::MPI::n_mpi_processes(communicator)) + "); use mumps or auto.");
    if (Utilities::MPI::this_mpi_process(communicator) == 0)
      parameters.output.check_writable();
  }

  template <int dim>
  void Simulator<dim>::build_mesh_and_bodies()
  {
    Timer timer;
    triangulation = create_triangulation<dim>(communicator);
    generate_mesh(parameters.mesh, *triangulation);
    partition_by_contact_work(*triangulation, parameters.contact, communicator);
    run_report = std::make_unique<RunReport<dim>>(parameters, *triangulation, communicator, log);
    run_timings.mesh = timer.wall_time();
    timer.restart();
    bodies = std::make_unique<Body::ElasticBody<dim>>(parameters.body, parameters.mesh.fe_degree,
                                                      parameters.mesh.cross_section_area, *triangulation, communicator);
    bodies->setup();
    frames = make_body_frames(*bodies, parameters.large_rotations, communicator);
    body_motion = std::make_unique<
      BodyMotionMonitor>(frames.get(), system,
                         BodyMotionMonitor::RotationWarnings{!parameters.large_rotations,
                                                             parameters.body.rotation_warning_angle,
                                                             parameters.time.scheme !=
                                                               TimeIntegration::Scheme::schatzman_paoli},
                         bodies->locally_owned_dofs(), events, log, communicator);
    run_timings.setup_and_assembly = timer.wall_time();
  }

  template <int dim>
  void Simulator<dim>::set_up_time_integrator()
  {
    system =
      elastodynamic_system(*bodies, parameters.large_rotations ? frames : nullptr, parameters.body.frame_update_angle);
    // CG's preconditioner 'auto': multigrid only where the step is long against the wave transit
    // time of a cell (the matrix is then stiffness-dominated), Jacobi at the CFL step.
    LinearSolverParameters linear_solver = parameters.linear_solver;
    if (linear_solver.preconditioner == PreconditionerType::automatic)
      {
        const double courant = run_report->courant_number(GridTools::minimal_cell_diameter(*triangulation));
        linear_solver.preconditioner =
          courant > linear_solver.amg_courant_number ? PreconditionerType::ml : PreconditionerType::jacobi;
      }
    if (linear_solver.preconditioner == PreconditionerType::gamg ||
        linear_solver.preconditioner == PreconditionerType::ml)
      system.rigid_body_modes = bodies->rigid_body_modes();
    if (!parameters.contact.pairs.empty() &&
        parameters.contact_solver.projection_metric != ContactStep::ProjectionMetric::iteration_matrix)
      system.quasi_static_projection_time = run_report->quasi_static_time();
    time_integrator = TimeIntegration::create_time_integrator(system, parameters.time, linear_solver,
                                                              bodies->locally_owned_dofs(), communicator);
  }

  template <int dim>
  void Simulator<dim>::set_up_contact()
  {
    if (!parameters.contact.pairs.empty())
      contact = std::make_unique<ContactStepping<dim>>(parameters, *bodies, time_integrator->contact_law(),
                                                       GridTools::minimal_cell_diameter(*triangulation), run_timings,
                                                       communicator);
    // (Without contact pairs too: a checkpoint keeps its counters.)
    contact_reporting =
      std::make_unique<ContactReporting>(parameters.contact_solver, parameters.output.directory, *time_integrator,
                                         contact ? &contact->step() : nullptr, contact && contact->projects_positions(),
                                         contact ? contact->penetration_tolerance() : 0.0, events, log, communicator);
  }

  template <int dim>
  void Simulator<dim>::log_set_up() const
  {
    log << "percussion: " << dim << "D, " << triangulation->n_global_active_cells() << " cells, "
        << bodies->get_dof_handler().n_dofs() << " DoFs, Q" << parameters.mesh.fe_degree << ", "
        << Utilities::MPI::n_mpi_processes(communicator) << " MPI rank(s)" << std::endl;
    if (dim > 1)
      log << "kinematics: "
          << (parameters.large_rotations ? "large rotations (a frame per body, exact rigid motion, linear strain in it)"
                                         : "small displacements (x = X + q)")
          << ", " << frames->n_bodies() << " bod" << (frames->n_bodies() == 1 ? "y" : "ies") << std::endl;
  }

  template <int dim>
  void Simulator<dim>::resume_from(const std::string &path)
  {
    checkpointer->resume_from(path);
  }

  template <int dim>
  SavedValues Simulator<dim>::saved_values()
  {
    // (The order of a checkpoint's header.)
    SavedValues values = contact_reporting->saved_values();
    for (SavedValues layer :
         {energy_guard.saved_values(), SavedValues{{"last_written_step", nullptr, &vtu_output->last_recorded_step()}},
          time_integrator->saved_values(), postprocessors.saved_values(),
          adaptive ? adaptive->saved_values() : SavedValues()})
      values.insert(values.end(), layer.begin(), layer.end());
    // The frames the next step starts from (large rotations: taken anew only past an angle, so
    // they depend on the history, not on q alone).
    if (system.frames)
      for (std::size_t i = 0; i < frames->frame_values().size(); ++i)
        values.push_back({"body_frame_" + std::to_string(i), &frames->frame_values()[i]});
    return values;
  }

  template <int dim>
  Simulator<dim>::~Simulator() = default;

  template <int dim>
  Postprocess::StepView Simulator<dim>::step_view(const Postprocess::StepView::Occasion occasion, const bool last_step,
                                                  const double step_seconds, const RunTimings *before) const
  {
    Postprocess::StepView::PhaseSeconds phases;
    if (before != nullptr)
      phases = {run_timings.contact_geometry - before->contact_geometry,
                run_timings.free_velocity - before->free_velocity, run_timings.contact_step - before->contact_step,
                run_timings.contact_solver - before->contact_solver, run_timings.projection - before->projection};
    return {occasion,
            last_step,
            *time_integrator,
            audit,
            last_contact_result(),
            last_projection(),
            contact ? static_cast<double>(contact->geometry().n_global_points()) : 0.0,
            contact_reporting->last_min_gap(),
            body_motion->motions(),
            events,
            step_seconds,
            phases};
  }

  template <int dim>
  void Simulator<dim>::record(const Postprocess::StepView &view)
  {
    // The rigid motions enter statistics.csv and bodies.csv (and may raise an event the row counts).
    if (view.adds_rows())
      body_motion->update(*time_integrator);
    postprocessors.execute(view);
  }

  template <int dim>
  void Simulator<dim>::run()
  {
    // The shape of deal.II's tutorial programs: set up, then step, postprocess, checkpoint, until
    // the end; a failed step and an interruption leave the output of the last good step behind.
    const unsigned int first_step = start_run();
    const unsigned int n_steps = parameters.time.n_steps();
    // The progress line comes last of the outputs of a step.
    const auto &progress = postprocessors.add(
      std::make_unique<Postprocess::ProgressReporter>(std::cout, Utilities::MPI::this_mpi_process(communicator) == 0,
                                                      parameters.output.progress_interval, adaptive ? 0 : n_steps,
                                                      parameters.time.start_time,
                                                      parameters.time.start_time +
                                                        n_steps * parameters.time.time_step));
    const double output_before_stepping = run_timings.output;
    const InterruptionGuard interruption;
    checkpointer->start_clock();
    unsigned int k = first_step;
    try
      {
        // (With adaptive steps k counts the steps of every size until the end time is reached.)
        for (; adaptive ? !adaptive_run_finished() : k < n_steps; ++k)
          do_time_step(k);
      }
    catch (const SolverError &)
      {
        save_after_failed_step(k + 1);
        throw;
      }
    postprocessors.finish(step_view(Postprocess::StepView::Occasion::step, true));
    run_timings.steps = k - first_step;
    // The projection metric's factorisation is a set-up cost (once per run, as the iteration
    // matrix's): reported apart, not spread over the steps.
    run_timings.projection_metric_factorisation = time_integrator->projection_metric_setup_seconds();
    run_timings.projection -= run_timings.projection_metric_factorisation;
    run_timings.time_stepping = progress.wall_time() - (run_timings.output - output_before_stepping) -
                                run_timings.projection_metric_factorisation;
    run_report->write(run_timings, {first_step, k, progress.wall_time(), audit, *time_integrator,
                                    contact ? contact_reporting.get() : nullptr, energy_guard, adaptive.get()});
  }

  template <int dim>
  unsigned int Simulator<dim>::start_run()
  {
    PETScWrappers::MPI::Vector q0(bodies->locally_owned_dofs(), communicator);
    PETScWrappers::MPI::Vector v0(bodies->locally_owned_dofs(), communicator);
    bodies->initial_conditions(parameters.time.start_time, q0, v0);
    // The initial gaps, checked before anything is written or factorised.
    if (contact)
      contact->start(q0);
    // The output directory is created only now, when the whole input (and a checkpoint to resume
    // from) has been accepted.
    create_output_directory(parameters, communicator);
    // (Before a checkpoint is restored: it lists the records of solution.pvd and contact.pvd.)
    auto vtu = std::make_unique<Postprocess::VtuOutput<dim>>(
      parameters.output, communicator, *bodies, parameters.large_rotations ? frames.get() : nullptr,
      system.kelvin_voigt != nullptr || !system.maxwell_branches.empty(), contact_geometry(),
      [this]() { postprocessors.flush(); }, run_timings.output);
    vtu_output = vtu.get();

    time_integrator->initialize(parameters.time.start_time, q0, v0);
    run_timings.factorisation = time_integrator->linear_solver().setup_seconds();
    log << "scheme: " << time_integrator->description() << std::endl;
    log << "iteration matrix: " << time_integrator->linear_solver().description() << ", set up in "
        << std::setprecision(3) << time_integrator->linear_solver().setup_seconds() << " s" << std::endl;

    audit.start(time_integrator->last_step_energy());
    energy_guard.start(round_off_energy(*triangulation, bodies->stiffness_matrix(), communicator));
    if (contact)
      contact_reporting->start(contact->smallest_candidate_gap()); // (the first row's min_gap)
    // A resumed run reads its whole checkpoint before it touches any output file (a damaged
    // checkpoint stops it with the earlier output intact).
    unsigned int first_step = 0;
    checkpointer->attach(*vtu);
    if (checkpointer->resuming())
      first_step = checkpointer->restore();
    open_outputs(std::move(vtu));
    write_parameters_as_run(parameters, log, communicator);
    if (!checkpointer->resuming())
      record(step_view(Postprocess::StepView::Occasion::initial_state));
    return first_step;
  }

  template <int dim>
  void Simulator<dim>::open_outputs(std::unique_ptr<Postprocess::VtuOutput<dim>> vtu)
  {
    const Postprocess::StepView initial_view = step_view(Postprocess::StepView::Occasion::initial_state);
    Postprocess::PostprocessorContext<dim> context{parameters.output,
                                                   communicator,
                                                   Utilities::MPI::this_mpi_process(communicator) == 0,
                                                   checkpointer->resumed_step(),
                                                   checkpointer->resumed_events(),
                                                   keep_rows,
                                                   *bodies,
                                                   frames.get(),
                                                   parameters.large_rotations,
                                                   contact_geometry(),
                                                   initial_view,
                                                   std::move(located_probes),
                                                   std::move(vtu),
                                                   postprocessors};
    Postprocess::add_postprocessors(context);
    // After the tables: an observer reads this step's rows.
    postprocessors.add(std::make_unique<Postprocess::StepCallback>([this]() {
      if (step_observer)
        step_observer(*this);
    }));
  }

  template <int dim>
  void Simulator<dim>::stop_if_interrupted(const unsigned int nominal_steps, const bool last_step,
                                           const bool checkpoint_written)
  {
    // SIGTERM/SIGINT (a scheduler's end of slot, Ctrl-C): stop after this step, with its output
    // written, on every rank at once.
    const int signal_number = InterruptionGuard::requested_signal(communicator);
    if (signal_number == 0 || last_step)
      return;
    events.add(time_integrator->step_number(), time_integrator->time(), "interrupted", 0, signal_number,
               InterruptionGuard::name(signal_number));
    record(step_view(Postprocess::StepView::Occasion::last_state));
    postprocessors.flush();
    if (!checkpoint_written)
      checkpointer->write_on_signal(nominal_steps, InterruptionGuard::name(signal_number));
    throw Interrupted(signal_number, run_report->interruption_message(InterruptionGuard::name(signal_number),
                                                                      *time_integrator, adaptive != nullptr));
  }

  template <int dim>
  void Simulator<dim>::save_after_failed_step(const unsigned int nominal_steps)
  {
    // The integrator throws before it accepts a bad state: what it holds is the last good one.
    // The non-convergence policy 'stop' throws after its step was accepted and audited: that step
    // gets its row and a checkpoint (a resumed run may try other solver settings).
    record(step_view(stopped_by_policy() ? Postprocess::StepView::Occasion::stopped_after_step
                                         : Postprocess::StepView::Occasion::last_state));
    vtu_output->finish_writing();
    postprocessors.find<Postprocess::StatisticsOutput>()->flush();
    if (stopped_by_policy() && !energy_guard.stopped_the_run())
      checkpointer->write_on_policy_stop(nominal_steps);
    run_report->write_failure(*time_integrator, stopped_by_policy(), checkpointer->last_checkpoint(),
                              vtu_output->last_recorded_step());
  }

  template class Simulator<1>;
  template class Simulator<2>;
  template class Simulator<3>;
} // namespace percussion
