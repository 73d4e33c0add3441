#include <deal.II/base/data_out_base.h>
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>

#include <percussion/contact/contact_point_output.h>
#include <percussion/contact_solvers/fclib_writer.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/mesh_generator.h>
#include <percussion/postprocess/progress_reporter.h>
#include <percussion/simulator/simulator.h>
#include <percussion/time_integration/moreau_jean_integrator.h>
#include <percussion/time_integration/nonsmooth_generalized_alpha_integrator.h>
#include <percussion/time_integration/schatzman_paoli_integrator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  std::vector<std::string> Simulator<dim>::statistics_columns()
  {
    return {"step", "time", "kinetic_energy", "strain_energy", "total_energy", "external_work",
            "damping_work", "numerical_dissipation", "contact_work_normal", "contact_work_tangential",
            "impact_dissipation", "friction_dissipation", "energy_balance_residual", "linear_solver_iterations",
            "contact_candidates", "contact_active", "contact_sticking", "contact_sliding",
            "contact_normal_force", "contact_solver_iterations", "contact_solver_error", "contact_positive_work_count",
            "algorithmic_energy"};
  }

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
    run_timings.mesh = timer.wall_time();
    timer.restart();
    bodies = std::make_unique<Body::ElasticBody<dim>>(parameters.body, parameters.mesh.fe_degree,
                                                      parameters.mesh.cross_section_area, *triangulation,
                                                      communicator);
    bodies->setup();
    run_timings.setup_and_assembly = timer.wall_time();
    stress = bodies->make_stress_postprocessor();
    if (!parameters.contact.pairs.empty())
      {
          {
            geometry = std::make_unique<Geometry>(bodies->get_dof_handler(), parameters.contact);
            contact_step = std::make_unique<TimeIntegration::FrictionalContactStep>(
              parameters.contact_solver,
              // The generalized-α family uses the velocity-level Newton law on U_{k+1}, the
              // standard law's data with its own Delassus operator.
              parameters.time.scheme == "Moreau-Jean Fremond" ? TimeIntegration::ContactLaw::fremond :
              parameters.time.scheme == "Schatzman-Paoli"     ? TimeIntegration::ContactLaw::schatzman_paoli :
                                                                TimeIntegration::ContactLaw::standard,
              dim, communicator);
          }
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

    log << "percussion: " << dim << "D, " << triangulation->n_global_active_cells() << " cells, "
        << bodies->get_dof_handler().n_dofs() << " DoFs, Q" << parameters.mesh.fe_degree << ", "
        << Utilities::MPI::n_mpi_processes(communicator) << " MPI rank(s)" << std::endl;
  }

  template <int dim>
  Simulator<dim>::~Simulator() = default;

  template <int dim>
  void Simulator<dim>::record_statistics()
  {
    const auto &integrator = *time_integrator;
    const auto &c = contact_result;
    table->add_row({static_cast<double>(integrator.step_number()), integrator.time(), audit.kinetic_energy(),
                    audit.strain_energy(), audit.total_energy(), audit.external_work(), audit.damping_work(),
                    audit.numerical_dissipation(), audit.contact_work_normal(), audit.contact_work_tangential(),
                    0.0 - audit.contact_work_normal(), 0.0 - audit.contact_work_tangential(), audit.balance_residual(),
                    static_cast<double>(integrator.step_number() > 0 ? integrator.linear_solver().last_iterations() : 0),
                    static_cast<double>(geometry ? geometry->n_global_points() : 0), static_cast<double>(c.n_active),
                    static_cast<double>(c.n_stick), static_cast<double>(c.n_slip),
                    integrator.step_number() > 0 ? c.normal_impulse / integrator.time_step() : 0.0,
                    static_cast<double>(c.solved ? c.solver.iterations : 0), c.solved ? c.solver.error : 0.0,
                    static_cast<double>(c.n_positive_work), audit.algorithmic_energy()});
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
    solution_output->write(time_integrator->time(), time_integrator->step_number(), dof_handler, q, v, *stress);
      if (geometry)
        {
          // The contact points at the start of the next step's geometry; fields of the last step.
          Contact::ContactPointFields fields;
          const auto &c = contact_result;
          if (c.state.size() == geometry->n_owned_points())
            {
              for (const auto s : c.state)
                fields.status.push_back(static_cast<Contact::ContactStatus>(static_cast<int>(s)));
              fields.reaction = c.impulse;
              fields.slip_velocity = c.velocity;
              fields.dissipated_energy = c.dissipated_energy;
            }
          const std::string name = Contact::write_contact_points_vtu(*geometry, fields, parameters.output.directory,
                                                                     "contact", contact_records.size());
          contact_records.emplace_back(time_integrator->time(), name);
          if (Utilities::MPI::this_mpi_process(communicator) == 0)
            {
              std::ofstream pvd(parameters.output.directory + "/contact.pvd");
              DataOutBase::write_pvd_record(pvd, contact_records);
            }
        }
    last_written_step = time_integrator->step_number();
    table->flush();
    run_timings.output += timer.wall_time();
  }

  template <int dim>
  void Simulator<dim>::run()
  {
    const auto &out = parameters.output;
    const bool  root = Utilities::MPI::this_mpi_process(communicator) == 0;
    table = std::make_unique<Postprocess::StatisticsTable>(statistics_columns());
    table->open(out.directory + "/statistics.csv", root && out.write_statistics);
    solution_output = std::make_unique<Postprocess::SolutionOutput<dim>>(out.directory, communicator);

    PETScWrappers::MPI::Vector q0(bodies->locally_owned_dofs(), communicator);
    PETScWrappers::MPI::Vector v0(bodies->locally_owned_dofs(), communicator);
    bodies->initial_conditions(parameters.time.start_time, q0, v0);
    if (parameters.time.scheme == "Schatzman-Paoli")
      time_integrator = std::make_unique<TimeIntegration::SchatzmanPaoliIntegrator>(
        system, parameters.time, parameters.linear_solver, bodies->locally_owned_dofs(), communicator);
    else if (parameters.time.is_generalized_alpha())
      time_integrator = std::make_unique<TimeIntegration::NonsmoothGeneralizedAlphaIntegrator>(
        system, parameters.time, parameters.linear_solver, bodies->locally_owned_dofs(), communicator);
    else
      time_integrator = std::make_unique<TimeIntegration::MoreauJeanIntegrator>(
        system, parameters.time, parameters.linear_solver, bodies->locally_owned_dofs(), communicator);
    time_integrator->initialize(parameters.time.start_time, q0, v0);
    run_timings.factorisation = time_integrator->linear_solver().setup_seconds();
    log << "scheme: " << time_integrator->description() << std::endl;
    log << "iteration matrix: " << time_integrator->linear_solver().description() << ", set up in "
        << std::setprecision(3) << time_integrator->linear_solver().setup_seconds() << " s" << std::endl;

    audit.start(time_integrator->last_step_energy());
    record_statistics();
    if (out.vtu_interval > 0)
      write_solution();

    const unsigned int n_steps = parameters.time.n_steps();
    Postprocess::ProgressReporter progress(std::cout, root, out.progress_interval, n_steps);
    const double output_before_stepping = run_timings.output;
    try
      {
        for (unsigned int k = 0; k < n_steps; ++k)
          {
            do_time_step();
            record_statistics();
            if (step_observer)
              step_observer(*this);
            if (out.vtu_interval > 0 && (time_integrator->step_number() % out.vtu_interval == 0 || k + 1 == n_steps))
              write_solution();
            progress.update(time_integrator->step_number(), time_integrator->time());
          }
      }
    catch (const SolverError &)
      {
        // The integrator throws before it accepts a bad state: what it holds is the last good one.
        if (out.vtu_interval > 0 && last_written_step != time_integrator->step_number())
          write_solution();
        table->flush();
        throw;
      }
    table->flush();
    progress.finish(time_integrator->step_number(), time_integrator->time());
    run_timings.steps = n_steps;
    run_timings.time_stepping = progress.wall_time() - (run_timings.output - output_before_stepping);
    Utilities::System::MemoryStats memory;
    Utilities::System::get_memory_stats(memory);
    run_timings.peak_memory_mib_max_rank = Utilities::MPI::max(memory.VmHWM / 1024.0, communicator);
    run_timings.peak_memory_mib_total = Utilities::MPI::sum(memory.VmHWM / 1024.0, communicator);
    log << "timing: mesh " << std::setprecision(4) << run_timings.mesh << " s, DoFs and assembly "
        << run_timings.setup_and_assembly << " s, factorisation " << run_timings.factorisation
        << " s, time per step " << run_timings.time_stepping / std::max(1u, n_steps) << " s, output "
        << run_timings.output << " s; peak memory " << run_timings.peak_memory_mib_total << " MiB (all ranks), "
        << run_timings.peak_memory_mib_max_rank << " MiB (largest rank)" << std::endl;
    if (geometry)
      log << "contact timing per step: geometry " << run_timings.contact_geometry / std::max(1u, n_steps)
          << " s, free-velocity solve " << run_timings.free_velocity / std::max(1u, n_steps) << " s, contact step "
          << run_timings.contact_step / std::max(1u, n_steps) << " s (of which the contact solver "
          << run_timings.contact_solver / std::max(1u, n_steps) << " s)" << std::endl;
    log << "done: " << n_steps << " steps in " << std::setprecision(4) << progress.wall_time()
        << " s; energy E_end/E_0 = " << std::setprecision(10)
        << (audit.initial_energy() != 0 ? audit.total_energy() / audit.initial_energy() : 0.0)
        << ", largest per-step energy-balance residual (relative) = " << std::setprecision(3)
        << audit.max_relative_step_residual() << std::endl;
    if (geometry)
      log << "contact: impact dissipation " << 0.0 - audit.contact_work_normal() << ", friction dissipation "
          << 0.0 - audit.contact_work_tangential() << ", steps with positive contact work " << n_positive_work_warnings
          << ", steps whose contact problem was not solved " << n_unconverged_steps << std::endl;
  }

  template <int dim>
  void Simulator<dim>::do_time_step()
  {
    auto &integrator = *time_integrator;
    if (!geometry)
      {
        integrator.advance();
        audit.add_step(integrator.last_step_energy(), 0.0, 0.0);
        return;
      }
      {
    // Contact geometry at q_k (H(q_k), gaps, frames), u_k = Hᵀv_k + w and the active set (55).
    // The geometry imports ghost DoFs itself if it needs them and keeps u_k: nothing is allocated
    // here per step. The phases are timed with steady_clock, which costs no system call (deal.II's
    // Timer also reads the CPU time, a getrusage() call each time).
    using Clock = std::chrono::steady_clock;
    const auto seconds_since = [](const Clock::time_point start) {
      return std::chrono::duration<double>(Clock::now() - start).count();
    };
    auto phase_start = Clock::now();
    geometry->update(integrator.displacement(), integrator.time());
    const PETScWrappers::MPI::Vector &u_k = geometry->local_velocity(integrator.velocity());
    geometry->update_active_set(u_k, integrator.time_step());

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
        p.active = point.active;
        for (unsigned int d = 0; d < dim; ++d)
          p.position[d] = point.position[d];
        contact_points.push_back(p);
      }

    run_timings.contact_geometry += seconds_since(phase_start);
    phase_start = Clock::now();
    integrator.compute_free_velocity();
    run_timings.free_velocity += seconds_since(phase_start);
    phase_start = Clock::now();
    contact_result = TimeIntegration::ContactStepResult();
    if (geometry->n_global_active() > 0 || (contact_step->takes_every_candidate() && geometry->n_global_points() > 0))
      contact_result = contact_step->solve(integrator, geometry->contact_operator(), geometry->obstacle_velocity_offset(),
                                           geometry->operator_changed(), contact_points, u_k);
    run_timings.contact_step += seconds_since(phase_start);
    if (contact_result.solved)
      run_timings.contact_solver += contact_result.solver.seconds;
    else
      {
        contact_result.state.assign(contact_points.size(), TimeIntegration::ContactState::open);
        contact_result.impulse.assign(dim * contact_points.size(), 0.0);
        contact_result.velocity.assign(dim * contact_points.size(), 0.0);
        contact_result.dissipated_energy = contact_step->dissipated_energy(contact_points);
      }
    integrator.finish_step();

    TimeIntegration::StepEnergy energy = integrator.last_step_energy();
    // The reactions' work through moving obstacles is work of an external agent.
    energy.external_work += contact_result.obstacle_work;
    energy.contact_work -= contact_result.obstacle_work;
    audit.add_step(energy, contact_result.work_normal, contact_result.work_tangential);

    const unsigned int step = integrator.step_number();
    const auto &c = contact_result;
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
        if (parameters.contact_solver.write_fclib_on_failure)
          write_contact_problem("not converged");
        if (parameters.contact_solver.non_convergence_policy == "stop")
          throw SolverError("The contact problem of step " + std::to_string(step) + " was not solved (residual " +
                            std::to_string(c.solver.error) + "); 'Contact solver/Non-convergence policy' = stop.");
      }
      }
  }

  template <int dim>
  void Simulator<dim>::write_contact_problem(const std::string &reason) const
  {
    if (Utilities::MPI::this_mpi_process(communicator) != 0)
      return;
    const unsigned int step = time_integrator->step_number();
    const std::string file = parameters.output.directory + "/contact_problem_" + std::to_string(step) + ".hdf5";
    const auto &problem = contact_step->last_problem();
    ContactSolvers::write_fclib_local(file, problem, "percussion step " + std::to_string(step),
                                      "Frictional contact problem of time step " + std::to_string(step) + " at t = " +
                                        std::to_string(time_integrator->time()) + " (" + reason + ")",
                                      &contact_step->last_reaction(), &contact_step->last_velocity());
    log << "wrote the contact problem of step " << step << " to " << file << " (" << reason << ")" << std::endl;
  }

  template class Simulator<1>;
  template class Simulator<2>;
  template class Simulator<3>;
} // namespace percussion
