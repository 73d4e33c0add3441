#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/solve.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_check.h>
#include <percussion/time_integration/frictional_contact_step.h>
#include <percussion/time_integration/system_algebra.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace percussion::TimeIntegration
{
  using dealii::PETScWrappers::MPI::Vector;

  namespace
  {

    /**
     * The ranks' @p local records one after another in rank order into @p all; returns where
     * this rank's start. The records are plain doubles: deal.II's all_gather() serialises and
     * compresses each rank's vector, which cost more than all the rest of a 1D contact step.
     * On one rank there is nothing to exchange.
     */
    std::size_t all_gather_records(const std::vector<double> &local, std::vector<double> &all, MPI_Comm communicator)
    {
      const unsigned int n_ranks = dealii::Utilities::MPI::n_mpi_processes(communicator);
      if (n_ranks == 1)
        {
          all = local;
          return 0;
        }
      const int n_local = static_cast<int>(local.size());
      std::vector<int> counts(n_ranks), offsets(n_ranks, 0);
      int ierr = MPI_Allgather(&n_local, 1, MPI_INT, counts.data(), 1, MPI_INT, communicator);
      AssertThrowMPI(ierr);
      for (unsigned int r = 1; r < n_ranks; ++r)
        offsets[r] = offsets[r - 1] + counts[r - 1];
      all.resize(static_cast<std::size_t>(offsets.back()) + counts.back());
      ierr = MPI_Allgatherv(local.data(), n_local, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE,
                            communicator);
      AssertThrowMPI(ierr);
      return offsets[dealii::Utilities::MPI::this_mpi_process(communicator)];
    }
  } // namespace

  /// The active contacts of all ranks, sorted by point index; per contact its data and velocities.
  struct FrictionalContactStep::Gathered
  {
    std::vector<unsigned long long> point, key;
    std::vector<double> mu, e, gap, u_k, u_free, w, position;
    std::vector<int> rank_owned_index; ///< index into this rank's points, or −1
    std::size_t size() const { return point.size(); }
  };

  FrictionalContactStep::FrictionalContactStep(const ContactDynamicsParameters &parameters, const ContactLaw law,
                                               const unsigned int dim, MPI_Comm communicator)
    : parameters(parameters)
    , law(law)
    , dim(dim)
    , communicator(communicator)
  {
    options.solver = parameters.solver;
    options.tolerance = parameters.tolerance;
    options.max_iterations = parameters.max_iterations;
  }

  FrictionalContactStep::~FrictionalContactStep()
  {
    if (B != nullptr)
      MatDestroy(&B);
    if (X != nullptr)
      MatDestroy(&X);
    if (p_columns != nullptr)
      VecDestroy(&p_columns);
  }

  void FrictionalContactStep::compute_delassus_columns(TimeIntegrator &integrator,
                                                       const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                       const std::vector<unsigned long long> &column_points)
  {
    if (B != nullptr)
      MatDestroy(&B);
    if (X != nullptr)
      MatDestroy(&X);
    if (p_columns != nullptr)
      VecDestroy(&p_columns);
    cached_points = column_points;
    cached_position.assign(cached_points.empty() ? 0 : *std::max_element(cached_points.begin(), cached_points.end()) + 1,
                           -1);
    for (unsigned int i = 0; i < cached_points.size(); ++i)
      cached_position[cached_points[i]] = static_cast<int>(i);
    const PetscInt n_columns = dim * cached_points.size();

    Mat h = const_cast<dealii::PETScWrappers::MPI::SparseMatrix &>(H).petsc_matrix();
    PetscInt row_begin, row_end, n_rows;
    PERCUSSION_PETSC_CALL(MatGetOwnershipRange(h, &row_begin, &row_end));
    PERCUSSION_PETSC_CALL(MatGetSize(h, &n_rows, nullptr));
    const PetscInt n_local = row_end - row_begin;
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, n_local, PETSC_DECIDE, n_rows, n_columns, nullptr, &B));
    PERCUSSION_PETSC_CALL(MatCreateDense(communicator, n_local, PETSC_DECIDE, n_rows, n_columns, nullptr, &X));
    PERCUSSION_PETSC_CALL(MatCreateVecs(X, &p_columns, nullptr));

    // B = H restricted to the cached columns, with the Dirichlet rows zero (an impulse does not act
    // on a prescribed DoF: the support takes it). Remember the entries for W_c = BᵀX.
    const auto &constrained = integrator.constrained_dofs();
    struct Entry
    {
      PetscInt local_row, column;
      double value;
    };
    std::vector<Entry> entries;
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
            const int block = cached_block(columns[k] / dim);
            if (block < 0 || values[k] == 0.0)
              continue;
            const PetscInt j = dim * block + columns[k] % dim;
            entries.push_back({r - row_begin, j, values[k]});
          }
        PERCUSSION_PETSC_CALL(MatRestoreRow(h, r, &n, &columns, &values));
      }
    for (const Entry &e : entries)
      PERCUSSION_PETSC_CALL(MatSetValue(B, e.local_row + row_begin, e.column, e.value, INSERT_VALUES));
    PERCUSSION_PETSC_CALL(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PERCUSSION_PETSC_CALL(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));

    integrator.impulse_response(B, X);

    // W_c = BᵀX: B has a few entries per column, so sum only over them; then add the ranks' parts.
    delassus.assign(static_cast<std::size_t>(n_columns) * n_columns, 0.0);
    const PetscScalar *x;
    PetscInt lda;
    PERCUSSION_PETSC_CALL(MatDenseGetLDA(X, &lda));
    PERCUSSION_PETSC_CALL(MatDenseGetArrayRead(X, &x));
    for (const Entry &e : entries)
      for (PetscInt j = 0; j < n_columns; ++j)
        delassus[e.column * n_columns + j] += e.value * x[e.local_row + j * lda];
    PERCUSSION_PETSC_CALL(MatDenseRestoreArrayRead(X, &x));
    dealii::Utilities::MPI::sum(delassus, communicator, delassus);
    if (integrator.impulse_response_is_symmetric())
      for (PetscInt i = 0; i < n_columns; ++i)
      for (PetscInt j = 0; j < i; ++j)
        {
          const double mean = 0.5 * (delassus[i * n_columns + j] + delassus[j * n_columns + i]);
          delassus[i * n_columns + j] = delassus[j * n_columns + i] = mean;
        }
    cache_valid = true;
  }

  void FrictionalContactStep::assemble_law(const Gathered &active, const double theta, const double time_step)
  {
    const unsigned int n = active.size(), d = dim, n_cached = dim * cached_points.size();
    // In 1D the contact problem is frictionless and normal only; it is posed exactly as a 2D
    // problem with μ = 0 and a decoupled tangential row (W_TT = 1, q_T = 0), which forces r_T = 0.
    const unsigned int ld = local_dimension();
    problem = ContactSolvers::LocalProblem();
    problem.dimension = ld;
    problem.number_of_contacts = n;
    problem.storage = ContactSolvers::MatrixStorage::dense;
    problem.W_dense = ContactSolvers::DenseMatrix(ld * n, ld * n);
    problem.q.assign(ld * n, 0.0);
    problem.mu = active.mu;
    if (dim == 1)
      {
        std::fill(problem.mu.begin(), problem.mu.end(), 0.0);
        for (unsigned int a = 0; a < n; ++a)
          problem.W_dense(ld * a + 1, ld * a + 1) = 1.0;
      }
    // The two laws differ only here (EQUATIONS.md): the factor of W and the shift of b.
    const double factor = law == ContactLaw::fremond ? theta : 1.0;
    for (unsigned int a = 0; a < n; ++a)
      {
        const unsigned int pa = cached_block(active.point[a]);
        for (unsigned int b = 0; b < n; ++b)
          {
            const unsigned int pb = cached_block(active.point[b]);
            for (unsigned int i = 0; i < d; ++i)
              for (unsigned int j = 0; j < d; ++j)
                problem.W_dense(ld * a + i, ld * b + j) = factor * delassus[(d * pa + i) * n_cached + d * pb + j];
          }
        const double *u_k = &active.u_k[d * a];
        const double *u_free = &active.u_free[d * a];
        if (law == ContactLaw::schatzman_paoli)
          {
            // (1+e)/h times the linearised gap at (q_{k+1} + e q_{k−1})/(1+e); frictionless.
            for (unsigned int i = 0; i < d; ++i)
              problem.q[ld * a + i] = u_free[i];
            problem.q[ld * a] += -active.e[a] * u_k[0] + (1 + active.e[a]) * active.gap[a] / time_step;
          }
        else if (law == ContactLaw::standard)
          {
            // Γ: normal part u_{N,k+1} + e u_{N,k}; tangential part u_{T,k+1}.
            for (unsigned int i = 0; i < d; ++i)
              problem.q[ld * a + i] = u_free[i];
            problem.q[ld * a] += active.e[a] * u_k[0];
          }
        else
          {
            // Θ at u_{k+θ}: normal θ(u_{N,k+1} + e u_{N,k}); tangential (1−θ)u_{T,k} + θ u_{T,k+1}.
            problem.q[ld * a] = theta * (u_free[0] + active.e[a] * u_k[0]);
            for (unsigned int i = 1; i < d; ++i)
              problem.q[ld * a + i] = theta * u_free[i] + (1 - theta) * u_k[i];
          }
      }
  }

  ContactStepResult FrictionalContactStep::solve(TimeIntegrator &integrator,
                                                 const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                 const Vector &w,
                                                 const bool operator_changed,
                                                 const std::vector<OwnedContactPoint> &points,
                                                 const Vector &u_k)
  {
    const unsigned int d = dim;
    // θ of the Frémond law, and the weight of u_{k+θ} in the contact work of the scheme's energy
    // balance (θ for Moreau–Jean, ½ for the generalized-α family).
    const double theta = integrator.contact_work_weight();
    ContactStepResult result;
    result.state.assign(points.size(), ContactState::open);
    result.impulse.assign(d * points.size(), 0.0);
    result.velocity.assign(d * points.size(), 0.0);
    result.dissipated_energy.assign(points.size(), 0.0);
    // H may also have been reassembled at a step without an active contact, where solve() is not
    // called. ContactGeometry builds a new PETSc matrix whenever it reassembles H (on every rank
    // at once), so a new object id means that the cached columns and u_free's partition are stale.
    bool new_operator = operator_changed;
    {
      PetscObjectId id;
      PERCUSSION_PETSC_CALL(PetscObjectGetId(
        reinterpret_cast<PetscObject>(const_cast<dealii::PETScWrappers::MPI::SparseMatrix &>(H).petsc_matrix()), &id));
      new_operator = new_operator || id != operator_id;
      operator_id = id;
    }
    if (new_operator)
      cache_valid = false;
    struct RememberChange
    {
      bool &previous;
      const bool current;
      ~RememberChange() { previous = current; }
    } remember{previous_operator_changed, operator_changed};

    // u_free = Hᵀ v_free + w. The column partition of H only changes with H, so u_free is
    // reallocated only then.
    if (new_operator)
      u_free.reinit(w.locally_owned_elements(), communicator);
    H.Tvmult(u_free, integrator.new_velocity());
    u_free += w;

    // Active set (55): the predicted gap is closed and the contact approaches, u_{N,k} ≤ 0 — the
    // sign the dissipation proofs of (60) and Proposition 1 rely on.
    std::vector<dealii::types::global_dof_index> owned_columns;
    const bool all_candidates = takes_every_candidate();
    for (unsigned int i = 0; i < points.size(); ++i)
      if (points[i].active || all_candidates)
        for (unsigned int k = 0; k < d; ++k)
          owned_columns.push_back(d * points[i].global_index + k);
    std::vector<double> uk_values(owned_columns.size()), ufree_values(owned_columns.size()),
      w_values(owned_columns.size());
    u_k.extract_subvector_to(owned_columns, uk_values);
    u_free.extract_subvector_to(owned_columns, ufree_values);
    w.extract_subvector_to(owned_columns, w_values);

    // Pack the owned active contacts and share them: every rank builds and solves the same problem.
    packed.clear();
    const unsigned int record = 5 + 3 * d + 3 + 1;
    for (unsigned int i = 0, c = 0; i < points.size(); ++i)
      {
        if (!points[i].active && !all_candidates)
          continue;
        // (the approach condition u_{N,k} ≤ 0 of (55) is applied below, once the step's velocity
        // scale is known on every rank)
        {
          {
            packed.insert(packed.end(), {static_cast<double>(points[i].global_index), static_cast<double>(points[i].key),
                                         points[i].mu, points[i].e, static_cast<double>(i)});
            packed.insert(packed.end(), uk_values.begin() + d * c, uk_values.begin() + d * (c + 1));
            packed.insert(packed.end(), ufree_values.begin() + d * c, ufree_values.begin() + d * (c + 1));
            packed.insert(packed.end(), w_values.begin() + d * c, w_values.begin() + d * (c + 1));
            packed.insert(packed.end(), points[i].position.begin(), points[i].position.end());
            packed.push_back(points[i].gap);
          }
        }
        ++c;
      }
    const std::size_t offset = all_gather_records(packed, all_packed, communicator);
    const unsigned int n_gathered = all_packed.size() / record;
    // Velocity scale of the step: the approach test of (55) and the positive-work report treat
    // velocities below the contact solver's tolerance times this scale as zero (a persistent
    // contact leaves the previous step with u_N = 0 up to that tolerance).
    double velocity_scale = 0;
    for (unsigned int a = 0; a < n_gathered; ++a)
      for (unsigned int k = 0; k < 2 * d; ++k)
        velocity_scale = std::max(velocity_scale, std::abs(all_packed[record * a + 5 + k]));
    const double velocity_noise = 10 * parameters.tolerance * velocity_scale;
    std::vector<unsigned int> order;
    // (The position-level law of Schatzman–Paoli needs no approach test: a separating contact
    // gets P_N = 0 from the complementarity itself.)
    for (unsigned int a = 0; a < n_gathered; ++a)
      if (all_candidates || all_packed[record * a + 5] <= velocity_noise)
        order.push_back(a);
    const unsigned int n_active = order.size();
    result.n_active = n_active;
    if (n_active == 0)
      return result;

    std::sort(order.begin(), order.end(), [&](unsigned int a, unsigned int b) {
      return all_packed[record * a] < all_packed[record * b];
    });
    Gathered active;
    for (const unsigned int o : order)
      {
        const double *r = &all_packed[record * o];
        active.point.push_back(static_cast<unsigned long long>(r[0]));
        active.key.push_back(static_cast<unsigned long long>(r[1]));
        active.mu.push_back(r[2]);
        active.e.push_back(r[3]);
        active.u_k.insert(active.u_k.end(), r + 5, r + 5 + d);
        active.u_free.insert(active.u_free.end(), r + 5 + d, r + 5 + 2 * d);
        active.w.insert(active.w.end(), r + 5 + 2 * d, r + 5 + 3 * d);
        active.position.insert(active.position.end(), r + 5 + 3 * d, r + 5 + 3 * d + 3);
        active.gap.push_back(r[5 + 3 * d + 3]);
        active.rank_owned_index.push_back(-1);
      }
    // Which of the gathered contacts are owned here: their owned point index was packed at r[4].
    for (unsigned int a = 0; a < n_active; ++a)
      {
        const std::size_t start = static_cast<std::size_t>(record) * order[a];
        if (start >= offset && start < offset + packed.size())
          active.rank_owned_index[a] = static_cast<int>(all_packed[start + 4]);
      }

    // Ŵ⁻¹H: reuse the stored columns while H is unchanged and covers the active contacts;
    // otherwise recompute, for all candidates when that is affordable (they stay valid as long
    // as H does), else for the active contacts only.
    bool covered = cache_valid;
    for (unsigned int a = 0; covered && a < n_active; ++a)
      covered = cached_block(active.point[a]) >= 0;
    if (!covered)
      {
        const unsigned long long n_candidates = u_k.size() / d;
        std::vector<unsigned long long> columns;
        // Columns for all candidates pay off only if H stays fixed for a while; when it changed
        // at the previous call too (body pairs, curved obstacles), compute the active ones only.
        const bool operator_moves = operator_changed && previous_operator_changed;
        if (!operator_moves && d * n_candidates <= parameters.delassus_column_limit)
          {
            columns.resize(n_candidates);
            std::iota(columns.begin(), columns.end(), 0ull);
          }
        else
          columns = active.point;
        compute_delassus_columns(integrator, H, columns);
      }

    assemble_law(active, theta, integrator.time_step());

    // Warm start from the previous step's impulse of the same contact.
    const unsigned int ld = local_dimension();
    reaction.assign(ld * n_active, 0.0);
    for (unsigned int a = 0; a < n_active; ++a)
      if (const auto it = previous_impulse.find(active.key[a]); it != previous_impulse.end())
        std::copy(it->second.begin(), it->second.end(), reaction.begin() + ld * a);
    result.solver = ContactSolvers::solve(problem, reaction, local_velocity, options);
    result.solved = true;
    // The impulses in the body's dimension (drops the 1D embedding's zero tangential component).
    std::vector<double> impulse(d * n_active);
    for (unsigned int a = 0; a < n_active; ++a)
      for (unsigned int k = 0; k < d; ++k)
        impulse[d * a + k] = reaction[ld * a + k];
    previous_impulse.clear();
    for (unsigned int a = 0; a < n_active; ++a)
      previous_impulse[active.key[a]].assign(reaction.begin() + ld * a, reaction.begin() + ld * (a + 1));

    // Impulse on the cached columns → Hp = B p and Ŵ⁻¹Hp = X p (no further solve).
    PetscInt begin, end;
    PERCUSSION_PETSC_CALL(VecGetOwnershipRange(p_columns, &begin, &end));
    PetscScalar *p_array;
    PERCUSSION_PETSC_CALL(VecGetArray(p_columns, &p_array));
    std::fill(p_array, p_array + (end - begin), 0.0);
    for (unsigned int a = 0; a < n_active; ++a)
      for (unsigned int k = 0; k < d; ++k)
        if (const PetscInt i = d * cached_block(active.point[a]) + k; i >= begin && i < end)
          p_array[i - begin] = impulse[d * a + k];
    PERCUSSION_PETSC_CALL(VecRestoreArray(p_columns, &p_array));
    // The DoF partition is fixed for a run: the two vectors are allocated once.
    const Vector &v_new = integrator.new_velocity();
    if (generalized_impulse.size() != v_new.size())
      {
        generalized_impulse.reinit(v_new.locally_owned_elements(), communicator);
        correction.reinit(v_new.locally_owned_elements(), communicator);
      }
    PERCUSSION_PETSC_CALL(MatMult(B, p_columns, SystemAlgebra::petsc(generalized_impulse)));
    PERCUSSION_PETSC_CALL(MatMult(X, p_columns, SystemAlgebra::petsc(correction)));
    integrator.apply_impulse(generalized_impulse, correction);

    // The law's velocities: u_{k+1} = u_free + W p, u_{k+θ} = (1−θ)u_k + θu_{k+1}, and the works
    // of (59): normal and tangential parts, and the obstacles' part −wᵀp.
    const unsigned int n_cached = dim * cached_points.size();
    double largest_impulse = 0;
    for (unsigned int a = 0; a < n_active; ++a)
      largest_impulse = std::max(largest_impulse, impulse[d * a]);
    for (unsigned int a = 0; a < n_active; ++a)
      {
        std::array<double, 3> u_next{}, u_theta{};
        const unsigned int pa = cached_block(active.point[a]);
        for (unsigned int i = 0; i < d; ++i)
          {
            u_next[i] = active.u_free[d * a + i];
            for (unsigned int b = 0; b < n_active; ++b)
              {
                const unsigned int pb = cached_block(active.point[b]);
                for (unsigned int j = 0; j < d; ++j)
                  u_next[i] += delassus[(d * pa + i) * n_cached + d * pb + j] * impulse[d * b + j];
              }
            u_theta[i] = (1 - theta) * active.u_k[d * a + i] + theta * u_next[i];
          }
        const double *p = &impulse[d * a];
        double normal = u_theta[0] * p[0], tangential = 0, p_t = 0, u_t = 0, obstacle = 0;
        for (unsigned int i = 1; i < d; ++i)
          {
            tangential += u_theta[i] * p[i];
            p_t += p[i] * p[i];
            const double slip = law == ContactLaw::fremond ? u_theta[i] : u_next[i];
            u_t += slip * slip;
          }
        for (unsigned int i = 0; i < d; ++i)
          obstacle -= active.w[d * a + i] * p[i];
        result.work_normal += normal;
        result.work_tangential += tangential;
        result.obstacle_work += obstacle;
        dissipation_by_key[active.key[a]] -= normal + tangential;

        // Positive work beyond round-off (relative to |u_θ||p|) is reported with its location.
        double u_norm = 0, p_norm = 0;
        for (unsigned int i = 0; i < d; ++i)
          {
            u_norm += u_theta[i] * u_theta[i];
            p_norm += p[i] * p[i];
          }
        const double work = normal + tangential;
        result.normal_impulse += p[0];
        if (work > velocity_noise * std::sqrt(p_norm))
          {
            ++result.n_positive_work;
            if (work > result.largest_positive_work)
              {
                result.largest_positive_work = work;
                for (unsigned int i = 0; i < 3; ++i)
                  result.largest_positive_work_position[i] = active.position[3 * a + i];
              }
          }

        ContactState state = ContactState::open;
        if (p[0] > 1e-12 * largest_impulse && p[0] > 0)
          {
            const bool on_cone_boundary = std::sqrt(p_t) >= (1 - 1e-6) * active.mu[a] * p[0];
            const double speed_scale = std::max(std::abs(active.u_k[d * a]), std::abs(u_next[0]));
            state = on_cone_boundary && std::sqrt(u_t) > 1e-8 * std::max(speed_scale, 1e-300) ? ContactState::slip :
                                                                                                  ContactState::stick;
            if (state == ContactState::slip)
              ++result.n_slip;
            else
              ++result.n_stick;
          }
        if (active.rank_owned_index[a] >= 0)
          {
            const unsigned int i = active.rank_owned_index[a];
            result.state[i] = state;
            for (unsigned int k = 0; k < d; ++k)
              {
                result.impulse[d * i + k] = p[k];
                result.velocity[d * i + k] = u_theta[k];
              }
          }
      }
    result.dissipated_energy = dissipated_energy(points);
    return result;
  }

  std::vector<double> FrictionalContactStep::dissipated_energy(const std::vector<OwnedContactPoint> &points) const
  {
    std::vector<double> energy(points.size(), 0.0);
    for (unsigned int i = 0; i < points.size(); ++i)
      if (const auto it = dissipation_by_key.find(points[i].key); it != dissipation_by_key.end())
        energy[i] = it->second;
    return energy;
  }
} // namespace percussion::TimeIntegration
