#ifndef PERCUSSION_SIMULATOR_RUN_SET_UP_H
#define PERCUSSION_SIMULATOR_RUN_SET_UP_H

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/grid/tria.h>

#include <percussion/body/elastic_body.h>
#include <percussion/core/body_frames.h>
#include <percussion/postprocess/probe_points.h>
#include <percussion/postprocess/progress_reporter.h>
#include <percussion/simulator/adaptive_step_policy.h>
#include <percussion/simulator/run_parameters.h>
#include <percussion/simulator/step_retry_policy.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>

#include <memory>

#include <mpi.h>

namespace percussion
{
  /**
   * @name The steps of a run's set-up that need none of the Simulator's state, in the order the
   * Simulator calls them.
   * @{
   */

  /**
   * The checks of @p parameters that need the run's dimension (@p dim) or its number of ranks, and
   * that the output directory can be written (rank 0). @throws InputError.
   */
  void check_run_input(const RunParameters &parameters, int dim, MPI_Comm communicator);

  /// The retry policy of 'Contact solver/Non-convergence policy' and 'Time integration/Energy
  /// creation policy' with their halvings.
  StepRetryPolicy step_retry_policy(const RunParameters &parameters);
  /// The policy of 'Time integration/Adaptive steps' (nullptr with a fixed step).
  std::unique_ptr<AdaptiveStepPolicy> adaptive_step_policy(const RunParameters &parameters);

  /**
   * With several ranks and contact pairs (2D/3D, a distributed mesh), partitions @p triangulation
   * again with cells weighted by their slave faces ('Contact/Slave face partition weight'): a
   * step's contact work belongs to the slave nodes' owners. Nothing otherwise (1D meshes are
   * shared, partitioned by METIS). Before the DoFs are distributed. Collective.
   */
  template <int dim>
  void partition_by_contact_work(dealii::Triangulation<dim> &triangulation, const Contact::ContactParameters &contact,
                                 MPI_Comm communicator);

  /**
   * A frame per body of @p bodies (2D/3D; nullptr in 1D): the rigid motion in bodies.csv, the check
   * of the small-displacement kinematics, and with large rotations the frames the elastic force is
   * measured in. @throws InputError where large rotations (@p large_rotations) meet a material id
   * shared by several bodies (the outputs by material id need a frame per id). Collective.
   */
  template <int dim>
  std::shared_ptr<BodyFrames> make_body_frames(const Body::ElasticBody<dim> &bodies, bool large_rotations,
                                               MPI_Comm communicator);

  /**
   * 'Output/Probe points' located in the mesh of @p bodies (nullptr without any), so that a point
   * outside the mesh stops the run before it starts. @throws InputError for such a point. Collective.
   */
  template <int dim>
  std::unique_ptr<Postprocess::ProbePoints<dim>> locate_probes(const Body::ElasticBody<dim> &bodies,
                                                               const std::string &probe_points, MPI_Comm communicator);

  /**
   * The linear elastodynamic system of @p bodies as a time integrator sees it: the mass and
   * stiffness matrices (with K's block product), the damping, the Maxwell branches, the loads and
   * the Dirichlet conditions. With large rotations, @p frames, the frames the elastic force is
   * measured in, taken anew past @p frame_update_angle, and @p turning_step_basis ('Kinematics/
   * Turning step basis'); nullptr for small displacements. The
   * system refers to @p bodies, which must outlive it; the preconditioner's rigid-body modes and
   * the projection metric's time are the caller's.
   */
  template <int dim>
  TimeIntegration::LinearElastodynamicSystem elastodynamic_system(Body::ElasticBody<dim> &bodies,
                                                                  std::shared_ptr<BodyFrames> frames,
                                                                  double frame_update_angle, bool turning_step_basis);

  /**
   * @p linear_solver with CG's preconditioner 'auto' resolved: algebraic multigrid where the step's
   * @p courant_number exceeds 'AMG Courant number' (the matrix is then stiffness-dominated), Jacobi
   * at the CFL step.
   */
  LinearSolverParameters resolve_automatic_preconditioner(LinearSolverParameters linear_solver, double courant_number);

  /**
   * Creates 'Output/Directory' on rank 0 (OutputParameters::create_directory()). @throws
   * InputError on every rank where rank 0 cannot. Collective.
   */
  void create_output_directory(const RunParameters &parameters, MPI_Comm communicator);

  /// The parameters as run (the file with its --set overrides) into <Output/Directory>/parameters.prm
  /// on rank 0, and a line of @p log that says where; nothing where the run has no such text.
  void write_parameters_as_run(const RunParameters &parameters, dealii::ConditionalOStream &log, MPI_Comm communicator);

  /// The progress line's postprocessor (rank 0 writes it to std::cout): by step, or by time with
  /// adaptive steps (@p adaptive), where the number of steps is not known in advance.
  std::unique_ptr<Postprocess::ProgressReporter> make_progress_reporter(const RunParameters &parameters, bool adaptive,
                                                                        MPI_Comm communicator);

  /** @} */
} // namespace percussion

#endif
