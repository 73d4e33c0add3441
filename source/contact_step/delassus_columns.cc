#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/contact_step/delassus_columns.h>
#include <percussion/contact_step/scheme_interface.h>
#include <percussion/core/petsc_access.h>
#include <percussion/core/petsc_check.h>

#include <algorithm>
#include <numeric>
#include <tuple>

namespace percussion::ContactStep
{
  namespace
  {
    /// W ← ½(W + Wᵀ) for the n × n row-major @p w: the columns' round-off asymmetry removed.
    void symmetrise(std::vector<double> &w, const PetscInt n)
    {
      for (PetscInt i = 0; i < n; ++i)
        for (PetscInt j = 0; j < i; ++j)
          {
            const double mean = 0.5 * (w[i * n + j] + w[j * n + i]);
            w[i * n + j] = w[j * n + i] = mean;
          }
    }

    /// The DoFs of each batch of @p batches (DelassusColumns::SupportBatches), in their order.
    std::vector<std::vector<PetscInt>> split_batches(const DelassusColumns::SupportBatches &batches)
    {
      std::vector<std::vector<PetscInt>> split;
      std::size_t begin = 0;
      for (const unsigned long long end : batches.ends)
        {
          split.emplace_back(batches.dofs.begin() + begin, batches.dofs.begin() + end);
          begin = end;
        }
      return split;
    }

    /// Calls @p f(entry, node, component, R) for each of B's @p entries on a node of @p frames
    /// (its DoFs, the entry's component there, its body's rotation).
    template <typename Entries, typename F>
    void for_each_entry_in_frames(const Entries &entries, const BodyFrames &frames, const PetscInt row_begin, F f)
    {
      std::array<dealii::types::global_dof_index, 3> node{};
      unsigned int component = 0;
      const Matrix3 *R = nullptr;
      for (const auto &e : entries)
        if (frames.locate(e.local_row + row_begin, node, component, R))
          f(e, node, component, *R);
    }
  } // namespace

  DelassusColumns::DelassusColumns(const unsigned int dim, const unsigned int column_limit, MPI_Comm communicator,
                                   const Response response, const bool body_compliance)
    : dim(dim)
    , components(response == Response::projection ? 1 : dim)
    , column_limit(column_limit)
    , communicator(communicator)
    , response(response)
    , compliance(communicator)
    , body_compliance(body_compliance)
  {
  }

  void DelassusColumns::release()
  {
    B.reset();
    X.reset();
    p_columns.reset();
  }

  bool DelassusColumns::ensure(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                               const std::vector<unsigned long long> &needed, const unsigned long long n_candidates,
                               const bool operator_moves)
  {
    if (covers(scheme, H, needed))
      return false;
    const PetscObjectId id = PetscAccess::object_id(H);
    // Columns for all candidates pay off only if H stays fixed for a while; when it changes from
    // step to step (body pairs, curved obstacles), compute the needed ones only.
    // With the support (large rotations, H staying) a point that comes later costs the solves of
    // its own nodes' DoFs only, and W_c on the new points is a dense product: all candidates at
    // once would solve for nodes that may never touch (a ball: 1 of 21 candidates). (The operator
    // choice still counts all candidates' columns, columns_to_compute(): a support of every node
    // that a shrinking active set leaves would cost as many solves.)
    std::vector<unsigned long long> columns;
    if (!uses_support(scheme, operator_moves) &&
        columns_to_compute(scheme, H, needed, n_candidates, operator_moves) == components * n_candidates)
      {
        columns.resize(n_candidates);
        std::iota(columns.begin(), columns.end(), 0ull);
      }
    else
      columns = needed;
    compute(scheme, H, columns, operator_moves);
    operator_id = id;
    response_version = scheme.operator_version();
    return true;
  }

