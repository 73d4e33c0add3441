#include <percussion/contact_solvers/alart_curnier_newton.h>
#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/error_measure.h>
#include <percussion/contact_solvers/nonsmooth_gauss_seidel.h>
#include <percussion/contact_solvers/proximal_point.h>
#include <percussion/contact_solvers/solve.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/name_table.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

namespace percussion::ContactSolvers
{
  namespace
  {
    constexpr NameTable<SolverStatus, 3> status_names{{{SolverStatus::converged, "converged"},
                                                       {SolverStatus::not_converged, "not_converged"},
                                                       {SolverStatus::failed, "failed"}}};
    /** The solver names of SolverOptions::solver, in the order available_solvers() lists them. */
    constexpr NameTable<SolverKind, 4> solver_names{{{SolverKind::alart_curnier, "alart_curnier"},
                                                     {SolverKind::alart_curnier_pure, "alart_curnier_pure"},
                                                     {SolverKind::proximal_point, "proximal_point"},
                                                     {SolverKind::nsgs, "nsgs"}}};
  } // namespace

  std::string to_string(const SolverStatus status)
  {
    return name_of(status_names, status);
  }

  std::vector<std::string> available_solvers()
  {
    std::vector<std::string> names;
    for (const auto &entry : solver_names)
      names.emplace_back(entry.second);
    return names;
  }

  std::optional<SolverKind> solver_kind_from_name(const std::string &name)
  {
    if (!has_name(solver_names, name))
      return std::nullopt;
    return value_of(solver_names, name, "");
  }

  std::string to_string(const SolverKind kind)
  {
    return name_of(solver_names, kind);
  }

  namespace
  {
    using Clock = std::chrono::steady_clock;

    Clock::time_point deadline_after(Clock::time_point start, double seconds)
    {
      if (!(seconds < 1e9))
        return Clock::time_point::max();
      return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    }

    /**
     * The default driver: Newton first (fast local convergence); when it stalls (line search
     * failures or no progress — typical near degenerate contacts or with a singular W), a burst of
     * NSGS sweeps moves the iterate into a better region, then Newton resumes from there. The NSGS
     * bursts grow so that on problems Newton cannot handle the driver degrades into plain NSGS.
     * The best iterate of all phases is returned.
     */
    class HybridDriver
    {
    public:
      HybridDriver(const LocalProblem &problem, const BlockDelassus &W, const SolverOptions &options,
                   Clock::time_point deadline)
        : problem_(problem)
        , W_(W)
        , options_(options)
        , deadline_(deadline)
        , newton_(problem, W, options.rho_scale)
        , nsgs_(problem, W)
        , newton_budget_(options.max_iterations)
      {
      }

      /** Runs the phases from r (in/out, u = W r + q); on exit r is the best iterate found. */
      SolverResult run(std::vector<double> &r, std::vector<double> &u)
      {
        best_r_ = r;
        best_error_ = compute_error(problem_, r, u);
        total_.error = best_error_;
        if (options_.nsgs_probe)
          run_nsgs_probe(r, u);
        for (int round = 0; round < 50 && newton_budget_ > 0; ++round)
          {
            const bool converged = run_newton_variants(r, u);
            if (converged || Clock::now() > deadline_)
              break;
            // Both Newton variants stalled in the first round: the proximal-point loop, once.
            if (round == 0 && newton_budget_ > 0 && run_proximal_point(r, u))
              break;
            if (run_nsgs_burst(r, u))
              break;
          }
        r = best_r_;
        problem_.compute_velocity(r, u);
        total_.error = best_error_;
        total_.status = best_error_ <= options_.tolerance ? SolverStatus::converged : SolverStatus::not_converged;
        total_.message = phases_;
        return total_;
      }

    private:
      /** Keeps r as the best iterate if @p error is below the best error so far. */
      void keep_if_better(double error, const std::vector<double> &r)
      {
        if (error < best_error_)
          {
            best_error_ = error;
            best_r_ = r;
          }
      }

      /** Back to the best iterate found so far (r and u = W r + q). */
      void restart_from_best(std::vector<double> &r, std::vector<double> &u) const
      {
        r = best_r_;
        problem_.compute_velocity(r, u);
      }

