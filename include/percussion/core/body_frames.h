#ifndef PERCUSSION_CORE_BODY_FRAMES_H
#define PERCUSSION_CORE_BODY_FRAMES_H

#include <deal.II/base/index_set.h>
#include <deal.II/base/types.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/core/petsc_handle.h>
#include <percussion/core/saved_value.h>

#include <petscmat.h>

#include <array>
#include <map>
#include <string>
#include <vector>

namespace percussion
{
  /// A 3 × 3 matrix stored by rows (in 2D the upper-left 2 × 2 block, the rest of the identity).
  using Matrix3 = std::array<double, 9>;

  /**
   * The nodes of the bodies as the rigid-body kinematics needs them (Body::ElasticBody::node_layout()):
   * per locally owned node its DoFs (one per component, all owned by this rank), reference position,
   * lumped mass (row sum of the consistent mass matrix) and body; per body whether it has Dirichlet
   * DoFs and which material ids form it. A body is a connected part of the mesh (ConnectedBodies).
   */
  struct NodeLayout
  {
    unsigned int dimension = 0;
    std::vector<std::array<dealii::types::global_dof_index, 3>> dofs;
    std::vector<std::array<double, 3>> position;
    std::vector<double> mass;
    std::vector<unsigned int> body;
    unsigned int n_bodies = 0;
    std::vector<bool> body_constrained;                    ///< every rank's value, per body
    std::vector<std::vector<unsigned int>> body_materials; ///< material ids per body
  };

  /// The rigid part of a body's configuration: centre of mass c and rotation R of its best rigid fit.
  struct RigidFit
  {
    double mass = 0;
    std::array<double, 3> center{};
    Matrix3 rotation{{1, 0, 0, 0, 1, 0, 0, 0, 1}};
  };

  /// The rigid-body quantities of a body's motion (bodies.csv), about its centre of mass.
  struct RigidMotion
  {
    double mass = 0;
    std::array<double, 3> center{}, momentum{}, angular_momentum{}, angular_velocity{};
    /// The angle of the body's rotation R (2D: signed, in (−π, π]; 3D: in [0, π]).
    double rotation_angle = 0;
    /// ½ |P|²/m and ½ ω·L: the kinetic energy of the rigid motion; the rest is deformation.
    double kinetic_energy_translation = 0, kinetic_energy_rotation = 0;
  };

  /**
   * A body's turn within a step (BodyFrames::turn()): the rotation Q, the centre c it turns
   * positions about, the velocity V it turns velocities relative to (x ← c + Q(x − c),
   * v ← V + Q(v − V)), and the angular velocity ω of the basis that turns with the body.
   */
  struct BodyTurn
  {
    bool turns = false;
    Matrix3 rotation{{1, 0, 0, 0, 1, 0, 0, 0, 1}};
    std::array<double, 3> center{}, velocity{}, angular_velocity{};
  };

  /// What BodyFrames::turn() turns: positions X + q about c, velocities about V, or force-like
  /// vectors (a rotation of each node's vector, nothing subtracted).
  enum class TurnedQuantity
  {
    positions,
    velocities,
    forces
  };

  /**
   * Exact rigid motion with small strain for linear elastic bodies (doc/theory.md, "Large
   * rotations"): a frame per body, its rotation R the best rigid fit of the current positions
   * x = X + q (the polar factor of A = Σ_i m_i x_i (X_i − X_c)ᵀ, so that Σ m_i |x_i − c − R(X_i − X_c)|²
   * is least; the linearised Tisserand/Buckens condition Σ m_i (X_i − X_c) × u_e,i = 0 holds), and
   * the elastic displacement ũ = Rᵀ(x − c) − (X − X_c) measured in it. The internal force is then
   * 𝐑 K ũ (𝐑 = R at every node of the body): a rigid motion of any size has no strain and no force.
   * Since M = M_s ⊗ I, 𝐑 M 𝐑ᵀ = M and the iteration matrix of a frame is 𝐑 Ŵ 𝐑ᵀ: the factor of Ŵ
   * serves every frame (solve with 𝐑ᵀ b, rotate the solution by 𝐑).
   *
   * Holds the frames a step uses (frames(); the identity at the start) and applies their rotations
   * to DoF vectors and to the rows of dense matrices. Bodies with Dirichlet DoFs keep the identity
   * (their prescribed components are Cartesian). Plain PETSc linear algebra; collective where said.
   */
  class BodyFrames
  {
  public:
    /// Computes the bodies' reference centres of mass (collective).
    BodyFrames(NodeLayout layout, const dealii::IndexSet &locally_owned_dofs, MPI_Comm communicator);

