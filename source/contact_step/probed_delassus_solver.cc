#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/anderson_mixing.h>
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/one_contact_solver.h>
#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/contact_solvers/scaled_solve.h>
#include <percussion/contact_solvers/solve.h>
#include <percussion/contact_step/probed_delassus_solver.h>
#include <percussion/contact_step/scheme_interface.h>
#include <percussion/core/petsc_access.h>
#include <percussion/core/petsc_check.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

namespace percussion::ContactStep
{
  using ContactSolvers::distributed_error;
  using ContactSolvers::distributed_sweeps;
  using ContactSolvers::gather_own;
  using ContactSolvers::gather_whole;
  using ContactSolvers::on_every_rank;
  using dealii::PETScWrappers::MPI::Vector;
  using PetscAccess::reinit_like;

  namespace
  {
    /// The sum over the ranks of @p communicator for ContactSolvers::AndersonMixing (none on one rank).
    ContactSolvers::AndersonMixing::PartSum sum_over_ranks(MPI_Comm communicator)
    {
      if (dealii::Utilities::MPI::n_mpi_processes(communicator) == 1)
        return {};
      return [communicator](std::vector<double> &sums) {
        const int ierr =
          MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM, communicator);
        AssertThrowMPI(ierr);
      };
    }

    /// The tolerance of the inner solve after the exact @p error (of the outer iterations'
    /// exact errors @p history), at least @p sweeps_tolerance.
    double inner_tolerance(const std::vector<double> &history, const double error, const double sweeps_tolerance)
    {
      // The inner solution need not be more accurate than a tenth of the next exact error, about
      // ρ·error with ρ the outer iteration's contraction: the ratio of this step's last two
      // exact errors, or before the second 1e-6 (measured 4e-4, 1e-5 and 1e-6 at R = 5, 7, 9).
      const double contraction =
        history.size() >= 2 ? std::min(1e-3, history.back() / history[history.size() - 2]) : 1e-6;
      return std::max(sweeps_tolerance, 0.1 * contraction * error);
    }