      /**
       * Gauss–Seidel probe. A sweep costs about two products with W, a Newton iteration a sparse or
       * dense LU (for a dense W about n/6 sweeps' worth). On well-conditioned problems (the typical
       * finite-element W) NSGS converges linearly and fast, so it gets a budget worth about two
       * Newton iterations; if it does not finish within it (or stagnates), Newton restarts from the
       * initial point — measured on the public FCLIB set, a Newton start from NSGS iterates is
       * sometimes much worse, so the probe's result is not used as a warm start. A solved probe
       * leaves no budget to Newton.
       */
      void run_nsgs_probe(std::vector<double> &r, std::vector<double> &u)
      {
        const std::vector<double> r_start = r;
        const int n = problem_.size();
        const bool dense =
          problem_.storage == MatrixStorage::dense || W_.number_of_blocks() > 0.3 * W_.m * static_cast<double>(W_.m);
        const int budget = dense ? std::max(10, std::min(2 * n / 6, 400)) : 10;
        std::vector<double> history{best_error_};
        int sweep = 0;
        bool solved = false;
        for (; sweep < budget; ++sweep)
          {
            const SolverResult g = nsgs_.run(r, u, options_.tolerance, 1, deadline_);
            if (!std::isfinite(g.error))
              break;
            if (g.status == SolverStatus::converged)
              {
                solved = true;
                best_error_ = g.error;
                best_r_ = r;
                ++sweep;
                break;
              }
            // Stagnation: less than 10 % gain per sweep on average over the last 3 sweeps (NSGS
            // progress is irregular sweep by sweep).
            history.push_back(g.error);
            if (sweep >= 4 && g.error > 0.729 * history[history.size() - 4])
              {
                ++sweep;
                break;
              }
          }
        total_.iterations += sweep;
        phases_ += "nsgs-probe(" + std::to_string(sweep) + ") ";
        if (solved)
          newton_budget_ = 0;
        else
          {
            r = r_start;
            problem_.compute_velocity(r, u);
          }
      }

      /**
       * The proximal Newton method first; if it stalls, plain Newton from the best point (it wins on
       * some problems whose W is regular). Returns true if one of them converged.
       */
      bool run_newton_variants(std::vector<double> &r, std::vector<double> &u)
      {
        bool converged = false;
        for (const bool proximal : {true, false})
          {
            if (!proximal && options_.proximal_cap == 0.0)
              continue;
            const SolverResult n = newton_.run(r, u, options_.tolerance, newton_budget_, deadline_, true,
                                               proximal ? options_.proximal_factor : 0.0,
                                               proximal ? options_.proximal_cap : 0.0, options_.verbose);
            newton_budget_ -= std::max(n.iterations, 1);
            total_.iterations += n.iterations;
            phases_ += std::string(proximal ? "prox-newton(" : "newton(") + std::to_string(n.iterations) + ") ";
            keep_if_better(n.error, r);
            converged = n.status == SolverStatus::converged;
            if (converged || Clock::now() > deadline_ || newton_budget_ <= 0)
              break;
            restart_from_best(r, u);
          }
        return converged;
      }

      /**
       * Both Newton variants stalled: the typical signature of a singular W (more contact unknowns
       * than body degrees of freedom), where J = (I − G) + G R W is singular on the sticking
       * contacts and the regularised steps wander in W's null space. The proximal-point loop solves
       * regular sub-problems W + α D instead (proximal_point.h). If it wanders (no halving of the
       * error in 50 outer steps, seen on μ = 1 heaps) the NSGS / Newton alternation takes over with
       * the remaining budget. Measured: 50 steps is twice the longest plateau on
       * fc2d_granularflowonwall_02020 (23 steps before the first halving); 100 made the 2D heap of
       * the hard set 1.5× slower, 10 lost 02020 (measured with Newton-only sub-problems, before
       * proximal_point_nsgs_sweeps). Returns true if the driver is done (converged or out of time).
       */
      bool run_proximal_point(std::vector<double> &r, std::vector<double> &u)
      {
        int newton_iterations = 0;
        const SolverResult p = ProximalPointSolver(problem_, W_, options_)
                                 .run(r, u, options_.tolerance, newton_budget_, deadline_, 50, &newton_iterations);
        newton_budget_ -= std::max(newton_iterations, 1); // the sweeps are not Newton work
        total_.iterations += p.iterations;
        phases_ += "proximal-point(" + std::to_string(p.iterations) + ": " + p.message + ") ";
        keep_if_better(p.error, r);
        if (p.status == SolverStatus::converged || Clock::now() > deadline_)
          return true;
        restart_from_best(r, u);
        return false;
      }

      /**
       * A burst of NSGS sweeps; the next burst is twice as long (at most 5000 sweeps). Returns true
       * if the driver is done (converged or out of time).
       */
      bool run_nsgs_burst(std::vector<double> &r, std::vector<double> &u)
      {
        const SolverResult g = nsgs_.run(r, u, options_.tolerance, sweeps_, deadline_);
        total_.iterations += g.iterations;
        phases_ += "nsgs(" + std::to_string(g.iterations) + ") ";
        keep_if_better(g.error, r);
        if (g.status == SolverStatus::converged || Clock::now() > deadline_)
          return true;
        if (!std::isfinite(g.error))
          restart_from_best(r, u);
        sweeps_ = std::min(2 * sweeps_, 5000);
        return false;
      }

