#ifndef PERCUSSION_SIMULATOR_BODY_MOTION_MONITOR_H
#define PERCUSSION_SIMULATOR_BODY_MOTION_MONITOR_H

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/index_set.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/body_frames.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/time_integrator.h>

#include <vector>

#include <mpi.h>

namespace percussion
{
  /**
   * The rigid motion of each body (BodyFrames' bodies, 2D/3D) at the recorded steps, for
   * bodies.csv and the statistics' split of the kinetic energy; with small displacements, a
   * warning and a `large_rotation` event the first time a body turns past 'Kinematics/Rotation
   * warning angle', where the small-displacement kinematics stretch it without strain.
   */
  class BodyMotionMonitor
  {
  public:
    /// What update() warns about: with small displacements (@p warn_rotations), a turn past
    /// @p warning_angle (rad); @p framed_scheme: whether the run's scheme accepts large rotations.
    struct RotationWarnings
    {
      bool warn_rotations = false;
      double warning_angle = 0;
      bool framed_scheme = true;
    };

    /**
     * @p frames: the bodies' frames (nullptr in 1D: no body has a rigid motion, update() does
     * nothing); @p system: its mass matrix; @p owned_dofs: the layout of the mass products' scratch.
     */
    BodyMotionMonitor(const BodyFrames *frames, const TimeIntegration::LinearElastodynamicSystem &system,
                      RotationWarnings warnings, const dealii::IndexSet &owned_dofs, Postprocess::EventLog &events,
                      dealii::ConditionalOStream &log, MPI_Comm communicator);

    /// The rigid motions of @p integrator's present state, and the rotation warnings. Collective.
    void update(const TimeIntegration::TimeIntegrator &integrator);

    /// The rigid motion of each body at the last update() (empty in 1D).
    const std::vector<RigidMotion> &motions() const { return rigid_motions; }

  private:
    const BodyFrames *frames;
    const TimeIntegration::LinearElastodynamicSystem &system;
    const RotationWarnings warnings;
    Postprocess::EventLog &events;
    dealii::ConditionalOStream &log;
    std::vector<RigidMotion> rigid_motions;
    /// Whether the body's rotation warning was given (once per body).
    std::vector<bool> rotation_warned;
    /// M v, M q and M(X + q): scratch of update().
    dealii::PETScWrappers::MPI::Vector mass_v, mass_q, mass_x;
    /// M X, the reference positions' part of M(X + q) (computed at the first update()).
    dealii::PETScWrappers::MPI::Vector mass_reference;
    bool mass_reference_computed = false;
  };
} // namespace percussion

#endif
