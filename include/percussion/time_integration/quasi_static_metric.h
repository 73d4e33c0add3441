#ifndef PERCUSSION_TIME_INTEGRATION_QUASI_STATIC_METRIC_H
#define PERCUSSION_TIME_INTEGRATION_QUASI_STATIC_METRIC_H

#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/iteration_matrix_solver.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>

#include <petscmat.h>

#include <memory>

namespace percussion::TimeIntegration
{
  /**
   * The metric of the quasi-static position projection, 𝒫 = K + M/T² with Dirichlet rows and
   * columns eliminated (doc/contact.md, "Position projection"): the projection
   *
   *   min ½ δqᵀ𝒫δq  subject to  g_{k+1} + Hᵀδq ≥ 0,   δq = 𝒫⁻¹H p̃,
   *
   * moves a body as a whole where it can (rigid modes weigh 1/T², the elastic ones 1/(ω² + 1/T²))
   * and deforms it as a static load would where it cannot, so that the strain energy changes by
   * O(1/(ωT)²) of the removed penetration's rigid part instead of storing it locally as the
   * mass-dominated iteration matrix does. T (LinearElastodynamicSystem::
   * quasi_static_projection_time) is long compared with the slowest wave's transit of the bodies
   * (RunReport::quasi_static_time()).
   *
   * With large rotations the metric is 𝐑𝒫𝐑ᵀ in the step's body frames (as the iteration matrix
   * is). Factorised at the first use (a run that never projects pays nothing), then once per run.
   */
  class QuasiStaticMetric
  {
  public:
    QuasiStaticMetric(const LinearElastodynamicSystem &system, const LinearSolverParameters &solver_parameters,
                      unsigned int n_dofs, MPI_Comm communicator);
    QuasiStaticMetric(const QuasiStaticMetric &) = delete;
    QuasiStaticMetric &operator=(const QuasiStaticMetric &) = delete;

    /// X = 𝒫⁻¹B (𝐑𝒫⁻¹𝐑ᵀB with large rotations), rows of Dirichlet DoFs zero.
    void solve(Mat B, Mat X);
    /// Wall seconds of the assembly and factorisation of 𝒫 (0 until the first solve()).
    double factorisation_seconds() const { return setup_seconds; }

  private:
    void factorise();

    const LinearElastodynamicSystem &system;
    const LinearSolverParameters solver_parameters;
    const unsigned int n_dofs;
    MPI_Comm communicator;
    MatHandle metric; ///< (declared before solver: destroyed after it, whose KSP refers to it)
    std::unique_ptr<IterationMatrixSolver> solver;
    double setup_seconds = 0;
  };
} // namespace percussion::TimeIntegration

#endif
