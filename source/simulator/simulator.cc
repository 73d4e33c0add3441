#include <deal.II/base/data_out_base.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/grid/grid_tools.h>

#include <percussion/contact/contact_point_output.h>
#include <percussion/contact_solvers/fclib_writer.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/mesh_generator.h>
#include <percussion/postprocess/progress_reporter.h>
#include <percussion/simulator/simulator.h>
#include <percussion/core/interruption.h>
#include <percussion/time_integration/scheme.h>
#include <percussion/time_integration/time_integrator_factory.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  Simulator<dim>::Simulator(const RunParameters &run_parameters, MPI_Comm communicator, std::ostream &out)
    : parameters(run_parameters)
    , communicator(communicator)
    , log(out, Utilities::MPI::this_mpi_process(communicator) == 0)
  {
    if (parameters.dimension != dim)
      throw InputError("Simulator<" + std::to_string(dim) + "> cannot run a file with Dimension = " +
                       std::to_string(parameters.dimension) + ".");
    // Every input check comes before any computation, and before any existing output is touched.
    if (parameters.linear_solver.direct_package == "petsc" && parameters.linear_solver.type != "cg" &&
        Utilities::MPI::n_mpi_processes(communicator) > 1)
      throw InputError("Parameter 'Linear solver/Direct solver package' = petsc works on one MPI rank only (this run "
                       "has " + std::to_string(Utilities::MPI::n_mpi_processes(communicator)) +
                       "); use mumps or auto.");
    if (Utilities::MPI::this_mpi_process(communicator) == 0)
      parameters.output.check_writable();

    Timer timer;
    triangulation = create_triangulation<dim>(communicator);
    generate_mesh(parameters.mesh, *triangulation);
    partition_by_contact_work();
    run_timings.mesh = timer.wall_time();
    timer.restart();
    bodies = std::make_unique<Body::ElasticBody<dim>>(parameters.body, parameters.mesh.fe_degree,
                                                      parameters.mesh.cross_section_area, *triangulation,
                                                      communicator);
    bodies->setup();
    if constexpr (dim > 1)
      {
        // A frame per body: the rigid motion in bodies.csv, the check of the small-displacement
        // kinematics, and with large rotations the frames the elastic force is measured in.
        frames = std::make_shared<BodyFrames>(bodies->node_layout(), bodies->locally_owned_dofs(), communicator);
        for (auto *x : {&mass_v, &mass_x, &positions})
          x->reinit(bodies->locally_owned_dofs(), communicator);
        rotation_warned.assign(frames->n_bodies(), false);
      }
    run_timings.setup_and_assembly = timer.wall_time();
    stress = bodies->make_stress_postprocessor();
    // Probe points are located now, so that one outside the mesh stops the run before it starts.
    if (const auto points = Postprocess::parse_probe_points<dim>(parameters.output.probe_points); !points.empty())
      {
        // (λ, μ) of the stress law the bodies use: a 1D bar is uniaxial, σ = E ε (λ = 0, 2μ = E).
        const auto lame = [this](const types::material_id id) {
          const auto &material = bodies->material(id);
          return dim == 1 ? std::make_pair(0.0, 0.5 * material.youngs_modulus) :
                            std::make_pair(material.lame_lambda(), material.lame_mu());
        };
        PETScWrappers::MPI::Vector like(bodies->locally_owned_dofs(), communicator);
        probes = std::make_unique<Postprocess::ProbePoints<dim>>(bodies->get_dof_handler(), bodies->get_mapping(),
                                                                 points, lame, like, communicator);
      }
    for (const std::string &warning : parameters.warnings)
      log << "warning: " << warning << std::endl;
    system.mass = &bodies->mass_matrix();
    system.stiffness = &bodies->stiffness_matrix();
    system.rayleigh_alpha = bodies->rayleigh_alpha();
    system.rayleigh_beta = bodies->rayleigh_beta();
    system.has_external_force = bodies->has_external_force();
    system.external_force_depends_on_time = bodies->external_force_depends_on_time();
    system.assemble_external_force = [this](const double t, PETScWrappers::MPI::Vector &f) {
      bodies->assemble_external_force(t, f);
    };
    system.constrained_dofs = bodies->constrained_dofs();
    system.has_prescribed_motion = bodies->has_prescribed_motion();
    system.prescribed_displacement = [this](const double t, std::vector<double> &values) {
      bodies->prescribed_displacement(t, values);
    };
    if (parameters.large_rotations)
      {
        system.frames = frames;
        system.frame_update_angle = parameters.body.frame_update_angle;
      }

    // CG's preconditioner 'auto': multigrid only where the step is long against the wave transit
    // time of a cell (the matrix is then stiffness-dominated), Jacobi at the CFL step.
    LinearSolverParameters linear_solver = parameters.linear_solver;
    if (linear_solver.preconditioner == "auto")
      {
        const double courant = courant_number(GridTools::minimal_cell_diameter(*triangulation));
        linear_solver.preconditioner = courant > linear_solver.amg_courant_number ? "ml" : "jacobi";
      }
    if (linear_solver.preconditioner == "gamg" || linear_solver.preconditioner == "ml")
      {
        system.rigid_body_modes = bodies->rigid_body_modes();
        system.node_block_size = bodies->node_block_size();
      }
    if (!parameters.contact.pairs.empty() && parameters.contact_solver.projection_metric == "quasi-static")
      system.quasi_static_projection_time = quasi_static_time();
    if (parameters.contact_solver.non_convergence_policy == "retry" &&
        parameters.time.scheme != TimeIntegration::Scheme::moreau_jean_fremond &&
        parameters.time.scheme != TimeIntegration::Scheme::moreau_jean_standard)
      throw InputError("Parameter 'Contact solver/Non-convergence policy' = retry halves the step size, which only "
                       "the Moreau-Jean schemes can do ('Time integration/Scheme'); use the policy continue or stop.");
    time_integrator = TimeIntegration::create_time_integrator(system, parameters.time, linear_solver,
                                                              bodies->locally_owned_dofs(), communicator);

    if (!parameters.contact.pairs.empty())
      {
        const double smallest_cell = GridTools::minimal_cell_diameter(*triangulation);
        penetration_tolerance = parameters.contact_solver.penetration_tolerance * smallest_cell;
        geometry = std::make_unique<Geometry>(bodies->get_dof_handler(), parameters.contact);
        contact_step = std::make_unique<TimeIntegration::FrictionalContactStep>(
          parameters.contact_solver, time_integrator->contact_law(), dim, parameters.contact.gap_prediction_factor,
          communicator);
        // 'auto': the Moreau–Jean schemes (Schatzman–Paoli holds the gaps itself; the
        // generalized-α family splits positions into smooth and impulsive parts of its own).
        const bool moreau_jean = parameters.time.scheme == TimeIntegration::Scheme::moreau_jean_fremond ||
                                 parameters.time.scheme == TimeIntegration::Scheme::moreau_jean_standard;
        projects_positions = contact_step->is_velocity_level() &&
                             (parameters.contact_solver.position_projection == "on" ||
                              (parameters.contact_solver.position_projection == "auto" && moreau_jean));
        contact_step->set_closed_gap_tolerance(1e-9 * smallest_cell);
        if (dim > 1 && parameters.contact_solver.delassus_operator != "dense")
          {
            // The probed Delassus operator colours the contact DoFs by their reference positions
            // and measures its radius in node spacings.
            const IndexSet &owned = bodies->locally_owned_dofs();
            const bool has_body_pair =
              std::any_of(parameters.contact.pairs.begin(), parameters.contact.pairs.end(),
                          [](const auto &pair) { return pair.type == Contact::PairType::body; });
            contact_step->set_dof_positions(owned.n_elements() > 0 ? *owned.begin() : 0, bodies->owned_dof_positions(),
                                            smallest_cell / std::sqrt(static_cast<double>(dim)) /
                                              parameters.mesh.fe_degree,
                                            has_body_pair);
          }
      }

    log << "percussion: " << dim << "D, " << triangulation->n_global_active_cells() << " cells, "
        << bodies->get_dof_handler().n_dofs() << " DoFs, Q" << parameters.mesh.fe_degree << ", "
        << Utilities::MPI::n_mpi_processes(communicator) << " MPI rank(s)" << std::endl;
    if (dim > 1)
      log << "kinematics: "
          << (parameters.large_rotations ? "large rotations (a frame per body, exact rigid motion, linear strain in it)" :
                                           "small displacements (x = X + q)")
          << ", " << frames->n_bodies() << " bod" << (frames->n_bodies() == 1 ? "y" : "ies") << std::endl;
    if (geometry)
      log_unresolved_modes(GridTools::minimal_cell_diameter(*triangulation));
  }

  template <int dim>
  Simulator<dim>::~Simulator() = default;

  template <int dim>
  std::vector<std::pair<const char *, double>> Simulator<dim>::statistics_row() const
  {
    const auto &integrator = *time_integrator;
    const auto &c = contact_result;
    const bool stepped = integrator.step_number() > 0;
    const double n_candidates = geometry ? static_cast<double>(geometry->n_global_points()) : 0.0;
    // The stable column names of statistics.csv (doc/user_guide.md), each beside its value.
    return {{"step", static_cast<double>(integrator.step_number())},
            {"time", integrator.time()},
            {"kinetic_energy", audit.kinetic_energy()},
            {"strain_energy", audit.strain_energy()},
            {"total_energy", audit.total_energy()},
            {"external_work", audit.external_work()},
            {"damping_work", audit.damping_work()},
            {"numerical_dissipation", audit.numerical_dissipation()},
            {"contact_work_normal", audit.contact_work_normal()},
            {"contact_work_tangential", audit.contact_work_tangential()},
            {"impact_dissipation", 0.0 - audit.contact_work_normal()},
            {"friction_dissipation", 0.0 - audit.contact_work_tangential()},
            {"energy_balance_residual", audit.balance_residual()},
            {"linear_solver_iterations", static_cast<double>(stepped ? integrator.linear_solver().last_iterations() : 0)},
            {"contact_candidates", n_candidates},
            {"contact_active", static_cast<double>(c.n_active)},
            {"contact_sticking", static_cast<double>(c.n_stick)},
            {"contact_sliding", static_cast<double>(c.n_slip)},
            {"contact_normal_force", stepped ? c.normal_impulse / integrator.time_step() : 0.0},
            {"contact_solver_iterations", static_cast<double>(c.solved ? c.solver.iterations : 0)},
            {"contact_solver_error", c.solved ? c.solver.error : 0.0},
            {"contact_positive_work_count", static_cast<double>(c.n_positive_work)},
            {"algorithmic_energy", audit.algorithmic_energy()},
            {"projection_energy", audit.projection_energy()},
            {"frame_energy", audit.frame_energy()},
            {"kinetic_energy_translation", rigid_energy(true)},
            {"kinetic_energy_rotation", rigid_energy(false)},
            {"min_gap", end_of_step_min_gap},
            {"contact_penetrated_left_out", static_cast<double>(c.n_penetrated_left_out)},
            {"contact_projected", static_cast<double>(projection_result.n_contacts)},
            {"contact_exact_products", static_cast<double>(c.exact_products)},
            {"contact_probing_solves", static_cast<double>(c.probing_solves)},
            {"contact_probed_operator", c.probed_operator ? 1.0 : 0.0},
            {"contact_held_per_rank", static_cast<double>(c.held_per_rank)},
            {"events", static_cast<double>(events.count())}};
  }

  template <int dim>
  void Simulator<dim>::partition_by_contact_work()
  {
    // 1D meshes are shared, partitioned by METIS (create_triangulation()).
    if constexpr (dim > 1)
      {
        const double extra = parameters.contact.slave_face_partition_weight;
        auto *distributed = dynamic_cast<parallel::distributed::Triangulation<dim> *>(triangulation.get());
        if (distributed == nullptr || parameters.contact.pairs.empty() || !(extra > 0.) ||
            Utilities::MPI::n_mpi_processes(communicator) == 1)
          return;
        std::vector<types::boundary_id> slave_ids;
        for (const auto &pair : parameters.contact.pairs)
          slave_ids.push_back(static_cast<types::boundary_id>(pair.slave_boundary_id));
        // p4est's weights are integers: a cell weighs 100, each slave face 100 · extra more. The
        // space-filling curve is then cut where the sums of the weights are equal, so that the
        // contact surface is shared with the cells.
        const auto connection = distributed->signals.weight.connect(
          [slave_ids, extra](const typename Triangulation<dim>::cell_iterator &cell,
                             const typename Triangulation<dim>::CellStatus) -> unsigned int {
            unsigned int slave_faces = 0;
            for (const unsigned int f : cell->face_indices())
              if (cell->face(f)->at_boundary() &&
                  std::find(slave_ids.begin(), slave_ids.end(), cell->face(f)->boundary_id()) != slave_ids.end())
                ++slave_faces;
            return 100 + static_cast<unsigned int>(std::lround(100. * extra * slave_faces));
          });
        distributed->repartition();
        connection.disconnect();
      }
  }

  template <int dim>
  void Simulator<dim>::open_statistics_table()
  {
    std::vector<std::string> names;
    for (const auto &column : statistics_row())
      names.push_back(column.first);
    table = std::make_unique<Postprocess::StatisticsTable>(names);
    table->keep_rows_in_memory(keep_rows);
    table->open(parameters.output.directory + "/statistics.csv",
                Utilities::MPI::this_mpi_process(communicator) == 0 && parameters.output.write_statistics,
                resumed_step);
  }

  template <int dim>
  std::map<unsigned int, Matrix3> Simulator<dim>::material_rotations() const
  {
    std::map<unsigned int, Matrix3> rotations;
    for (const auto &[id, b] : frames->body_of_material())
      rotations[id] = frames->frames()[b].rotation;
    return rotations;
  }

  template <int dim>
  double Simulator<dim>::rigid_energy(const bool translation) const
  {
    double sum = 0;
    for (const auto &m : rigid_motions)
      sum += translation ? m.kinetic_energy_translation : m.kinetic_energy_rotation;
    return sum;
  }

  template <int dim>
  void Simulator<dim>::update_rigid_motions()
  {
    if (!frames)
      return;
    const auto &q = time_integrator->displacement();
    const auto &v = time_integrator->velocity();
    bodies->mass_matrix().vmult(mass_v, v);
    frames->reference_positions(positions);
    positions.add(1.0, q);
    bodies->mass_matrix().vmult(mass_x, positions);
    rigid_motions = frames->motion(q, mass_v, mass_x, frames->fit(q));
    if (parameters.large_rotations)
      return;
    // Small displacements: say once per body when its rotation makes the kinematics inaccurate.
    for (unsigned int b = 0; b < rigid_motions.size(); ++b)
      if (!rotation_warned[b] && std::abs(rigid_motions[b].rotation_angle) > parameters.body.rotation_warning_angle)
        {
          rotation_warned[b] = true;
          const double phi = rigid_motions[b].rotation_angle;
          std::ostringstream message;
          message << "the body of " << frames->body_name(b) << " has turned by " << phi
                  << " rad with 'Kinematics/Formulation' = small displacements, which stretches it by "
                  << std::sqrt(1 + phi * phi) - 1 << " without strain; set it to large rotations";
          log << "warning: " << message.str() << std::endl;
          events.add(time_integrator->step_number(), time_integrator->time(), "large_rotation", 0, phi, message.str());
        }
  }

  template <int dim>
  void Simulator<dim>::record_statistics()
  {
    update_rigid_motions();
    const auto row = statistics_row();
    if (!table)
      open_statistics_table();
    statistics_values.clear();
    for (const auto &column : row)
      statistics_values.push_back(column.second);
    table->add_row(statistics_values);
    if (body_motion)
      body_motion->record(time_integrator->step_number(), time_integrator->time(), time_integrator->velocity(),
                          rigid_motions);
    if (probes && system.frames && !frames->all_identity())
      {
        // Large rotations: the stress of ũ in the frames, rotated to space (write_solution()).
        PETScWrappers::MPI::Vector unrotated(bodies->locally_owned_dofs(), communicator);
        frames->unrotated_displacement(time_integrator->displacement(), unrotated);
        probes->record(time_integrator->step_number(), time_integrator->time(), time_integrator->displacement(),
                       time_integrator->velocity(), unrotated, material_rotations());
      }
    else if (probes)
      probes->record(time_integrator->step_number(), time_integrator->time(), time_integrator->displacement(),
                     time_integrator->velocity());
  }

  template <int dim>
  void Simulator<dim>::write_solution()
  {
    Timer timer;
    const auto &dof_handler = bodies->get_dof_handler();
    PETScWrappers::MPI::Vector q(bodies->locally_owned_dofs(), bodies->locally_relevant_dofs(), communicator);
    PETScWrappers::MPI::Vector v(bodies->locally_owned_dofs(), bodies->locally_relevant_dofs(), communicator);
    q = time_integrator->displacement();
    v = time_integrator->velocity();
    if (system.frames && !frames->all_identity())
      {
        // Large rotations: the stress of the elastic displacement ũ in the step's frames, rotated
        // to space by the frames (a rigid rotation has no stress).
        PETScWrappers::MPI::Vector unrotated(bodies->locally_owned_dofs(), communicator);
        frames->unrotated_displacement(time_integrator->displacement(), unrotated);
        PETScWrappers::MPI::Vector strain(bodies->locally_owned_dofs(), bodies->locally_relevant_dofs(), communicator);
        strain = unrotated;
        bodies->set_stress_frames(material_rotations());
        solution_output->write(time_integrator->time(), time_integrator->step_number(), dof_handler, q, v, *stress,
                               &strain);
        bodies->set_stress_frames({});
      }
    else
      solution_output->write(time_integrator->time(), time_integrator->step_number(), dof_handler, q, v, *stress);
    if (geometry)
      {
        // The contact points of the geometry the last step started from, with that step's fields.
        Contact::ContactPointFields fields;
        const auto &c = contact_result;
        if (c.state.size() == geometry->n_owned_points())
          {
            fields.status = c.state;
            fields.reaction = c.impulse;
            fields.slip_velocity = c.velocity;
            fields.dissipated_energy = c.dissipated_energy;
            fields.in_problem = c.in_problem;
          }
        else
          {
            // Before the first step (no contact problem solved yet): the same arrays, open and
            // zero, so that every record of contact.pvd has the same arrays (ParaView's time
            // series and readers expect them in every file; postprocess.vtk_readers checks it).
            const std::size_t n = geometry->n_owned_points();
            fields.status.assign(n, ContactSolvers::ContactState::open);
            fields.reaction.assign(dim * n, 0.0);
            fields.slip_velocity.assign(dim * n, 0.0);
            fields.dissipated_energy.assign(n, 0.0);
            fields.in_problem.assign(n, false);
          }
        fields.time_step = time_integrator->time_step(); // for the contact pressure r_N / (h · area)
        contact_series->add(time_integrator->time(),
                            Contact::write_contact_points_vtu(*geometry, fields, parameters.output.directory, "contact",
                                                              contact_series->size()));
      }
    last_written_step = time_integrator->step_number();
    flush_tables();
    run_timings.output += timer.wall_time();
  }

  template <int dim>
  void Simulator<dim>::flush_tables()
  {
    table->flush();
    if (body_motion)
      body_motion->flush();
    if (probes)
      probes->flush();
    if (step_timings)
      step_timings->flush();
  }

  template <int dim>
  void Simulator<dim>::run()
  {
    const auto &out = parameters.output;
    const bool  root = Utilities::MPI::this_mpi_process(communicator) == 0;
    {
      // The output directory is created only now, when the whole input (and a checkpoint to resume
      // from) has been accepted: a refused run leaves nothing on disk. Every rank stops if rank 0
      // cannot create it.
      std::string failure;
      if (root)
        try
          {
            out.create_directory();
          }
        catch (const InputError &error)
          {
            failure = error.what();
          }
      failure = Utilities::MPI::broadcast(communicator, failure, 0);
      if (!failure.empty())
        throw InputError(failure);
    }
    solution_output = std::make_unique<Postprocess::SolutionOutput<dim>>(out.directory, communicator);
    if (geometry)
      contact_series = std::make_unique<Postprocess::TimeSeries>(out.directory, "contact", communicator);

    PETScWrappers::MPI::Vector q0(bodies->locally_owned_dofs(), communicator);
    PETScWrappers::MPI::Vector v0(bodies->locally_owned_dofs(), communicator);
    bodies->initial_conditions(parameters.time.start_time, q0, v0);
    time_integrator->initialize(parameters.time.start_time, q0, v0);
    displacement_increment.reinit(bodies->locally_owned_dofs(), communicator);
    run_timings.factorisation = time_integrator->linear_solver().setup_seconds();
    log << "scheme: " << time_integrator->description() << std::endl;
    log << "iteration matrix: " << time_integrator->linear_solver().description() << ", set up in "
        << std::setprecision(3) << time_integrator->linear_solver().setup_seconds() << " s" << std::endl;

    audit.start(time_integrator->last_step_energy());
    if (geometry)
      {
        // The initial gaps, for the first row's min_gap (the first step reuses this geometry's H).
        geometry->update(time_integrator->displacement(), time_integrator->time());
        end_of_step_min_gap = smallest_candidate_gap();
      }
    // A resumed run reads its whole checkpoint before it touches any output file (a damaged
    // checkpoint stops it with the earlier output intact).
    unsigned int first_step = 0;
    if (resume_header)
      first_step = restore_checkpoint();
    if (out.write_step_timings)
      {
        step_timings = std::make_unique<Postprocess::StatisticsTable>(std::vector<std::string>{
          "step", "step_seconds", "contact_geometry", "free_velocity", "contact_step", "contact_solver", "projection"});
        step_timings->keep_rows_in_memory(keep_rows);
        step_timings->open(out.directory + "/step_timings.csv", root, resumed_step);
      }
    if (out.write_bodies)
      {
        body_motion = std::make_unique<Postprocess::BodyMotion<dim>>(
          bodies->get_dof_handler(), bodies->mass_matrix(), bodies->locally_owned_dofs(), communicator,
          frames ? frames->body_of_material() : std::map<unsigned int, unsigned int>());
        body_motion->keep_rows_in_memory(keep_rows);
        body_motion->open(out.directory + "/bodies.csv", root, resumed_step);
      }
    if (probes)
      {
        probes->keep_rows_in_memory(keep_rows);
        probes->open(out.directory + "/probes.csv", root, resumed_step);
      }
    events.open(out.directory + "/events.csv", root, resumed_step,
                resume_header ? resume_header->get_count("events") : 0);
    if (root && !parameters.effective_parameters.empty())
      {
        // The parameters as run (the file with its --set overrides), beside the results.
        std::ofstream(out.directory + "/parameters.prm") << parameters.effective_parameters;
        log << "parameters as run: " << out.directory << "/parameters.prm" << std::endl;
      }
    if (!resume_header)
      {
        record_statistics();
        if (out.vtu_interval > 0)
          write_solution();
      }

    const unsigned int n_steps = parameters.time.n_steps();
    Postprocess::ProgressReporter progress(std::cout, root, out.progress_interval, n_steps);
    const double output_before_stepping = run_timings.output;
    const InterruptionGuard interruption;
    auto last_checkpoint = std::chrono::steady_clock::now();
    unsigned int k = first_step;
    try
      {
        for (; k < n_steps; ++k)
          {
            const RunTimings before = run_timings;
            const auto step_start = std::chrono::steady_clock::now();
            do_time_step();
            if (step_timings)
              step_timings->add_row(
                {static_cast<double>(time_integrator->step_number()),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count(),
                 run_timings.contact_geometry - before.contact_geometry, run_timings.free_velocity - before.free_velocity,
                 run_timings.contact_step - before.contact_step, run_timings.contact_solver - before.contact_solver,
                 run_timings.projection - before.projection});
            record_statistics();
            if (step_observer)
              step_observer(*this);
            if (out.vtu_interval > 0 && (time_integrator->step_number() % out.vtu_interval == 0 || k + 1 == n_steps))
              write_solution();
            progress.update(time_integrator->step_number(), time_integrator->time());
            // Checkpoints every 'Checkpoint interval' steps and every 'Checkpoint minutes' (rank 0's
            // clock decides, so that every rank writes its part).
            bool checkpoint_due = out.checkpoint_interval > 0 && (k + 1) % out.checkpoint_interval == 0;
            if (out.checkpoint_minutes > 0)
              checkpoint_due = Utilities::MPI::broadcast(
                                 communicator,
                                 checkpoint_due || std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                                 last_checkpoint)
                                                       .count() >= 60 * out.checkpoint_minutes,
                                 0);
            if (checkpoint_due)
              {
                write_checkpoint(k + 1, "every " + (out.checkpoint_interval > 0 ?
                                                      std::to_string(out.checkpoint_interval) + " steps" :
                                                      std::to_string(out.checkpoint_minutes) + " minutes"));
                last_checkpoint = std::chrono::steady_clock::now();
              }
            // SIGTERM/SIGINT (a scheduler's end of slot, Ctrl-C): stop after this step, with its
            // output written, on every rank at once.
            if (const int signal_number = InterruptionGuard::requested_signal(communicator); signal_number != 0 && k + 1 < n_steps)
              {
                events.add(time_integrator->step_number(), time_integrator->time(), "interrupted", 0,
                           signal_number, InterruptionGuard::name(signal_number));
                if (out.vtu_interval > 0 && last_written_step != time_integrator->step_number())
                  write_solution();
                flush_tables();
                if (!checkpoint_due)
                  write_checkpoint(k + 1, std::string("stopped by ") + InterruptionGuard::name(signal_number));
                std::ostringstream message;
                message << "stopped by " << InterruptionGuard::name(signal_number) << " after step "
                        << time_integrator->step_number() << " of " << n_steps << " (t = " << time_integrator->time()
                        << "); the output of that step is written"
                        << (out.vtu_interval > 0 ? " (statistics and VTU)" : " (statistics)")
                        << " with a checkpoint; the run is not complete (continue it with --resume "
                        << out.directory << ")";
                throw Interrupted(signal_number, message.str());
              }
          }
      }
    catch (const SolverError &)
      {
        // The integrator throws before it accepts a bad state: what it holds is the last good one.
        // The non-convergence policy 'stop' throws after its step was accepted and audited: that
        // step gets its row and a checkpoint (a resumed run may try other solver settings).
        if (stopped_by_policy)
          record_statistics();
        if (out.vtu_interval > 0 && last_written_step != time_integrator->step_number())
          write_solution();
        table->flush();
        if (stopped_by_policy)
          write_checkpoint(k + 1, "contact problem not solved, policy stop");
        throw;
      }
    table->flush();
    progress.finish(time_integrator->step_number(), time_integrator->time());
    run_timings.steps = n_steps - first_step;
    run_timings.time_stepping = progress.wall_time() - (run_timings.output - output_before_stepping);
    Utilities::System::MemoryStats memory;
    Utilities::System::get_memory_stats(memory);
    run_timings.peak_memory_mib_max_rank = Utilities::MPI::max(memory.VmHWM / 1024.0, communicator);
    run_timings.peak_memory_mib_total = Utilities::MPI::sum(memory.VmHWM / 1024.0, communicator);
    log << "timing: mesh " << std::setprecision(4) << run_timings.mesh << " s, DoFs and assembly "
        << run_timings.setup_and_assembly << " s, factorisation " << run_timings.factorisation
        << " s, time per step " << run_timings.time_stepping / std::max(1u, run_timings.steps) << " s, output "
        << run_timings.output << " s; peak memory " << run_timings.peak_memory_mib_total << " MiB (all ranks), "
        << run_timings.peak_memory_mib_max_rank << " MiB (largest rank)" << std::endl;
    if (geometry)
      log << "contact timing per step: geometry " << run_timings.contact_geometry / std::max(1u, run_timings.steps)
          << " s, position check/projection " << run_timings.projection / std::max(1u, run_timings.steps)
          << " s, free-velocity solve " << run_timings.free_velocity / std::max(1u, run_timings.steps) << " s, contact step "
          << run_timings.contact_step / std::max(1u, run_timings.steps) << " s (of which the contact solver "
          << run_timings.contact_solver / std::max(1u, run_timings.steps) << " s)" << std::endl;
    log << "done: " << n_steps << " steps";
    if (first_step > 0)
      log << " (" << run_timings.steps << " after resuming at step " << first_step << ")";
    log << " in " << std::setprecision(4) << progress.wall_time()
        << " s; energy E_end/E_0 = " << std::setprecision(10)
        << (audit.initial_energy() != 0 ? audit.total_energy() / audit.initial_energy() : 0.0)
        << ", largest per-step energy-balance residual (relative) = " << std::setprecision(3)
        << audit.max_relative_step_residual() << std::endl;
    if (geometry)
      log << "contact: impact dissipation " << 0.0 - audit.contact_work_normal() << ", friction dissipation "
          << 0.0 - audit.contact_work_tangential() << ", steps with positive contact work " << n_positive_work_warnings
          << ", steps whose contact problem was not solved " << n_unconverged_steps << std::endl
          << "contact positions: smallest end-of-step gap " << std::setprecision(3) << lowest_gap << " m, ";
    if (geometry && projects_positions)
      log << "projected at " << n_projection_steps << " step(s) (tolerance " << penetration_tolerance
          << " m), energy change " << audit.projection_energy() << std::endl;
    else if (geometry)
      log << "no position projection" << std::endl;
  }

  namespace
  {
    // The phases are timed with steady_clock, which costs no system call (deal.II's Timer also
    // reads the CPU time, a getrusage() call each time).
    using Clock = std::chrono::steady_clock;
    double seconds_since(const Clock::time_point start)
    {
      return std::chrono::duration<double>(Clock::now() - start).count();
    }
  } // namespace

  template <int dim>
  void Simulator<dim>::do_time_step()
  {
    advance(0);
  }

  template <int dim>
  void Simulator<dim>::advance(const unsigned int halvings)
  {
    // One step of the scheme, with the frictional contact problem between its parts
    // (doc/architecture.md, "One time step with contact").
    auto &integrator = *time_integrator;
    if (geometry)
      update_contact_geometry();
    auto start = Clock::now();
    integrator.compute_free_velocity();
    run_timings.free_velocity += seconds_since(start);
    if (geometry)
      solve_contact_problem();
    const auto unsolved = [this]() {
      return contact_result.solved && contact_result.solver.status != ContactSolvers::SolverStatus::converged;
    };
    if (geometry && unsolved() && parameters.contact_solver.non_convergence_policy == "retry")
      {
        // Nothing of the failed attempt is kept but its impulses, the retry's warm start: the
        // scheme has not finished the step (its state is still that of t_k), and the attempt's
        // per-contact dissipation is taken back.
        const unsigned int step = integrator.step_number() + 1;
        const double t = integrator.time() + integrator.time_step();
        std::ostringstream h_text;
        h_text << "h = " << integrator.time_step();
        events.add(step, t, "retry_nsgs", contact_result.n_active, contact_result.solver.error,
                   h_text.str() + "; " + ContactSolvers::to_string(contact_result.solver.status));
        contact_step->discard_last_solve();
        auto &options = contact_step->solver_options();
        const ContactSolvers::SolverOptions configured = options;
        options.solver = "nsgs";
        options.max_iterations = 10 * configured.max_iterations;
        integrator.compute_free_velocity();
        solve_contact_problem();
        options = configured;
        if (unsolved() && halvings < parameters.contact_solver.retry_step_halvings)
          {
            const double h = integrator.time_step();
            events.add(step, t, "retry_half_steps", contact_result.n_active, contact_result.solver.error,
                       h_text.str() + " -> two steps of h/2");
            contact_step->discard_last_solve();
            integrator.set_time_step(h / 2);
            advance(halvings + 1);
            advance(halvings + 1);
            integrator.set_time_step(h);
            return;
          }
      }
    integrator.finish_step();
    if (geometry)
      check_contact_positions();
    const auto &c = contact_result;
    audit.add_step(integrator.last_step_energy(), {c.work_normal, c.work_tangential, c.obstacle_work});
    if (geometry)
      report_contact_step();
  }

  template <int dim>
  void Simulator<dim>::update_contact_geometry()
  {
    // H(q_k), gaps and frames, and u_k = Hᵀv_k + w; the geometry imports ghost DoFs itself if it
    // needs them and keeps u_k: nothing is allocated here per step. (At step 0 run() has computed
    // the geometry of q_0 already.)
    const auto start = Clock::now();
    const auto &integrator = *time_integrator;
    displacement_increment = integrator.displacement(); // q_k, for the end-of-step gaps
    if (integrator.step_number() > 0)
      geometry->update(integrator.displacement(), integrator.time());
    contact_points.clear();
    const auto n_dofs = bodies->get_dof_handler().n_dofs();
    for (const auto &point : geometry->owned_points())
      {
        TimeIntegration::OwnedContactPoint p;
        p.global_index = point.global_index;
        p.key = static_cast<unsigned long long>(point.pair) * n_dofs + point.slave_dofs[0];
        p.mu = point.friction_coefficient;
        p.e = point.restitution_coefficient;
        p.gap = point.gap;
        for (unsigned int d = 0; d < dim; ++d)
          p.position[d] = point.position[d];
        contact_points.push_back(p);
      }
    run_timings.contact_geometry += seconds_since(start);
  }

  template <int dim>
  void Simulator<dim>::solve_contact_problem()
  {
    const auto start = Clock::now();
    auto &integrator = *time_integrator;
    contact_result = TimeIntegration::ContactStepResult();
    if (geometry->n_global_points() > 0)
      contact_result = contact_step->solve(integrator, geometry->contact_operator(), geometry->obstacle_velocity_offset(),
                                           geometry->operator_changed(), contact_points,
                                           geometry->local_velocity(integrator.velocity()),
                                           std::max(audit.flow_scale(), std::abs(audit.total_energy())));
    else
      contact_step->forget_impulses();
    run_timings.contact_step += seconds_since(start);
    // (Without candidates on any rank the default result, empty per-point fields, is the step's.)
    if (contact_result.solved)
      run_timings.contact_solver += contact_result.solver.seconds;
  }

  template <int dim>
  void Simulator<dim>::check_contact_positions()
  {
    // End-of-step gaps and, where a contact penetrates beyond the tolerance, the position
    // projection (velocity-level schemes hold velocities, not gaps).
    const auto start = Clock::now();
    auto &integrator = *time_integrator;
    displacement_increment.sadd(-1.0, 1.0, integrator.displacement());
    projection_result = contact_step->project_positions(integrator, geometry->contact_operator(),
                                                        geometry->obstacle_velocity_offset(), contact_points,
                                                        displacement_increment, projects_positions,
                                                        penetration_tolerance);
    run_timings.projection += seconds_since(start);
    end_of_step_min_gap = geometry->n_global_points() > 0 ? projection_result.min_gap : parameters.contact.search_distance;
    lowest_gap = std::min(lowest_gap, end_of_step_min_gap);
    if (projection_result.n_contacts == 0)
      return;
    ++n_projection_steps;
    events.add(integrator.step_number(), integrator.time(), "position_projection", projection_result.n_contacts,
               projection_result.energy_change,
               projection_result.solver.status == ContactSolvers::SolverStatus::converged ? "solved" : "not solved");
    if (projection_result.solver.status != ContactSolvers::SolverStatus::converged && n_projection_warnings++ < 20)
      log << "warning: step " << integrator.step_number() << " (t = " << integrator.time()
          << "): the position projection of " << projection_result.n_contacts
          << " contact(s) was not solved: " << ContactSolvers::to_string(projection_result.solver.status)
          << ", residual " << projection_result.solver.error << "; smallest gap after it " << projection_result.min_gap
          << std::endl;
  }

  template <int dim>
  void Simulator<dim>::report_contact_step()
  {
    const auto &integrator = *time_integrator;
    const unsigned int step = integrator.step_number();
    const auto &c = contact_result;
    if (c.n_positive_work > 0)
      {
        std::ostringstream where;
        where << "largest at (" << c.largest_positive_work_position[0] << ", " << c.largest_positive_work_position[1]
              << ", " << c.largest_positive_work_position[2] << ")";
        events.add(step, integrator.time(), "positive_contact_work", c.n_positive_work, c.largest_positive_work, where.str());
      }
    if (c.n_positive_work > 0 && n_positive_work_warnings++ < 20)
      log << "warning: step " << step << " (t = " << integrator.time() << "): " << c.n_positive_work
          << " contact(s) did positive work; largest " << c.largest_positive_work << " at ("
          << c.largest_positive_work_position[0] << ", " << c.largest_positive_work_position[1] << ", "
          << c.largest_positive_work_position[2] << ")" << std::endl;
    const auto &dump_steps = parameters.contact_solver.write_fclib_steps;
    if (std::find(dump_steps.begin(), dump_steps.end(), step) != dump_steps.end())
      {
        if (c.solved)
          write_contact_problem("requested in 'Contact solver/Write FCLIB at steps'");
        else
          log << "step " << step << " has no active contact: no contact problem to write (requested in "
              << "'Contact solver/Write FCLIB at steps')" << std::endl;
      }
    if (c.solved && c.solver.status != ContactSolvers::SolverStatus::converged)
      {
        ++n_unconverged_steps;
        log << "warning: step " << step << " (t = " << integrator.time() << "): the contact problem with "
            << c.n_active << " active contact(s) was not solved: " << ContactSolvers::to_string(c.solver.status)
            << ", residual " << c.solver.error << " after " << c.solver.iterations << " iterations" << std::endl;
        const bool stop = parameters.contact_solver.non_convergence_policy == "stop";
        events.add(step, integrator.time(), "contact_not_solved", c.n_active, c.solver.error,
                   ContactSolvers::to_string(c.solver.status) + "; policy: " + (stop ? "stopped" : "continued"));
        if (parameters.contact_solver.write_fclib_on_failure)
          write_contact_problem("not converged");
        stopped_by_policy = stop;
        if (stop)
          throw SolverError("The contact problem of step " + std::to_string(step) + " was not solved (residual " +
                            std::to_string(c.solver.error) + "); 'Contact solver/Non-convergence policy' = stop.");
      }
  }

  template <int dim>
  double Simulator<dim>::fastest_wave_speed() const
  {
    // The bar speed √(E/ρ) in 1D, the dilatational speed √((λ+2μ)/ρ) otherwise.
    double wave_speed = 0;
    for (const auto &[id, material] : parameters.body.materials)
      wave_speed = std::max(wave_speed, std::sqrt((dim == 1 ? material.youngs_modulus :
                                                              material.lame_lambda() + 2 * material.lame_mu()) /
                                                  material.density));
    return wave_speed;
  }

  template <int dim>
  double Simulator<dim>::quasi_static_time() const
  {
    // T = 100 L/c with L the diagonal of the mesh's bounding box and c the slowest wave speed (the
    // shear speed √(μ/ρ); the bar speed in 1D): the lowest elastic mode of a compact body has
    // ω ≳ c/L, so K + M/T² weighs a body's rigid motion about 10⁴ (ωT)² ≳ 10⁵ times more than its
    // deformation. Measured: with 10 L/c a stiff bouncing mass lifted by 1 cm after a free-flight
    // crossing kept 2 % of its kinetic energy in the lift's elastic part (paid by its velocity),
    // with 100 L/c nothing visible. The price is the metric's condition number (ω_max T)², whose
    // round-off shows between runs on different numbers of ranks (4e-8 of the kinetic energy on
    // the rolling disk of regression.large_rotations, against 5e-10 with 10 L/c).
    Point<dim> lower, upper;
    for (unsigned int d = 0; d < dim; ++d)
      {
        lower[d] = std::numeric_limits<double>::max();
        upper[d] = -std::numeric_limits<double>::max();
      }
    const auto &vertices = triangulation->get_vertices();
    const auto &used = triangulation->get_used_vertices();
    for (unsigned int i = 0; i < vertices.size(); ++i)
      if (used[i])
        for (unsigned int d = 0; d < dim; ++d)
          {
            lower[d] = std::min(lower[d], vertices[i][d]);
            upper[d] = std::max(upper[d], vertices[i][d]);
          }
    double diagonal2 = 0;
    for (unsigned int d = 0; d < dim; ++d)
      {
        const double extent = Utilities::MPI::max(upper[d], communicator) + Utilities::MPI::max(-lower[d], communicator);
        diagonal2 += extent * extent;
      }
    double wave_speed = std::numeric_limits<double>::max();
    for (const auto &[id, material] : parameters.body.materials)
      wave_speed = std::min(wave_speed, std::sqrt((dim == 1 ? material.youngs_modulus : material.lame_mu()) /
                                                  material.density));
    return 100 * std::sqrt(diagonal2) / wave_speed;
  }

  template <int dim>
  double Simulator<dim>::courant_number(const double smallest_cell) const
  {
    // c h / Δx with the node spacing Δx.
    const double node_spacing = smallest_cell / std::sqrt(static_cast<double>(dim)) / parameters.mesh.fe_degree;
    return fastest_wave_speed() * parameters.time.time_step / node_spacing;
  }

  template <int dim>
  void Simulator<dim>::log_unresolved_modes(const double smallest_cell) const
  {
    // θ = ½ (and any scheme without high-frequency damping) damps no mode: the modes with ωh ≫ 1
    // are not resolved by the step, and with contact
    // their energy stays in the body as chatter at the contact nodes. The highest mode of a
    // consistent-mass mesh is about ω_max ≈ 2√3 c √dim / Δx (1D linear elements: exactly 2√3 c/Δx;
    // c the dilatational wave speed, Δx the node spacing).
    // (Stiffness-proportional damping βK damps them as well: the ratio βω/2 grows with ω.)
    if (time_integrator->damps_high_frequencies() || parameters.body.rayleigh_beta > 0)
      return;
    const double wave_speed = fastest_wave_speed();
    const double node_spacing = smallest_cell / std::sqrt(static_cast<double>(dim)) / parameters.mesh.fe_degree;
    const double omega_h = 2 * std::sqrt(3.0 * dim) * wave_speed * parameters.time.time_step / node_spacing;
    if (omega_h > 2)
      log << "note: the scheme (" << time_integrator->description() << ") damps no mode, and this step leaves "
          << "the mesh's stiffest modes unresolved (omega*h up to ~" << std::setprecision(3) << omega_h
          << ", from c = " << wave_speed << " m/s and node spacing " << node_spacing << " m). After impacts they "
          << "can ring for ever at contacts that last (the contact force alternating from step to step, a "
          << "resting body that never comes to rest). Where that matters more than wave accuracy, use a scheme "
          << "that damps them (Moreau-Jean theta slightly above 0.5, e.g. 0.55, inside the Fremond range "
          << "[0.5, 1/(1+e)]), a material damping (Damping/Stiffness proportional coefficient, a few "
          << "percent of critical on the lowest elastic mode), or h <= " << node_spacing / (std::sqrt(3.0 * dim) * wave_speed)
          << " s to resolve them (doc/contact.md, lasting contact)." << std::endl;
  }

  template <int dim>
  double Simulator<dim>::smallest_candidate_gap() const
  {
    if (geometry->n_global_points() == 0)
      return parameters.contact.search_distance;
    double smallest = std::numeric_limits<double>::infinity();
    for (const auto &point : geometry->owned_points())
      smallest = std::min(smallest, point.gap);
    return Utilities::MPI::min(smallest, communicator);
  }

  template <int dim>
  void Simulator<dim>::write_contact_problem(const std::string &reason)
  {
    const unsigned int step = time_integrator->step_number();
    const std::string name = "contact_problem_" + std::to_string(step) + ".hdf5";
    // (every rank counts the event; rank 0 writes the file)
    const auto &c = contact_result;
    events.add(step, time_integrator->time(), "fclib_dump", c.n_active,
               c.solver.status == ContactSolvers::SolverStatus::converged ? 0.0 : c.solver.error, name + " (" + reason + ")");
    // (collective: a distributed problem is gathered)
    ContactSolvers::LocalProblem problem;
    std::vector<double> reaction, velocity;
    contact_step->whole_last_problem(problem, reaction, velocity);
    if (Utilities::MPI::this_mpi_process(communicator) != 0)
      return;
    const std::string file = parameters.output.directory + "/" + name;
    ContactSolvers::write_fclib_local(file, problem, "percussion step " + std::to_string(step),
                                      "Frictional contact problem of time step " + std::to_string(step) + " at t = " +
                                        std::to_string(time_integrator->time()) + " (" + reason + ")",
                                      &reaction, &velocity);
    log << "wrote the contact problem of step " << step << " to " << file << " (" << reason << ")" << std::endl;
  }

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
                       {"last_written_step", nullptr, &last_written_step}};
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
        series("solution", solution_output->written());
        if (contact_series)
          series("contact", contact_series->written());
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
    solution_output->restore(series("solution"));
    if (contact_series)
      contact_series->restore(series("contact"));
    // The statistics table exists from here on, even if no step follows.
    if (!table)
      open_statistics_table();
    return static_cast<unsigned int>(header.get_count("nominal_steps_done"));
  }

  template class Simulator<1>;
  template class Simulator<2>;
  template class Simulator<3>;
} // namespace percussion
