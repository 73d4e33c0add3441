#ifndef PERCUSSION_CONTACT_SOLVERS_SOLVER_OPTIONS_H
#define PERCUSSION_CONTACT_SOLVERS_SOLVER_OPTIONS_H

#include <limits>
#include <string>

namespace percussion::ContactSolvers
{
  /** The solvers of solve() (their names: available_solvers(), solver_kind_from_name()). */
  enum class SolverKind
  {
    /**
     * "alart_curnier" (default): semismooth Newton on the Alart–Curnier augmented-Lagrangian
     * equation with an Armijo line search and proximal regularisation; when it stalls, plain
     * Newton; when both stall, the proximal-point loop (proximal_point.h: singular W, e.g. more
     * contact unknowns than degrees of freedom); then bursts of NSGS sweeps, then Newton again.
     */
    alart_curnier,
    alart_curnier_pure, ///< "alart_curnier_pure": the proximal Newton method alone (no fallback)
    proximal_point,     ///< "proximal_point": the proximal-point outer loop alone, for singular W
    nsgs                ///< "nsgs": nonsmooth Gauss–Seidel, one exact / Newton one-contact solve per contact
  };

  /** Options for solve(). */
  struct SolverOptions
  {
    SolverKind solver = SolverKind::alart_curnier;

    /** Stop when compute_error() ≤ tolerance (the FCLIB/Siconos measure). */
    double tolerance = 1e-8;

    /**
     * At most this many Newton iterations ("alart_curnier", "alart_curnier_pure") or NSGS sweeps
     * ("nsgs"). The default driver's NSGS phases add bounded bursts of sweeps (at most 50 rounds of at
     * most 5000 sweeps; use time_limit_seconds for a hard bound on the work).
     */
    int max_iterations = 1000;

    /** Wall-clock cap; the solver returns not_converged with its best iterate when reached. */
    double time_limit_seconds = std::numeric_limits<double>::infinity();

    /**
     * Scale of the augmentation parameter of Alart–Curnier: ρ_{a,N} = scale / W_{aa,NN},
     * ρ_{a,T} = scale / mean(W_{aa,TT}) (per contact, from the diagonal block of W).
     */
    double rho_scale = 1.0;

    /**
     * Proximal regularisation of the Newton matrix (alart_curnier_newton.h):
     * η = min(proximal_cap, proximal_factor · error). Set proximal_cap = 0 for plain Newton.
     */
    double proximal_factor = 10.0;
    double proximal_cap = 0.5;

    /**
     * The proximal-point outer loop (proximal_point.h; solver "proximal_point", and the phase of
     * "alart_curnier" that runs when both Newton variants stall): sub-problems with W + α D,
     * α starting at proximal_point_initial (> 0), divided by 10 after a sub-problem solved in at
     * most proximal_point_easy_iterations Newton iterations, never below proximal_point_min (> 0).
     * Each sub-problem first gets up to proximal_point_nsgs_sweeps NSGS sweeps (≥ 0; 0: Newton only).
     */
    double proximal_point_initial = 1.0;
    double proximal_point_min = 1e-6;
    int proximal_point_easy_iterations = 6;
    int proximal_point_nsgs_sweeps = 10;

    /**
     * "alart_curnier" first tries NSGS with a budget worth about two Newton iterations (for a dense
     * W, n/3 sweeps up to 400; 10 for a sparse one) and keeps its result only if it converged.
     */
    bool nsgs_probe = true;

    /** Print one line per iteration on stderr. */
    bool verbose = false;
  };

  /** Outcome of a solve. */
  enum class SolverStatus
  {
    converged,     ///< error ≤ tolerance
    not_converged, ///< iteration or time limit reached; the best iterate is returned
    failed         ///< numerical breakdown (non-finite values); the best iterate is returned
  };

  /** "converged", "not_converged" or "failed". */
  std::string to_string(SolverStatus status);

  /** What solve() reports. */
  struct SolverResult
  {
    SolverStatus status = SolverStatus::not_converged;
    int iterations = 0;                                     ///< Newton iterations + NSGS sweeps
    double error = std::numeric_limits<double>::infinity(); ///< compute_error() at the returned r
    double seconds = 0.0;                                   ///< wall-clock time of the solve
    std::string message;                                    ///< what happened (solver phases, reason of failure)
  };
} // namespace percussion::ContactSolvers

#endif
