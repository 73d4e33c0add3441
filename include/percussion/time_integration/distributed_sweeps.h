#ifndef PERCUSSION_TIME_INTEGRATION_DISTRIBUTED_SWEEPS_H
#define PERCUSSION_TIME_INTEGRATION_DISTRIBUTED_SWEEPS_H

#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/local_problem.h>
#include <percussion/contact_solvers/solver_options.h>

#include <mpi.h>

#include <vector>

namespace percussion::TimeIntegration
{
  /**
   * Which impulses the ranks exchange after each sweep of distributed_sweeps(): a rank whose
   * contacts are [first, last) (contiguous ranges in rank order) receives only the impulses of the
   * other ranks' contacts that its own rows of W couple to (its ghost contacts), and sends each
   * other rank the own impulses that rank's rows couple to. At CFL step sizes W is local (the probed
   * operator's radius R), so these are the contacts within R of a rank's boundary: the exchange is
   * O(boundary contacts) per sweep instead of O(all contacts) for an all-gather. Built from the
   * block pattern of @p W (this rank's rows) with one all-to-all of counts and one of indices,
   * once per block (a user keeps it as long as W's pattern and the ranges). Collective.
   */
  class ImpulseExchange
  {
  public:
    ImpulseExchange(const ContactSolvers::BlockDelassus &W, int first, int last, MPI_Comm communicator);

    /// This rank's contacts [first(), last()).
    int first() const { return first_contact; }
    int last() const { return last_contact; }
    MPI_Comm mpi_communicator() const { return communicator; }

    /// Sends this rank's impulses in @p r (d per contact) to the ranks that couple to them and
    /// writes the received ones into @p r. Collective.
    void exchange(std::vector<double> &r) const;
    /// Contacts of other ranks whose impulses this rank receives per exchange.
    std::size_t received_contacts() const { return receive_index.size(); }
    /// Own contacts' impulses this rank sends per exchange (counted once per receiving rank).
    std::size_t sent_contacts() const { return send_index.size(); }

  private:
    int d;
    int first_contact, last_contact;
    MPI_Comm communicator;
    std::vector<int> send_index, send_counts, send_offsets;
    std::vector<int> receive_index, receive_counts, receive_offsets;
    mutable std::vector<double> send_buffer, receive_buffer;
  };

  /**
   * Nonsmooth Gauss–Seidel sweeps (M. Jean, CMAME 177, 1999) on a problem whose contacts are split
   * among the MPI ranks in contiguous ranges, in rank order: each rank sweeps its own contacts
   * [@p ghosts.first(), @p ghosts.last()) with the latest impulses of its own and the last
   * exchanged impulses of the others, then the ranks exchange the impulses their rows couple to
   * (@p ghosts, made from @p W; Gauss–Seidel within a rank, block Jacobi between ranks). On one
   * rank this is ContactSolvers::NonsmoothGaussSeidel.
   *
   * Only the rows of W (in @p W) and the entries of q of this rank's contacts are read: no rank
   * needs the operator of the others' contacts. @p r (all contacts, the same on every rank) is the
   * start and, on exit, the result, again the same on every rank (gathered once, on exit); @p u
   * holds W r + q for this rank's contacts on exit. The error is the FCLIB measure of the whole problem
   * (ContactSolvers::compute_error()), from sums over each rank's contacts; as in
   * NonsmoothGaussSeidel it is computed on the first two sweeps, when the error predicted from the
   * sweep's change of r is within a few tolerances, at least every 8th sweep and on the last one,
   * so every rank takes the same decisions. Collective.
   */
  ContactSolvers::SolverResult distributed_sweeps(const ContactSolvers::LocalProblem &problem,
                                                  const ContactSolvers::BlockDelassus &W, const ImpulseExchange &ghosts,
                                                  std::vector<double> &r, std::vector<double> &u, double tolerance,
                                                  int max_sweeps);
} // namespace percussion::TimeIntegration

#endif
