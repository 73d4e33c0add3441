#ifndef PERCUSSION_CONTACT_SOLVERS_ALART_CURNIER_NEWTON_H
#define PERCUSSION_CONTACT_SOLVERS_ALART_CURNIER_NEWTON_H

#include <percussion/contact_solvers/block_delassus.h>
#include <percussion/contact_solvers/block_linear_solver.h>
#include <percussion/contact_solvers/solver_options.h>

#include <chrono>
#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * Semismooth (generalised) Newton method on the Alart–Curnier equation (P. Alart, A. Curnier,
   * "A mixed formulation for frictional contact problems prone to Newton like solution methods",
   * CMAME 92, 1991; the variant of Acary, Brémond & Huber 2018, eq. (AC)):
   *
   *     Φ_a(r) = [ r_N − max(0, r_N − ρ_N u_N)                       ]  = 0,   u = W r + q,
   *              [ r_T − P_{D(μ max(0, r_N − ρ_N u_N))}(r_T − ρ_T u_T) ]
   *
   * D(s) the disc of radius s. With y = r − R u, R = diag(ρ), and G = ∂P(y) an element of the
   * generalised Jacobian of the projection, the Newton matrix is J = (I − G) + G R W (same block
   * pattern as W). ρ per contact from the diagonal block: ρ_N = s / W_aa,NN, ρ_T = s / mean W_aa,TT.
   * Globalisation: Armijo backtracking on ψ = ½‖Φ‖²; a singular J is shifted (J + δI).
   *
   * Proximal regularisation (for singular or nearly singular W, e.g. redundant contacts of rigid
   * bodies): the Newton matrix is that of the proximal sub-problem with W + η diag(ρ)⁻¹ centred at
   * the current iterate (cf. the proximal point method of Rockafellar 1976 used with Newton inside
   * in Acary, Brémond & Huber 2018), i.e. J_η = (I − (1 − η) G) + G R W, with η = min(η_max, c·error)
   * so that η → 0 and the fast local convergence of Newton is kept near the solution.
   * At the centre Φ_η = Φ, so one such step is a regularised Newton step on Φ itself.
   * Stopping test: the FCLIB error (error_measure.h), computed every iteration.
   */
  class AlartCurnierNewton
  {
  public:
    AlartCurnierNewton(const LocalProblem &problem, const BlockDelassus &W, double rho_scale);

    /**
     * Up to @p max_iterations Newton steps from r (in/out); stops early when the error ≤ tolerance,
     * at @p deadline, or — if @p stall_exit — when the error has not decreased by a factor 2 in
     * 20 iterations or the line search failed 5 times in a row (so that the caller can switch to
     * NSGS). r is the best iterate on exit, u = W r + q. The proximal parameter is
     * η = min(proximal_cap, proximal_factor · error) (0, 0: plain semismooth Newton).
     */
    SolverResult run(std::vector<double> &r, std::vector<double> &u, double tolerance, int max_iterations,
                     std::chrono::steady_clock::time_point deadline, bool stall_exit, double proximal_factor,
                     double proximal_cap, bool verbose) const;

  private:
    /** Φ(r) and, if blocks_out != nullptr, the Newton matrix blocks. Returns ψ = ½‖Φ‖². */
    double evaluate(const std::vector<double> &r, const std::vector<double> &u, std::vector<double> &phi,
                    std::vector<double> *jacobian_blocks, double proximal) const;

    /** The work vectors of line_search(): the trial r, u = W r + q and Φ. */
    struct LineSearchWorkspace
    {
      std::vector<double> r, u, phi;
    };

    /**
     * Dense LU for a dense W up to 4000 unknowns, and for a small or nearly full sparse W (more than
     * 0.3 m² blocks); sparse LU otherwise.
     */
    bool prefers_dense_factorisation() const;

    /**
     * The scale of the diagonal shift used when J is singular (redundant contacts, zero rows of W):
     * max |W entry| · max ρ, at least 1.
     */
    double singular_shift_scale() const;

    /**
     * Factorises the Newton matrix @p jacobian; if it is singular, J + δI with δ = 1e-12, 1e-10, …
     * times @p shift_scale, below 1e-2 times it. false if every attempt failed.
     */
    bool factorize_newton_matrix(BlockLinearSolver &linear_solver, const std::vector<double> &jacobian,
                                 double shift_scale) const;

    /**
     * Armijo backtracking on ψ = ½‖Φ‖² along (step, W step) from (r, u): α = 1, ½, … (30 trials)
     * until ψ(α) ≤ (1 − 2·10⁻⁴ α) ψ; the Newton direction gives ψ'(0) = −2ψ when J is exact.
     * Returns α; @p accepted false if no trial passed, α then being the best step tried.
     */
    double line_search(const std::vector<double> &r, const std::vector<double> &u, const std::vector<double> &step,
                       const std::vector<double> &W_step, double psi, LineSearchWorkspace &trial, bool &accepted) const;

    const LocalProblem &problem_;
    const BlockDelassus &W_;
    std::vector<double> rho_; ///< d m, ρ per component
  };
} // namespace percussion::ContactSolvers

#endif
