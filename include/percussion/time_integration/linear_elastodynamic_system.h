#ifndef PERCUSSION_TIME_INTEGRATION_LINEAR_ELASTODYNAMIC_SYSTEM_H
#define PERCUSSION_TIME_INTEGRATION_LINEAR_ELASTODYNAMIC_SYSTEM_H

#include <deal.II/base/types.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/blocked_matrix_product.h>
#include <percussion/core/body_frames.h>

#include <functional>
#include <memory>
#include <vector>

namespace percussion::TimeIntegration
{
  /**
   * What a time integrator needs of the discretised bodies, as plain linear algebra:
   * M v' + C v + K q = F(t) + R with C = αM + βK (paper eq. (1c)), and Dirichlet conditions
   * q_i(t) = g_i(t) on a set of DoFs. Filled by the simulator from the body layer.
   */
  struct LinearElastodynamicSystem
  {
    const dealii::PETScWrappers::MPI::SparseMatrix *mass = nullptr;
    const dealii::PETScWrappers::MPI::SparseMatrix *stiffness = nullptr;
    /// K's products through its block copy (BlockedMatrixProduct); where null, apply_stiffness()
    /// uses K itself. (M, a consistent mass, fills a third of its node blocks: its own product.)
    std::shared_ptr<const BlockedMatrixProduct> stiffness_product;
    /// dst = M src.
    void apply_mass(dealii::PETScWrappers::MPI::Vector &dst, const dealii::PETScWrappers::MPI::Vector &src) const
    {
      mass->vmult(dst, src);
    }
    /// dst = K src.
    void apply_stiffness(dealii::PETScWrappers::MPI::Vector &dst, const dealii::PETScWrappers::MPI::Vector &src) const
    {
      stiffness_product ? stiffness_product->vmult(dst, src) : stiffness->vmult(dst, src);
    }
    double rayleigh_alpha = 0;
    double rayleigh_beta = 0;
    /// The per-material Kelvin–Voigt part of C, Σ_m τ_KV,m K_m (doc/theory.md (V1)), or nullptr:
    /// C = αM + βK + this.
    const dealii::PETScWrappers::MPI::SparseMatrix *kelvin_voigt = nullptr;

    /**
     * A Maxwell branch of the generalized Maxwell model (doc/theory.md (V2)–(V5)): its force sᵢ
     * adds to K q in the equation of motion, M v' + C v + K q + Σ sᵢ = F + R, and follows
     * ṡᵢ + sᵢ/τᵢ = Kᵢ q̇ (Simo & Hughes, Computational Inelasticity, ch. 10; doc/theory.md (V3)).
     */
    struct MaxwellBranch
    {
      const dealii::PETScWrappers::MPI::SparseMatrix *stiffness = nullptr; ///< Kᵢ
      double relaxation_time = 1;                                          ///< τᵢ
    };
    /// Empty for an elastic (or Kelvin–Voigt) body; only the Moreau–Jean schemes take branches.
    std::vector<MaxwellBranch> maxwell_branches;

    bool has_external_force = false;
    bool external_force_depends_on_time = false;
    /// Assembles F(t) into the (owned, non-ghosted) vector.
    std::function<void(double, dealii::PETScWrappers::MPI::Vector &)> assemble_external_force;

    /// Locally owned constrained DoFs, sorted.
    std::vector<dealii::types::global_dof_index> constrained_dofs;
    /// Whether any rank's constrained DoFs follow a non-zero displacement g(t).
    bool has_prescribed_motion = false;
    /// g(t) at constrained_dofs (0 for fixed DoFs).
    std::function<void(double, std::vector<double> &)> prescribed_displacement;

    /// The near-null space of K (rigid-body modes, zero on Dirichlet DoFs) for the multigrid
    /// preconditioners of the CG path; may be empty.
    std::vector<dealii::PETScWrappers::MPI::Vector> rigid_body_modes;
    /// Consecutive DoFs per node (Body::ElasticBody::node_block_size()).
    unsigned int node_block_size = 1;

    /**
     * Large rotations (`Kinematics/Formulation`): the bodies' frames, in which the elastic force is
     * 𝐑Kũ and the iteration matrix 𝐑Ŵ𝐑ᵀ (BodyFrames); null for small displacements (K q).
     */
    std::shared_ptr<BodyFrames> frames;
    /// 'Kinematics/Frame update angle': a frame is taken anew when the body turned more than this.
    double frame_update_angle = 1e-4;
    /// 'Kinematics/Turning step basis': the Moreau–Jean step with θ > ½ in a basis turning with each body.
    bool turning_step_basis = true;

    /**
     * T > 0: the position projection's metric is the quasi-static 𝒫 = K + M/T² (QuasiStaticMetric,
     * 'Contact solver/Projection metric = quasi-static'); 0: the scheme's iteration matrix.
     */
    double quasi_static_projection_time = 0;
  };
} // namespace percussion::TimeIntegration

#endif
