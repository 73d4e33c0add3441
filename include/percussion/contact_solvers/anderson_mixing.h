#ifndef PERCUSSION_CONTACT_SOLVERS_ANDERSON_MIXING_H
#define PERCUSSION_CONTACT_SOLVERS_ANDERSON_MIXING_H

#include <cstddef>
#include <functional>
#include <vector>

namespace percussion::ContactSolvers
{
  /**
   * Anderson mixing (type II) of a fixed-point iteration x ↦ g(x): with f = g(x) − x and the
   * differences ΔF, ΔG of the last @p depth pairs, the next iterate is g − ΔG γ with γ the least
   * squares solution of min ‖f − ΔF γ‖ (Walker & Ni 2011). Plain data: an iteration whose unknowns
   * are split among processes passes the sum of the parts of the inner products.
   */
  class AndersonMixing
  {
  public:
    /// Sums the parts of a vector of inner products over the processes that hold the unknowns, in
    /// place (empty: one process holds them all).
    using PartSum = std::function<void(std::vector<double> &)>;

    /// Mixes the first @p length entries of the iterates (a process's own unknowns).
    AndersonMixing(unsigned int depth, std::size_t length, PartSum sum_over_parts = {});

    void clear();
    /// Records the pair (x, g(x)).
    void add(const std::vector<double> &x, const std::vector<double> &g);
    /// @p g (the last g(x)) becomes the mixed iterate.
    void mix(std::vector<double> &g) const;

  private:
    const unsigned int depth;
    const std::size_t length;
    PartSum sum_over_parts;
    std::vector<std::vector<double>> xs, gs;
  };
} // namespace percussion::ContactSolvers

#endif
