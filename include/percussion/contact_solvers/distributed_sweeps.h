#ifndef PERCUSSION_CONTACT_SOLVERS_DISTRIBUTED_SWEEPS_H
#define PERCUSSION_CONTACT_SOLVERS_DISTRIBUTED_SWEEPS_H

#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/solver_options.h>

#include <mpi.h>

#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * The active contacts of a step split among the ranks as one rank holds them. Globally the
   * contacts are numbered in rank order (rank p owns [rank_offsets[p], rank_offsets[p + 1]), the
   * owners of their slave points); locally a rank numbers its own contacts 0 … n_own() − 1 in the
   * same order and then its ghost contacts n_own() + j, the other ranks' contacts that its rows of W
   * couple to (global indices ghosts[j], sorted). A rank holds data of its own and its ghost contacts
   * only: O(own + boundary contacts), never all of them.
   */
  struct ContactPartition
  {
    int rank = 0;
    std::vector<unsigned long long> rank_offsets{0, 0}; ///< n_ranks + 1 entries
    std::vector<unsigned long long> ghosts;             ///< global indices, sorted

    int n_own() const { return static_cast<int>(rank_offsets[rank + 1] - rank_offsets[rank]); }
    int n_local() const { return n_own() + static_cast<int>(ghosts.size()); }
    unsigned long long offset() const { return rank_offsets[rank]; }
    unsigned long long n_total() const { return rank_offsets.back(); }
    /// The global index of local contact @p a.
    unsigned long long global(const int a) const { return a < n_own() ? offset() + a : ghosts[a - n_own()]; }
    /// The rank that owns global contact @p g.
    int owner(unsigned long long g) const;
  };

  /// The partition of @p n_own contacts per rank (ghosts left empty). Collective.
  ContactPartition partition_by_counts(int n_own, MPI_Comm communicator);

  /**
   * Which impulses the ranks exchange after each sweep of distributed_sweeps(): a rank receives the
   * impulses of its ghost contacts from their owners and sends each other rank the own impulses
   * that rank's rows couple to. At CFL step sizes W is local (the probed operator's radius R), so
   * these are the contacts within R of a rank's boundary: the exchange is O(boundary contacts) per
   * sweep instead of O(all contacts) for an all-gather. Built from @p partition with one
   * all-to-all of counts and one of indices, once per partition (a user keeps it as long as the
   * partition). Vectors are in the partition's local numbering, @p d values per contact. Collective.
   */
  class ImpulseExchange
  {
  public:
    ImpulseExchange(const ContactPartition &partition, int d, MPI_Comm communicator);

    /// This rank's own contacts are the local ones [0, n_own()).
    int n_own() const { return own_contacts; }
    MPI_Comm mpi_communicator() const { return communicator; }

    /// Sends this rank's impulses in @p r (local numbering) to the ranks that couple to them and
    /// writes the received ones into its ghost entries. Collective.
    void exchange(std::vector<double> &r) const;
    /// Contacts of other ranks whose impulses this rank receives per exchange.
    std::size_t received_contacts() const { return receive_index.size(); }
    /// Own contacts' impulses this rank sends per exchange (counted once per receiving rank).
    std::size_t sent_contacts() const { return send_index.size(); }

  private:
    int d;
    int own_contacts;
    MPI_Comm communicator;
    std::vector<int> send_index, send_counts, send_offsets;
    std::vector<int> receive_index, receive_counts, receive_offsets;
    mutable std::vector<double> send_buffer, receive_buffer;
  };

  /**
   * This rank's rows of an operator in the local numbering of @p partition: @p own_rows has the
   * d · n_own() rows of the own contacts and columns in global numbering (d · n_total()). The
   * columns outside the own range become the ghost contacts (stored in @p partition.ghosts); the
   * result is square, d · n_local(), with the ghosts' rows empty.
   */
  CsrMatrix localize(const CsrMatrix &own_rows, int d, ContactPartition &partition);

  /**
   * The whole problem's operator from the ranks' rows of @p local_block (local numbering of
   * @p partition, @p d unknowns per contact), in global numbering, on every rank. For the rare
   * places that need the whole problem (a fallback solver, an FCLIB dump). Collective.
   */
  CsrMatrix gather_whole(const CsrMatrix &local_block, int d, const ContactPartition &partition, MPI_Comm communicator);

  /// The whole problem (W, q, μ in global numbering) from the ranks' parts @p local (in the local
  /// numbering of @p partition, as distributed_sweeps() takes it), on every rank. Collective.
  LocalProblem gather_whole(const LocalProblem &local, const ContactPartition &partition, MPI_Comm communicator);

  /**
   * The FCLIB error (compute_error()) of the whole problem at @p r and @p u, from
   * each rank's sums over its own contacts [0, @p n_own) (local numbering): the same value, and so
   * the same decisions, on every rank. Collective.
   */
  double distributed_error(const LocalProblem &problem, const std::vector<double> &r, const std::vector<double> &u,
                           int n_own, MPI_Comm communicator);

  /// The whole vector (global numbering) from the own entries, the first @p d · n_own() of @p local. Collective.
  std::vector<double> gather_own(const std::vector<double> &local, int d, const ContactPartition &partition,
                                 MPI_Comm communicator);

  /**
   * Nonsmooth Gauss–Seidel sweeps (M. Jean, CMAME 177, 1999) on a problem whose contacts are split
   * among the MPI ranks (ContactPartition): each rank sweeps its own contacts with the latest
   * impulses of its own and the last exchanged impulses of its ghosts, then the ranks exchange the
   * impulses their rows couple to (@p ghosts; Gauss–Seidel within a rank, block Jacobi between
   * ranks). On one rank this is NonsmoothGaussSeidel.
   *
   * @p problem and @p W are in the partition's local numbering: the rows of the own contacts (the
   * ghosts' rows are empty), q and μ of the own contacts; no rank needs the operator or the data of
   * other contacts. @p r (own and ghost impulses) is the start and, on exit, the result, its ghost
   * entries as last exchanged (the owners' values); @p u holds W r + q for the own contacts on exit. The error is the
   * FCLIB measure of the whole problem (compute_error()), from sums over each rank's contacts; as in
   * NonsmoothGaussSeidel it is computed on the first two sweeps, when the error predicted from the
   * sweep's change of r is within a few tolerances, at least every 8th sweep and on the last one,
   * so every rank takes the same decisions. Collective.
   */
  SolverResult distributed_sweeps(const LocalProblem &problem, const BlockDelassus &W, const ImpulseExchange &ghosts,
                                  std::vector<double> &r, std::vector<double> &u, double tolerance, int max_sweeps);
} // namespace percussion::ContactSolvers

#endif
