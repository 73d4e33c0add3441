#ifndef PERCUSSION_CONTACT_SOLVERS_NONSMOOTH_GAUSS_SEIDEL_H
#define PERCUSSION_CONTACT_SOLVERS_NONSMOOTH_GAUSS_SEIDEL_H

#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/solver_options.h>

#include <chrono>
#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * When Gauss–Seidel sweeps compute their exact error (shared by NonsmoothGaussSeidel and the
   * time integrators' distributed sweeps): on the first two sweeps, on the last one, at least every
   * 8th sweep, when the change of the impulses is not finite, and when the error predicted from the
   * sweep's change of r, κ‖Δr‖ with κ = error / ‖Δr‖ at the last exact check (both fall at the
   * sweeps' linear rate), is within 3 tolerances.
   */
  class ExactErrorSchedule
  {
  public:
    /** Whether sweep @p sweep (from 0), whose impulses changed by ‖Δr‖ = @p change, is checked. */
    bool due(int sweep, double change, double tolerance, bool last_sweep) const;
    /** Records the exact @p error computed after sweep @p sweep. */
    void checked(int sweep, double error, double change);

  private:
    double kappa_ = 0.0;
    int last_check_ = -1;
  };

  /**
   * Nonsmooth Gauss–Seidel (NSGS; M. Jean, "The non-smooth contact dynamics method", CMAME 177,
   * 1999): sweep the contacts, solving each one-contact problem with q̃_a = q_a + Σ_{b≠a} W_ab r_b
   * (solve_one_contact()). The full FCLIB error (which needs u = W r + q, a product as dear as a
   * sweep) is computed on the first two sweeps and then when the error predicted from the sweep's
   * change of r is within a few tolerances, at least every 8th sweep, and on the last one.
   */
  class NonsmoothGaussSeidel
  {
  public:
    NonsmoothGaussSeidel(const LocalProblem &problem, const BlockDelassus &W);

    /**
     * Up to @p max_sweeps sweeps from r (in/out), stopping at error ≤ tolerance or at @p deadline.
     * u is W r + q on exit. Returns iterations = sweeps done and the error at exit.
     */
    SolverResult run(std::vector<double> &r, std::vector<double> &u, double tolerance, int max_sweeps,
                     std::chrono::steady_clock::time_point deadline) const;

  private:
    const LocalProblem &problem_;
    const BlockDelassus &W_;
  };
} // namespace percussion::ContactSolvers

#endif
