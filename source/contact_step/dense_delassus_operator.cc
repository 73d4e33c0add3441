#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/contact_solvers/scaled_solve.h>
#include <percussion/contact_step/dense_delassus_operator.h>
#include <percussion/contact_step/scheme_interface.h>
#include <percussion/core/petsc_access.h>

#include <algorithm>

namespace percussion::ContactStep
{
  using ContactLaws::ActiveContact;
  using PetscAccess::reinit_like;

  DenseDelassusOperator::DenseDelassusOperator(const unsigned int dim, const unsigned int column_limit,
                                               MPI_Comm communicator, const DelassusColumns::Response response,
                                               const bool body_compliance)
    : dim(dim)
    , communicator(communicator)
    , delassus(dim, column_limit, communicator, response, body_compliance)
  {
  }

  ContactSolvers::SolverResult DenseDelassusOperator::solve(const OperatorContext &context,
                                                            const std::vector<ActiveContact> &held, const double factor,
                                                            ContactSolution &solution,
                                                            const ContactSolvers::SolverOptions &options,
                                                            OperatorSolveCounts &counts)
  {
    const unsigned int n = held.size(), d = dim, ld = dim == 1 ? 2 : dim;
    points.resize(n);
    for (unsigned int a = 0; a < n; ++a)
      points[a] = held[a].point;
    const unsigned long long solved_before = delassus.solved_columns();
    delassus.ensure(context.scheme, context.H, points, context.n_candidates, context.operator_moves);
    counts.column_solves += delassus.solved_columns() - solved_before;
    ContactSolvers::LocalProblem &problem = solution.problem;
    if (delassus.is_sparse())
      held_unknown_of_column = unknowns_of_columns(points); // (add_product() too)
    if (delassus.is_sparse() && poses_sparse(points, d))
      {
        problem.storage = ContactSolvers::MatrixStorage::sparse;
        problem.W_sparse = sparse_problem_matrix(points, held_unknown_of_column, d, ld, factor);
      }
    else
      {
        problem.storage = ContactSolvers::MatrixStorage::dense;
        problem.W_dense = ContactSolvers::DenseMatrix(ld * n, ld * n);
        for (unsigned int a = 0; a < n; ++a)
          {
            for (unsigned int b = 0; b < n; ++b)
              for (unsigned int i = 0; i < d; ++i)
                for (unsigned int j = 0; j < d; ++j)
                  problem.W_dense(ld * a + i, ld * b + j) = factor * delassus.entry(points[a], i, points[b], j);
            if (dim == 1)
              problem.W_dense(ld * a + 1, ld * a + 1) =
                problem.W_dense(ld * a, ld * a) > 0 ? problem.W_dense(ld * a, ld * a) : 1.0;
          }
      }
    return ContactSolvers::solve_scaled(problem, solution.reaction, solution.velocity, options, solution.exponent);
  }

  bool DenseDelassusOperator::poses_sparse(const std::vector<unsigned long long> &problem_points,
                                           const unsigned int components) const
  {
    // Sparse where at most a quarter of W's entries are nonzero (many bodies: contacts couple
    // only through a body they share); a dense W of a few bodies is factorised faster dense.
    // (The rows' nonzeros bound those among the problem's points.)
    std::size_t nonzeros = 0;
    for (const unsigned long long point : problem_points)
      for (unsigned int i = 0; i < components; ++i)
        nonzeros += delassus.row(point, i).size() * components / dim;
    const std::size_t size = static_cast<std::size_t>(components) * problem_points.size();
    return 4 * nonzeros < size * size;
  }

  ContactSolvers::CsrMatrix
  DenseDelassusOperator::sparse_problem_matrix(const std::vector<unsigned long long> &problem_points,
                                               const std::vector<int> &unknown_of_column, const unsigned int components,
                                               const unsigned int ld, const double factor) const
  {
    // W of the points' components below `components` from W_c's rows, ld unknowns per point
    // (unknown_of_column: a cached column's unknown d · point index + component, or −1); the
    // components from `components` to ld get the decoupled diagonal of the 2D form of 1D contact
    // and of the projection's frictionless problem: W_NN (1 if it is 0), as the dense problem's.
    const unsigned int d = dim, n = problem_points.size();
    std::vector<int> rows, columns;
    std::vector<double> values;
    for (unsigned int a = 0; a < n; ++a)
      {
        double normal_diagonal = 0.0;
        for (unsigned int i = 0; i < components; ++i)
          for (const auto &[column, value] : delassus.row(problem_points[a], i))
            if (const int unknown = unknown_of_column[column]; unknown >= 0 && unknown % d < components)
              {
                rows.push_back(ld * a + i);
                columns.push_back(ld * (unknown / d) + unknown % d);
                values.push_back(factor * value);
                if (i == 0 && columns.back() == static_cast<int>(ld * a))
                  normal_diagonal = values.back();
              }
        for (unsigned int i = components; i < ld; ++i)
          {
            rows.push_back(ld * a + i);
            columns.push_back(ld * a + i);
            values.push_back(normal_diagonal > 0 ? normal_diagonal : 1.0);
          }
      }
    return ContactSolvers::CsrMatrix::from_triplets(ld * n, ld * n, rows, columns, values, "W");
  }

