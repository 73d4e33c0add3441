#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/contact_step/probed_delassus.h>
#include <percussion/contact_step/scheme_interface.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_access.h>
#include <percussion/core/petsc_check.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace percussion::ContactStep
{
  using ContactSolvers::on_every_rank;
  using ContactSolvers::partition_by_counts;
  using ContactSolvers::plain_all_gather;
  namespace
  {
    /**
     * Relative CG residual of the probing solves on the CG path (the linear solver's own
     * 'Tolerance', 1e-12 by default, where that is looser). W_s is an approximation whose
     * truncation at the probing radius leaves relative errors of 1e-5–1e-7, and the exact
     * products, solved to the full tolerance, decide convergence: measured on the flat landing
     * (Jacobi CG, 1 rank), 2 exact products per lasting step at 1e-12, 1e-10, 1e-8 and 1e-6 at
     * 16 × 16 × 8 cells and at 1e-12, 1e-8 and 1e-6 at 32 × 32 × 16, while the landing steps
     * (the probing) fell 3.41 → 2.93 → 2.33 → 1.78 s and 60.2 → 42.1 → 32.8 s. 1e-8 keeps the CG
     * error below the truncation's. A direct solver gives exact columns anyway.
     */
    constexpr double probing_cg_tolerance = 1e-8;

    /// One contact DoF as every rank sees it during the colouring.
    struct DofRecord
    {
      unsigned long long dof = 0;
      double x[3] = {0, 0, 0};
    };

    /// The ranks' @p local items (plain data) in rank order, on every rank.
    template <typename T>
    std::vector<T> all_gather(const std::vector<T> &local, MPI_Comm communicator)
    {
      std::vector<T> all;
      plain_all_gather(local, all, communicator);
      return all;
    }

    /// Points binned on a uniform grid of cell size @p cell, to find the neighbours within it.
    class SpatialBins
    {
    public:
      SpatialBins(const std::vector<DofRecord> &records, const double cell)
        : records(records)
        , cell(cell)
      {
        for (unsigned int i = 0; i < records.size(); ++i)
          bins[key(coordinates(records[i]))].push_back(i);
      }

      /// Calls @p f(j) for every record j within @p distance (≤ cell) of record @p i, i included.
      template <typename F>
      void for_each_within(const unsigned int i, const double distance, F &&f) const
      {
        const auto c = coordinates(records[i]);
        const double limit = distance * distance * (1 + 1e-12);
        for (long long dx = -1; dx <= 1; ++dx)
          for (long long dy = -1; dy <= 1; ++dy)
            for (long long dz = -1; dz <= 1; ++dz)
              {
                const auto it = bins.find(key({{c[0] + dx, c[1] + dy, c[2] + dz}}));
                if (it == bins.end())
                  continue;
                for (const unsigned int j : it->second)
                  {
                    double d2 = 0;
                    for (unsigned int k = 0; k < 3; ++k)
                      d2 += (records[i].x[k] - records[j].x[k]) * (records[i].x[k] - records[j].x[k]);
                    if (d2 <= limit)
                      f(j);
                  }
              }
      }

    private:
      std::array<long long, 3> coordinates(const DofRecord &r) const
      {
        return {{static_cast<long long>(std::floor(r.x[0] / cell)), static_cast<long long>(std::floor(r.x[1] / cell)),
                 static_cast<long long>(std::floor(r.x[2] / cell))}};
      }
      static std::uint64_t key(const std::array<long long, 3> &c)
      {
        // 21 bits per coordinate (offset to be positive): unique for |c| < 2^20 cells.
        const auto part = [](const long long v) {
          return static_cast<std::uint64_t>((v + (1ll << 20)) & ((1ll << 21) - 1));
        };
        return part(c[0]) | (part(c[1]) << 21) | (part(c[2]) << 42);
      }

      const std::vector<DofRecord> &records;
      const double cell;
      std::unordered_map<std::uint64_t, std::vector<unsigned int>> bins;
    };
    /// This rank's part of the nonzero structure of the MPIAIJ matrix @p h: the row pointers and
    /// columns of its diagonal and off-diagonal blocks and the global numbers of the latter's
    /// columns, in one list (equal lists: the same structure).
    std::vector<PetscInt> nonzero_structure(Mat h)
    {
      Mat diagonal, off_diagonal;
      const PetscInt *global_columns;
      PERCUSSION_PETSC_CALL(MatMPIAIJGetSeqAIJ(h, &diagonal, &off_diagonal, &global_columns));
      std::vector<PetscInt> structure;
      PetscInt n_off_diagonal_columns = 0;
      PERCUSSION_PETSC_CALL(MatGetSize(off_diagonal, nullptr, &n_off_diagonal_columns));
      for (Mat block : {diagonal, off_diagonal})
        {
          PetscInt n_rows;
          const PetscInt *row_start, *columns;
          PetscBool done;
          PERCUSSION_PETSC_CALL(MatGetRowIJ(block, 0, PETSC_FALSE, PETSC_FALSE, &n_rows, &row_start, &columns, &done));
          AssertThrow(done, dealii::ExcMessage("ProbedDelassus: no row structure of H's local block"));
          structure.push_back(n_rows);
          structure.insert(structure.end(), row_start, row_start + n_rows + 1);
          structure.insert(structure.end(), columns, columns + row_start[n_rows]);
          PERCUSSION_PETSC_CALL(
            MatRestoreRowIJ(block, 0, PETSC_FALSE, PETSC_FALSE, &n_rows, &row_start, &columns, &done));
        }
      structure.insert(structure.end(), global_columns, global_columns + n_off_diagonal_columns);
      return structure;
    }

    /**
     * A colour per DoF of @p records such that two DoFs closer than @p separation (2R) differ: every
     * DoF then has at most one probe of each colour within R.
     */
    std::vector<int> colour_by_separation(const std::vector<DofRecord> &records, const double separation)
    {
      // Greedy colouring: two DoFs closer than 2R (the components of one node among them) get
      // different colours, so that every DoF has at most one probe of each colour within R. The DoFs
      // are visited in the order of their positions (then indices), not of their indices, which
      // depend on the partition: the colours, and so what the truncation leaves in G (the entries of
      // same-colour DoFs beyond R), are the same on any number of ranks.
      std::vector<int> colour(records.size(), -1);
      std::vector<unsigned int> order(records.size());
      std::iota(order.begin(), order.end(), 0u);
      std::sort(order.begin(), order.end(), [&records](const unsigned int a, const unsigned int b) {
        const DofRecord &p = records[a], &q = records[b];
        return std::tie(p.x[0], p.x[1], p.x[2], p.dof) < std::tie(q.x[0], q.x[1], q.x[2], q.dof);
      });
      const SpatialBins bins(records, separation);
      std::vector<char> used;
      for (const unsigned int i : order)
        {
          used.assign(used.size(), 0);
          bins.for_each_within(i, separation, [&](const unsigned int j) {
            if (colour[j] >= 0)
              {
                if (static_cast<std::size_t>(colour[j]) >= used.size())
                  used.resize(colour[j] + 1, 0);
                used[colour[j]] = 1;
              }
          });
          int c = 0;
          while (static_cast<std::size_t>(c) < used.size() && used[c])
            ++c;
          colour[i] = c;
        }
      return colour;
    }

    /**
     * The entries of G (preallocated for the rows @p neighbours of the @p owned_dofs, the first at
     * @p first_record of @p records) by one multiple-right-hand-side solve per batch of colours:
     * the probe of a colour is 1 at every DoF of that colour, and entry (b, a) is read from the
     * column of a's colour at row b. Collective.
     */
    void probe_by_colours(Mat G, SchemeInterface &scheme, MPI_Comm communicator,
                          const std::vector<dealii::types::global_dof_index> &owned_dofs,
                          const unsigned long long first_owned, const PetscInt n_rows_local, const PetscInt n_rows,
                          const std::vector<DofRecord> &records, const std::vector<int> &colour,
                          const unsigned int colours, const std::size_t first_record,
                          const std::vector<std::vector<unsigned int>> &neighbours)
    {
      const unsigned int batch = 32;
      std::vector<PetscInt> columns;
      std::vector<PetscScalar> values;
      for (unsigned int c0 = 0; c0 < colours; c0 += batch)
        {
          const unsigned int nb = std::min(batch, colours - c0);
          MatHandle B, X;
          PERCUSSION_PETSC_CALL(MatCreateDense(communicator, n_rows_local, PETSC_DECIDE, n_rows, nb, nullptr, B.out()));
          PERCUSSION_PETSC_CALL(MatCreateDense(communicator, n_rows_local, PETSC_DECIDE, n_rows, nb, nullptr, X.out()));
          PetscScalar *b;
          PetscInt lda;
          PERCUSSION_PETSC_CALL(MatDenseGetLDA(B, &lda));
          PERCUSSION_PETSC_CALL(MatDenseGetArray(B, &b));
          for (std::size_t i = 0; i < owned_dofs.size(); ++i)
            {
              const int c = colour[first_record + i];
              if (c >= static_cast<int>(c0) && c < static_cast<int>(c0 + nb))
                b[(owned_dofs[i] - first_owned) + static_cast<std::size_t>(c - c0) * lda] = 1.0;
            }
          PERCUSSION_PETSC_CALL(MatDenseRestoreArray(B, &b));
          PERCUSSION_PETSC_CALL(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
          PERCUSSION_PETSC_CALL(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
          scheme.approximate_unrotated_impulse_response(B, X, probing_cg_tolerance);

          const PetscScalar *x;
          PERCUSSION_PETSC_CALL(MatDenseGetLDA(X, &lda));
          PERCUSSION_PETSC_CALL(MatDenseGetArrayRead(X, &x));
          for (std::size_t i = 0; i < owned_dofs.size(); ++i)
            {
              const PetscInt row = owned_dofs[i] - first_owned;
              columns.clear();
              values.clear();
              for (const unsigned int j : neighbours[i])
                if (colour[j] >= static_cast<int>(c0) && colour[j] < static_cast<int>(c0 + nb))
                  {
                    columns.push_back(static_cast<PetscInt>(records[j].dof));
                    values.push_back(x[row + static_cast<std::size_t>(colour[j] - c0) * lda]);
                  }
              const PetscInt global_row = row + first_owned;
              if (!columns.empty())
                PERCUSSION_PETSC_CALL(
                  MatSetValues(G, 1, &global_row, columns.size(), columns.data(), values.data(), INSERT_VALUES));
            }
          PERCUSSION_PETSC_CALL(MatDenseRestoreArrayRead(X, &x));
        }
    }

    /**
     * The triplets of the active points' own rows of f W_s (@p factor f) in the active numbering
     * (ld per point; @p active_number gives a point's global active number or −1), the extra
     * components ld > dim on the diagonal with the normal diagonal entry. (A template: the lookup
     * runs for every nonzero.)
     */
    template <typename ActiveNumber>
    void own_rows_of_active_points(Mat Ws, const unsigned int dim, const unsigned int ld, const double factor,
                                   const std::vector<unsigned long long> &points, const std::size_t offset,
                                   const ActiveNumber &active_number, std::vector<int> &rows, std::vector<int> &columns,
                                   std::vector<double> &values)
    {
      [[maybe_unused]] PetscInt row_begin, row_end; // (the points' rows are this rank's)
      PERCUSSION_PETSC_CALL(MatGetOwnershipRange(Ws, &row_begin, &row_end));
      for (std::size_t a = 0; a < points.size(); ++a)
        {
          const unsigned long long point = points[a];
          Assert(static_cast<PetscInt>(dim * point) >= row_begin && static_cast<PetscInt>(dim * point) < row_end,
                 dealii::ExcInternalError());
          double normal_diagonal = 0;
          for (unsigned int i = 0; i < dim; ++i)
            {
              PetscInt n;
              const PetscInt *cols;
              const PetscScalar *vals;
              PERCUSSION_PETSC_CALL(MatGetRow(Ws, dim * point + i, &n, &cols, &vals));
              for (PetscInt k = 0; k < n; ++k)
                {
                  const long long b = vals[k] == 0.0 ? -1 : active_number(cols[k] / dim);
                  if (b < 0)
                    continue;
                  rows.push_back(static_cast<int>(ld * a + i));
                  columns.push_back(static_cast<int>(ld * b + cols[k] % dim));
                  values.push_back(factor * vals[k]);
                  if (i == 0 && cols[k] == static_cast<PetscInt>(dim * point))
                    normal_diagonal = factor * vals[k];
                }
              PERCUSSION_PETSC_CALL(MatRestoreRow(Ws, dim * point + i, &n, &cols, &vals));
            }
          for (unsigned int i = dim; i < ld; ++i)
            {
              rows.push_back(static_cast<int>(ld * a + i));
              columns.push_back(static_cast<int>(ld * (offset + a) + i));
              values.push_back(normal_diagonal > 0 ? normal_diagonal : 1.0);
            }
        }
    }
  } // namespace

  ProbedDelassus::ProbedDelassus(const unsigned int dim, const double radius, const double spacing,
                                 MPI_Comm communicator)
    : dim(dim)
    , radius(radius)
    , spacing(spacing)
    , communicator(communicator)
  {
  }

  void ProbedDelassus::set_dof_positions(const dealii::types::global_dof_index first_owned_dof,
                                         std::vector<std::array<double, 3>> owned_positions)
  {
    first_owned = first_owned_dof;
    positions = std::move(owned_positions);
    positions_set = true;
  }

  unsigned int ProbedDelassus::ensure(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H)
  {
    Mat h = PetscAccess::petsc(H);
    const PetscObjectId id = PetscAccess::object_id(H);
    if (scheme.unrotated_operator_version() != response_version)
      {
        // A new step size: G ≈ 𝒯 of the old one is no longer the operator's; probe again.
        probed.clear();
        G.reset();
        Ws.reset();
        response_version = scheme.unrotated_operator_version();
      }
    const BodyFrames *const now = scheme.response_frames();
    if (id == operator_id && Ws != nullptr && now == frames &&
        (now == nullptr || frames_version == scheme.operator_version()))
      return 0;
    frames = now;
    frames_version = scheme.operator_version();
    // Large rotations: the product is formed with 𝐑ᵀH (its rows mix the DoFs of each node).
    Mat h_product = h;
    if (frames != nullptr)
      {
        MatType h_type;
        PERCUSSION_PETSC_CALL(MatGetType(h, &h_type));
        const MatHandle Rt(frames->rotation_matrix(true, h_type));
        PERCUSSION_PETSC_CALL(MatMatMult(Rt, h, MAT_INITIAL_MATRIX, PETSC_DEFAULT, rotated_h.out()));
        h_product = rotated_h;
      }

    // The contact DoFs of this H: owned rows with a nonzero entry, Dirichlet rows excluded (an
    // impulse does not act there, as in DelassusColumns).
    const auto &constrained = scheme.constrained_dofs();
    PetscInt row_begin, row_end;
    PERCUSSION_PETSC_CALL(MatGetOwnershipRange(h, &row_begin, &row_end));
    std::vector<dealii::types::global_dof_index> rows;
    for (PetscInt r = row_begin; r < row_end; ++r)
      {
        if (std::binary_search(constrained.begin(), constrained.end(), static_cast<dealii::types::global_dof_index>(r)))
          continue;
        PetscInt n;
        const PetscScalar *values;
        PERCUSSION_PETSC_CALL(MatGetRow(h, r, &n, nullptr, &values));
        bool nonzero = false;
        for (PetscInt k = 0; k < n && !nonzero; ++k)
          nonzero = values[k] != 0.0;
        PERCUSSION_PETSC_CALL(MatRestoreRow(h, r, &n, nullptr, &values));
        if (nonzero)
          rows.push_back(r);
      }
    if (frames != nullptr)
      {
        // Every DoF of the contact nodes: 𝐑ᵀH reaches them all, whatever the frames.
        std::vector<dealii::types::global_dof_index> nodes;
        std::array<dealii::types::global_dof_index, 3> node{};
        unsigned int component = 0;
        const Matrix3 *rotation = nullptr;
        for (const auto r : rows)
          if (frames->locate(r, node, component, rotation))
            for (unsigned int k = 0; k < dim; ++k)
              if (!std::binary_search(constrained.begin(), constrained.end(), node[k]))
                nodes.push_back(node[k]);
        std::sort(nodes.begin(), nodes.end());
        nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
        rows = std::move(nodes);
      }
    const bool covered = std::includes(probed.begin(), probed.end(), rows.begin(), rows.end());
    unsigned int solves = 0;
    if (!on_every_rank(covered, communicator) || G == nullptr)
      {
        // Probe the union, so that DoFs that left H and come back (a facet passed over) are kept.
        std::vector<dealii::types::global_dof_index> all;
        std::set_union(probed.begin(), probed.end(), rows.begin(), rows.end(), std::back_inserter(all));
        probe(scheme, all, h);
        solves = colours;
      }
    // A moving H (a body pair) is assembled anew at every step, but while every slave point stays
    // on the same master facets its nonzero structure is the last one's: then only the values of
    // W_s are computed again (the symbolic product was 17 % of a lasting step of the slab at
    // 16 × 16 × 8). Probing made a new G, whose structure may differ.
    std::vector<PetscInt> structure = nonzero_structure(h_product);
    if (Ws != nullptr && solves == 0 && on_every_rank(structure == ws_structure, communicator))
      {
        // The product keeps the matrix it was made with (PETSc's reuse checks that it is the same
        // object): the new values are copied into it.
        PERCUSSION_PETSC_CALL(MatCopy(h_product, ws_h, SAME_NONZERO_PATTERN));
        PERCUSSION_PETSC_CALL(MatPtAP(G, ws_h, MAT_REUSE_MATRIX, PETSC_DEFAULT, Ws.address()));
      }
    else
      {
        Ws.reset();
        PERCUSSION_PETSC_CALL(MatDuplicate(h_product, MAT_COPY_VALUES, ws_h.out()));
        PERCUSSION_PETSC_CALL(MatPtAP(G, ws_h, MAT_INITIAL_MATRIX, PETSC_DEFAULT, Ws.out()));
        ws_structure = std::move(structure);
      }
    operator_id = id;
    ++ws_version;
    return solves;
  }

  void ProbedDelassus::approximate_response(const dealii::PETScWrappers::MPI::Vector &x,
                                            dealii::PETScWrappers::MPI::Vector &y) const
  {
    AssertThrow(G != nullptr, dealii::ExcMessage("ProbedDelassus::approximate_response() before ensure()"));
    if (frames == nullptr)
      {
        PERCUSSION_PETSC_CALL(MatMult(G, PetscAccess::petsc(x), PetscAccess::petsc(y)));
        return;
      }
    // 𝐑 G 𝐑ᵀ x.
    dealii::PETScWrappers::MPI::Vector rotated = x;
    frames->rotate(rotated, true);
    PERCUSSION_PETSC_CALL(MatMult(G, PetscAccess::petsc(rotated), PetscAccess::petsc(y)));
    frames->rotate(y, false);
  }

  void ProbedDelassus::probe(SchemeInterface &scheme, const std::vector<dealii::types::global_dof_index> &owned_dofs,
                             Mat h)
  {
    AssertThrow(positions_set, dealii::ExcMessage("ProbedDelassus: the DoF positions were not set"));
    ++probings;
    probed = owned_dofs;

    // 1. The contact DoFs of all ranks with their reference positions, sorted by DoF index: every
    // rank colours the same list the same way.
    std::vector<DofRecord> local(owned_dofs.size());
    for (std::size_t i = 0; i < owned_dofs.size(); ++i)
      {
        local[i].dof = owned_dofs[i];
        const auto &x = positions.at(owned_dofs[i] - first_owned);
        std::copy(x.begin(), x.end(), local[i].x);
      }
    std::vector<DofRecord> records = all_gather(local, communicator);
    std::sort(records.begin(), records.end(), [](const DofRecord &a, const DofRecord &b) { return a.dof < b.dof; });
    probed_dofs = records.size();

    // 2. Colours: DoFs closer than 2R differ (colour_by_separation()).
    const double R = radius * spacing, separation = 2 * R;
    const std::vector<int> colour = colour_by_separation(records, separation);
    colours = records.empty() ? 0 : *std::max_element(colour.begin(), colour.end()) + 1;

    // 3. G's sparsity: row b (an owned contact DoF) has the contact DoFs within R.
    const SpatialBins near(records, std::max(R, 1e-300));
    PetscInt n_rows_local = static_cast<PetscInt>(positions.size());
    PetscInt n_rows;
    {
      const unsigned long long n_local = positions.size();
      n_rows = static_cast<PetscInt>(dealii::Utilities::MPI::sum(n_local, communicator));
    }
    const unsigned long long last_owned = first_owned + positions.size();
    std::vector<std::vector<unsigned int>> neighbours(owned_dofs.size());
    std::vector<PetscInt> d_nnz(n_rows_local, 0), o_nnz(n_rows_local, 0);
    std::size_t first_record =
      std::lower_bound(records.begin(), records.end(), local.empty() ? 0ull : local.front().dof,
                       [](const DofRecord &r, unsigned long long d) { return r.dof < d; }) -
      records.begin();
    for (std::size_t i = 0; i < owned_dofs.size(); ++i)
      {
        const unsigned int b = first_record + i;
        near.for_each_within(b, R, [&](const unsigned int j) { neighbours[i].push_back(j); });
        const PetscInt row = owned_dofs[i] - first_owned;
        for (const unsigned int j : neighbours[i])
          (records[j].dof >= first_owned && records[j].dof < last_owned ? d_nnz : o_nnz)[row]++;
      }
    // G of H's type (deal.II makes MPIAIJ matrices also on one rank; MatPtAP wants the same type).
    MatType h_type;
    PERCUSSION_PETSC_CALL(MatGetType(h, &h_type));
    PERCUSSION_PETSC_CALL(MatCreate(communicator, G.out()));
    PERCUSSION_PETSC_CALL(MatSetSizes(G, n_rows_local, n_rows_local, n_rows, n_rows));
    PERCUSSION_PETSC_CALL(MatSetType(G, h_type));
    PERCUSSION_PETSC_CALL(MatSeqAIJSetPreallocation(G, 0, d_nnz.data()));
    PERCUSSION_PETSC_CALL(MatMPIAIJSetPreallocation(G, 0, d_nnz.data(), 0, o_nnz.data()));

    // 4. G's entries, by colours (probe_by_colours()).
    probe_by_colours(G, scheme, communicator, owned_dofs, first_owned, n_rows_local, n_rows, records, colour, colours,
                     first_record, neighbours);
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(G, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(G, MAT_FINAL_ASSEMBLY));
    unsigned long long n_entries = 0;
    for (const auto &list : neighbours)
      n_entries += list.size();
    entries = dealii::Utilities::MPI::sum(n_entries, communicator);
  }

  void ProbedDelassus::make_lookup(const PetscInt column_begin, const PetscInt column_end)
  {
    PetscBool is_mpiaij = PETSC_FALSE;
    PERCUSSION_PETSC_CALL(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(Ws.get()), MATMPIAIJ, &is_mpiaij));
    AssertThrow(is_mpiaij, dealii::ExcMessage("ProbedDelassus: W_s is expected to be an MPIAIJ matrix"));
    Mat diagonal_part, off_diagonal_part;
    const PetscInt *off_diagonal_columns;
    PERCUSSION_PETSC_CALL(MatMPIAIJGetSeqAIJ(Ws, &diagonal_part, &off_diagonal_part, &off_diagonal_columns));
    PetscInt n_off_diagonal;
    PERCUSSION_PETSC_CALL(MatGetSize(off_diagonal_part, nullptr, &n_off_diagonal));
    lookup_ghosts.clear();
    for (PetscInt k = 0; k < n_off_diagonal; ++k)
      lookup_ghosts.push_back(dim * (off_diagonal_columns[k] / dim));
    std::sort(lookup_ghosts.begin(), lookup_ghosts.end());
    lookup_ghosts.erase(std::unique(lookup_ghosts.begin(), lookup_ghosts.end()), lookup_ghosts.end());
    PetscInt n_columns;
    PERCUSSION_PETSC_CALL(MatGetSize(Ws, nullptr, &n_columns));
    PERCUSSION_PETSC_CALL(VecCreateGhost(communicator, column_end - column_begin, n_columns,
                                         static_cast<PetscInt>(lookup_ghosts.size()), lookup_ghosts.data(),
                                         lookup.out()));
    lookup_version = ws_version;
  }

  void ProbedDelassus::active_block(const std::vector<unsigned long long> &own_active_points, const unsigned int ld,
                                    const double factor, ContactSolvers::CsrMatrix &block, ContactPartition &partition)
  {
    AssertThrow(Ws != nullptr, dealii::ExcMessage("ProbedDelassus::active_block() before ensure()"));
    const bool single = dealii::Utilities::MPI::n_mpi_processes(communicator) == 1;
    // In lasting contact with a fixed H (rigid obstacles) the block is the same step after step:
    // extracting it again (a row walk of W_s with a search per entry) cost 26 ms per step at 1 089
    // contacts and R = 5, a quarter of an exact product. The other ranks' points enter through the
    // ghosts, so every rank must be unchanged.
    const bool unchanged = cached_block.valid && cached_block.ws_version == ws_version && cached_block.ld == ld &&
                           cached_block.factor == factor && cached_block.points == own_active_points;
    if (on_every_rank(unchanged, communicator))
      {
        block = cached_block.block;
        partition = cached_block.partition;
        return;
      }
    partition = partition_by_counts(static_cast<int>(own_active_points.size()), communicator);
    PetscInt column_begin, column_end;
    PERCUSSION_PETSC_CALL(MatGetOwnershipRangeColumn(Ws, &column_begin, &column_end));

    // The global active numbers of the other ranks' points that the own rows couple to: the owners
    // write theirs into a vector over W_s's columns, one ghost update brings the coupled ones here.
    if (!single && (lookup == nullptr || lookup_version != ws_version))
      make_lookup(column_begin, column_end);
    const PetscScalar *ghost_numbers = nullptr;
    Vec lookup_local = nullptr;
    if (!single)
      {
        PetscScalar *owned;
        PERCUSSION_PETSC_CALL(VecGetArray(lookup, &owned));
        std::fill(owned, owned + (column_end - column_begin), 0.0);
        for (std::size_t a = 0; a < own_active_points.size(); ++a)
          owned[dim * own_active_points[a] - column_begin] = static_cast<double>(partition.offset() + a + 1);
        PERCUSSION_PETSC_CALL(VecRestoreArray(lookup, &owned));
        PERCUSSION_PETSC_CALL(VecGhostUpdateBegin(lookup, INSERT_VALUES, SCATTER_FORWARD));
        PERCUSSION_PETSC_CALL(VecGhostUpdateEnd(lookup, INSERT_VALUES, SCATTER_FORWARD));
        PERCUSSION_PETSC_CALL(VecGhostGetLocalForm(lookup, &lookup_local));
        PERCUSSION_PETSC_CALL(VecGetArrayRead(lookup_local, &ghost_numbers));
        ghost_numbers += column_end - column_begin; // the ghost entries follow the owned ones
      }
    // The global active number of a point, −1 if it is not active.
    const auto active_number = [&](const unsigned long long point) -> long long {
      const PetscInt column = dim * point;
      if (column >= column_begin && column < column_end)
        {
          const auto found = std::lower_bound(own_active_points.begin(), own_active_points.end(), point);
          return found != own_active_points.end() && *found == point
                   ? static_cast<long long>(partition.offset() + (found - own_active_points.begin()))
                   : -1;
        }
      const auto ghost = std::lower_bound(lookup_ghosts.begin(), lookup_ghosts.end(), column);
      Assert(ghost != lookup_ghosts.end() && *ghost == column, dealii::ExcInternalError());
      return static_cast<long long>(ghost_numbers[ghost - lookup_ghosts.begin()]) - 1;
    };

    // The own rows, columns in global numbering first.
    std::vector<int> rows, columns;
    std::vector<double> values;
    own_rows_of_active_points(Ws, dim, ld, factor, own_active_points, partition.offset(), active_number, rows, columns,
                              values);
    if (!single)
      {
        ghost_numbers -= column_end - column_begin;
        PERCUSSION_PETSC_CALL(VecRestoreArrayRead(lookup_local, &ghost_numbers));
        PERCUSSION_PETSC_CALL(VecGhostRestoreLocalForm(lookup, &lookup_local));
      }
    const int n_own_rows = static_cast<int>(ld * own_active_points.size());
    block = localize(ContactSolvers::CsrMatrix::from_triplets(n_own_rows, static_cast<int>(ld * partition.n_total()),
                                                              rows, columns, values, "probed Delassus block"),
                     static_cast<int>(ld), partition);
    cached_block = {true, ws_version, ld, factor, own_active_points, block, partition};
    ++blocks_made;
  }
} // namespace percussion::ContactStep
