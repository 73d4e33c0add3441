#include <deal.II/base/mpi.h>

#include <percussion/contact_step/body_compliance.h>
#include <percussion/core/petsc_check.h>
#include <percussion/core/petsc_handle.h>

#include <algorithm>

namespace percussion::ContactStep
{
  BodyCompliance::BodyCompliance(MPI_Comm communicator)
    : communicator(communicator)
  {
  }

  void BodyCompliance::keep_if_current(const SchemeInterface &scheme)
  {
    if (scheme.unrotated_operator_version() == version)
      return;
    slots.clear();
    supports.clear();
    blocks.clear();
    solved_dofs.clear();
    solved_ends.clear();
    version = scheme.unrotated_operator_version();
  }

  unsigned int BodyCompliance::extend(SchemeInterface &scheme, const std::vector<PetscInt> &dofs,
                                      const std::vector<unsigned int> &bodies, const PetscInt local_rows,
                                      const PetscInt first_row, const PetscInt n_rows)
  {
    // The new DoFs by body (in the order given: the same on every rank).
    std::vector<std::vector<PetscInt>> added;
    for (std::size_t i = 0; i < dofs.size(); ++i)
      if (slots.count(dofs[i]) == 0)
        {
          if (bodies[i] >= added.size())
            added.resize(bodies[i] + 1);
          if (std::find(added[bodies[i]].begin(), added[bodies[i]].end(), dofs[i]) == added[bodies[i]].end())
            added[bodies[i]].push_back(dofs[i]);
        }
    PetscInt n_columns = 0;
    for (const auto &body_dofs : added)
      n_columns = std::max<PetscInt>(n_columns, body_dofs.size());
    if (n_columns == 0)
      return 0;

    // Column j: the unit vectors of the j-th new DoF of every body; one solve with 𝒯₀.
    MatHandle E, Z;
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, local_rows, PETSC_DECIDE, n_rows, n_columns, nullptr, E.out()));
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, local_rows, PETSC_DECIDE, n_rows, n_columns, nullptr, Z.out()));
    for (const auto &body_dofs : added)
      for (std::size_t j = 0; j < body_dofs.size(); ++j)
        if (body_dofs[j] >= first_row && body_dofs[j] < first_row + local_rows)
          PERCUSSION_PETSC_CALL(MatSetValue(E, body_dofs[j], static_cast<PetscInt>(j), 1.0, INSERT_VALUES));
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(E, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(E, MAT_FINAL_ASSEMBLY));
    scheme.unrotated_impulse_response(E, Z);

    // The supports grow; then the new columns of each G_b (rows at the whole support, from the
    // rows' owners, summed over the ranks).
    if (supports.size() < added.size())
      {
        supports.resize(added.size());
        blocks.resize(added.size());
      }
    std::vector<std::size_t> old_size(added.size());
    for (unsigned int b = 0; b < added.size(); ++b)
      {
        old_size[b] = supports[b].size();
        for (const PetscInt dof : added[b])
          {
            slots[dof] = Slot{b, static_cast<unsigned int>(supports[b].size())};
            supports[b].push_back(dof);
          }
      }
    std::vector<double> columns;
    const PetscScalar *z = nullptr;
    PetscInt lda = 0;
    PERCUSSION_PETSC_CALL(MatDenseGetLDA(Z, &lda));
    PERCUSSION_PETSC_CALL(MatDenseGetArrayRead(Z, &z));
    for (unsigned int b = 0; b < added.size(); ++b)
      for (std::size_t j = 0; j < added[b].size(); ++j)
        for (const PetscInt row : supports[b])
          columns.push_back(row >= first_row && row < first_row + local_rows ? z[(row - first_row) + j * lda] : 0.0);
    PERCUSSION_PETSC_CALL(MatDenseRestoreArrayRead(Z, &z));
    dealii::Utilities::MPI::sum(columns, communicator, columns);

    // G_b grows to the new support: the old block, the new columns, and (𝒯₀ symmetric) the new
    // rows of the old columns as their transpose.
    std::size_t next = 0;
    for (unsigned int b = 0; b < added.size(); ++b)
      {
        if (added[b].empty())
          continue;
        const std::size_t n = supports[b].size(), m = old_size[b];
        std::vector<double> grown(n * n, 0.0);
        for (std::size_t i = 0; i < m; ++i)
          std::copy(blocks[b].begin() + i * m, blocks[b].begin() + (i + 1) * m, grown.begin() + i * n);
        for (std::size_t j = m; j < n; ++j)
          for (std::size_t i = 0; i < n; ++i)
            grown[i * n + j] = columns[next++];
        for (std::size_t i = m; i < n; ++i)
          for (std::size_t l = 0; l < m; ++l)
            grown[i * n + l] = grown[l * n + i];
        // The new × new part: symmetric to round-off (MUMPS); its mean, as the dense columns' W.
        for (std::size_t i = m; i < n; ++i)
          for (std::size_t l = m; l < i; ++l)
            grown[i * n + l] = grown[l * n + i] = 0.5 * (grown[i * n + l] + grown[l * n + i]);
        blocks[b] = std::move(grown);
      }
    for (const auto &body_dofs : added)
      solved_dofs.insert(solved_dofs.end(), body_dofs.begin(), body_dofs.end());
    solved_ends.push_back(solved_dofs.size());
    return n_columns;
  }

  void BodyCompliance::delassus(const std::vector<ColumnEntry> &entries, const PetscInt n_columns,
                                std::vector<SparseRow> &rows) const
  {
    struct Triplet
    {
      PetscInt row, column;
      double value;
    };
    std::vector<Triplet> triplets;
    std::vector<std::size_t> column_begin; // the entries of each column of the body
    std::vector<double> y;                 // G_b c_j for the body's columns, one after the other
    for (std::size_t begin = 0; begin < entries.size();)
      {
        const unsigned int b = entries[begin].body;
        std::size_t end = begin;
        column_begin.clear();
        while (end < entries.size() && entries[end].body == b)
          {
            if (end == begin || entries[end].column != entries[end - 1].column)
              column_begin.push_back(end);
            ++end;
          }
        column_begin.push_back(end);
        const std::size_t n = supports[b].size(), m = column_begin.size() - 1;
        y.assign(m * n, 0.0);
        for (std::size_t j = 0; j < m; ++j)
          for (std::size_t k = column_begin[j]; k < column_begin[j + 1]; ++k)
            for (std::size_t i = 0; i < n; ++i)
              y[j * n + i] += entry(b, i, entries[k].index) * entries[k].value;
        for (std::size_t i = 0; i < m; ++i)
          for (std::size_t j = 0; j < m; ++j)
            {
              double w = 0.0;
              for (std::size_t k = column_begin[i]; k < column_begin[i + 1]; ++k)
                w += entries[k].value * y[j * n + entries[k].index];
              triplets.push_back({entries[column_begin[i]].column, entries[column_begin[j]].column, w});
            }
        begin = end;
      }
    // Columns that touch two bodies (a contact between them) get both bodies' parts.
    const auto before = [](const Triplet &x, const Triplet &y) {
      return x.row < y.row || (x.row == y.row && x.column < y.column);
    };
    std::sort(triplets.begin(), triplets.end(), before);
    std::vector<Triplet> merged;
    for (const Triplet &t : triplets)
      if (!merged.empty() && merged.back().row == t.row && merged.back().column == t.column)
        merged.back().value += t.value;
      else
        merged.push_back(t);
    rows.assign(n_columns, {});
    for (const Triplet &t : merged)
      {
        double value = t.value;
        if (t.row != t.column)
          {
            const Triplet transposed{t.column, t.row, 0.0};
            value = 0.5 * (value + std::lower_bound(merged.begin(), merged.end(), transposed, before)->value);
          }
        rows[t.row].emplace_back(t.column, value);
      }
  }
} // namespace percussion::ContactStep
