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
   * Nonsmooth Gauss–Seidel sweeps (M. Jean, CMAME 177, 1999) on a problem whose contacts are split
   * among the MPI ranks in contiguous ranges, in rank order: each rank sweeps its own contacts
   * [@p first, @p last) with the latest impulses of its own and the last exchanged impulses of the
   * others, then the ranks exchange their impulses (Gauss–Seidel within a rank, block Jacobi
   * between ranks). On one rank this is ContactSolvers::NonsmoothGaussSeidel.
   *
   * Only the rows of W (in @p W) and the entries of q of this rank's contacts are read: no rank
   * needs the operator of the others' contacts. @p r (all contacts, the same on every rank) is the
   * start and, on exit, the result, again the same on every rank; @p u holds W r + q for this
   * rank's contacts on exit. The error is the FCLIB measure of the whole problem
   * (ContactSolvers::compute_error()), from sums over each rank's contacts; as in
   * NonsmoothGaussSeidel it is computed on the first two sweeps, when the error predicted from the
   * sweep's change of r is within a few tolerances, at least every 8th sweep and on the last one,
   * so every rank takes the same decisions. Collective.
   */
  ContactSolvers::SolverResult distributed_sweeps(const ContactSolvers::LocalProblem &problem,
                                                  const ContactSolvers::BlockDelassus &W, int first, int last,
                                                  std::vector<double> &r, std::vector<double> &u, double tolerance,
                                                  int max_sweeps, MPI_Comm communicator);
} // namespace percussion::TimeIntegration

#endif
