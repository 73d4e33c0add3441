// The set-up steps of a run that need none of the Simulator's state: the mesh partition by contact
// work (the owners of the slave nodes do a step's contact work), the bodies' frames, the probes,
// the bridge from the body layer to the integrators (which see plain linear algebra and callbacks,
// never the bodies), and the output directory, made only once the whole input has been accepted
// so that a refused run leaves nothing on disk.
#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/run_set_up.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace percussion
{
  using namespace dealii;

  void check_run_input(const RunParameters &parameters, const int dim, MPI_Comm communicator)
  {
    if (parameters.dimension != dim)
      throw InputError("Simulator<" + std::to_string(dim) +
                       "> cannot run a file with Dimension = " + std::to_string(parameters.dimension) + ".");
    const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(communicator);
    if (parameters.linear_solver.direct_package == DirectSolverPackage::petsc &&
        parameters.linear_solver.type != LinearSolverType::cg && n_ranks > 1)
      throw InputError("Parameter 'Linear solver/Direct solver package' = petsc works on one MPI rank only (this run "
                       "has " +
                       std::to_string(n_ranks) + "); use mumps or auto.");
    if (Utilities::MPI::this_mpi_process(communicator) == 0)
      parameters.output.check_writable();
  }

  StepRetryPolicy step_retry_policy(const RunParameters &parameters)
  {
    return StepRetryPolicy(parameters.contact_solver.non_convergence_policy == ContactStep::NonConvergencePolicy::retry,
                           parameters.contact_solver.retry_step_halvings,
                           parameters.time.energy_creation_policy == TimeIntegration::EnergyCreationPolicy::retry
                             ? parameters.time.energy_retry_halvings
                             : 0);
  }

  std::unique_ptr<AdaptiveStepPolicy> adaptive_step_policy(const RunParameters &parameters)
  {
    if (!parameters.time.adaptive_steps)
      return nullptr;
    const auto &time = parameters.time;
    return std::make_unique<AdaptiveStepPolicy>(time.time_step, time.adaptive_levels, time.quiet_steps,
                                                time.quiet_force_change, time.dissipation_tolerance);
  }

  template <int dim>
  void partition_by_contact_work(Triangulation<dim> &triangulation, const Contact::ContactParameters &contact,
                                 MPI_Comm communicator)
  {
    // 1D meshes are shared, partitioned by METIS (create_triangulation()).
    if constexpr (dim > 1)
      {
        const double extra = contact.slave_face_partition_weight;
        auto *distributed = dynamic_cast<parallel::distributed::Triangulation<dim> *>(&triangulation);
        if (distributed == nullptr || contact.pairs.empty() || !(extra > 0.) ||
            Utilities::MPI::n_mpi_processes(communicator) == 1)
          return;
        std::vector<Contact::BoundaryIds> slave_ids;
        for (const auto &pair : contact.pairs)
          slave_ids.push_back(pair.slave_boundary);
        // p4est's weights are integers: a cell weighs 100, each slave face 100 · extra more. The
        // space-filling curve is then cut where the sums of the weights are equal, so that the
        // contact surface is shared with the cells.
        const auto connection = distributed->signals.weight.connect(
          [slave_ids, extra](const typename Triangulation<dim>::cell_iterator &cell,
                             const typename Triangulation<dim>::CellStatus) -> unsigned int {
            unsigned int slave_faces = 0;
            for (const unsigned int f : cell->face_indices())
              if (cell->face(f)->at_boundary() &&
                  std::any_of(slave_ids.begin(), slave_ids.end(), [&](const Contact::BoundaryIds &ids) {
                    return ids.contains(cell->face(f)->boundary_id());
                  }))
                ++slave_faces;
            return 100 + static_cast<unsigned int>(std::lround(100. * extra * slave_faces));
          });
        distributed->repartition();
        connection.disconnect();
      }
  }

  template <int dim>
  std::shared_ptr<BodyFrames> make_body_frames(const Body::ElasticBody<dim> &bodies, const bool large_rotations,
                                               MPI_Comm communicator)
  {
    if constexpr (dim == 1)
      return nullptr;
    else
      {
        auto frames = std::make_shared<BodyFrames>(bodies.node_layout(), bodies.locally_owned_dofs(), communicator);
        if (large_rotations && !frames->materials_name_one_body())
          throw InputError("Mesh: the mesh has " + std::to_string(frames->n_bodies()) +
                           " separate bodies, and a material id is shared by several of them; with large "
                           "rotations ('Kinematics/Formulation') each body needs a material id of its own (list "
                           "them in 'Materials/Material ids').");
        return frames;
      }
  }

  template <int dim>
  std::unique_ptr<Postprocess::ProbePoints<dim>> locate_probes(const Body::ElasticBody<dim> &bodies,
                                                               const std::string &probe_points, MPI_Comm communicator)
  {
    const auto points = Postprocess::parse_probe_points<dim>(probe_points);
    if (points.empty())
      return nullptr;
    // (λ, μ) of the stress law the bodies use: a 1D bar is uniaxial, σ = E ε (λ = 0, 2μ = E).
    const auto lame = [&bodies](const types::material_id id) {
      const auto &material = bodies.material(id);
      return dim == 1 ? std::make_pair(0.0, 0.5 * material.youngs_modulus)
                      : std::make_pair(material.lame_lambda(), material.lame_mu());
    };
    PETScWrappers::MPI::Vector like(bodies.locally_owned_dofs(), communicator);
    return std::make_unique<Postprocess::ProbePoints<dim>>(bodies.get_dof_handler(), bodies.get_mapping(), points, lame,
                                                           like, communicator);
  }

  template <int dim>
  TimeIntegration::LinearElastodynamicSystem
  elastodynamic_system(Body::ElasticBody<dim> &bodies, std::shared_ptr<BodyFrames> frames,
                       const double frame_update_angle, const bool turning_step_basis)
  {
    TimeIntegration::LinearElastodynamicSystem system;
    system.mass = &bodies.mass_matrix();
    system.stiffness = &bodies.stiffness_matrix();
    // Nodal aggregation, K's block copy (a vector field's stiffness has dense node blocks) and the
    // CG operator's block copy with every preconditioner.
    system.node_block_size = bodies.node_block_size();
    system.stiffness_product =
      std::make_shared<BlockedMatrixProduct>(bodies.stiffness_matrix(), system.node_block_size);
    system.rayleigh_alpha = bodies.rayleigh_alpha();
    system.rayleigh_beta = bodies.rayleigh_beta();
    system.kelvin_voigt = bodies.kelvin_voigt_matrix();
    for (const auto &branch : bodies.maxwell_branches())
      system.maxwell_branches.push_back({&branch->stiffness, branch->relaxation_time});
    system.has_external_force = bodies.has_external_force();
    system.external_force_depends_on_time = bodies.external_force_depends_on_time();
    system.assemble_external_force = [&bodies](const double t, PETScWrappers::MPI::Vector &f) {
      bodies.assemble_external_force(t, f);
    };
    system.constrained_dofs = bodies.constrained_dofs();
    system.has_prescribed_motion = bodies.has_prescribed_motion();
    system.prescribed_displacement = [&bodies](const double t, std::vector<double> &values) {
      bodies.prescribed_displacement(t, values);
    };
    if (frames)
      {
        system.frames = std::move(frames);
        system.frame_update_angle = frame_update_angle;
        system.turning_step_basis = turning_step_basis;
      }
    return system;
  }

  LinearSolverParameters resolve_automatic_preconditioner(LinearSolverParameters linear_solver,
                                                          const double courant_number)
  {
    // Multigrid only where the step is long against the wave transit time of a cell: the matrix is
    // then stiffness-dominated; at the CFL step the mass dominates and Jacobi suffices.
    if (linear_solver.preconditioner == PreconditionerType::automatic)
      linear_solver.preconditioner =
        courant_number > linear_solver.amg_courant_number ? PreconditionerType::ml : PreconditionerType::jacobi;
    return linear_solver;
  }

  std::unique_ptr<Postprocess::ProgressReporter> make_progress_reporter(const RunParameters &parameters,
                                                                        const bool adaptive, MPI_Comm communicator)
  {
    const unsigned int n_steps = parameters.time.n_steps();
    return std::make_unique<Postprocess::ProgressReporter>(std::cout,
                                                           Utilities::MPI::this_mpi_process(communicator) == 0,
                                                           parameters.output.progress_interval, adaptive ? 0 : n_steps,
                                                           parameters.time.start_time,
                                                           parameters.time.start_time +
                                                             n_steps * parameters.time.time_step);
  }

  void create_output_directory(const RunParameters &parameters, MPI_Comm communicator)
  {
    // Every rank stops if rank 0 cannot create it.
    std::string failure;
    if (Utilities::MPI::this_mpi_process(communicator) == 0)
      try
        {
          parameters.output.create_directory();
        }
      catch (const InputError &error)
        {
          failure = error.what();
        }
    failure = Utilities::MPI::broadcast(communicator, failure, 0);
    if (!failure.empty())
      throw InputError(failure);
  }

  void write_parameters_as_run(const RunParameters &parameters, ConditionalOStream &log, MPI_Comm communicator)
  {
    if (Utilities::MPI::this_mpi_process(communicator) != 0 || parameters.effective_parameters.empty())
      return;
    const std::string &directory = parameters.output.directory;
    std::ofstream(directory + "/parameters.prm") << parameters.effective_parameters;
    log << "parameters as run: " << directory << "/parameters.prm" << std::endl;
  }
  template void partition_by_contact_work(Triangulation<1> &, const Contact::ContactParameters &, MPI_Comm);
  template std::shared_ptr<BodyFrames> make_body_frames(const Body::ElasticBody<1> &, bool, MPI_Comm);
  template std::unique_ptr<Postprocess::ProbePoints<1>> locate_probes(const Body::ElasticBody<1> &, const std::string &,
                                                                      MPI_Comm);
  template TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<1> &,
                                                                           std::shared_ptr<BodyFrames>, double, bool);
  template void partition_by_contact_work(Triangulation<2> &, const Contact::ContactParameters &, MPI_Comm);
  template std::shared_ptr<BodyFrames> make_body_frames(const Body::ElasticBody<2> &, bool, MPI_Comm);
  template std::unique_ptr<Postprocess::ProbePoints<2>> locate_probes(const Body::ElasticBody<2> &, const std::string &,
                                                                      MPI_Comm);
  template TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<2> &,
                                                                           std::shared_ptr<BodyFrames>, double, bool);
  template void partition_by_contact_work(Triangulation<3> &, const Contact::ContactParameters &, MPI_Comm);
  template std::shared_ptr<BodyFrames> make_body_frames(const Body::ElasticBody<3> &, bool, MPI_Comm);
  template std::unique_ptr<Postprocess::ProbePoints<3>> locate_probes(const Body::ElasticBody<3> &, const std::string &,
                                                                      MPI_Comm);
  template TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<3> &,
                                                                           std::shared_ptr<BodyFrames>, double, bool);
} // namespace percussion
