// The run in the order things happen: the set-up (the constructor's, which decides whether the
// input is acceptable before anything is computed or written, and start_run()'s), the time loop,
// one time step (do_time_step() and advance(): the phases in their order with the retry policy's
// verdicts between them; the phases themselves belong to the integrator, ContactStepping, the
// audit, ContactReporting and EnergyGuard), the postprocessors' view of the state, and what is left
// behind when a run stops early. The other jobs are the collaborators' (simulator.h).
#include <deal.II/base/mpi.h>
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>
#include <deal.II/grid/grid_tools.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/interruption.h>
#include <percussion/core/mesh_generator.h>
#include <percussion/core/wall_clock.h>
#include <percussion/postprocess/postprocessor_registry.h>
#include <percussion/simulator/simulator.h>
#include <percussion/time_integration/scheme.h>
#include <percussion/time_integration/time_integrator_factory.h>

#include <limits>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  Simulator<dim>::Simulator(const RunParameters &run_parameters, MPI_Comm communicator, std::ostream &out)
    : parameters(run_parameters)
    , retry_policy(step_retry_policy(parameters))
    , communicator(communicator)
    , log(out, Utilities::MPI::this_mpi_process(communicator) == 0)
    , audit(postprocessors.add(std::make_unique<Postprocess::EnergyAudit>()))
    , events(postprocessors.add(std::make_unique<Postprocess::EventLog>()))
    , energy_guard(parameters.time, audit, events, log)
  {
    // Every input check comes before any computation, and before any existing output is touched.
    check_run_input(parameters, dim, communicator);
    build_mesh_and_bodies();
    located_probes = locate_probes(*bodies, parameters.output.probe_points, communicator);
    for (const std::string &warning : parameters.warnings)
      log << "warning: " << warning << std::endl;
    set_up_time_integrator();
    adaptive = adaptive_step_policy(parameters);
    set_up_contact();
    run_report->log_set_up(bodies->get_dof_handler().n_dofs(), frames ? frames->n_bodies() : 0u);
    const typename Checkpointer<dim>::RunState state{*triangulation,
                                                     *bodies,
                                                     *time_integrator,
                                                     contact ? &contact->step() : nullptr,
                                                     events,
                                                     [this]() { return saved_values(); },
                                                     [this]() { restore_frames(); }};
    checkpointer = std::make_unique<Checkpointer<dim>>(parameters, communicator, log, state, run_timings.output);
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
    system = elastodynamic_system(*bodies, parameters.large_rotations ? frames : nullptr,
                                  parameters.body.frame_update_angle, parameters.body.turning_step_basis);
    const LinearSolverParameters linear_solver =
      resolve_automatic_preconditioner(parameters.linear_solver, run_report->courant_number());
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
                                                       run_report->smallest_cell(), run_timings, communicator);
    // (Without contact pairs too: a checkpoint keeps its counters.)
    contact_reporting =
      std::make_unique<ContactReporting>(parameters.contact_solver, parameters.output.directory, *time_integrator,
                                         contact ? &contact->step() : nullptr, contact && contact->projects_positions(),
                                         contact ? contact->penetration_tolerance() : 0.0, events, log, communicator);
  }

  template <int dim>
  SavedValues Simulator<dim>::saved_values()
  {
    // (The order of a checkpoint's header.)
    SavedValues values = contact_reporting->saved_values();
    // The frames last: with large rotations they are taken anew only past an angle, so they
    // depend on the history, not on q alone.
    for (SavedValues layer :
         {energy_guard.saved_values(), SavedValues{{"last_written_step", nullptr, &vtu_output->last_recorded_step()}},
          time_integrator->saved_values(), postprocessors.saved_values(),
          adaptive ? adaptive->saved_values() : SavedValues(), system.frames ? frames->saved_values() : SavedValues()})
      values.insert(values.end(), layer.begin(), layer.end());
    return values;
  }

  template <int dim>
  Simulator<dim>::~Simulator() = default;

  template <int dim>
  Postprocess::StepView Simulator<dim>::step_view(const Postprocess::StepView::Occasion occasion, const bool last_step,
                                                  const double step_seconds, const RunTimings *before) const
  {
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
            before ? run_timings.phases_since(*before) : Postprocess::StepView::PhaseSeconds()};
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
    const auto &progress = postprocessors.add(make_progress_reporter(parameters, adaptive != nullptr, communicator));
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
        early_stop->save_after_failed_step(k + 1);
        throw;
      }
    postprocessors.finish(step_view(Postprocess::StepView::Occasion::step, true));
    run_timings.close_time_stepping(k - first_step, progress.wall_time(), output_before_stepping,
                                    time_integrator->projection_metric_setup_seconds());
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
    run_report->log_scheme(*time_integrator);

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
    early_stop =
      std::make_unique<EarlyStop<dim>>(typename EarlyStop<dim>::RunParts{[this](const auto occasion) {
                                                                           record(step_view(occasion));
                                                                         },
                                                                         postprocessors, *vtu_output, events,
                                                                         *time_integrator, *checkpointer, *run_report,
                                                                         energy_guard, *contact_reporting,
                                                                         adaptive != nullptr},
                                       communicator);
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
  void Simulator<dim>::do_time_step(const unsigned int k)
  {
    const RunTimings before = run_timings;
    const auto start = PhaseClock::now();
    advance(0);
    const bool last = adaptive ? adaptive_run_finished() : k + 1 == parameters.time.n_steps();
    record(step_view(Postprocess::StepView::Occasion::step, last, seconds_since(start), &before));
    const bool checkpointed = checkpointer->write_if_due(k + 1);
    early_stop->stop_if_interrupted(k + 1, last, checkpointed);
  }

  template <int dim>
  void Simulator<dim>::advance(const unsigned int level)
  {
    // One step of the scheme, with the frictional contact problem between its parts
    // (doc/architecture.md, "One time step with contact").
    if (retry_policy.keeps_state_before_step())
      step_snapshots.save(level, *time_integrator, saved_values(), contact ? &contact->step() : nullptr);
    try
      {
        if (contact)
          contact->update_geometry(*time_integrator);
        if (level == 0 && adaptive)
          {
            // The finest level where an open candidate closes within two steps of the present size.
            adaptive->limit_to_closing(contact ? contact->closing_time(*time_integrator)
                                               : std::numeric_limits<double>::infinity());
            time_integrator->set_time_step(adaptive->step_size());
          }
        compute_free_velocity();
        if (contact && !solve_contact_problem_or_halve(level))
          return;
        end_step();
      }
    catch (const EnergyCreated &)
      {
        if (retry_policy.after_energy_created(level) == StepRetryPolicy::Verdict::stop)
          throw;
        // The step is accepted and audited when the guard finds the energy it created: the state
        // before it is put back, and the step is made again in halves. (A failure of the halves
        // that the policy does not take up goes on from this handler to the caller.)
        const double h = time_integrator->time_step();
        const unsigned int step = time_integrator->step_number();
        const double t = time_integrator->time();
        restore_state(level);
        energy_guard.take_back(step, t, h, time_integrator->time());
        advance_in_halves(level);
      }
  }

  template <int dim>
  void Simulator<dim>::advance_in_halves(const unsigned int level)
  {
    const double h = time_integrator->time_step();
    time_integrator->set_time_step(h / 2);
    advance(level + 1);
    advance(level + 1);
    time_integrator->set_time_step(h);
  }

  template <int dim>
  bool Simulator<dim>::solve_contact_problem_or_halve(const unsigned int level)
  {
    contact->solve(*time_integrator, audit);
    if (retry_policy.after_contact_problem(contact->unsolved(), false, level) == StepRetryPolicy::Verdict::accept)
      return true;
    contact_reporting->report_retry(contact->result(), false);
    contact->solve_again_with_nsgs(*time_integrator, audit);
    if (retry_policy.after_contact_problem(contact->unsolved(), true, level) != StepRetryPolicy::Verdict::halve)
      return true;
    contact_reporting->report_retry(contact->result(), true);
    contact->discard_last_solve();
    advance_in_halves(level);
    return false;
  }

  template <int dim>
  void Simulator<dim>::compute_free_velocity()
  {
    const auto start = PhaseClock::now();
    time_integrator->compute_free_velocity();
    run_timings.free_velocity += seconds_since(start);
  }

  template <int dim>
  void Simulator<dim>::end_step()
  {
    auto &integrator = *time_integrator;
    integrator.finish_step();
    if (contact)
      {
        contact->check_positions(integrator, audit);
        contact_reporting->report_positions(contact->projection(), contact->end_of_step_min_gap());
      }
    const auto &c = last_contact_result();
    audit.add_step(integrator.last_step_energy(), {c.work_normal, c.work_tangential, c.obstacle_work});
    if (contact)
      contact_reporting->report_step(c);
    energy_guard.check(integrator);
    // Adaptive steps: whether a contact opened or closed in the step, and the error indicator
    // (the step's numerical dissipation over the energy scale), to the policy.
    if (adaptive)
      {
        ContactObservation observed = contact ? contact->observe(integrator.time_step()) : ContactObservation();
        observed.dissipated_fraction = integrator.last_step_energy().numerical_dissipation / audit.guard_scale();
        adaptive->step_done(integrator.time_step(), integrator.elapsed_nominal_steps(), observed);
      }
  }

  template <int dim>
  bool Simulator<dim>::adaptive_run_finished() const
  {
    return time_integrator->elapsed_nominal_steps() >= static_cast<double>(parameters.time.n_steps());
  }

  template <int dim>
  void Simulator<dim>::restore_state(const unsigned int level)
  {
    step_snapshots.restore(level, *time_integrator, saved_values(), contact ? &contact->step() : nullptr);
    restore_frames();
  }

  template <int dim>
  void Simulator<dim>::restore_frames()
  {
    // With large rotations the frames are taken anew only past an angle: they are part of the
    // state a checkpoint or a snapshot keeps (saved_values()), and derived again from it.
    if (system.frames)
      frames->frames_from_values();
  }

  template class Simulator<1>;
  template class Simulator<2>;
  template class Simulator<3>;
} // namespace percussion
