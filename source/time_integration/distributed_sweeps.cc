#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>
#include <percussion/contact_solvers/one_contact_solver.h>
#include <percussion/time_integration/distributed_sweeps.h>
#include <percussion/time_integration/plain_all_gather.h>

#include <cmath>

namespace percussion::TimeIntegration
{
  ContactSolvers::SolverResult distributed_sweeps(const ContactSolvers::LocalProblem &problem,
                                                  const ContactSolvers::BlockDelassus &W, const int first,
                                                  const int last, std::vector<double> &r, std::vector<double> &u,
                                                  const double tolerance, const int max_sweeps,
                                                  MPI_Comm communicator)
  {
    const int d = problem.dimension;
    const bool single = dealii::Utilities::MPI::n_mpi_processes(communicator) == 1;
    ContactSolvers::SolverResult result;
    u.resize(problem.size());
    std::vector<double> owned;
    ContactSolvers::ExactErrorSchedule schedule;
    for (int sweep = 0; sweep < max_sweeps; ++sweep)
      {
        double change = 0;
        for (int a = first; a < last; ++a)
          {
            double q_local[3], previous[3];
            for (int i = 0; i < d; ++i)
              {
                q_local[i] = problem.q[a * d + i];
                previous[i] = r[a * d + i];
              }
            W.add_off_diagonal_row(a, r.data(), q_local);
            ContactSolvers::solve_one_contact(d, problem.mu[a], W.diagonal_block(a), q_local, &r[a * d]);
            for (int i = 0; i < d; ++i)
              change += (r[a * d + i] - previous[i]) * (r[a * d + i] - previous[i]);
          }
        if (!single)
          {
            // The ranks' ranges follow each other in rank order: the gathered slices are r.
            owned.assign(r.begin() + d * first, r.begin() + d * last);
            plain_all_gather(owned, r, communicator);
            change = dealii::Utilities::MPI::sum(change, communicator);
          }
        change = std::sqrt(change);
        result.iterations = sweep + 1;
        if (!schedule.due(sweep, change, tolerance, sweep + 1 == max_sweeps))
          continue;
        // u = W r + q on this rank's rows (the other rows of W are empty), the error from the
        // ranks' sums: the same value, and so the same decision, on every rank.
        W.multiply(r.data(), u.data());
        for (int i = d * first; i < d * last; ++i)
          u[i] += problem.q[i];
        ContactSolvers::ErrorSums sums = ContactSolvers::error_sums(problem, r, u, first, last);
        if (!single)
          {
            double values[4] = {sums.residual, sums.q, sums.r, sums.u};
            const int ierr = MPI_Allreduce(MPI_IN_PLACE, values, 4, MPI_DOUBLE, MPI_SUM, communicator);
            AssertThrowMPI(ierr);
            sums = {values[0], values[1], values[2], values[3]};
          }
        result.error = ContactSolvers::error_from_sums(sums);
        if (!std::isfinite(result.error))
          {
            result.status = ContactSolvers::SolverStatus::failed;
            result.message = "distributed sweeps: non-finite iterate";
            return result;
          }
        if (result.error <= tolerance)
          {
            result.status = ContactSolvers::SolverStatus::converged;
            return result;
          }
        schedule.checked(sweep, result.error, change);
      }
    result.status = ContactSolvers::SolverStatus::not_converged;
    return result;
  }
} // namespace percussion::TimeIntegration
