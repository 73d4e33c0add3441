#include <percussion/contact_solvers/distributed_sweeps.h>
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>
#include <percussion/contact_solvers/one_contact_solver.h>
#include <percussion/contact_solvers/plain_all_gather.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace percussion::ContactSolvers
{
  int ContactPartition::owner(const unsigned long long g) const
  {
    // The first rank whose range ends beyond g (ranks without contacts have empty ranges).
    const auto end = std::upper_bound(rank_offsets.begin() + 1, rank_offsets.end(), g);
    assert(end != rank_offsets.end());
    return static_cast<int>(end - rank_offsets.begin()) - 1;
  }

  ContactPartition partition_by_counts(const int n_own, MPI_Comm communicator)
  {
    ContactPartition partition;
    partition.rank = this_rank(communicator);
    std::vector<unsigned long long> counts;
    plain_all_gather(std::vector<unsigned long long>{static_cast<unsigned long long>(n_own)}, counts, communicator);
    partition.rank_offsets.assign(counts.size() + 1, 0);
    std::partial_sum(counts.begin(), counts.end(), partition.rank_offsets.begin() + 1);
    return partition;
  }

  CsrMatrix localize(const CsrMatrix &own_rows, const int d, ContactPartition &partition)
  {
    const unsigned long long first = partition.offset(), last = first + partition.n_own();
    assert(own_rows.rows == d * partition.n_own());
    auto &ghosts = partition.ghosts;
    ghosts.clear();
    for (const int column : own_rows.column_index)
      if (const unsigned long long b = column / d; b < first || b >= last)
        ghosts.push_back(b);
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
    const int n = d * partition.n_local();
    CsrMatrix local;
    local.rows = local.cols = n;
    local.row_start = own_rows.row_start;
    local.row_start.resize(n + 1, own_rows.row_start.back());
    local.values = own_rows.values;
    local.column_index.resize(own_rows.column_index.size());
    for (std::size_t k = 0; k < own_rows.column_index.size(); ++k)
      {
        const unsigned long long b = own_rows.column_index[k] / d;
        const int component = own_rows.column_index[k] % d;
        const int a =
          b >= first && b < last
            ? static_cast<int>(b - first)
            : partition.n_own() + static_cast<int>(std::lower_bound(ghosts.begin(), ghosts.end(), b) - ghosts.begin());
        local.column_index[k] = d * a + component;
      }
    return local;
  }

  CsrMatrix gather_whole(const CsrMatrix &local_block, const int d, const ContactPartition &partition,
                         MPI_Comm communicator)
  {
    struct Entry
    {
      long long row, column;
      double value;
    };
    std::vector<Entry> own, all;
    for (int i = 0; i < d * partition.n_own(); ++i)
      for (int k = local_block.row_start[i]; k < local_block.row_start[i + 1]; ++k)
        {
          const int column = local_block.column_index[k];
          own.push_back({static_cast<long long>(d * partition.offset()) + i,
                         static_cast<long long>(d * partition.global(column / d)) + column % d, local_block.values[k]});
        }
    plain_all_gather(own, all, communicator);
    std::vector<int> rows(all.size()), cols(all.size());
    std::vector<double> values(all.size());
    for (std::size_t k = 0; k < all.size(); ++k)
      {
        rows[k] = static_cast<int>(all[k].row);
        cols[k] = static_cast<int>(all[k].column);
        values[k] = all[k].value;
      }
    const int n = static_cast<int>(d * partition.n_total());
    return CsrMatrix::from_triplets(n, n, rows, cols, values, "gathered contact operator");
  }

  std::vector<double> gather_own(const std::vector<double> &local, const int d, const ContactPartition &partition,
                                 MPI_Comm communicator)
  {
    std::vector<double> whole;
    plain_all_gather(std::vector<double>(local.begin(), local.begin() + d * partition.n_own()), whole, communicator);
    return whole;
  }

  LocalProblem gather_whole(const LocalProblem &local, const ContactPartition &partition, MPI_Comm communicator)
  {
    const int d = local.dimension;
    LocalProblem whole;
    whole.dimension = d;
    whole.number_of_contacts = static_cast<int>(partition.n_total());
    whole.storage = MatrixStorage::sparse;
    whole.W_sparse = gather_whole(local.W_sparse, d, partition, communicator);
    whole.q = gather_own(local.q, d, partition, communicator);
    whole.mu = gather_own(local.mu, 1, partition, communicator);
    return whole;
  }

  double distributed_error(const LocalProblem &problem, const std::vector<double> &r, const std::vector<double> &u,
                           const int n_own, MPI_Comm communicator)
  {
    ErrorSums sums = error_sums(problem, r, u, 0, n_own);
    if (n_ranks(communicator) > 1)
      {
        double values[4] = {sums.residual, sums.q, sums.r, sums.u};
        const int ierr = MPI_Allreduce(MPI_IN_PLACE, values, 4, MPI_DOUBLE, MPI_SUM, communicator);
        check_mpi(ierr, "MPI_Allreduce");
        sums = {values[0], values[1], values[2], values[3]};
      }
    return error_from_sums(sums);
  }

  ImpulseExchange::ImpulseExchange(const ContactPartition &partition, const int d, MPI_Comm communicator)
    : d(d)
    , own_contacts(partition.n_own())
    , communicator(communicator)
  {
    const int n_ranks = ContactSolvers::n_ranks(communicator);
    send_counts.assign(n_ranks, 0);
    send_offsets.assign(n_ranks, 0);
    receive_counts.assign(n_ranks, 0);
    receive_offsets.assign(n_ranks, 0);
    if (n_ranks == 1)
      return;
    // The ghosts are sorted and the ranks' ranges follow each other: they come grouped by owner.
    // Each owner is asked for its own (local) index of the contact.
    std::vector<int> requested;
    for (std::size_t j = 0; j < partition.ghosts.size(); ++j)
      {
        const unsigned long long g = partition.ghosts[j];
        const int owner = partition.owner(g);
        ++receive_counts[owner];
        receive_index.push_back(partition.n_own() + static_cast<int>(j));
        requested.push_back(static_cast<int>(g - partition.rank_offsets[owner]));
      }
    int ierr = MPI_Alltoall(receive_counts.data(), 1, MPI_INT, send_counts.data(), 1, MPI_INT, communicator);
    check_mpi(ierr, "MPI_Alltoall");
    for (int p = 1; p < n_ranks; ++p)
      {
        receive_offsets[p] = receive_offsets[p - 1] + receive_counts[p - 1];
        send_offsets[p] = send_offsets[p - 1] + send_counts[p - 1];
      }
    send_index.resize(send_offsets.back() + send_counts.back());
    ierr = MPI_Alltoallv(requested.data(), receive_counts.data(), receive_offsets.data(), MPI_INT, send_index.data(),
                         send_counts.data(), send_offsets.data(), MPI_INT, communicator);
    check_mpi(ierr, "MPI_Alltoallv");
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
    const int ierr =
      MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_offsets.data(), MPI_DOUBLE, receive_buffer.data(),
                    receive_counts.data(), receive_offsets.data(), MPI_DOUBLE, communicator);
    check_mpi(ierr, "MPI_Alltoallv");
    for (std::size_t k = 0; k < receive_index.size(); ++k)
      std::copy_n(&receive_buffer[d * k], d, &r[d * receive_index[k]]);
  }

  SolverResult distributed_sweeps(const LocalProblem &problem, const BlockDelassus &W, const ImpulseExchange &ghosts,
                                  std::vector<double> &r, std::vector<double> &u, const double tolerance,
                                  const int max_sweeps)
  {
    const int d = problem.dimension, n_own = ghosts.n_own();
    const MPI_Comm communicator = ghosts.mpi_communicator();
    const bool single = n_ranks(communicator) == 1;
    SolverResult result;
    u.resize(problem.size());
    ExactErrorSchedule schedule;
    for (int sweep = 0; sweep < max_sweeps; ++sweep)
      {
        double change = 0;
        for (int a = 0; a < n_own; ++a)
          {
            double q_local[3], previous[3];
            for (int i = 0; i < d; ++i)
              {
                q_local[i] = problem.q[a * d + i];
                previous[i] = r[a * d + i];
              }
            W.add_off_diagonal_row(a, r.data(), q_local);
            solve_one_contact(d, problem.mu[a], W.diagonal_block(a), q_local, &r[a * d]);
            for (int i = 0; i < d; ++i)
              change += (r[a * d + i] - previous[i]) * (r[a * d + i] - previous[i]);
          }
        if (!single)
          {
            ghosts.exchange(r);
            change = sum_over_ranks(change, communicator);
          }
        change = std::sqrt(change);
        result.iterations = sweep + 1;
        if (!schedule.due(sweep, change, tolerance, sweep + 1 == max_sweeps))
          continue;
        // u = W r + q on this rank's rows (the other rows of W are empty), the error from the
        // ranks' sums: the same value, and so the same decision, on every rank.
        W.multiply(r.data(), u.data());
        for (int i = 0; i < d * n_own; ++i)
          u[i] += problem.q[i];
        result.error = distributed_error(problem, r, u, n_own, communicator);
        if (!std::isfinite(result.error))
          {
            result.status = SolverStatus::failed;
            result.message = "distributed sweeps: non-finite iterate";
            return result;
          }
        if (result.error <= tolerance)
          {
            result.status = SolverStatus::converged;
            return result;
          }
        schedule.checked(sweep, result.error, change);
      }
    result.status = SolverStatus::not_converged;
    return result;
  }
} // namespace percussion::ContactSolvers
