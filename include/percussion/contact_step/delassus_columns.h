#ifndef PERCUSSION_CONTACT_STEP_DELASSUS_COLUMNS_H
#define PERCUSSION_CONTACT_STEP_DELASSUS_COLUMNS_H

#include <deal.II/lac/petsc_sparse_matrix.h>
#include <deal.II/lac/petsc_vector.h>

#include <petscmat.h>

#include <percussion/contact_step/body_compliance.h>
#include <percussion/contact_step/scheme_interface.h>
#include <percussion/core/body_frames.h>
#include <percussion/core/petsc_handle.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace percussion::ContactStep
{
  /**
   * The columns of the step's impulse response and Delassus operator for a set of contact points
   * (column blocks of H, dim columns each; the normal column only for the projection's metric):
   *
   *   B = H restricted to the points (Dirichlet rows zero),  X = 𝒯 B,  W_c = Bᵀ X,
   *
   * with 𝒯 the scheme's impulse response (Ŵ⁻¹ for Moreau–Jean, doc/contact.md). W_c is dense and
   * the same on every rank. The columns stay valid while H is the same PETSc object: ContactGeometry
   * builds a new matrix whenever it reassembles H, so the object id tells a stale cache from a valid
   * one, also across steps where nothing asked for the columns.
   *
   * Which points are computed: all candidates when H is expected to stay (it did not change at two
   * calls in a row) and dim·candidates ≤ the column limit, else only the points asked for. With
   * the support of large rotations (below) only the points asked for: a point asked for later
   * costs the solves on its own nodes' DoFs and no more.
   *
   * Large rotations (SchemeInterface::large_rotation_frames()): 𝒯 = 𝐑𝒯₀𝐑ᵀ changes whenever a frame
   * turns, but 𝒯₀ does not. Then, from the first contact on (the frames still the identity), the
   * columns Z = 𝒯₀E of the unit vectors E on every DoF of the nodes that B touches (the support,
   * kept and extended while 𝒯₀ is the same) are stored instead of X,
   * and with C = Eᵀ𝐑ᵀB (a few entries per column): W_c = Cᵀ(EᵀZ)C and 𝒯Hp = 𝐑Z(Cp), without a
   * solve when the frames turn or H changes on the same nodes (impact_3d: doc/user_guide.md,
   * "Kinematics"). Where H moves at every step (body pairs) the body-compliance form below is
   * used instead; without it, or above the column limit of support DoFs, X = 𝐑𝒯₀𝐑ᵀB as without
   * frames.
   *
   * Body compliance (where H moves at every step: contacts between bodies): with frames and a
   * symmetric 𝒯₀, the compliance of each body on its support (BodyCompliance, G_b = E_bᵀ𝒯₀E_b,
   * solved once per step size and extended as contacts reach new nodes) gives
   * W_c = Σ_b C_bᵀ G_b C_b with no solve (kept sparse: is_sparse(), row()), and 𝒯Hp takes one
   * solve. The column limit bounds each body's support. Disabled by
   * @p body_compliance = false (then X = 𝐑𝒯₀𝐑ᵀB at every step).
   */
  class DelassusColumns
  {
  public:
    /// Which operator 𝒯 the columns are of.
    enum class Response
    {
      impulse,   ///< SchemeInterface::impulse_response(): the step's Delassus operator
      projection ///< SchemeInterface::projection_response(): the position projection's metric
    };

    DelassusColumns(unsigned int dim, unsigned int column_limit, MPI_Comm communicator,
                    Response response = Response::impulse, bool body_compliance = true);
    DelassusColumns(const DelassusColumns &) = delete;
    DelassusColumns &operator=(const DelassusColumns &) = delete;

    /**
     * Make the columns of @p points (sorted global point indices) available for @p H.
     * @param operator_changed  the geometry reassembled H at this step
     * @param operator_moves    H also changed at the previous step: do not compute columns for
     *                          all candidates, they would be stale at the next step
     * @param n_candidates      the number of candidate points (column blocks of H)
     * Returns whether columns were (re)computed. Collective.
     */
    bool ensure(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                const std::vector<unsigned long long> &points, unsigned long long n_candidates, bool operator_moves);

    /// How many columns ensure() would compute for these arguments without the support (0 if they
    /// are cached): the operator choice's measure of the dense path's cost. With the support
    /// (large rotations) ensure() computes only the points asked for, which this bounds.
    unsigned long long columns_to_compute(const SchemeInterface &scheme,
                                          const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                          const std::vector<unsigned long long> &points,
                                          unsigned long long n_candidates, bool operator_moves) const;
    /// Whether the cached columns are those of @p H and of @p scheme's present impulse
    /// response (SchemeInterface::operator_version()) and include every one of @p points.
    bool covers(const SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                const std::vector<unsigned long long> &points) const;
    /// Whether the columns take the body-compliance form where H moves (see the class comment):
    /// then a step whose contacts stay on the supports solves once, whatever their number.
    bool uses_body_compliance(const SchemeInterface &scheme) const;
    /// The right-hand sides solved for columns so far (X = 𝒯B, the support's Z, the compliances'
    /// batches; not the body-compliance form's response in apply()).
    unsigned long long solved_columns() const { return n_solved_columns; }
    /// Block position of @p point among the cached columns, or −1 if it has none.
    int block(unsigned long long point) const { return point < position.size() ? position[point] : -1; }
    /// W entry (point a, component i; point b, component j), i and j below the columns per point
    /// (only 0, the normal, for the projection's metric); both points must be cached.
    double entry(unsigned long long a, unsigned int i, unsigned long long b, unsigned int j) const
    {
      const std::size_t column = components * block(b) + j;
      if (compliant)
        {
          const BodyCompliance::SparseRow &r = sparse_rows[components * block(a) + i];
          const auto found =
            std::lower_bound(r.begin(), r.end(), std::make_pair(static_cast<PetscInt>(column), -HUGE_VAL));
          return found != r.end() && found->first == static_cast<PetscInt>(column) ? found->second : 0.0;
        }
      const std::size_t n = components * points.size();
      return delassus[(components * block(a) + i) * n + column];
    }
    /// The most DoFs in one body's support of the body-compliance form (0 before its first use).
    std::size_t largest_body_support() const { return compliance.largest_support(); }
    /// Whether a body's support in the body-compliance form passed the column limit for the present
    /// 𝒯₀ (the columns were then solved for instead).
    bool body_compliance_overflowed() const { return compliance_overflow; }
    /// The number of cached columns (components per cached point).
    std::size_t n_columns() const { return components * points.size(); }
    /// Whether W_c is kept sparse (the body-compliance form): then row() gives its nonzeros.
    bool is_sparse() const { return compliant; }
    /// The nonzeros of W_c's row (point @p a, component @p i): (cached column, value), the cached
    /// column of point b's component j being components · block(b) + j. Only where is_sparse().
    const BodyCompliance::SparseRow &row(unsigned long long a, unsigned int i) const
    {
      return sparse_rows[components * block(a) + i];
    }

    /**
     * For an impulse @p impulse (dim per point of @p impulse_points, all cached; for the
     * projection's metric only the normal components enter): the generalized impulse H p and the
     * response 𝒯 H p, with two dense products and no solve (one solve of @p scheme's impulse
     * response in the body-compliance form). Collective.
     */
    void apply(SchemeInterface &scheme, const std::vector<unsigned long long> &impulse_points,
               const std::vector<double> &impulse, dealii::PETScWrappers::MPI::Vector &generalized_impulse,
               dealii::PETScWrappers::MPI::Vector &response);

    /**
     * How the support's columns Z = 𝒯₀E were solved for: the support DoFs (global indices) in the
     * order of Z's columns, and the end of each multiple-right-hand-side solve among them. A
     * column of a multiple-right-hand-side solve may differ in the last bit with the other
     * columns of its batch (MUMPS on several ranks), so a resumed run solves for the same
     * batches (restore_support_batches()) to continue the uninterrupted run to the bit.
     */
    struct SupportBatches
    {
      std::vector<unsigned long long> dofs;
      std::vector<unsigned long long> ends;
    };
    /// The batches of the present Z; empty if there is none or it is not that of @p scheme's
    /// present 𝒯₀ (SchemeInterface::unrotated_operator_version()).
    SupportBatches support_batches(const SchemeInterface &scheme) const;
    /// A resumed run: the first extension of the support solves for these batches first.
    void restore_support_batches(SupportBatches batches) { pending_batches = std::move(batches); }

  private:
    /// A nonzero of B: its local row, its column among the cached ones, its value.
    struct Entry
    {
      PetscInt local_row, column;
      double value;
    };
    /// Destroys B, X and the impulse vector (PETSc objects).
    void release();
    /// Whether compute() keeps the columns in the rotated form, on the support (large rotations,
    /// an H that stays, the impulse response); then ensure() computes the needed points only.
    bool uses_support(const SchemeInterface &scheme, bool operator_moves) const;
    void compute(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                 const std::vector<unsigned long long> &column_points, bool operator_moves);

    /// components: the columns per point, dim for the impulse response, 1 (the normal) for the
    /// projection's metric, whose problem is frictionless (DenseDelassusOperator::project()).
    const unsigned int dim, components, column_limit;
    MPI_Comm communicator;
    const Response response;
    MatHandle B, X;                                     ///< B and X = 𝒯B, dense; not made in the rotated form
    VecHandle p_columns;                                ///< an impulse on the cached columns (for X)
    std::vector<Entry> b_entries;                       ///< B's nonzeros on this rank (Hp, W_c and C come from them)
    std::vector<double> column_impulse;                 ///< apply()'s impulse on the cached columns, whole
    std::vector<unsigned long long> points;             ///< point indices of the cached column blocks
    std::vector<int> position;                          ///< point index → block position, −1 if not cached
    std::vector<double> delassus;                       ///< W_c, dense, row-major (not in the body-compliance form)
    std::vector<BodyCompliance::SparseRow> sparse_rows; ///< W_c in the body-compliance form
    /// The rotated form (see the class comment): whether the cached columns are in it, the frames,
    /// the support DoFs in the order of Z's columns, Z's local rows (column-major), EᵀZ (k × k)
    /// and C (k × columns, row-major), both the same on every rank.
    bool rotated = false;
    /// The body-compliance form (see the class comment): whether the cached columns are in it,
    /// the compliances, and whether it may be used.
    bool compliant = false;
    unsigned long long n_solved_columns = 0;
    bool compliance_overflow = false;
    unsigned int overflow_version = static_cast<unsigned int>(-1);
    BodyCompliance compliance;
    const bool body_compliance;
    const BodyFrames *frames = nullptr;
    std::vector<PetscInt> support;
    std::map<PetscInt, int> support_column;
    std::vector<double> support_response, support_block, rotated_b;
    unsigned int support_version = static_cast<unsigned int>(-1);
    PetscInt local_rows = 0, first_row = 0;
    /// The end of each batch of support DoFs solved for (SupportBatches::ends).
    std::vector<unsigned long long> support_batch_ends;
    /// A resumed run's batches, solved for at the first extension of the support.
    SupportBatches pending_batches;
    /// The support DoFs (every DoF of the nodes B touches, sorted) of this rank's B entries, gathered. Collective.
    std::vector<PetscInt> gathered_support(PetscInt row_begin) const;
    /// The body-compliance form: extends the supports to @p needed (replaying a resumed run's
    /// batches first) and forms W_c = Σ_b C_bᵀG_bC_b; false if the supports would pass the column
    /// limit. Collective.
    bool delassus_from_compliance(SchemeInterface &scheme, const std::vector<PetscInt> &needed, PetscInt n_columns,
                                  PetscInt row_begin, PetscInt n_rows);
    /// The bodies of @p dofs (every rank's answer for the DoFs it owns). Collective.
    std::vector<unsigned int> bodies_of(const std::vector<PetscInt> &dofs) const;
    /// Extends Z to @p needed (sorted global DoFs); false if the support would pass the column limit.
    bool extend_support(SchemeInterface &scheme, const std::vector<PetscInt> &needed, PetscInt n_rows);
    /// Appends Z's columns of @p dofs (not in the support yet) in one multiple-right-hand-side solve.
    void solve_support_batch(SchemeInterface &scheme, const std::vector<PetscInt> &dofs, PetscInt n_rows);
    /// The rotated form: C = Eᵀ𝐑ᵀB from B's entries (rows from @p row_begin, @p n_columns columns)
    /// and W_c = Cᵀ(EᵀZ)C, symmetrised where @p symmetric (𝒯₀ is). Collective.
    void delassus_from_support(PetscInt n_columns, PetscInt row_begin, bool symmetric);
    unsigned int response_version = 0; ///< SchemeInterface::operator_version() of the columns
    PetscObjectId operator_id = -1;    ///< H whose columns are cached
  };
} // namespace percussion::ContactStep

#endif
