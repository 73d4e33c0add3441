// The reference of regression.viscoelastic_rolling: Hunter's problem (S. C. Hunter, "The rolling
// contact of a rigid cylinder with a viscoelastic half space", J. Appl. Mech. 28 (1961) 611–617),
// a rigid cylinder rolling steadily without friction on a half-space of a standard linear solid,
// plane strain, solved numerically here to a fraction of a percent.
#ifndef PERCUSSION_TESTS_REGRESSION_VISCOELASTIC_ROLLING_REFERENCE_H
#define PERCUSSION_TESTS_REGRESSION_VISCOELASTIC_ROLLING_REFERENCE_H

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/lac/lapack_full_matrix.h>
#include <deal.II/lac/vector.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace percussion::testing
{
  /// The steady rolling contact: the pressure centre's lead d and the contact's ends, over the
  /// relaxed Hertz half-width a (Hunter's rolling friction coefficient is d/R).
  struct SteadyRolling
  {
    double lead_over_a = 0;
    double trailing_edge_over_a = 0, leading_edge_over_a = 0;
    /// The load the pressures carry over the load asked for (1 to round-off).
    double load_ratio = 0;
  };

  namespace rolling_reference
  {
    /// ∫_{−w/2}^{w/2} ln|y − t| dt: the log kernel of a strip of width w at distance y.
    inline double strip_log(const double y, const double w)
    {
      const auto g = [](const double z) { return z == 0 ? 0.0 : z * std::log(std::abs(z)); };
      return g(y + w / 2) - g(y - w / 2) - w;
    }

    /// (1/ℓ)∫_0^∞ e^{−η/ℓ} k(y + η) dη for the strip kernel k at y = lag·w, every lag of a grid of
    /// @p n strips: composite Gauss–Legendre panels shorter than a quarter strip up to 12ℓ (they
    /// resolve the kernel's logarithmic kinks), coarser ones up to 40ℓ.
    inline std::vector<double> relaxed_memory_kernel(const unsigned int n, const double w, const double ell)
    {
      const dealii::QGauss<1> gauss(8);
      std::vector<double> nodes, weights;
      const auto add_panels = [&](const double from, const double to, const unsigned int panels) {
        const double width = (to - from) / panels;
        for (unsigned int k = 0; k < panels; ++k)
          for (unsigned int q = 0; q < gauss.size(); ++q)
            {
              const double eta = from + width * (k + gauss.point(q)[0]);
              nodes.push_back(eta);
              weights.push_back(width * gauss.weight(q) * std::exp(-eta / ell) / ell);
            }
      };
      const double near_end = 12 * ell;
      add_panels(0, near_end, std::min(20000u, std::max(200u, static_cast<unsigned int>(near_end / (w / 4)))));
      add_panels(near_end, 40 * ell, 400);
      std::vector<double> kernel(2 * n - 1, 0.0);
      for (std::size_t lag = 0; lag < kernel.size(); ++lag)
        {
          const double y = (static_cast<double>(lag) - (n - 1)) * w;
          double sum = 0;
          for (std::size_t q = 0; q < nodes.size(); ++q)
            sum += weights[q] * strip_log(y + nodes[q], w);
          kernel[lag] = sum;
        }
      return kernel;
    }
  } // namespace rolling_reference

  /**
   * Hunter's problem for the Prony series E(t) = E∞ + E₁e^{−t/τ} (E₀ = E∞ + E₁ =
   * @p instantaneous_over_relaxed × E∞, ν constant) at the speed number Vτ/a = @p speed_number (a the
   * relaxed Hertz half-width √(4PR/(πE*∞))). In the frame of the contact the material passes at
   * speed V from +x to −x; its creep compliance J(t) = 1/E*∞ − (1/E*∞ − 1/E*₀)e^{−t/τ_c}, τ_c =
   * τE₀/E∞, turns the elastic surface displacement ū of the pressure (plane strain, unit modulus,
   * ū' = −(2/π)∫p(s)/(x − s)ds) into u(x) = J(0)ū(x) + (J(∞) − J(0))(1/ℓ)∫₀^∞e^{−η/ℓ}ū(x + η)dη,
   * ℓ = Vτ_c. The pressure is constant on @p n strips over [−1.6a, 1.6a]; the contact set is found
   * by active-set iterations (p ≥ 0, gap ≥ 0, their product 0, Σp = P). The result depends on the
   * two numbers only (the half-space has no length of its own): R = P = E*∞ = 1 here.
   */
  inline SteadyRolling hunter_steady_rolling(const double instantaneous_over_relaxed, const double speed_number,
                                             const unsigned int n = 200)
  {
    using namespace rolling_reference;
    const double a = std::sqrt(4 / M_PI), half_length = 1.6 * a, w = 2 * half_length / n;
    const double J_relaxed = 1, J_instant = 1 / instantaneous_over_relaxed;
    const double ell = speed_number * a * instantaneous_over_relaxed; // V τ_c with V τ = speed_number · a
    std::vector<double> elastic(2 * n - 1), memory;
    for (std::size_t lag = 0; lag < elastic.size(); ++lag)
      elastic[lag] = strip_log((static_cast<double>(lag) - (n - 1)) * w, w);
    if (ell > 0)
      memory = relaxed_memory_kernel(n, w, ell);
    // u_i = Σ_j C_ij p_j: the compliance at strip i of a unit pressure on strip j (Toeplitz).
    const auto compliance = [&](const unsigned int i, const unsigned int j) {
      const std::size_t lag = i + n - 1 - j;
      const double relaxed = ell > 0 ? memory[lag] : elastic[lag];
      return -(2 / M_PI) * (J_instant * elastic[lag] + (J_relaxed - J_instant) * relaxed);
    };
    std::vector<double> x(n);
    std::vector<bool> active(n);
    for (unsigned int i = 0; i < n; ++i)
      {
        x[i] = -half_length + w * (i + 0.5);
        active[i] = std::abs(x[i]) < a;
      }
    std::vector<double> p(n, 0.0);
    for (unsigned int iteration = 0; iteration < 200; ++iteration)
      {
        // On the active strips x²/2 − δ − u = 0 (the surface meets the cylinder), and Σ p w = 1.
        std::vector<unsigned int> set;
        for (unsigned int i = 0; i < n; ++i)
          if (active[i])
            set.push_back(i);
        const unsigned int m = set.size();
        dealii::LAPACKFullMatrix<double> A(m + 1, m + 1);
        dealii::Vector<double> b(m + 1);
        for (unsigned int r = 0; r < m; ++r)
          {
            for (unsigned int c = 0; c < m; ++c)
              A(r, c) = -compliance(set[r], set[c]);
            A(r, m) = 1;
            A(m, r) = w;
            b[r] = x[set[r]] * x[set[r]] / 2;
          }
        b[m] = 1;
        A.compute_lu_factorization();
        A.solve(b);
        std::fill(p.begin(), p.end(), 0.0);
        for (unsigned int r = 0; r < m; ++r)
          p[set[r]] = b[r];
        const double approach = b[m];
        std::vector<bool> next = active;
        for (unsigned int i = 0; i < n; ++i)
          {
            double u = 0;
            for (unsigned int j = 0; j < n; ++j)
              u += compliance(i, j) * p[j];
            const double gap = x[i] * x[i] / 2 - approach + u;
            if (active[i] && p[i] < 0)
              next[i] = false;
            if (!active[i] && gap < -1e-14 * std::abs(approach))
              next[i] = true;
          }
        if (next == active)
          {
            SteadyRolling result;
            double moment = 0, load = 0;
            result.trailing_edge_over_a = 1e300;
            result.leading_edge_over_a = -1e300;
            for (unsigned int i = 0; i < n; ++i)
              if (p[i] > 0)
                {
                  moment += p[i] * x[i] * w;
                  load += p[i] * w;
                  result.trailing_edge_over_a = std::min(result.trailing_edge_over_a, (x[i] - w / 2) / a);
                  result.leading_edge_over_a = std::max(result.leading_edge_over_a, (x[i] + w / 2) / a);
                }
            result.lead_over_a = moment / load / a;
            result.load_ratio = load;
            return result;
          }
        active = next;
      }
    throw std::runtime_error("hunter_steady_rolling: the contact set did not settle");
  }
} // namespace percussion::testing

#endif