  std::vector<int>
  DenseDelassusOperator::unknowns_of_columns(const std::vector<unsigned long long> &problem_points) const
  {
    std::vector<int> unknown_of_column(delassus.n_columns(), -1);
    for (unsigned int a = 0; a < problem_points.size(); ++a)
      for (unsigned int i = 0; i < dim; ++i)
        unknown_of_column[dim * delassus.block(problem_points[a]) + i] = static_cast<int>(dim * a + i);
    return unknown_of_column;
  }

  void DenseDelassusOperator::impulse_vectors(const OperatorContext &context, const std::vector<ActiveContact> &,
                                              const std::vector<double> &impulse,
                                              const dealii::PETScWrappers::MPI::Vector *&generalized,
                                              const dealii::PETScWrappers::MPI::Vector *&response)
  {
    // Hp = B p and 𝒯Hp = X p from the cached columns: no further solve. (The DoF partition is
    // fixed for a run: the two vectors are allocated once.)
    reinit_like(generalized_impulse, context.scheme.new_velocity(), communicator);
    reinit_like(correction, context.scheme.new_velocity(), communicator);
    delassus.apply(context.scheme, points, impulse, generalized_impulse, correction);
    generalized = &generalized_impulse;
    response = &correction;
  }

  void DenseDelassusOperator::add_product(const std::vector<ActiveContact> &held, const unsigned int a,
                                          const unsigned int, const unsigned int i, const std::vector<double> &impulse,
                                          double &u) const
  {
    const unsigned int d = dim, n = held.size();
    if (delassus.is_sparse())
      {
        for (const auto &[column, value] : delassus.row(held[a].point, i))
          if (const int unknown = held_unknown_of_column[column]; unknown >= 0)
            u += value * impulse[unknown];
        return;
      }
    for (unsigned int b = 0; b < n; ++b)
      for (unsigned int j = 0; j < d; ++j)
        u += delassus.entry(held[a].point, i, held[b].point, j) * impulse[d * b + j];
  }

  const dealii::PETScWrappers::MPI::Vector &DenseDelassusOperator::project(const OperatorContext &context,
                                                                           std::vector<ActiveContact> &local,
                                                                           const ContactSolvers::SolverOptions &options,
                                                                           ContactSolvers::SolverResult &solver,
                                                                           unsigned int &n_contacts)
  {
    const unsigned int d = dim;
    std::vector<ActiveContact> projected;
    all_gather_sorted(local, projected, communicator);
    const unsigned int n = projected.size();
    std::vector<unsigned long long> projected_points(n);
    for (unsigned int a = 0; a < n; ++a)
      projected_points[a] = projected[a].point;
    delassus.ensure(context.scheme, context.H, projected_points, context.n_candidates, context.operator_moves);

    // 0 ≤ g + W_NN p̃ ⊥ p̃ ≥ 0 with W = Hᵀ𝒫⁻¹H of the operator's metric, posed as a 2D
    // frictionless problem with a decoupled tangential row (as 1D contact is).
    ContactSolvers::LocalProblem lcp;
    lcp.dimension = 2;
    lcp.number_of_contacts = n;
    lcp.q.assign(2 * n, 0.0);
    lcp.mu.assign(n, 0.0);
    for (unsigned int a = 0; a < n; ++a)
      lcp.q[2 * a] = projected[a].gap;
    if (delassus.is_sparse() && poses_sparse(projected_points, 1))
      {
        lcp.storage = ContactSolvers::MatrixStorage::sparse;
        lcp.W_sparse = sparse_problem_matrix(projected_points, unknowns_of_columns(projected_points), 1, 2, 1.0);
      }
    else
      {
        lcp.storage = ContactSolvers::MatrixStorage::dense;
        lcp.W_dense = ContactSolvers::DenseMatrix(2 * n, 2 * n);
        for (unsigned int a = 0; a < n; ++a)
          {
            for (unsigned int b = 0; b < n; ++b)
              lcp.W_dense(2 * a, 2 * b) = delassus.entry(projected[a].point, 0, projected[b].point, 0);
            lcp.W_dense(2 * a + 1, 2 * a + 1) = lcp.W_dense(2 * a, 2 * a) > 0 ? lcp.W_dense(2 * a, 2 * a) : 1.0;
          }
      }
    std::vector<double> r(2 * n, 0.0), u;
    int exponent = 0;
    solver = ContactSolvers::solve_scaled(lcp, r, u, options, exponent);
    n_contacts = std::max(n_contacts, n);
    std::vector<double> impulse(d * n, 0.0);
    for (unsigned int a = 0; a < n; ++a)
      impulse[d * a] = r[2 * a];
    reinit_like(generalized_impulse, context.scheme.displacement(), communicator);
    reinit_like(correction, context.scheme.displacement(), communicator);
    delassus.apply(context.scheme, projected_points, impulse, generalized_impulse, correction);
    return correction;
  }
} // namespace percussion::ContactStep
