#ifndef PERCUSSION_SIMULATOR_ELASTODYNAMIC_SYSTEM_H
#define PERCUSSION_SIMULATOR_ELASTODYNAMIC_SYSTEM_H

#include <percussion/body/elastic_body.h>
#include <percussion/core/body_frames.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>

#include <memory>

namespace percussion
{
  /**
   * The linear elastodynamic system of @p bodies as a time integrator sees it: the mass and
   * stiffness matrices (with K's block product), the damping, the Maxwell branches, the loads and
   * the Dirichlet conditions. With large rotations, @p frames, the frames the elastic force is
   * measured in, taken anew past @p frame_update_angle (nullptr for small displacements). The
   * system refers to @p bodies, which must outlive it; the preconditioner's rigid-body modes and
   * the projection metric's time are the caller's.
   */
  template <int dim>
  TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<dim> &bodies,
                                                                  std::shared_ptr<BodyFrames> frames,
                                                                  double frame_update_angle);
} // namespace percussion

#endif
