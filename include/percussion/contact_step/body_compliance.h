#ifndef PERCUSSION_CONTACT_STEP_BODY_COMPLIANCE_H
#define PERCUSSION_CONTACT_STEP_BODY_COMPLIANCE_H

#include <percussion/contact_step/scheme_interface.h>

#include <petscmat.h>

#include <algorithm>
#include <map>
#include <vector>

namespace percussion::ContactStep
{
  /**
   * The compliance of every body on the DoFs where contact acts on it (its support S_b):
   *
   *   G_b = E_bᵀ 𝒯₀ E_b,
   *
   * with 𝒯₀ the scheme's impulse response in the bodies' frames (Ŵ⁻¹ for Moreau–Jean, doc/contact.md)
   * and E_b the unit vectors of S_b. 𝒯₀ is block-diagonal by body (bodies share no DoF), so G_b is
   * all the step's Delassus operator needs of body b: with C = Eᵀ𝐑ᵀB (B = H restricted to the
   * contacts, 𝐑 the frames) W = Σ_b C_bᵀ G_b C_b (DelassusColumns, "body compliance" form), formed
   * without a linear solve while the support stays, whatever H and the frames do: contacts
   * between bodies, whose H moves at every step, cost no solve but that of the impulse's response.
   *
   * G_b is computed once per 𝒯₀ (per step size) and extended when a contact reaches a DoF outside
   * the support. The solves are shared among the bodies: column j of one multiple-right-hand-side
   * solve holds the unit vector of the j-th new DoF of every body at once (their responses do not
   * overlap), so a batch costs as many columns as the most new DoFs of one body, not of all: ten
   * dominoes take the columns of one.
   *
   * Only for a symmetric 𝒯₀ (G_b's rows for an earlier DoF are its columns): DelassusColumns checks
   * SchemeInterface::impulse_response_is_symmetric().
   */
  class BodyCompliance
  {
  public:
    /// Where a support DoF is: its body and its index in that body's support.
    struct Slot
    {
      unsigned int body = 0, index = 0;
    };
    /// An entry of C = Eᵀ𝐑ᵀB: column @p column (a contact direction) has @p value at a slot.
    struct ColumnEntry
    {
      unsigned int body, index;
      PetscInt column;
      double value;
    };
    /// A row of W_c: (column, value) pairs sorted by column.
    using SparseRow = std::vector<std::pair<PetscInt, double>>;

    explicit BodyCompliance(MPI_Comm communicator);

    /// Forgets everything if @p scheme's 𝒯₀ changed (SchemeInterface::unrotated_operator_version()).
    void keep_if_current(const SchemeInterface &scheme);
    /// The DoFs of the supports so far.
    std::size_t size() const { return slots.size(); }
    /// The slot of the support DoF @p dof, or nullptr if it is none.
    const Slot *slot(PetscInt dof) const
    {
      const auto found = slots.find(dof);
      return found == slots.end() ? nullptr : &found->second;
    }
    /// The most DoFs in one body's support.
    std::size_t largest_support() const
    {
      std::size_t largest = 0;
      for (const auto &support : supports)
        largest = std::max(largest, support.size());
      return largest;
    }
    /// The number of DoFs in body @p b's support.
    unsigned int support_size(unsigned int b) const { return b < supports.size() ? supports[b].size() : 0; }
    /// (G_b)_{i,l}.
    double entry(unsigned int b, unsigned int i, unsigned int l) const
    {
      return blocks[b][static_cast<std::size_t>(i) * supports[b].size() + l];
    }

    /**
     * Extends the supports to @p dofs (global DoF indices, the same on every rank) with @p bodies
     * their bodies (the same order): one multiple-right-hand-side solve with 𝒯₀ for the new ones,
     * recorded as a batch. @p local_rows and @p first_row: this rank's rows of the DoF vectors;
     * @p n_rows their global size. Returns the right-hand sides solved (the most new DoFs of one
     * body). Collective.
     */
    unsigned int extend(SchemeInterface &scheme, const std::vector<PetscInt> &dofs,
                        const std::vector<unsigned int> &bodies, PetscInt local_rows, PetscInt first_row,
                        PetscInt n_rows);

    /**
     * W_c = Σ_b C_bᵀ G_b C_b for the entries @p entries of C (every rank's, sorted by body, column
     * and slot, no two alike), symmetrised (the mean of W_ij and W_ji, as the solved columns'),
     * into @p rows (one per column of @p n_columns). Per body, Y = G_b C_b from the columns' few
     * entries, then C_bᵀY: linear in the number of bodies for bodies of bounded size.
     */
    void delassus(const std::vector<ColumnEntry> &entries, PetscInt n_columns, std::vector<SparseRow> &rows) const;

    /// The batches solved so far: their DoFs one batch after the other, and the end of each.
    const std::vector<unsigned long long> &batch_dofs() const { return solved_dofs; }
    const std::vector<unsigned long long> &batch_ends() const { return solved_ends; }

  private:
    MPI_Comm communicator;
    unsigned int version = static_cast<unsigned int>(-1);
    std::map<PetscInt, Slot> slots;
    std::vector<std::vector<PetscInt>> supports; ///< S_b, in the order of G_b's rows
    std::vector<std::vector<double>> blocks;     ///< G_b, row-major
    std::vector<unsigned long long> solved_dofs, solved_ends;
  };
} // namespace percussion::ContactStep

#endif
