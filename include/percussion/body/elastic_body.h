#ifndef PERCUSSION_BODY_ELASTIC_BODY_H
#define PERCUSSION_BODY_ELASTIC_BODY_H

#include <deal.II/base/function_parser.h>
#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>
#include <deal.II/lac/vector.h>
#include <deal.II/numerics/data_postprocessor.h>

#include <percussion/body/body_parameters.h>
#include <percussion/core/body_frames.h>

#include <array>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace percussion::Body
{
  /**
   * Linear viscoelastic bodies discretised with Q1/Q2 Lagrange elements: the matrices and load of
   * M v' + C v + K q = F (paper eq. (1)), with C = αM + βK, distributed over MPI ranks.
   *
   * M and K are assembled unconstrained (Dirichlet conditions are imposed on the velocity by the
   * time integrator, so that the discrete energy identity (56) can account for support reactions).
   */
  template <int dim>
  class ElasticBody
  {
  public:
    ElasticBody(const BodyParameters &parameters, unsigned int fe_degree, double cross_section_area,
                dealii::Triangulation<dim> &triangulation, MPI_Comm communicator);

    /// Distributes DoFs and assembles M and K. @throws InputError if a cell's material id has no
    /// material or a boundary id named in the parameters does not exist in the mesh.
    void setup();

    const dealii::DoFHandler<dim> &get_dof_handler() const { return dof_handler; }
    const dealii::FESystem<dim> &get_fe() const { return fe; }
    const dealii::Mapping<dim> &get_mapping() const { return mapping; }
    const dealii::IndexSet &locally_owned_dofs() const { return owned_dofs; }
    const dealii::IndexSet &locally_relevant_dofs() const { return relevant_dofs; }

    const dealii::PETScWrappers::MPI::SparseMatrix &mass_matrix() const { return mass; }
    const dealii::PETScWrappers::MPI::SparseMatrix &stiffness_matrix() const { return stiffness; }
    double rayleigh_alpha() const { return parameters.rayleigh_alpha; }
    double rayleigh_beta() const { return parameters.rayleigh_beta; }
    /**
     * The Kelvin–Voigt part of the damping matrix, Σ_m τ_KV,m K_m (K_m: K on the cells of
     * material m), so that C = αM + βK + Σ_m τ_KV,m K_m (doc/theory.md, eq. (V1)); nullptr when
     * no material has a Kelvin–Voigt time.
     */
    const dealii::PETScWrappers::MPI::SparseMatrix *kelvin_voigt_matrix() const
    {
      return has_kelvin_voigt ? &kelvin_voigt : nullptr;
    }
    /// One Maxwell branch of the generalized Maxwell model (doc/theory.md, eq. (V2)).
    struct MaxwellBranch
    {
      unsigned int material_id;
      unsigned int term;      ///< 0-based index in the material's Prony series
      double modulus;         ///< Eᵢ
      double relaxation_time; ///< τᵢ
      /// Kᵢ = (Eᵢ/E∞) K_m: the elastic operator of the material's cells with modulus Eᵢ.
      dealii::PETScWrappers::MPI::SparseMatrix stiffness;
    };
    /// The Maxwell branches, by material id and term (empty without Prony series).
    const std::vector<std::unique_ptr<MaxwellBranch>> &maxwell_branches() const { return branches; }

    /// Whether any load is applied, and whether it changes in time.
    bool has_external_force() const { return has_force; }
    bool external_force_depends_on_time() const { return force_depends_on_time; }
    /// F(t): gravity ρg, body force b(x,t) and tractions t(x,t) on their boundary ids.
    void assemble_external_force(double time, dealii::PETScWrappers::MPI::Vector &force) const;

    /// Locally owned DoFs with a Dirichlet condition (fixed or prescribed), sorted.
    const std::vector<dealii::types::global_dof_index> &constrained_dofs() const { return constrained; }
    /// Whether some constrained DoFs follow a non-zero prescribed displacement.
    bool has_prescribed_motion() const { return prescribed_motion; }
    /// The prescribed displacement at time t for every entry of constrained_dofs() (0 where fixed).
    void prescribed_displacement(double time, std::vector<double> &values) const;

    /// Interpolates the initial displacement and velocity; constrained DoFs get their boundary values.
    void initial_conditions(double time, dealii::PETScWrappers::MPI::Vector &displacement,
                            dealii::PETScWrappers::MPI::Vector &velocity) const;

    const Material &material(dealii::types::material_id id) const { return parameters.materials.at(id); }

    /**
     * The rigid-body modes as DoF vectors: dim translations and, in 2D and 3D, the rotations about
     * the coordinate axes through the origin (1, 3 or 6 modes), zero on Dirichlet DoFs: the
     * near-null space of the elasticity operator that smoothed-aggregation multigrid needs.
     */
    std::vector<dealii::PETScWrappers::MPI::Vector> rigid_body_modes() const;
    /// The reference support points of the locally owned DoFs, in their order (unused coordinates 0).
    std::vector<std::array<double, 3>> owned_dof_positions() const;
    /// dim if every node's DoFs are numbered consecutively in component order on every rank (DoF
    /// g has component g mod dim), else 1: the block size for nodal aggregation.
    unsigned int node_block_size() const;
    /**
     * The locally owned nodes for the rigid-body kinematics (BodyFrames): DoFs, reference position,
     * lumped mass (row sum of M), body. A body is a set of material ids whose cells share nodes
     * (connected materials move as one); a body with a Dirichlet DoF on any rank is marked
     * constrained. After setup(). Collective.
     */
    NodeLayout node_layout() const;

    /**
     * The viscous stress at the centre of each locally owned cell of material m, for output:
     * (β + τ_KV,m) σ_m(ε(v)) + Σᵢ (Eᵢ/E∞) σ_m(ε(eᵢ)) over the material's Maxwell branches
     * (doc/theory.md (V1), (V3); σ_m the elastic law), from the ghosted velocity @p velocity and
     * the ghosted branch variables @p branch_strains in the order of maxwell_branches(). dim × dim
     * cell fields named viscous_stress_xx, viscous_stress_xy, …, then the branches' stored energy
     * per unit volume Σᵢ ½ (Eᵢ/E∞) σ_m(ε(eᵢ)) : ε(eᵢ) at the centre (the density of (V6)'s
     * ½ eᵢᵀKᵢeᵢ), named viscoelastic_energy_density (0 on other ranks' cells). @p rotations (large
     * rotations): the rotation R of each material's body frame, in which @p velocity and
     * @p branch_strains are given; the stress is then written in space, R σ Rᵀ.
     */
    std::vector<std::pair<std::string, dealii::Vector<float>>>
    viscoelastic_fields(const dealii::PETScWrappers::MPI::Vector &velocity,
                        const std::vector<const dealii::PETScWrappers::MPI::Vector *> &branch_strains,
                        const std::map<unsigned int, Matrix3> &rotations = {}) const;

    /**
     * Computes the stress tensor (6 or 4 or 1 components) and von Mises stress for DataOut.
     * @p frames (large rotations): the rotation R of the frame of each material's body, so that,
     * given the elastic displacement ũ in the frames, it writes R σ(ũ) Rᵀ (the Cauchy stress in
     * space, small strain); empty: σ of the given displacement as it is. The postprocessor keeps
     * its own copy of @p frames and refers to the bodies' materials.
     */
    std::unique_ptr<dealii::DataPostprocessor<dim>>
    make_stress_postprocessor(std::map<unsigned int, Matrix3> frames = {}) const;

  private:
    void check_mesh_ids() const;
    void assemble_mass_and_stiffness();
    void collect_constrained_dofs();
    /// The vector component of each locally owned DoF, in their order.
    std::vector<unsigned int> owned_dof_components() const;

    const BodyParameters &parameters;
    const double thickness_factor;
    dealii::Triangulation<dim> &triangulation;
    MPI_Comm communicator;
    dealii::FESystem<dim> fe;
    dealii::MappingQ1<dim> mapping;
    dealii::DoFHandler<dim> dof_handler;
    dealii::IndexSet owned_dofs, relevant_dofs;

    dealii::PETScWrappers::MPI::SparseMatrix mass, stiffness;
    dealii::PETScWrappers::MPI::SparseMatrix kelvin_voigt; ///< kelvin_voigt_matrix()
    bool has_kelvin_voigt = false;
    std::vector<std::unique_ptr<MaxwellBranch>> branches;

    std::unique_ptr<dealii::FunctionParser<dim>> body_force, traction, prescribed, initial_q, initial_v;
    bool has_force = false, force_depends_on_time = false, prescribed_motion = false;

    std::vector<dealii::types::global_dof_index> constrained;
    /// Index into constrained of the DoFs that follow the prescribed displacement.
    std::vector<std::size_t> prescribed_entries;
    std::vector<dealii::Point<dim>> prescribed_support_points;
    std::vector<unsigned int> prescribed_components;
  };
} // namespace percussion::Body

#endif
