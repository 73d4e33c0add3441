#ifndef PERCUSSION_CONTACT_CONTACT_FRAME_H
#define PERCUSSION_CONTACT_CONTACT_FRAME_H

#include <deal.II/base/tensor.h>

#include <array>
#include <cmath>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /**
     * The local frame of a contact point (paper §2: u = (u_N, u_T), frame (n, t1, t2)).
     * vectors[0] = n (unit normal, pointing from the master/obstacle toward the slave);
     * vectors[1..dim-1] = tangents. Orthonormal and right-handed.
     */
    template <int dim>
    struct ContactFrame
    {
      std::array<dealii::Tensor<1, dim>, dim> vectors;

      const dealii::Tensor<1, dim> &normal() const { return vectors[0]; }

      /**
       * Build the frame from a unit normal. 1D: the frame is (n) alone, n = ±1 (no tangent). 2D: t = n rotated by +90°,
       * continuous in n. 3D: t1 = normalised projection of @p reference on the tangent plane (continuous in n away from
       * n ∥ reference), t2 = n × t1. A zero @p reference selects the coordinate axis least aligned with n (piecewise
       * continuous).
       */
      static ContactFrame from_normal(const dealii::Tensor<1, dim> &n, const dealii::Tensor<1, dim> &reference = {})
      {
        ContactFrame frame;
        frame.vectors[0] = n;
        if constexpr (dim == 1)
          {
            (void)reference;
          }
        else if constexpr (dim == 2)
          {
            frame.vectors[1][0] = -n[1];
            frame.vectors[1][1] = n[0];
          }
        else
          {
            dealii::Tensor<1, dim> e = reference;
            dealii::Tensor<1, dim> t1;
            if (e.norm() > 0.)
              {
                t1 = e - (e * n) * n;
              }
            if (!(t1.norm() > 1e-8 * e.norm()) || e.norm() == 0.)
              {
                unsigned int least = 0;
                for (unsigned int d = 1; d < dim; ++d)
                  if (std::abs(n[d]) < std::abs(n[least]))
                    least = d;
                e = dealii::Tensor<1, dim>();
                e[least] = 1.;
                t1 = e - (e * n) * n;
              }
            t1 /= t1.norm();
            frame.vectors[1] = t1;
            frame.vectors[2] = dealii::cross_product_3d(n, t1);
          }
        return frame;
      }
    };
  } // namespace Contact
} // namespace percussion

#endif
