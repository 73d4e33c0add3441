// The bridge from the body layer to the time integration layer: the integrators see plain linear
// algebra and callbacks, never the bodies.
#include <percussion/simulator/elastodynamic_system.h>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<dim> &bodies,
                                                                  std::shared_ptr<BodyFrames> frames,
                                                                  const double frame_update_angle)
  {
    TimeIntegration::LinearElastodynamicSystem system;
    system.mass = &bodies.mass_matrix();
    system.stiffness = &bodies.stiffness_matrix();
    // Nodal aggregation, K's block copy (a vector field's stiffness has dense node blocks) and the
    // CG operator's block copy with every preconditioner.
    system.node_block_size = bodies.node_block_size();
    system.stiffness_product = std::make_shared<BlockedMatrixProduct>(bodies.stiffness_matrix(), system.node_block_size);
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
      }
    return system;
  }

  template TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<1> &,
                                                                           std::shared_ptr<BodyFrames>, double);
  template TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<2> &,
                                                                           std::shared_ptr<BodyFrames>, double);
  template TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<3> &,
                                                                           std::shared_ptr<BodyFrames>, double);
} // namespace percussion