    /// @p q = b + f z − f W_s p: the inner problem's right-hand side, exact at the iterate @p p
    /// (@p approximate: work space for f W_s p, @p probed_W = f W_s).
    void set_inner_right_hand_side(const ContactSolvers::CsrMatrix &probed_W, const std::vector<double> &p,
                                   const std::vector<double> &b, const double f, const std::vector<double> &z,
                                   std::vector<double> &approximate, std::vector<double> &q)
    {
      std::fill(approximate.begin(), approximate.end(), 0.0);
      probed_W.multiply_add(p.data(), approximate.data());
      for (std::size_t i = 0; i < b.size(); ++i)
        q[i] = b[i] + f * z[i] - approximate[i];
    }
  } // namespace

  ProbedDelassusSolver::ProbedDelassusSolver(const unsigned int dim, const unsigned int max_iterations,
                                             MPI_Comm communicator)
    : dim(dim)
    , max_iterations(max_iterations)
    , communicator(communicator)
  {
  }

  void ProbedDelassusSolver::set_dof_positions(const dealii::types::global_dof_index first_owned_dof,
                                               std::vector<std::array<double, 3>> positions, const double radius,
                                               const double node_spacing)
  {
    probed = std::make_unique<ProbedDelassus>(dim, radius, node_spacing, communicator);
    inner_blocks.reset(); // made from the blocks of the previous ProbedDelassus, if any
    probed->set_dof_positions(first_owned_dof, std::move(positions));
  }

  void ProbedDelassusSolver::impulse_on_dofs(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                             const std::vector<ContactLaws::ActiveContact> &own,
                                             const std::vector<double> &r)
  {
    const unsigned int d = dim, ld = dim;
    // p on H's columns (the owned active points), Hp with the Dirichlet rows zero (the support
    // takes an impulse there, as B of DelassusColumns): each rank writes only its own contacts'.
    reinit_like(impulse_columns, *columns_like, communicator);
    {
      PetscInt begin, end;
      PERCUSSION_PETSC_CALL(VecGetOwnershipRange(PetscAccess::petsc(impulse_columns), &begin, &end));
      PetscScalar *p;
      PERCUSSION_PETSC_CALL(VecGetArray(PetscAccess::petsc(impulse_columns), &p));
      std::fill(p, p + (end - begin), 0.0);
      for (unsigned int a = 0; a < own.size(); ++a)
        for (unsigned int k = 0; k < d; ++k)
          p[d * own[a].point + k - begin] = r[ld * a + k];
      PERCUSSION_PETSC_CALL(VecRestoreArray(PetscAccess::petsc(impulse_columns), &p));
    }
    H.vmult(current->generalized_impulse, impulse_columns);
    PetscAccess::zero(current->generalized_impulse, scheme.constrained_dofs());
  }

  void ProbedDelassusSolver::local_values_of(const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                             const std::vector<ContactLaws::ActiveContact> &own,
                                             const dealii::PETScWrappers::MPI::Vector &x, std::vector<double> &z)
  {
    const unsigned int d = dim, ld = dim;
    reinit_like(column_work, *columns_like, communicator);
    H.Tvmult(column_work, x);
    std::fill(z.begin(), z.end(), 0.0);
    PetscInt begin, end;
    PERCUSSION_PETSC_CALL(VecGetOwnershipRange(PetscAccess::petsc(column_work), &begin, &end));
    const PetscScalar *values;
    PERCUSSION_PETSC_CALL(VecGetArrayRead(PetscAccess::petsc(column_work), &values));
    for (unsigned int a = 0; a < own.size(); ++a)
      for (unsigned int k = 0; k < d; ++k)
        z[ld * a + k] = values[d * own[a].point + k - begin];
    PERCUSSION_PETSC_CALL(VecRestoreArrayRead(PetscAccess::petsc(column_work), &values));
  }

  void ProbedDelassusSolver::exact_product(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                           const std::vector<ContactLaws::ActiveContact> &own,
                                           const std::vector<double> &r, std::vector<double> &z)
  {
    impulse_on_dofs(scheme, H, own, r);
    scheme.impulse_response(current->generalized_impulse, current->response);
    local_values_of(H, own, current->response, z);
  }

  void ProbedDelassusSolver::approximate_product(SchemeInterface &scheme,
                                                 const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                                 const std::vector<ContactLaws::ActiveContact> &own,
                                                 const std::vector<double> &r, std::vector<double> &z)
  {
    // The warm start's vectors hold the last accepted Hp and its exact 𝒯Hp; by
    // linearity 𝒯(Hp)_new = 𝒯(Hp)_old + 𝒯(Δ) with Δ the change of the generalized impulse (H moved
    // a little, the impulses changed), and G approximates 𝒯 on the contact DoFs, where Δ lives.
    reinit_like(impulse_change, current->generalized_impulse, communicator);
    reinit_like(response_change, current->generalized_impulse, communicator);
    impulse_change = current->generalized_impulse;
    impulse_on_dofs(scheme, H, own, r);
    impulse_change.sadd(-1.0, 1.0, current->generalized_impulse);
    probed->approximate_response(impulse_change, response_change);
    current->response += response_change;
    local_values_of(H, own, current->response, z);
  }

  int ProbedDelassusSolver::prepare_inner(const ContactSolvers::LocalProblem &probed_problem,
                                          const ContactPartition &partition)
  {
    const unsigned int ld = dim;
    // The inner problems are solved with impulses scaled by a power of two (as solve_scaled()).
    // Their operator, its block form and the ghost exchange are made again only when the active
    // block or the scaling changed: in lasting contact on a fixed obstacle they are the last step's
    // (copying and re-blocking W_s cost about 10 ms per step at 1 089 contacts and R = 7).
    const int exponent =
      ContactSolvers::scaling_exponent(dealii::Utilities::MPI::sum(ContactSolvers::diagonal_sum(probed_problem),
                                                                   communicator),
                                       static_cast<int>(ld * partition.n_total()));
    if (!inner_blocks || probed->block_version() != inner_block_version || exponent != inner_exponent)
      {
        inner_problem = probed_problem;
        for (double &x : inner_problem.W_sparse.values)
          x = std::ldexp(x, exponent);
        inner_blocks = std::make_unique<ContactSolvers::BlockDelassus>(inner_problem);
        inner_exchange = std::make_unique<ImpulseExchange>(partition, ld, communicator);
        inner_block_version = probed->block_version();
        inner_exponent = exponent;
      }
    inner_problem.q = probed_problem.q;
    inner_problem.mu = probed_problem.mu;
    return exponent;
  }

  bool ProbedDelassusSolver::product_at(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                                        const std::vector<ContactLaws::ActiveContact> &own,
                                        const std::vector<unsigned long long> &own_points,
                                        const std::vector<double> &impulses, const unsigned int n_mine,
                                        const bool first_iteration, std::vector<double> &z, OperatorSolveCounts &counts)
  {
    const bool previous_pair =
      first_iteration && current->valid && current->response_version == scheme.operator_version();
    if (on_every_rank(previous_pair && current->operator_id == PetscAccess::object_id(H) &&
                        current->points == own_points && current->reaction == impulses,
                      communicator))
      z = current->product;
    else if (on_every_rank(std::all_of(impulses.begin(), impulses.begin() + n_mine,
                                       [](const double x) { return x == 0.0; }),
                           communicator))
      {
        // No impulse (a cold start): W p = 0 without a solve.
        std::fill(z.begin(), z.end(), 0.0);
        current->generalized_impulse = 0;
        current->response = 0;
      }
    else if (on_every_rank(previous_pair, communicator))
      {
        // H moved (a body pair) or the contacts or their impulses are not the last step's: the
        // warm start's product from the last accepted one and G applied to the change only
        // (approximate_product()), instead of a solve. It starts the iteration; the exact
        // products that follow decide convergence (slab at 16 × 16 × 8: 3.9 → 3.0 products).
        approximate_product(scheme, H, own, impulses, z);
        return true;
      }
    else
      {
        exact_product(scheme, H, own, impulses, z);
        ++counts.exact_products;
      }
    return false;
  }

  unsigned int ProbedDelassusSolver::solve_inner(std::vector<double> &scaled, std::vector<double> &inner_u,
                                                 const double inner_tolerance, const double sweeps_tolerance,
                                                 const ContactPartition &partition,
                                                 const ContactSolvers::SolverOptions &options)
  {
    // The inner problems have a sparse, diagonally dominant W_s (mass-dominated Ŵ) and a warm start
    // from the last iterate: Gauss–Seidel sweeps solve them at a fraction of a Newton iteration's
    // sparse LU (measured: the contact step at 16 × 16 × 8 cells 38.6 → 17.4 ms, the same outer
    // iterations). Each rank sweeps its own contacts (distributed_sweeps.h). The configured solver
    // takes over, on the gathered problem, where the sweeps do not converge.
    const unsigned int ld = dim;
    const int n_local = partition.n_local();
    ContactSolvers::SolverOptions inner_options = options;
    inner_options.tolerance = sweeps_tolerance;
    const int max_sweeps = 200;
    unsigned int iterations = 0;
    ContactSolvers::SolverResult r =
      distributed_sweeps(inner_problem, *inner_blocks, *inner_exchange, scaled, inner_u, inner_tolerance, max_sweeps);
    iterations += r.iterations;
    if (r.status != ContactSolvers::SolverStatus::converged)
      {
        // The fallback solves the whole inner problem, gathered on every rank (the one place of
        // the probed path where a rank holds all contacts).
        const ContactSolvers::LocalProblem whole = gather_whole(inner_problem, partition, communicator);
        std::vector<double> whole_r = gather_own(scaled, ld, partition, communicator), whole_u;
        r = ContactSolvers::solve(whole, whole_r, whole_u, inner_options);
        iterations += r.iterations;
        for (int a = 0; a < n_local; ++a)
          std::copy_n(&whole_r[ld * partition.global(a)], ld, &scaled[ld * a]);
      }
    return iterations;
  }

  std::vector<double> ProbedDelassusSolver::mixed_iterate(ContactSolvers::AndersonMixing &mixing,
                                                          const std::vector<double> &impulses,
                                                          const std::vector<double> &scaled, const int exponent,
                                                          const std::vector<double> &mu, const int n_own) const
  {
    const unsigned int ld = dim, n = scaled.size();
    std::vector<double> next(n);
    for (unsigned int i = 0; i < n; ++i)
      next[i] = std::ldexp(scaled[i], exponent);
    mixing.add(impulses, next);
    mixing.mix(next);
    for (int a = 0; a < n_own; ++a)
      ContactSolvers::project_onto_coulomb_cone(ld, mu[a], &next[ld * a], &next[ld * a]);
    inner_exchange->exchange(next);
    return next;
  }

  void ProbedDelassusSolver::remember_best_vectors()
  {
    reinit_like(best_generalized_impulse, current->generalized_impulse, communicator);
    reinit_like(best_correction, current->response, communicator);
    best_generalized_impulse = current->generalized_impulse;
    best_correction = current->response;
  }

  void ProbedDelassusSolver::keep_as_warm_start(ProbedWarmStart &warm_start, const PetscObjectId operator_id,
                                                const unsigned int response_version,
                                                const std::vector<unsigned long long> &points,
                                                const std::vector<double> &reaction, const std::vector<double> &product)
  {
    warm_start.valid = true;
    warm_start.operator_id = operator_id;
    warm_start.response_version = response_version;
    warm_start.points = points;
    warm_start.reaction = reaction;
    warm_start.product = product;
    // (The vectors of the best iterate become the warm start's; the old ones are reused next time.)
    std::swap(warm_start.generalized_impulse, best_generalized_impulse);
    std::swap(warm_start.response, best_correction);
  }

  ContactSolvers::SolverResult
  ProbedDelassusSolver::solve(SchemeInterface &scheme, const dealii::PETScWrappers::MPI::SparseMatrix &H,
                              const Vector &columns, const std::vector<ContactLaws::ActiveContact> &own,
                              const double factor, ContactSolvers::LocalProblem &probed_problem,
                              std::vector<double> &impulses, std::vector<double> &velocities,
                              ContactPartition &partition, int &exponent, const ContactSolvers::SolverOptions &options,
                              ProbedWarmStart &warm_start, OperatorSolveCounts &counts)
  {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const unsigned int ld = dim; // 2D/3D only (FrictionalContactStep::set_dof_positions())
    columns_like = &columns;
    current = &warm_start;
    reinit_like(current->generalized_impulse, scheme.new_velocity(), communicator);
    reinit_like(current->response, scheme.new_velocity(), communicator);
    counts.probing_solves = probed->ensure(scheme, H);
    // probed_problem: this rank's rows of A = f W_s (the approximation) in the local numbering of its own
    // and ghost contacts, b and μ of the law for its own contacts (zero for the ghosts, whose rows
    // it does not hold); the exact problem has the same b.
    std::vector<unsigned long long> own_points(own.size());
    for (unsigned int a = 0; a < own.size(); ++a)
      own_points[a] = own[a].point;
    probed->active_block(own_points, ld, factor, probed_problem.W_sparse, partition);
    const int n_own = partition.n_own(), n_local = partition.n_local();
    const unsigned int n = ld * n_local, n_mine = ld * n_own;
    probed_problem.number_of_contacts = n_local;
    probed_problem.q.resize(n, 0.0);
    probed_problem.mu.resize(n_local, 0.0);
    const std::vector<double> b = probed_problem.q;
    const PetscObjectId h_id = PetscAccess::object_id(H);

    exponent = prepare_inner(probed_problem, partition);
    // The own impulses are the warm start (solve()); the ghosts' come from their owners.
    impulses.resize(n, 0.0);
    inner_exchange->exchange(impulses);
    // The inner problems are solved to a tenth of the tolerance at least (solve_inner()).
    const double sweeps_tolerance = 0.1 * options.tolerance;

    ContactSolvers::SolverResult total;
    std::vector<double> z(n, 0.0), u(n, 0.0), scaled(n), inner_u, approximate(n), best_r, best_z, best_u;
    std::vector<double> history;
    ContactSolvers::AndersonMixing mixing(5, n_mine, sum_over_ranks(communicator));
    double best_error = std::numeric_limits<double>::infinity();
    std::string phases;
    for (unsigned int outer = 0;; ++outer)
      {
        // The exact velocities of the law at the iterate: u = f W p + b, W p from one solve. The
        // warm start is the last step's accepted impulse: with the same H (fixed obstacles), the
        // same contacts and the same impulses on every rank, its product is the last step's, and
        // Hp, 𝒯Hp are still in the work vectors.
        const bool approximate_start = product_at(scheme, H, own, own_points, impulses, n_mine, outer == 0, z, counts);
        for (unsigned int i = 0; i < n; ++i)
          {
            u[i] = factor * z[i] + b[i];
            scaled[i] = std::ldexp(impulses[i], -exponent);
          }
        const double error = distributed_error(probed_problem, scaled, u, n_own, communicator);
        if (approximate_start)
          phases += "approximate-start "; // not an exact error: neither kept nor accepted
        else
          history.push_back(error);
        if (!approximate_start && error < best_error)
          {
            best_error = error;
            best_r = impulses;
            best_z = z;
            best_u = u;
            remember_best_vectors();
          }
        if (!approximate_start && (!(error > options.tolerance) || history.size() >= max_iterations))
          break;
        // No progress over three outer iterations (a factor 2): the approximation is too coarse for
        // this problem; reported as not solved.
        if (history.size() >= 4 && !(error < 0.5 * history[history.size() - 4]))
          {
            phases += "stalled ";
            break;
          }
        // The inner problem: A = f W_s, b' = b + f z − f W_s p (so that it is exact at p), on the
        // own rows (W_s p reads the ghosts' impulses).
        set_inner_right_hand_side(probed_problem.W_sparse, impulses, b, factor, z, approximate, inner_problem.q);
        total.iterations += solve_inner(scaled, inner_u, inner_tolerance(history, error, sweeps_tolerance),
                                        sweeps_tolerance, partition, options);
        // The outer iteration p ↦ Φ(p) (inner solution) is, once the contacts' states settle, a
        // linear stationary iteration; Anderson mixing of the last iterates (the nonlinear form of
        // GMRES) cuts the number of exact products. Restarted when the exact error grows; the mix
        // is projected back onto the Coulomb cones, and only the exact error decides convergence.
        // Each rank mixes its own impulses (inner products summed over the ranks), then the ghosts
        // get their owners' mixed values.
        if (history.size() >= 2 && error > history[history.size() - 2])
          mixing.clear();
        impulses = mixed_iterate(mixing, impulses, scaled, exponent, probed_problem.mu, n_own);
      }
    impulses = best_r;
    velocities = best_u;
    keep_as_warm_start(warm_start, h_id, scheme.operator_version(), own_points, best_r, best_z);
    current = nullptr;
    total.error = best_error;
    total.status = best_error <= options.tolerance ? ContactSolvers::SolverStatus::converged
                                                   : ContactSolvers::SolverStatus::not_converged;
    total.message = "probed operator: " + std::to_string(counts.exact_products) + " exact products, " +
                    std::to_string(counts.probing_solves) + " probing solves " + phases;
    total.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return total;
  }
} // namespace percussion::ContactStep