  unsigned long long DelassusColumns::columns_to_compute(const SchemeInterface &scheme,
                                                         const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                         const std::vector<unsigned long long> &needed,
                                                         const unsigned long long n_candidates,
                                                         const bool operator_moves) const
  {
    if (covers(scheme, H, needed))
      return 0;
    return !operator_moves && components * n_candidates <= column_limit ? components * n_candidates
                                                                        : components * needed.size();
  }

  bool DelassusColumns::uses_support(const SchemeInterface &scheme, const bool operator_moves) const
  {
    return scheme.large_rotation_frames() != nullptr && !operator_moves && response == Response::impulse;
  }

  bool DelassusColumns::uses_body_compliance(const SchemeInterface &scheme) const
  {
    return body_compliance && response == Response::impulse && scheme.large_rotation_frames() != nullptr &&
           scheme.impulse_response_is_symmetric();
  }

  bool DelassusColumns::covers(const SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                               const std::vector<unsigned long long> &needed) const
  {
    bool covered = PetscAccess::object_id(H) == operator_id && scheme.operator_version() == response_version;
    for (std::size_t a = 0; covered && a < needed.size(); ++a)
      covered = block(needed[a]) >= 0;
    return covered;
  }

  void DelassusColumns::compute(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                const std::vector<unsigned long long> &column_points, const bool operator_moves)
  {
    release();
    points = column_points;
    position.assign(points.empty() ? 0 : *std::max_element(points.begin(), points.end()) + 1, -1);
    for (unsigned int i = 0; i < points.size(); ++i)
      position[points[i]] = static_cast<int>(i);
    const PetscInt n_columns = components * points.size();

    Mat h = const_cast<dealii::PETScWrappers::MPI::SparseMatrix &>(H).petsc_matrix();
    PetscInt row_begin, row_end, n_rows;
    PERCUSSION_PETSC_CALL(MatGetOwnershipRange(h, &row_begin, &row_end));
    PERCUSSION_PETSC_CALL(MatGetSize(h, &n_rows, nullptr));
    const PetscInt n_local = row_end - row_begin;

    // B = H restricted to the cached columns, with the Dirichlet rows zero (an impulse does not act
    // on a prescribed DoF: the support takes it): its entries, for Hp and W_c. The projection's
    // columns are the normal ones only (its problem is frictionless: two solves in three saved).
    const auto &constrained = scheme.constrained_dofs();
    b_entries.clear();
    for (PetscInt r = row_begin; r < row_end; ++r)
      {
        if (std::binary_search(constrained.begin(), constrained.end(), static_cast<dealii::types::global_dof_index>(r)))
          continue;
        PetscInt n;
        const PetscInt *columns;
        const PetscScalar *values;
        PERCUSSION_PETSC_CALL(MatGetRow(h, r, &n, &columns, &values));
        for (PetscInt k = 0; k < n; ++k)
          {
            const int b = block(columns[k] / dim);
            const unsigned int component = columns[k] % dim;
            if (b < 0 || component >= components || values[k] == 0.0)
              continue;
            b_entries.push_back({r - row_begin, static_cast<PetscInt>(components * b + component), values[k]});
          }
        PERCUSSION_PETSC_CALL(MatRestoreRow(h, r, &n, &columns, &values));
      }

    // Large rotations: the support of B (every DoF of the nodes it touches) and Z on it.
    rotated = false;
    compliant = false;
    // (The frames of large rotations even while all are the identity: Z then serves the first
    // contact and, without a solve, every turn of the frames after it.)
    frames = scheme.large_rotation_frames();
    local_rows = n_local;
    first_row = row_begin;
    // H moves (contacts between bodies): the bodies' compliances on the supports, W_c without a
    // solve (the class comment).
    if (operator_moves && uses_body_compliance(scheme))
      {
        compliant = delassus_from_compliance(scheme, gathered_support(row_begin), n_columns, row_begin, n_rows);
        if (compliant)
          return;
      }
    // Only where H stays (obstacles): where it moves at every step (body pairs) its columns are
    // solved for at every step anyway, and the support of all the master facets' nodes ever
    // touched would cost memory (brick_stack: +147 MiB, +54 % per step) for no solve saved.
    // The support's Z is the impulse response's (𝒯₀ = Ŵ⁻¹): a projection metric of its own
    // (QuasiStaticMetric) is solved for directly.
    if (uses_support(scheme, operator_moves))
      rotated = extend_support(scheme, gathered_support(row_begin), n_rows);
    if (rotated)
      {
        delassus_from_support(n_columns, row_begin, scheme.impulse_response_is_symmetric());
        return;
      }

    // X = 𝒯B: B as a dense matrix, the right-hand sides of the solve (the rotated form needs
    // neither: its solves are on the support).
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, n_local, PETSC_DECIDE, n_rows, n_columns, nullptr, B.out()));
    PERCUSSION_PETSC_CALL(MatCreateVecs(B, p_columns.out(), nullptr));
    for (const Entry &e : b_entries)
      PERCUSSION_PETSC_CALL(MatSetValue(B, e.local_row + row_begin, e.column, e.value, INSERT_VALUES));
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, n_local, PETSC_DECIDE, n_rows, n_columns, nullptr, X.out()));
    n_solved_columns += n_columns;
    if (response == Response::impulse)
      scheme.impulse_response(B, X);
    else
      scheme.projection_response(B, X);

    // W_c = BᵀX: B has a few entries per column, so sum only over them; then add the ranks' parts.
    delassus.assign(static_cast<std::size_t>(n_columns) * n_columns, 0.0);
    const PetscScalar *x;
    PetscInt lda;
    PERCUSSION_PETSC_CALL(MatDenseGetLDA(X, &lda));
    PERCUSSION_PETSC_CALL(MatDenseGetArrayRead(X, &x));
    for (const Entry &e : b_entries)
      for (PetscInt j = 0; j < n_columns; ++j)
        delassus[e.column * n_columns + j] += e.value * x[e.local_row + j * lda];
    PERCUSSION_PETSC_CALL(MatDenseRestoreArrayRead(X, &x));
    dealii::Utilities::MPI::sum(delassus, communicator, delassus);
    if (response == Response::projection || scheme.impulse_response_is_symmetric())
      symmetrise(delassus, n_columns);
  }

  std::vector<PetscInt> DelassusColumns::gathered_support(const PetscInt row_begin) const
  {
    std::vector<PetscInt> local_support;
    for_each_entry_in_frames(b_entries, *frames, row_begin,
                             [&](const Entry &, const auto &node, unsigned int, const Matrix3 &) {
                               for (unsigned int k = 0; k < dim; ++k)
                                 local_support.push_back(static_cast<PetscInt>(node[k]));
                             });
    std::sort(local_support.begin(), local_support.end());
    local_support.erase(std::unique(local_support.begin(), local_support.end()), local_support.end());
    std::vector<PetscInt> needed;
    ContactSolvers::plain_all_gather(local_support, needed, communicator);
    std::sort(needed.begin(), needed.end());
    return needed;
  }

  std::vector<unsigned int> DelassusColumns::bodies_of(const std::vector<PetscInt> &dofs) const
  {
    // Each DoF's owner knows its body; the others add 0.
    std::vector<unsigned int> bodies(dofs.size(), 0);
    for (std::size_t i = 0; i < dofs.size(); ++i)
      if (const unsigned int b = frames->body_of_owned_dof(static_cast<dealii::types::global_dof_index>(dofs[i]));
          b < frames->n_bodies())
        bodies[i] = b;
    dealii::Utilities::MPI::sum(bodies, communicator, bodies);
    return bodies;
  }

  bool DelassusColumns::delassus_from_compliance(SchemeInterface &scheme, const std::vector<PetscInt> &needed,
                                                 const PetscInt n_columns, const PetscInt row_begin,
                                                 const PetscInt n_rows)
  {
    compliance.keep_if_current(scheme);
    if (overflow_version != scheme.unrotated_operator_version())
      compliance_overflow = false;
    // A resumed run: the batches of the uninterrupted run first (SupportBatches).
    if (compliance.size() == 0)
      for (const std::vector<PetscInt> &batch : split_batches(pending_batches))
        n_solved_columns += compliance.extend(scheme, batch, bodies_of(batch), local_rows, first_row, n_rows);
    pending_batches = {};
    std::vector<PetscInt> missing;
    for (const PetscInt dof : needed)
      if (compliance.slot(dof) == nullptr)
        missing.push_back(dof);
    // The column limit bounds each body's support (its block G_b, and the right-hand sides of a
    // batch); the bodies together may hold any number.
    const std::vector<unsigned int> missing_bodies = bodies_of(missing);
    std::map<unsigned int, std::size_t> grown;
    for (const unsigned int b : missing_bodies)
      if (++grown[b] + compliance.support_size(b) > column_limit)
        {
          compliance_overflow = true;
          overflow_version = scheme.unrotated_operator_version();
          return false;
        }
    if (!missing.empty())
      n_solved_columns += compliance.extend(scheme, missing, missing_bodies, local_rows, first_row, n_rows);

    // C = Eᵀ𝐑ᵀB: this rank's entries (B's entry b at component a of a node adds R_{a,c} b to the
    // node's component c), gathered, sorted by body, column and slot, duplicates summed.
    using ColumnEntry = BodyCompliance::ColumnEntry;
    std::vector<ColumnEntry> local, all;
    for_each_entry_in_frames(b_entries, *frames, row_begin,
                             [&](const Entry &e, const auto &node, const unsigned int a, const Matrix3 &R) {
                               for (unsigned int c = 0; c < dim; ++c)
                                 if (const double value = R[3 * a + c] * e.value; value != 0.0)
                                   {
                                     const BodyCompliance::Slot *slot = compliance.slot(static_cast<PetscInt>(node[c]));
                                     local.push_back({slot->body, slot->index, e.column, value});
                                   }
                             });
    ContactSolvers::plain_all_gather(local, all, communicator);
    const auto key = [](const ColumnEntry &x) { return std::make_tuple(x.body, x.column, x.index); };
    std::stable_sort(all.begin(), all.end(),
                     [&](const ColumnEntry &x, const ColumnEntry &y) { return key(x) < key(y); });
    std::vector<ColumnEntry> merged;
    for (const ColumnEntry &x : all)
      if (!merged.empty() && key(merged.back()) == key(x))
        merged.back().value += x.value;
      else
        merged.push_back(x);
    // W_c = Σ_b C_bᵀ G_b C_b, sparse: columns couple only through a body they share.
    compliance.delassus(merged, n_columns, sparse_rows);
    delassus.clear();
    return true;
  }

  void DelassusColumns::delassus_from_support(const PetscInt n_columns, const PetscInt row_begin, const bool symmetric)
  {
    // C = Eᵀ𝐑ᵀB: an entry b of B at component a of a node adds R_{a,e} b to the row of the
    // node's component e. Then W_c = Cᵀ (EᵀZ) C.
    const std::size_t k = support.size();
    rotated_b.assign(k * n_columns, 0.0);
    for_each_entry_in_frames(b_entries, *frames, row_begin,
                             [&](const Entry &e, const auto &node, const unsigned int a, const Matrix3 &R) {
                               for (unsigned int c = 0; c < dim; ++c)
                                 rotated_b[support_column.at(static_cast<PetscInt>(node[c])) * n_columns + e.column] +=
                                   R[3 * a + c] * e.value;
                             });
    dealii::Utilities::MPI::sum(rotated_b, communicator, rotated_b);
    // Sums in the order of the support DoFs (not of Z's columns, which depends on when each
    // was added), so that a resumed run computes the same W_c to the last bit.
    std::vector<double> gc(k * n_columns, 0.0);
    for (const auto &[dof_i, i] : support_column)
      for (const auto &[dof_l, l] : support_column)
        if (const double g = support_block[i * k + l]; g != 0.0)
          for (PetscInt j = 0; j < n_columns; ++j)
            gc[i * n_columns + j] += g * rotated_b[l * n_columns + j];
    delassus.assign(static_cast<std::size_t>(n_columns) * n_columns, 0.0);
    for (const auto &[dof_i, i] : support_column)
      for (PetscInt r = 0; r < n_columns; ++r)
        if (const double c = rotated_b[i * n_columns + r]; c != 0.0)
          for (PetscInt j = 0; j < n_columns; ++j)
            delassus[r * n_columns + j] += c * gc[i * n_columns + j];
    // (The generalized-α family's 𝒯₀ is not symmetric unless β = γ/2: its W is kept as it is.)
    if (symmetric)
      symmetrise(delassus, n_columns);
  }

  bool DelassusColumns::extend_support(SchemeInterface &scheme, const std::vector<PetscInt> &needed,
                                       const PetscInt n_rows)
  {
    if (scheme.unrotated_operator_version() != support_version)
      {
        support.clear();
        support_column.clear();
        support_response.clear();
        support_batch_ends.clear();
        support_version = scheme.unrotated_operator_version();
      }
    // A resumed run: the batches of the uninterrupted run first (SupportBatches), whose Z the
    // checkpoint's run had for the same 𝒯₀.
    const std::size_t support_before = support.size();
    if (support.empty() && pending_batches.dofs.size() <= column_limit)
      for (const std::vector<PetscInt> &batch : split_batches(pending_batches))
        solve_support_batch(scheme, batch, n_rows);
    pending_batches = {};
    std::vector<PetscInt> missing;
    for (const PetscInt dof : needed)
      if (support_column.count(dof) == 0)
        missing.push_back(dof);
    if (support.size() + missing.size() > column_limit)
      return false;
    if (!missing.empty())
      solve_support_batch(scheme, missing, n_rows);
    if (support.size() == support_before)
      return true;
    // EᵀZ: the rows of Z at the support DoFs, from their owners.
    const std::size_t k = support.size();
    support_block.assign(k * k, 0.0);
    for (std::size_t i = 0; i < k; ++i)
      if (support[i] >= first_row && support[i] < first_row + local_rows)
        for (std::size_t j = 0; j < k; ++j)
          support_block[i * k + j] = support_response[j * local_rows + (support[i] - first_row)];
    dealii::Utilities::MPI::sum(support_block, communicator, support_block);
    return true;
  }

  void DelassusColumns::solve_support_batch(SchemeInterface &scheme, const std::vector<PetscInt> &dofs,
                                            const PetscInt n_rows)
  {
    // Z for the DoFs: one multiple-right-hand-side solve with 𝒯₀.
    MatHandle E, Z;
    const PetscInt m = dofs.size();
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, local_rows, PETSC_DECIDE, n_rows, m, nullptr, E.out()));
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, local_rows, PETSC_DECIDE, n_rows, m, nullptr, Z.out()));
    for (PetscInt j = 0; j < m; ++j)
      if (dofs[j] >= first_row && dofs[j] < first_row + local_rows)
        PERCUSSION_PETSC_CALL(MatSetValue(E, dofs[j], j, 1.0, INSERT_VALUES));
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(E, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(E, MAT_FINAL_ASSEMBLY));
    scheme.unrotated_impulse_response(E, Z);
    n_solved_columns += m;
    const PetscScalar *z = nullptr;
    PetscInt lda = 0;
    PERCUSSION_PETSC_CALL(MatDenseGetLDA(Z, &lda));
    PERCUSSION_PETSC_CALL(MatDenseGetArrayRead(Z, &z));
    for (PetscInt j = 0; j < m; ++j)
      {
        support_response.insert(support_response.end(), z + j * lda, z + j * lda + local_rows);
        support_column[dofs[j]] = static_cast<int>(support.size());
        support.push_back(dofs[j]);
      }
    PERCUSSION_PETSC_CALL(MatDenseRestoreArrayRead(Z, &z));
    support_batch_ends.push_back(support.size());
  }

  DelassusColumns::SupportBatches DelassusColumns::support_batches(const SchemeInterface &scheme) const
  {
    SupportBatches batches;
    if (compliance.size() > 0 && uses_body_compliance(scheme))
      {
        // (A run that used both forms keeps the compliance's batches: H moves from step to step.)
        batches.dofs = compliance.batch_dofs();
        batches.ends = compliance.batch_ends();
        return batches;
      }
    if (support.empty() || support_version != scheme.unrotated_operator_version())
      return batches;
    batches.dofs.assign(support.begin(), support.end());
    batches.ends = support_batch_ends;
    return batches;
  }

  void DelassusColumns::apply(SchemeInterface &scheme, const std::vector<unsigned long long> &impulse_points,
                              const std::vector<double> &impulse,
                              dealii::PETScWrappers::MPI::Vector &generalized_impulse,
                              dealii::PETScWrappers::MPI::Vector &response)
  {
    // p on the cached columns, whole on every rank (the impulse is known whole).
    const std::size_t n_columns = components * points.size();
    column_impulse.assign(n_columns, 0.0);
    for (std::size_t a = 0; a < impulse_points.size(); ++a)
      for (unsigned int c = 0; c < components; ++c)
        column_impulse[components * block(impulse_points[a]) + c] = impulse[dim * a + c];
    // Hp from B's few entries per column: B is stored dense for the solves, and a dense
    // product would cost a pass over all its columns (ball level 3: 63 × 11 451, 3 % of a step).
    PetscScalar *g = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArray(PetscAccess::petsc(generalized_impulse), &g));
    std::fill(g, g + generalized_impulse.locally_owned_size(), 0.0);
    for (const Entry &e : b_entries)
      g[e.local_row] += e.value * column_impulse[e.column];
    PERCUSSION_PETSC_CALL(VecRestoreArray(PetscAccess::petsc(generalized_impulse), &g));
    if (compliant)
      {
        // The compliances are on the supports only: the response everywhere takes one solve. Its
        // start is zero, not the response of another impulse: with CG that one can be 1e5 times
        // this impulse's size (a position projection's impulses are the gaps' size) and stop the
        // solve at its divergence test.
        response = 0;
        scheme.impulse_response(generalized_impulse, response);
        return;
      }
    if (!rotated)
      {
        PetscInt begin, end;
        PERCUSSION_PETSC_CALL(VecGetOwnershipRange(p_columns, &begin, &end));
        PetscScalar *p_array;
        PERCUSSION_PETSC_CALL(VecGetArray(p_columns, &p_array));
        std::copy(column_impulse.begin() + begin, column_impulse.begin() + end, p_array);
        PERCUSSION_PETSC_CALL(VecRestoreArray(p_columns, &p_array));
        PERCUSSION_PETSC_CALL(MatMult(X, p_columns, PetscAccess::petsc(response)));
        return;
      }
    // 𝒯Hp = 𝐑 Z (C p): C p on every rank, Z's local rows, the rotation.
    const std::size_t k = support.size();
    std::vector<double> y(k, 0.0);
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < n_columns; ++j)
        y[i] += rotated_b[i * n_columns + j] * column_impulse[j];
    PetscScalar *r = nullptr;
    PERCUSSION_PETSC_CALL(VecGetArray(PetscAccess::petsc(response), &r));
    std::fill(r, r + local_rows, 0.0);
    for (const auto &[dof, j] : support_column)
      if (y[j] != 0.0)
        for (PetscInt i = 0; i < local_rows; ++i)
          r[i] += support_response[j * local_rows + i] * y[j];
    PERCUSSION_PETSC_CALL(VecRestoreArray(PetscAccess::petsc(response), &r));
    frames->rotate(response, false);
  }
} // namespace percussion::ContactStep
