#include <percussion/core/petsc_check.h>
#include <percussion/time_integration/quasi_static_metric.h>
#include <percussion/time_integration/system_algebra.h>

#include <chrono>

namespace percussion::TimeIntegration
{
  QuasiStaticMetric::QuasiStaticMetric(const LinearElastodynamicSystem &system,
                                       const LinearSolverParameters &solver_parameters, const unsigned int n_dofs,
                                       MPI_Comm communicator)
    : system(system)
    , solver_parameters(solver_parameters)
    , n_dofs(n_dofs)
    , communicator(communicator)
  {
  }

  void QuasiStaticMetric::factorise()
  {
    const auto start = std::chrono::steady_clock::now();
    const double T = system.quasi_static_projection_time;
    // K + M/T², scaled by T² (M + T²K) so that its entries are of the size of the mass matrix's.
    metric = SystemAlgebra::scaled_sum(system, 1.0, T * T);
    SystemAlgebra::eliminate(metric, system.constrained_dofs);
    solver = std::make_unique<IterationMatrixSolver>(solver_parameters, communicator);
    solver->set_near_null_space(system.rigid_body_modes, system.node_block_size);
    solver->set_matrix(metric, n_dofs);
    setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void QuasiStaticMetric::solve(Mat B, Mat X)
  {
    if (!solver)
      factorise();
    const double T2 = system.quasi_static_projection_time * system.quasi_static_projection_time;
    // The Dirichlet rows of B are zero (DelassusColumns), and eliminate() left the metric's
    // diagonal there alone: X is zero on them.
    SystemAlgebra::solve_in_frames(system.frames.get(), B, X,
                                   [this](Mat rhs, Mat solution) { solver->solve(rhs, solution); });
    // (M + T²K)⁻¹ = 𝒫⁻¹/T².
    PERCUSSION_PETSC_CALL(MatScale(X, T2));
  }
} // namespace percussion::TimeIntegration
