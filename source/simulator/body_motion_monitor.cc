// The bodies' rigid motions, measured at the steps the postprocessors record (not at every step:
// a large model's mass products cost a tenth of a step each), and the warning that tells a run
// with small displacements that a body turned too far for them.
#include <percussion/simulator/body_motion_monitor.h>

#include <cmath>
#include <sstream>

namespace percussion
{
  BodyMotionMonitor::BodyMotionMonitor(const BodyFrames *frames,
                                       const TimeIntegration::LinearElastodynamicSystem &system,
                                       const RotationWarnings warnings, const dealii::IndexSet &owned_dofs,
                                       Postprocess::EventLog &events, dealii::ConditionalOStream &log,
                                       MPI_Comm communicator)
    : frames(frames)
    , system(system)
    , warnings(warnings)
    , events(events)
    , log(log)
  {
    if (frames == nullptr)
      return;
    for (auto *x : {&mass_v, &mass_q, &mass_x, &mass_reference})
      x->reinit(owned_dofs, communicator);
    rotation_warned.assign(frames->n_bodies(), false);
  }

  void BodyMotionMonitor::update(const TimeIntegration::TimeIntegrator &integrator)
  {
    if (frames == nullptr)
      return;
    const auto &q = integrator.displacement();
    // (M v where the scheme keeps it: on a large model a mat-vec costs a tenth of a step.)
    const auto *mass_velocity = integrator.mass_times_velocity();
    if (mass_velocity == nullptr)
      {
        system.apply_mass(mass_v, integrator.velocity());
        mass_velocity = &mass_v;
      }
    // M(X + q) = M X + M q: M X once, M q where the scheme keeps it.
    const auto *mass_displacement = integrator.mass_times_displacement();
    if (mass_displacement == nullptr)
      {
        system.apply_mass(mass_q, q);
        mass_displacement = &mass_q;
      }
    if (!mass_reference_computed)
      {
        frames->reference_positions(mass_x); // (X, scratch until the sum below)
        system.apply_mass(mass_reference, mass_x);
        mass_reference_computed = true;
      }
    mass_x = mass_reference;
    mass_x.add(1.0, *mass_displacement);
    rigid_motions = frames->motion(q, *mass_velocity, mass_x, frames->fit(q));
    if (!warnings.warn_rotations)
      return;
    // Small displacements: say once per body when its rotation makes the kinematics inaccurate,
    // naming only a setting this run's scheme accepts (large rotations need a velocity-level scheme).
    for (unsigned int b = 0; b < rigid_motions.size(); ++b)
      if (!rotation_warned[b] && std::abs(rigid_motions[b].rotation_angle) > warnings.warning_angle)
        {
          rotation_warned[b] = true;
          const double phi = rigid_motions[b].rotation_angle;
          std::ostringstream message;
          message << "the body of " << frames->body_name(b) << " has turned by " << phi
                  << " rad with 'Kinematics/Formulation' = small displacements, which stretches it by "
                  << std::sqrt(1 + phi * phi) - 1 << " without strain; "
                  << (warnings.framed_scheme
                        ? "set it to large rotations (or auto)"
                        : "large rotations need a velocity-level scheme: set 'Time integration/Scheme' = "
                          "Moreau-Jean Fremond and 'Kinematics/Formulation' = large rotations (or auto)");
          log << "warning: " << message.str() << std::endl;
          events.add(integrator.step_number(), integrator.time(), "large_rotation", 0, phi, message.str());
        }
  }
} // namespace percussion
