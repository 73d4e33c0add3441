// FacetShapeFunctions (the contact search's evaluation of a facet's FE_Q<m>(p) shape functions):
// values, first and second derivatives equal FE_Q's at a grid of points in [0, 1]^m (including
// the corners and sides), for the segments (m = 1) and quadrilaterals (m = 2) of degrees 1 to 3,
// to 1e-13; and the basic identities Σ N_b = 1, Σ ∂N_b = 0 there.
#define BOOST_TEST_MODULE contact_facet_shape_functions
#include <boost/test/unit_test.hpp>

#include <percussion/contact/facet_shape_functions.h>

#include <cmath>

namespace
{
  template <int m>
  void check_against_fe_q(const unsigned int degree)
  {
    const dealii::FE_Q<m> fe(degree);
    const percussion::Contact::FacetShapeFunctions<m> shapes(fe);
    BOOST_REQUIRE_EQUAL(shapes.size(), fe.n_dofs_per_cell());
    constexpr unsigned int n = 6;
    for (unsigned int i = 0; i < (m == 1 ? n : n * n); ++i)
      {
        dealii::Point<m> xi;
        xi[0] = (i % n) / double(n - 1);
        if constexpr (m == 2)
          xi[1] = (i / n) / double(n - 1);
        shapes.evaluate(xi, true);
        double sum = 0., gradient_sum[m] = {};
        for (unsigned int b = 0; b < shapes.size(); ++b)
          {
            BOOST_TEST(std::abs(shapes.values()[b] - fe.shape_value(b, xi)) <= 1e-13);
            sum += shapes.values()[b];
            for (unsigned int j = 0; j < m; ++j)
              {
                BOOST_TEST(std::abs(shapes.first()[b * m + j] - fe.shape_grad(b, xi)[j]) <= 1e-12);
                gradient_sum[j] += shapes.first()[b * m + j];
                for (unsigned int k = 0; k < m; ++k)
                  BOOST_TEST(std::abs(shapes.second()[(b * m + j) * m + k] - fe.shape_grad_grad(b, xi)[j][k]) <= 1e-11);
              }
          }
        BOOST_TEST(std::abs(sum - 1.) <= 1e-14);
        for (unsigned int j = 0; j < m; ++j)
          BOOST_TEST(std::abs(gradient_sum[j]) <= 1e-12);
      }
  }
} // namespace

BOOST_AUTO_TEST_CASE(segments_equal_fe_q)
{
  for (unsigned int degree = 1; degree <= 3; ++degree)
    check_against_fe_q<1>(degree);
}

BOOST_AUTO_TEST_CASE(quadrilaterals_equal_fe_q)
{
  for (unsigned int degree = 1; degree <= 3; ++degree)
    check_against_fe_q<2>(degree);
}