      const LocalProblem &problem_;
      const BlockDelassus &W_;
      const SolverOptions &options_;
      const Clock::time_point deadline_;
      const AlartCurnierNewton newton_;
      const NonsmoothGaussSeidel nsgs_;
      SolverResult total_;
      int newton_budget_; ///< Newton iterations left
      int sweeps_ = 20;   ///< length of the next NSGS burst
      std::vector<double> best_r_;
      double best_error_ = 0.0;
      std::string phases_; ///< the phases run, for SolverResult::message
    };

    /**
     * Checks the solver and the numeric options; percussion::InputError naming the option
     * otherwise. Returns the solver.
     */
    SolverKind checked_solver_kind(const SolverOptions &options)
    {
      if (name_of(solver_names, options.solver, "") == "")
        throw InputError("contact solver: unknown solver (SolverOptions::solver = " +
                         std::to_string(static_cast<int>(options.solver)) + ")");
      if (!(options.proximal_cap >= 0.0 && options.proximal_cap < 1.0) || !(options.proximal_factor >= 0.0))
        throw InputError("contact solver: proximal_cap must be in [0, 1) and proximal_factor >= 0");
      if (!(options.proximal_point_initial > 0.0) || !std::isfinite(options.proximal_point_initial))
        throw InputError("contact solver: proximal_point_initial must be finite and > 0");
      if (!(options.proximal_point_min > 0.0) || !(options.proximal_point_min <= options.proximal_point_initial))
        throw InputError("contact solver: proximal_point_min must be > 0 and <= proximal_point_initial");
      if (options.proximal_point_nsgs_sweeps < 0)
        throw InputError("contact solver: proximal_point_nsgs_sweeps must be >= 0");
      if (options.proximal_point_easy_iterations < 1)
        throw InputError("contact solver: proximal_point_easy_iterations must be >= 1");
      if (!(options.tolerance >= 0.0))
        throw InputError("contact solver: tolerance must be >= 0");
      if (options.max_iterations < 0)
        throw InputError("contact solver: max_iterations must be >= 0");
      return options.solver;
    }

    /** The solver @p kind from r (in/out), u = W r + q. */
    SolverResult run_solver(SolverKind kind, const LocalProblem &problem, const BlockDelassus &W,
                            std::vector<double> &r, std::vector<double> &u, const SolverOptions &options,
                            Clock::time_point deadline)
    {
      switch (kind)
        {
        case SolverKind::nsgs:
          return NonsmoothGaussSeidel(problem, W).run(r, u, options.tolerance, options.max_iterations, deadline);
        case SolverKind::alart_curnier_pure:
          return AlartCurnierNewton(problem, W, options.rho_scale)
            .run(r, u, options.tolerance, options.max_iterations, deadline, false, options.proximal_factor,
                 options.proximal_cap, options.verbose);
        case SolverKind::proximal_point:
          return ProximalPointSolver(problem, W, options)
            .run(r, u, options.tolerance, options.max_iterations, deadline);
        case SolverKind::alart_curnier:
          break;
        }
      return HybridDriver(problem, W, options, deadline).run(r, u);
    }
  } // namespace

  SolverResult solve(const LocalProblem &problem, std::vector<double> &r, std::vector<double> &u,
                     const SolverOptions &options)
  {
    const auto start = Clock::now();
    validate(problem);
    const SolverKind kind = checked_solver_kind(options);

    const int n = problem.size();
    if (static_cast<int>(r.size()) != n)
      r.assign(n, 0.0);
    for (double &x : r)
      if (!std::isfinite(x))
        {
          std::fill(r.begin(), r.end(), 0.0); // a broken warm start is worse than none
          break;
        }
    problem.compute_velocity(r, u);

    SolverResult result;
    if (n == 0)
      {
        result.status = SolverStatus::converged;
        result.error = 0.0;
        return result;
      }
    result.error = compute_error(problem, r, u);
    if (result.error <= options.tolerance)
      {
        result.status = SolverStatus::converged;
        result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return result;
      }

    const BlockDelassus W(problem);
    result = run_solver(kind, problem, W, r, u, options, deadline_after(start, options.time_limit_seconds));
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (options.verbose)
      std::fprintf(stderr, "%s: %s after %d iterations, error %.3e, %s\n", to_string(options.solver).c_str(),
                   to_string(result.status).c_str(), result.iterations, result.error, result.message.c_str());
    return result;
  }

  SolverResult solve(const GlobalProblem &problem, std::vector<double> &r, std::vector<double> &v,
                     std::vector<double> &u, const SolverOptions &options)
  {
    const auto start = Clock::now();
    const LocalProblem local = condense_to_local(problem);
    SolverOptions opts = options;
    opts.time_limit_seconds = options.time_limit_seconds - std::chrono::duration<double>(Clock::now() - start).count();
    SolverResult result = solve(local, r, u, opts);
    v = recover_global_velocity(problem, r);
    u = problem.w;
    problem.H.transpose_multiply_add(v.data(), u.data());
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  }
} // namespace percussion::ContactSolvers
