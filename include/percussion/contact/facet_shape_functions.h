#ifndef PERCUSSION_CONTACT_FACET_SHAPE_FUNCTIONS_H
#define PERCUSSION_CONTACT_FACET_SHAPE_FUNCTIONS_H

#include <deal.II/base/point.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/fe/fe_q.h>

#include <array>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /**
     * The shape functions N_b of a facet's scalar element FE_Q<m>(p) (m = dim − 1, FE_Q's own
     * numbering) with their first and second derivatives at one point ξ, as tensor products of
     * the 1D Lagrange polynomials on the Gauss–Lobatto points (FE_Q's default support points):
     * N_b(ξ) = Π_j L_{i_j(b)}(ξ_j). The contact search evaluates a facet at every Newton
     * iteration of every projection; through FE_Q::shape_value/grad/grad_grad each of the
     * (p+1)^m functions re-evaluates every 1D polynomial (brick_wall: 30 % of a step's time).
     * The constructor checks the values against FE_Q's at a test point.
     */
    template <int m>
    class FacetShapeFunctions
    {
    public:
      explicit FacetShapeFunctions(const dealii::FE_Q<m> &fe);

      /// The number of shape functions, (p+1)^m.
      unsigned int size() const { return lexicographic_index.size(); }

      /**
       * Evaluates at @p xi: values(), first() and (if @p with_second) second() then hold
       * N_b, ∂N_b/∂ξ_j and ∂²N_b/∂ξ_j∂ξ_k. Not thread-safe (the results are kept here).
       */
      void evaluate(const dealii::Point<m> &xi, bool with_second) const;

      const std::vector<double> &values() const { return value; }
      /// ∂N_b/∂ξ_j at b·m + j.
      const std::vector<double> &first() const { return gradient; }
      /// ∂²N_b/∂ξ_j∂ξ_k at (b·m + j)·m + k.
      const std::vector<double> &second() const { return hessian; }

    private:
      std::vector<dealii::Polynomials::Polynomial<double>> polynomials; ///< L_0 … L_p
      /// For shape function b (FE_Q numbering): its 1D polynomial index in each direction.
      std::vector<std::array<unsigned int, m>> lexicographic_index;
      mutable std::vector<double> value, gradient, hessian;
      /// L_i, L_i', L_i'' in direction j at 3·(j·(p+1) + i) + order.
      mutable std::vector<double> one_dimensional;
    };
  } // namespace Contact
} // namespace percussion

#endif
