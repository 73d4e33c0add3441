#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/mesh_generator.h>
#include <percussion/postprocess/progress_reporter.h>
#include <percussion/simulator/simulator.h>

#include <cmath>
#include <iomanip>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  std::vector<std::string> Simulator<dim>::statistics_columns()
  {
    return {"step", "time", "kinetic_energy", "strain_energy", "total_energy", "external_work",
            "damping_work", "numerical_dissipation", "contact_work_normal", "contact_work_tangential",
            "energy_balance_residual", "linear_solver_iterations"};
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
    table->add_row({static_cast<double>(integrator.step_number()), integrator.time(), audit.kinetic_energy(),
                    audit.strain_energy(), audit.total_energy(), audit.external_work(), audit.damping_work(),
                    audit.numerical_dissipation(), audit.contact_work_normal(), audit.contact_work_tangential(),
                    audit.balance_residual(),
                    static_cast<double>(integrator.step_number() > 0 ? integrator.linear_solver().last_iterations() : 0)});
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
    time_integrator = std::make_unique<TimeIntegration::MoreauJeanIntegrator>(
      system, parameters.time, parameters.linear_solver, bodies->locally_owned_dofs(), communicator);
    time_integrator->initialize(parameters.time.start_time, q0, v0);
    run_timings.factorisation = time_integrator->linear_solver().setup_seconds();
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
            time_integrator->advance();
            audit.add_step(time_integrator->last_step_energy(), 0.0, 0.0);
            record_statistics();
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
    log << "done: " << n_steps << " steps in " << std::setprecision(4) << progress.wall_time()
        << " s; energy E_end/E_0 = " << std::setprecision(10)
        << (audit.initial_energy() != 0 ? audit.total_energy() / audit.initial_energy() : 0.0)
        << ", largest per-step energy-balance residual (relative) = " << std::setprecision(3)
        << audit.max_relative_step_residual() << std::endl;
  }

  template class Simulator<1>;
  template class Simulator<2>;
  template class Simulator<3>;
} // namespace percussion
