#ifndef PERCUSSION_CONTACT_SOLVERS_FCLIB_WRITER_H
#define PERCUSSION_CONTACT_SOLVERS_FCLIB_WRITER_H

#include <percussion/contact_solvers/local_problem.h>

#include <string>
#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * Write a local problem to an FCLIB HDF5 file (`/fclib_local`, W in CSR with nz = −2, exact zeros
   * of a dense W dropped), e.g. a hard time step of the simulator for offline study. If r and u are
   * given (size d m), they are stored as `/solution/r`, `/solution/u`. Overwrites the file.
   * Throws percussion::InputError if the problem is inconsistent or the file cannot be written.
   */
  void write_fclib_local(const std::string &filename, const LocalProblem &problem,
                         const std::string &title = "percussion", const std::string &description = "",
                         const std::vector<double> *r = nullptr, const std::vector<double> *u = nullptr);
} // namespace percussion::ContactSolvers

#endif
