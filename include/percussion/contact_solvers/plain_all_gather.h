#ifndef PERCUSSION_CONTACT_SOLVERS_PLAIN_ALL_GATHER_H
#define PERCUSSION_CONTACT_SOLVERS_PLAIN_ALL_GATHER_H

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace percussion::ContactSolvers
{
  /// Throws std::runtime_error naming @p call when @p error_code is not MPI_SUCCESS.
  inline void check_mpi(const int error_code, const char *call)
  {
    if (error_code != MPI_SUCCESS)
      throw std::runtime_error(std::string(call) + " failed with MPI error code " + std::to_string(error_code));
  }

  /// The number of ranks of @p communicator.
  inline int n_ranks(MPI_Comm communicator)
  {
    int size = 1;
    check_mpi(MPI_Comm_size(communicator, &size), "MPI_Comm_size");
    return size;
  }

  /// The rank of this process in @p communicator.
  inline int this_rank(MPI_Comm communicator)
  {
    int rank = 0;
    check_mpi(MPI_Comm_rank(communicator, &rank), "MPI_Comm_rank");
    return rank;
  }

  /**
   * The ranks' @p local records (trivially copyable plain data) one after another in rank order,
   * on every rank, sent as bytes in one MPI_Allgatherv: deal.II's all_gather() serialises and
   * compresses each rank's vector, which cost more than all the rest of a 1D contact step. On one
   * rank nothing is exchanged.
   */
  template <typename T>
  void plain_all_gather(const std::vector<T> &local, std::vector<T> &all, MPI_Comm communicator)
  {
    const int size = n_ranks(communicator);
    if (size == 1)
      {
        all = local;
        return;
      }
    const int n_local = static_cast<int>(local.size() * sizeof(T));
    std::vector<int> counts(size), offsets(size, 0);
    check_mpi(MPI_Allgather(&n_local, 1, MPI_INT, counts.data(), 1, MPI_INT, communicator), "MPI_Allgather");
    for (int r = 1; r < size; ++r)
      offsets[r] = offsets[r - 1] + counts[r - 1];
    all.resize((static_cast<std::size_t>(offsets.back()) + counts.back()) / sizeof(T));
    check_mpi(MPI_Allgatherv(local.data(), n_local, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE,
                             communicator),
              "MPI_Allgatherv");
  }

  /// Whether @p x holds on every rank (for decisions that lead to collective calls). Collective.
  inline bool on_every_rank(const bool x, MPI_Comm communicator)
  {
    if (n_ranks(communicator) == 1)
      return x;
    int all = x ? 1 : 0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, communicator), "MPI_Allreduce");
    return all == 1;
  }

  /// The sum of @p x over the ranks. Collective.
  inline double sum_over_ranks(double x, MPI_Comm communicator)
  {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, communicator), "MPI_Allreduce");
    return x;
  }
} // namespace percussion::ContactSolvers

#endif
