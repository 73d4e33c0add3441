#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>
#include <percussion/contact_solvers/one_contact_solver.h>
#include <percussion/time_integration/distributed_sweeps.h>
#include <percussion/time_integration/plain_all_gather.h>

#include <algorithm>
#include <cmath>

namespace percussion::TimeIntegration
{
  ImpulseExchange::ImpulseExchange(const ContactSolvers::BlockDelassus &W, const int first, const int last,
                                   MPI_Comm communicator)
    : d(W.dimension())
    , first_contact(first)
    , last_contact(last)
    , communicator(communicator)
  {
    const int n_ranks = static_cast<int>(dealii::Utilities::MPI::n_mpi_processes(communicator));
    send_counts.assign(n_ranks, 0);
    send_offsets.assign(n_ranks, 0);
    receive_counts.assign(n_ranks, 0);
    receive_offsets.assign(n_ranks, 0);
    if (n_ranks == 1)
      return;
    // The ranks' ranges, to find the owner of a column.
    const std::vector<int> own_range{first, last};
    std::vector<int> ranges;
    plain_all_gather(own_range, ranges, communicator);
    // Ghost contacts: the columns of the own rows outside [first, last), sorted, hence grouped by
    // owner (ranges in rank order).
    for (int a = first; a < last; ++a)
      for (int k = W.block_row_start[a]; k < W.block_row_start[a + 1]; ++k)
        if (const int b = W.block_column[k]; b < first || b >= last)
          receive_index.push_back(b);
    std::sort(receive_index.begin(), receive_index.end());
    receive_index.erase(std::unique(receive_index.begin(), receive_index.end()), receive_index.end());
    // The ghosts are sorted and the ranges follow each other: one pass finds the owners.
    int owner = 0;
    for (const int b : receive_index)
      {
        while (owner + 1 < n_ranks && b >= ranges[2 * owner + 1])
          ++owner;
        Assert(b >= ranges[2 * owner] && b < ranges[2 * owner + 1], dealii::ExcInternalError());
        ++receive_counts[owner];
      }
    int ierr = MPI_Alltoall(receive_counts.data(), 1, MPI_INT, send_counts.data(), 1, MPI_INT, communicator);
    AssertThrowMPI(ierr);
    for (int p = 1; p < n_ranks; ++p)
      {
        receive_offsets[p] = receive_offsets[p - 1] + receive_counts[p - 1];
        send_offsets[p] = send_offsets[p - 1] + send_counts[p - 1];
      }
    send_index.resize(send_offsets.back() + send_counts.back());
    // Each rank tells the owners which of their contacts it needs.
    ierr = MPI_Alltoallv(receive_index.data(), receive_counts.data(), receive_offsets.data(), MPI_INT,
                         send_index.data(), send_counts.data(), send_offsets.data(), MPI_INT, communicator);
    AssertThrowMPI(ierr);
    // From here on the counts and offsets are in doubles (d per contact).
    for (std::vector<int> *v : {&send_counts, &send_offsets, &receive_counts, &receive_offsets})
      for (int &x : *v)
        x *= d;
    send_buffer.resize(d * send_index.size());
    receive_buffer.resize(d * receive_index.size());
  }

  void ImpulseExchange::exchange(std::vector<double> &r) const
  {
    if (send_counts.size() <= 1)
      return;
    for (std::size_t k = 0; k < send_index.size(); ++k)
      std::copy_n(&r[d * send_index[k]], d, &send_buffer[d * k]);
    const int ierr = MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_offsets.data(), MPI_DOUBLE,
                                   receive_buffer.data(), receive_counts.data(), receive_offsets.data(), MPI_DOUBLE,
                                   communicator);
    AssertThrowMPI(ierr);
    for (std::size_t k = 0; k < receive_index.size(); ++k)
      std::copy_n(&receive_buffer[d * k], d, &r[d * receive_index[k]]);
  }

  ContactSolvers::SolverResult distributed_sweeps(const ContactSolvers::LocalProblem &problem,
                                                  const ContactSolvers::BlockDelassus &W, const ImpulseExchange &ghosts,
                                                  std::vector<double> &r, std::vector<double> &u,
                                                  const double tolerance, const int max_sweeps)
  {
    const int d = problem.dimension, first = ghosts.first(), last = ghosts.last();
    const MPI_Comm communicator = ghosts.mpi_communicator();
    const bool single = dealii::Utilities::MPI::n_mpi_processes(communicator) == 1;
    ContactSolvers::SolverResult result;
    u.resize(problem.size());
    // Only the impulses that the own rows couple to travel after a sweep; the whole r is gathered
    // once, on exit (the callers use it whole).
    const auto gather_whole = [&]() {
      if (single)
        return;
      const std::vector<double> owned(r.begin() + d * first, r.begin() + d * last);
      plain_all_gather(owned, r, communicator);
    };
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
            ghosts.exchange(r);
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
            gather_whole();
            return result;
          }
        if (result.error <= tolerance)
          {
            result.status = ContactSolvers::SolverStatus::converged;
            gather_whole();
            return result;
          }
        schedule.checked(sweep, result.error, change);
      }
    result.status = ContactSolvers::SolverStatus::not_converged;
    gather_whole();
    return result;
  }
} // namespace percussion::TimeIntegration