    unsigned int dimension() const { return layout.dimension; }
    unsigned int n_bodies() const { return layout.n_bodies; }
    /// Whether body @p b may rotate (it has no Dirichlet DoF).
    bool is_free(const unsigned int b) const { return !layout.body_constrained[b]; }
    /// The material ids of body @p b, for messages ("material ids 1, 2").
    std::string body_name(unsigned int b) const;
    /// The body of each material id (of the last body it is in, where materials_name_one_body() is false).
    std::map<unsigned int, unsigned int> body_of_material() const;
    /// Whether each material id is in one body only (then the outputs by material id, bodies.csv
    /// and the stress rotated out of the frames, are each one body's).
    bool materials_name_one_body() const;

    /// The best rigid fit of each body at positions X + @p q + @p s @p v (@p v may be null). Collective.
    std::vector<RigidFit> fit(const dealii::PETScWrappers::MPI::Vector &q,
                              const dealii::PETScWrappers::MPI::Vector *v = nullptr, double s = 0) const;

    /**
     * Takes the rotations of @p fits as the step's frames for every free body whose frame turned by
     * more than @p tolerance (rad) since it was last taken; the others keep theirs (a small
     * rotation relative to the frame is then carried by the linear kinematics, with a stretch of
     * at most tolerance²/2). Returns whether any frame changed (then 𝒯 = 𝐑Ŵ⁻¹𝐑ᵀ changed).
     */
    bool update_frames(const std::vector<RigidFit> &fits, double tolerance);
    const std::vector<RigidFit> &frames() const { return step_frames; }
    /// The step frames' rotations by rows and centres, for a checkpoint (12 per body), and back.
    std::vector<double> &frame_values() { return frame_storage; }
    void frames_from_values();
    /// frame_values() by name (`body_frame_<i>`), for a checkpoint's header and the step snapshots.
    SavedValues saved_values();
    /// Copies the step frames into frame_values().
    void store_frames();
    /// Whether every step frame is the identity (then the rotations below change nothing).
    bool all_identity() const { return identity; }

    /// @p x ← 𝐑 x (or 𝐑ᵀ x if @p transpose) at every node (in place, no communication).
    void rotate(dealii::PETScWrappers::MPI::Vector &x, bool transpose) const;
    /// The rows of the dense matrix @p X (DoF partition) rotated as rotate() does with each column.
    void rotate_rows(Mat X, bool transpose) const;
    /**
     * @p out = ũ = 𝐑ᵀ(X + q − d) − X with d the translation of the step frame's centre: the
     * displacement in the step frames (= @p q exactly where the frame is the identity). K ũ is the
     * elastic force in the frame; ½ ũᵀKũ the strain energy.
     */
    void unrotated_displacement(const dealii::PETScWrappers::MPI::Vector &q,
                                dealii::PETScWrappers::MPI::Vector &out) const;
    /// The same in the frames @p fits (e.g. fit(q): the elastic displacement with no rotation left
    /// in it), where a step frame is not the identity.
    void unrotated_displacement(const dealii::PETScWrappers::MPI::Vector &q, dealii::PETScWrappers::MPI::Vector &out,
                                const std::vector<RigidFit> &fits) const;

