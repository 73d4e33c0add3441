#ifndef PERCUSSION_CONTACT_SOLVERS_FCLIB_READER_H
#define PERCUSSION_CONTACT_SOLVERS_FCLIB_READER_H

#include <percussion/contact_solvers/global_problem.h>
#include <percussion/contact_solvers/local_problem.h>

#include <string>

namespace percussion::ContactSolvers
{
  /** What an FCLIB file holds: a local problem, or a global one (is_global). */
  struct FclibProblem
  {
    bool is_global = false;
    LocalProblem local;   ///< when !is_global
    GlobalProblem global; ///< when is_global
    std::string title;
    std::string description;
  };

  /**
   * Read an FCLIB HDF5 file (V. Acary, M. Brémond, T. Koziara, F. Pérignon, "FCLIB: a collection
   * of discrete 3D frictional contact problems", INRIA RT-444, 2014): `/fclib_local` (W, q, mu,
   * spacedim) or `/fclib_global` (M, H, f, w, mu, spacedim). Matrices in CSR (nz = −2), CSC
   * (nz = −1) or triplets (nz ≥ 0; `i` = row, `p` = column, see tests/data/fclib/README.md).
   * Local W is returned in sparse storage.
   * Throws percussion::InputError naming the file and the dataset for a missing file, a file that
   * is not FCLIB, inconsistent sizes, indices out of range, non-finite values or μ < 0.
   * Part of the percussion_fclib_io library (links HDF5, Open MPI build).
   */
  FclibProblem read_fclib_file(const std::string &filename);
} // namespace percussion::ContactSolvers

#endif
