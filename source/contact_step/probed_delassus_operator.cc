#include <percussion/contact_step/probed_delassus_operator.h>
#include <percussion/contact_step/scheme_interface.h>
#include <percussion/core/petsc_access.h>

#include <deal.II/base/mpi.h>

#include <algorithm>

namespace percussion::ContactStep
{
  using ContactLaws::ActiveContact;

  ProbedDelassusOperator::ProbedDelassusOperator(const unsigned int dim, const unsigned int max_iterations,
                                                 MPI_Comm communicator)
    : dim(dim)
    , communicator(communicator)
    , solver(dim, max_iterations, communicator)
  {
  }

  ContactSolvers::SolverResult ProbedDelassusOperator::solve(const OperatorContext &context,
                                                             const std::vector<ActiveContact> &held,
                                                             const double factor, ContactSolution &solution,
                                                             const ContactSolvers::SolverOptions &options,
                                                             OperatorSolveCounts &counts)
  {
    solution.problem.storage = ContactSolvers::MatrixStorage::sparse;
    return solver.solve(context.scheme, context.H, context.columns_like, held, factor, solution.problem,
                        solution.reaction, solution.velocity, solution.partition, solution.exponent, options,
                        step_start, counts);
  }

  void ProbedDelassusOperator::impulse_vectors(const OperatorContext &, const std::vector<ActiveContact> &,
                                               const std::vector<double> &,
                                               const dealii::PETScWrappers::MPI::Vector *&generalized_impulse,
                                               const dealii::PETScWrappers::MPI::Vector *&response)
  {
    generalized_impulse = &step_start.generalized_impulse;
    response = &step_start.response;
  }

  void ProbedDelassusOperator::add_product(const std::vector<ActiveContact> &, const unsigned int a,
                                           const unsigned int first, const unsigned int i, const std::vector<double> &,
                                           double &u) const
  {
    u += step_start.product[dim * (a - first) + i];
  }

  const dealii::PETScWrappers::MPI::Vector &
  ProbedDelassusOperator::project(const OperatorContext &context, std::vector<ActiveContact> &local,
                                  const ContactSolvers::SolverOptions &options,
                                  ContactSolvers::SolverResult &solver_result, unsigned int &n_contacts)
  {
    const unsigned int d = dim;
    // The projection's problem 0 ≤ g + W λ ⊥ λ ≥ 0 is the frictionless contact problem (μ = 0,
    // b = (g, 0, 0), factor 1) with W = Hᵀ𝒯H in the metric of the impulse response 𝒯 (Ŵ for
    // Moreau–Jean, also where 'Projection metric' is quasi-static but the projected contacts need
    // more than 'Delassus column limit' columns: dense columns of a metric of its own for a
    // thousand contacts would cost minutes and gigabytes per projection). Its problem, impulses,
    // partition and warm start are its own: the step's stay for the next step's warm start and for
    // what reads them after the step (an FCLIB dump).
    sort_by_point(local);
    n_contacts =
      std::max(n_contacts, static_cast<unsigned int>(dealii::Utilities::MPI::sum(local.size(), communicator)));
    ContactSolution projection;
    ContactSolvers::LocalProblem &lcp = projection.problem;
    lcp.dimension = d;
    lcp.number_of_contacts = local.size();
    lcp.storage = ContactSolvers::MatrixStorage::sparse;
    lcp.q.assign(d * local.size(), 0.0);
    lcp.mu.assign(local.size(), 0.0);
    for (unsigned int a = 0; a < local.size(); ++a)
      lcp.q[d * a] = local[a].gap;
    projection.reaction.assign(d * local.size(), 0.0);
    OperatorSolveCounts counts;
    // The step's accepted product starts the projection's iteration (where its contacts are the
    // step's) and stays the next step's warm start: without it, every step after a projection
    // would take one more exact product.
    // (Without a valid product nothing of a warm start is read: the solve makes its vectors anew.)
    if (step_start.valid)
      projection_start = step_start;
    else
      projection_start.valid = false;
    solver_result =
      solver.solve(context.scheme, context.H, context.columns_like, local, 1.0, lcp, projection.reaction,
                   projection.velocity, projection.partition, projection.exponent, options, projection_start, counts);
    // The accepted iterate's 𝒯Hλ.
    PetscAccess::reinit_like(correction, context.scheme.displacement(), communicator);
    correction = projection_start.response;
    return correction;
  }
} // namespace percussion::ContactStep
