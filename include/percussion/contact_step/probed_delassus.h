#ifndef PERCUSSION_CONTACT_STEP_PROBED_DELASSUS_H
#define PERCUSSION_CONTACT_STEP_PROBED_DELASSUS_H

#include <deal.II/base/types.h>
#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_solvers/csr_matrix.h>
#include <percussion/contact_solvers/distributed_sweeps.h>
#include <percussion/contact_step/scheme_interface.h>
#include <percussion/core/body_frames.h>
#include <percussion/core/petsc_handle.h>

#include <petscmat.h>

#include <array>
#include <vector>

namespace percussion::ContactStep
{
  /// The distributed problem's partition and ghost exchange (contact-solver layer).
  using ContactSolvers::ContactPartition;
  using ContactSolvers::ImpulseExchange;

  /**
   * A sparse approximation of the step's Delassus operator for many contacts, W_s = Hᵀ G H, with
   * G ≈ 𝒯 (Ŵ⁻¹ for Moreau–Jean) restricted to the DoFs that carry contact (the rows of H) and to
   * pairs of them closer than a radius R. No dense array of the contacts' size exists.
   *
   * Why it is accurate: at the step sizes of impact dynamics Ŵ = M + hθC + h²θ²K is dominated by
   * the mass matrix, and its inverse decays geometrically with the distance in cells (for a 1D
   * consistent mass at h = Δx/c and θ = ½ by 7 − √48 ≈ 0.07 per node: the root of r² − 14r + 1).
   * The entries beyond R are small, and the contact step uses W_s only as the operator of an inner
   * problem whose right-hand side is corrected with the exact product W p = Hᵀ𝒯Hp (one substitution
   * with the stored factor per outer iteration, doc/contact.md "Many contacts").
   *
   * How G is obtained (probing): the contact DoFs are coloured so that two DoFs of one colour are
   * more than 2R apart (greedy, visiting them in the order of their reference positions, so that the
   * colours do not depend on the partition); for each colour c one multiple-right-hand-side solve
   * gives y_c = 𝒯 Σ_{a∈c} e_a, and for each contact DoF
   * b the entry G_ba of the one DoF a of colour c within R of b is read as (y_c)_b. What is read
   * also holds the entries of the other DoFs of colour c, all beyond R of b: the same order as what
   * the truncation drops. The cost is one solve per colour (about dim·(2R/spacing + 1)^{dim−1}),
   * once per factorisation and set of contact DoFs, independent of the number of contacts. On the
   * CG path (no factor) the probing solves stop at a relative residual of 1e-8
   * (TimeIntegrator::approximate_impulse_response()), below the truncation's error; the exact
   * products keep the linear solver's tolerance. G is recomputed only when H gains rows that were
   * not probed (new candidates, a master facet not seen before); W_s = HᵀGH (PETSc MatPtAP)
   * whenever H changes. With large rotations (SchemeInterface::response_frames()) 𝒯 = 𝐑𝒯₀𝐑ᵀ: G
   * approximates 𝒯₀ on every DoF of the contact nodes (probed once, as without frames) and
   * W_s = (𝐑ᵀH)ᵀG(𝐑ᵀH) is formed again when the frames turn, without a solve.
   *
   * Parallel: G and W_s are distributed PETSc matrices (rows by DoF and by contact-point owner).
   * The colouring is computed identically on every rank from the gathered positions of the contact
   * DoFs (O(contact DoFs) per rank, once per probing); each rank keeps the rows of its own points of
   * the active block of W_s in the local numbering of its own and ghost contacts (O(own active
   * contacts × neighbours)); the whole block is gathered only where a solver needs the whole problem
   * (gather_whole(): a fallback, an FCLIB dump).
   */
  class ProbedDelassus
  {
  public:
    /**
     * @param radius   R in units of @p spacing (the node spacing of the mesh)
     * @param spacing  node spacing: the smallest cell's edge over the element degree
     */
    ProbedDelassus(unsigned int dim, double radius, double spacing, MPI_Comm communicator);
    ProbedDelassus(const ProbedDelassus &) = delete;
    ProbedDelassus &operator=(const ProbedDelassus &) = delete;

    /// Reference positions of the locally owned DoFs, the first of which is @p first_owned_dof.
    void set_dof_positions(dealii::types::global_dof_index first_owned_dof,
                           std::vector<std::array<double, 3>> positions);
    bool has_dof_positions() const { return positions_set; }

    /**
     * Makes G cover the rows of @p H (Dirichlet rows excluded) and W_s = HᵀGH current.
     * Returns the number of probing solves done (0 if G already covered H). Collective.
     */
    unsigned int ensure(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H);

