#ifndef PERCUSSION_TIME_INTEGRATION_PLAIN_ALL_GATHER_H
#define PERCUSSION_TIME_INTEGRATION_PLAIN_ALL_GATHER_H

#include <deal.II/base/mpi.h>

#include <mpi.h>

#include <vector>

namespace percussion::TimeIntegration
{
  /**
   * The ranks' @p local records (trivially copyable plain data) one after another in rank order,
   * on every rank, sent as bytes in one MPI_Allgatherv: deal.II's all_gather() serialises and
   * compresses each rank's vector, which cost more than all the rest of a 1D contact step. On one
   * rank nothing is exchanged.
   */
  template <typename T>
  void plain_all_gather(const std::vector<T> &local, std::vector<T> &all, MPI_Comm communicator)
  {
    const unsigned int n_ranks = dealii::Utilities::MPI::n_mpi_processes(communicator);
    if (n_ranks == 1)
      {
        all = local;
        return;
      }
    const int n_local = static_cast<int>(local.size() * sizeof(T));
    std::vector<int> counts(n_ranks), offsets(n_ranks, 0);
    int ierr = MPI_Allgather(&n_local, 1, MPI_INT, counts.data(), 1, MPI_INT, communicator);
    AssertThrowMPI(ierr);
    for (unsigned int r = 1; r < n_ranks; ++r)
      offsets[r] = offsets[r - 1] + counts[r - 1];
    all.resize((static_cast<std::size_t>(offsets.back()) + counts.back()) / sizeof(T));
    ierr = MPI_Allgatherv(local.data(), n_local, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE,
                          communicator);
    AssertThrowMPI(ierr);
  }

  /// Whether @p x holds on every rank (for decisions that lead to collective calls). Collective.
  inline bool on_every_rank(const bool x, MPI_Comm communicator)
  {
    return dealii::Utilities::MPI::n_mpi_processes(communicator) == 1 ? x
                                                                       : dealii::Utilities::MPI::min(x ? 1 : 0, communicator) == 1;
  }
} // namespace percussion::TimeIntegration

#endif