    /**
     * The rigid-body quantities of each body for displacement @p q and velocity v, given as
     * @p mass_v = M v, and @p mass_x = M(X + q): momentum P = Σ(Mv)_i, angular momentum
     * L = Σ (x_i − c) × (Mv)_i (exactly what the consistent-mass scheme conserves), ω = J⁻¹L with the
     * consistent inertia J = Σ ((x_i − c)·(M(x − c))_i) I − (x_i − c) ⊗ (M(x − c))_i; @p fits is
     * fit(q). Collective.
     */
    std::vector<RigidMotion> motion(const dealii::PETScWrappers::MPI::Vector &q,
                                    const dealii::PETScWrappers::MPI::Vector &mass_v,
                                    const dealii::PETScWrappers::MPI::Vector &mass_x,
                                    const std::vector<RigidFit> &fits) const;
    /**
     * @p out = Ω_b × @p u at every node of a body whose step frame is not the identity (0 elsewhere),
     * Ω_b = R_bᵀ @p angular_velocity[b] the body's spin in its frame: the rate at which a strain
     * field @p u held fixed in the frame moves in it, which is no deformation rate.
     */
    void spin_of(const std::vector<RigidMotion> &motions, const dealii::PETScWrappers::MPI::Vector &u,
                 dealii::PETScWrappers::MPI::Vector &out) const;
    /**
     * @p out = v − (V_b + ω_b × (x − c_b)) at the nodes of the bodies b with @p bodies[b] set (0
     * elsewhere): body b's deformation velocity, with V_b = P_b/m_b, ω_b and c_b of @p motions
     * (motion() at the displacement @p q). It carries no momentum and no angular momentum
     * (Σ(M(V + ω × r)) = P, Σ r × M(V + ω × r) = Jω = L), so ½vᵀMv = E_rigid + ½v_defᵀMv_def per body
     * and scaling v_def changes neither P nor L. No communication.
     */
    void deformation_velocity(const std::vector<RigidMotion> &motions, const dealii::PETScWrappers::MPI::Vector &q,
                              const dealii::PETScWrappers::MPI::Vector &v, const std::vector<char> &bodies,
                              dealii::PETScWrappers::MPI::Vector &out) const;
    /**
     * The node of the locally owned DoF @p dof: its DoFs (dimension() of them), the component
     * @p dof is, and the rotation of its body's step frame. False if @p dof is no node's here.
     */
    bool locate(dealii::types::global_dof_index dof, std::array<dealii::types::global_dof_index, 3> &node_dofs,
                unsigned int &component, const Matrix3 *&rotation) const;
    /// The body (NodeLayout::body) of the locally owned DoF @p dof; n_bodies() if it is no node's here.
    unsigned int body_of_owned_dof(dealii::types::global_dof_index dof) const;
    /**
     * The sparse block-diagonal matrix 𝐑ᵀ (@p transpose) or 𝐑 of the step frames, of PETSc type
     * @p type (that of the matrices it multiplies), owned rows as the DoF vectors'. Collective.
     */
    MatHandle rotation_matrix(bool transpose, MatType type) const;
    /// The reference positions X as a DoF vector (for M(X + q)).
    void reference_positions(dealii::PETScWrappers::MPI::Vector &x) const;

    /**
     * @p x turned per body as @p what says by @p turns (bodies with BodyTurn::turns unset, and
     * bodies that are not free, unchanged). No communication.
     */
    void turn(const std::vector<BodyTurn> &turns, TurnedQuantity what, dealii::PETScWrappers::MPI::Vector &x) const;
    /// The step frames turned with their bodies: R ← QR and the centre turned about c
    /// (frame_values() stay: store_frames() takes the turned frames there).
    void turn_frames(const std::vector<BodyTurn> &turns);
    /// Per body the mass-weighted mean Σ m_i x_i / m of the DoF vector @p x (lumped masses). Collective.
    std::vector<std::array<double, 3>> means(const dealii::PETScWrappers::MPI::Vector &x) const;
    /// The centre of mass X_c of body @p b in the reference configuration.
    std::array<double, 3> reference_center_of(unsigned int b) const;
    /**
     * @p out = ω × (x − c) per node (@p what = positions, x = X + @p in) or ω × (@p in − V)
     * (velocities), with ω, c, V of @p turns; 0 on the bodies that do not turn. No communication.
     */
    void spin_field(const std::vector<BodyTurn> &turns, TurnedQuantity what,
                    const dealii::PETScWrappers::MPI::Vector &in, dealii::PETScWrappers::MPI::Vector &out) const;
    /// exp(φ̂): the rotation by |φ| about φ (Rodrigues' formula; 2D: φ along z).
    static Matrix3 rotation_exponential(const std::array<double, 3> &phi);

    /// The rotation angle of R (2D: signed; 3D: in [0, π]).
    static double rotation_angle(unsigned int dim, const Matrix3 &R);
    /// The angle of the rotation taking @p from to @p to (of Rᵀ_from R_to).
    static double angle_between(unsigned int dim, const Matrix3 &from, const Matrix3 &to);
    /// The orthogonal polar factor of the (2D: upper-left 2 × 2 block of) @p A; the identity if
    /// det A ≤ 0 (3D: positions turned inside out, which the linear model allows).
    static Matrix3 polar_rotation(unsigned int dim, const Matrix3 &A);

  private:
    NodeLayout layout;
    dealii::types::global_dof_index first_owned = 0;
    MPI_Comm communicator;
    std::vector<std::array<double, 3>> reference_center; ///< X_c per body
    std::vector<RigidFit> step_frames;
    std::vector<int> node_of_dof;                ///< local DoF → node (−1: none)
    std::vector<unsigned char> component_of_dof; ///< local DoF → its component in the node
    std::vector<double> frame_storage;
    bool identity = true;
    std::vector<char> turned; ///< per body: its step frame is not the identity

    /// Sets turned and identity from the step frames.
    void note_turned_bodies();
  };
} // namespace percussion

#endif