    /**
     * This rank's rows of the block of @p factor · W_s among the active points, in the local
     * numbering of @p partition (distributed_sweeps.h): @p own_active_points are this rank's active
     * points (sorted global point indices, owned by it); the rank's own contacts are numbered in
     * their order, its ghosts (other ranks' active points its rows couple to) after them; unknown
     * ld·a + i for local contact a and component i < dim; when ld > dim (1D posed as 2D) the extra
     * component gets a decoupled diagonal equal to the normal one. Which of the coupled points of
     * other ranks are active, and their global numbers, come from their owners (one ghost update of
     * a vector over W_s's columns): no rank needs the list of all active points. The last block is
     * kept and returned again while W_s, every rank's points and the factor are unchanged. Collective.
     */
    void active_block(const std::vector<unsigned long long> &own_active_points, unsigned int ld, double factor,
                      ContactSolvers::CsrMatrix &block, ContactPartition &partition);

    /**
     * @p y = G @p x: the probed approximation of 𝒯 (Ŵ⁻¹ for Moreau–Jean) applied to a DoF vector
     * supported on the probed contact DoFs (zero elsewhere). Its error is the truncation's relative
     * to @p x, so that for a small change x − x_old of a vector whose response 𝒯x_old is known,
     * 𝒯x_old + G(x − x_old) is far closer to 𝒯x than Gx (the contact step's warm start after H
     * moved). Requires ensure() for the current operator. Collective.
     */
    void approximate_response(const dealii::PETScWrappers::MPI::Vector &x, dealii::PETScWrappers::MPI::Vector &y) const;
    /// Counts the blocks active_block() made (not those it returned again).
    unsigned int block_version() const { return blocks_made; }

    /// Colours of the last probing (solves per probing = colours), contact DoFs probed, probings.
    unsigned int n_colours() const { return colours; }
    unsigned long long n_probed_dofs() const { return probed_dofs; }
    unsigned int n_probings() const { return probings; }
    /// Entries of G (global).
    unsigned long long n_entries() const { return entries; }

  private:
    /// Colours @p owned_dofs (this rank's contact DoFs) and computes G, of the type of @p h.
    void probe(SchemeInterface &scheme, const std::vector<dealii::types::global_dof_index> &owned_dofs, Mat h);
    /// The vector over W_s's columns (this rank's [@p column_begin, @p column_end)) in which the
    /// owners write the global active numbers of their points, with the ghosts the own rows of
    /// W_s couple to (lookup, lookup_ghosts). Collective.
    void make_lookup(PetscInt column_begin, PetscInt column_end);

    const unsigned int dim;
    const double radius, spacing;
    MPI_Comm communicator;
    dealii::types::global_dof_index first_owned = 0;
    std::vector<std::array<double, 3>> positions; ///< of the locally owned DoFs
    bool positions_set = false;

    std::vector<dealii::types::global_dof_index> probed; ///< owned contact DoFs in G, sorted
    MatHandle G, Ws;
    PetscObjectId operator_id = -1; ///< H of Ws
    /// The nonzero structure of this rank's part of the H that Ws's symbolic product was made
    /// with (row pointers and columns of its diagonal and off-diagonal blocks, the off-diagonal
    /// block's global columns): an H of the same structure needs the numeric product only.
    std::vector<PetscInt> ws_structure;
    /// A copy of that H, which the product keeps: the values of a new H of its structure go there.
    MatHandle ws_h;
    unsigned int response_version = 0; ///< SchemeInterface::unrotated_operator_version() of G
    /// Large rotations: G ≈ 𝒯₀ (the response in the frames, which a turn does not change) and
    /// W_s = (𝐑ᵀH)ᵀ G (𝐑ᵀH); the frames of W_s (SchemeInterface::operator_version()) and their
    /// rotation 𝐑ᵀH (nullptr without frames).
    const BodyFrames *frames = nullptr;
    unsigned int frames_version = 0;
    MatHandle rotated_h;
    unsigned int colours = 0, probings = 0;
    unsigned int ws_version = 0;  ///< counts the computations of Ws
    unsigned int blocks_made = 0; ///< counts the blocks made by active_block()

    /// The last active_block() and what it was made from.
    struct CachedBlock
    {
      bool valid = false;
      unsigned int ws_version = 0, ld = 0;
      double factor = 0;
      std::vector<unsigned long long> points;
      ContactSolvers::CsrMatrix block;
      ContactPartition partition;
    } cached_block;
    /// Global active numbers (plus one; 0: not active) of the points of W_s's columns, with ghost
    /// entries for the other ranks' points that this rank's rows of W_s couple to (sorted global
    /// columns in lookup_ghosts); made again when W_s is.
    VecHandle lookup;
    std::vector<PetscInt> lookup_ghosts;
    unsigned int lookup_version = 0;
    unsigned long long probed_dofs = 0, entries = 0;
  };
} // namespace percussion::ContactStep

#endif
