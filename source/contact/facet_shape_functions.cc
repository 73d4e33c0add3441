#include <percussion/contact/facet_shape_functions.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_tools.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace percussion
{
  namespace Contact
  {
    template <int m>
    FacetShapeFunctions<m>::FacetShapeFunctions(const dealii::FE_Q<m> &fe)
      : polynomials(
          dealii::Polynomials::generate_complete_Lagrange_basis(dealii::QGaussLobatto<1>(fe.degree + 1).get_points()))
    {
      // FE_Q numbers its functions hierarchically (vertices, lines, interior); the tensor
      // product is lexicographic: invert FE_Q's map.
      const unsigned int n1 = fe.degree + 1;
      const std::vector<unsigned int> hierarchic = dealii::FETools::lexicographic_to_hierarchic_numbering<m>(fe.degree);
      lexicographic_index.resize(hierarchic.size());
      for (unsigned int lex = 0; lex < hierarchic.size(); ++lex)
        for (unsigned int j = 0, rest = lex; j < m; ++j, rest /= n1)
          lexicographic_index[hierarchic[lex]][j] = rest % n1;
      value.resize(size());
      gradient.resize(size() * m);
      hessian.resize(size() * m * m);
      one_dimensional.resize(3 * m * n1);

      // The same functions as FE_Q's, or an error here rather than wrong gaps later.
      dealii::Point<m> test;
      for (unsigned int j = 0; j < m; ++j)
        test[j] = 0.3 + 0.17 * j;
      evaluate(test, true);
      for (unsigned int b = 0; b < size(); ++b)
        {
          double difference = std::abs(value[b] - fe.shape_value(b, test));
          for (unsigned int j = 0; j < m; ++j)
            {
              difference = std::max(difference, std::abs(gradient[b * m + j] - fe.shape_grad(b, test)[j]));
              for (unsigned int k = 0; k < m; ++k)
                difference =
                  std::max(difference, std::abs(hessian[(b * m + j) * m + k] - fe.shape_grad_grad(b, test)[j][k]));
            }
          if (difference > 1e-10)
            throw std::logic_error("FacetShapeFunctions: shape function " + std::to_string(b) + " of " + fe.get_name() +
                                   " differs from FE_Q's by " + std::to_string(difference));
        }
    }

    template <int m>
    void FacetShapeFunctions<m>::evaluate(const dealii::Point<m> &xi, const bool with_second) const
    {
      const unsigned int n1 = polynomials.size();
      for (unsigned int j = 0; j < m; ++j)
        for (unsigned int i = 0; i < n1; ++i)
          polynomials[i].value(xi[j], 2, &one_dimensional[3 * (j * n1 + i)]);
      const auto L = [&](const unsigned int j, const unsigned int i, const unsigned int order) {
        return one_dimensional[3 * (j * n1 + i) + order];
      };
      for (unsigned int b = 0; b < size(); ++b)
        {
          const auto &index = lexicographic_index[b];
          if constexpr (m == 1)
            {
              value[b] = L(0, index[0], 0);
              gradient[b] = L(0, index[0], 1);
              hessian[b] = L(0, index[0], 2);
            }
          else
            {
              const double v0 = L(0, index[0], 0), v1 = L(1, index[1], 0);
              const double d0 = L(0, index[0], 1), d1 = L(1, index[1], 1);
              value[b] = v0 * v1;
              gradient[2 * b] = d0 * v1;
              gradient[2 * b + 1] = v0 * d1;
              if (with_second)
                {
                  hessian[4 * b] = L(0, index[0], 2) * v1;
                  hessian[4 * b + 1] = hessian[4 * b + 2] = d0 * d1;
                  hessian[4 * b + 3] = v0 * L(1, index[1], 2);
                }
            }
        }
    }

    template class FacetShapeFunctions<1>;
    template class FacetShapeFunctions<2>;
  } // namespace Contact
} // namespace percussion
