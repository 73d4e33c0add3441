#ifndef PERCUSSION_CONTACT_CONTACT_POINT_H
#define PERCUSSION_CONTACT_CONTACT_POINT_H

#include <percussion/contact/contact_frame.h>

#include <deal.II/base/point.h>
#include <deal.II/base/tensor.h>
#include <deal.II/base/types.h>

#include <array>
#include <vector>

namespace percussion
{
  namespace Contact
  {
    /**
     * One contact point α (a slave node tracked by one pair) in the current configuration.
     * Its local velocity is u_α = (u_N, u_T) = Hᵀ_α v + w_α (paper §2), with the columns of H for α
     * given by the slave DoFs (+frame) and the master DoFs (−N_b(ξ*)·frame).
     */
    template <int dim>
    struct ContactPoint
    {
      /** Index of the pair in ContactParameters::pairs. */
      unsigned int pair = 0;
      /** Global contact-point index (columns dim·index … dim·index+dim−1 of H). */
      dealii::types::global_dof_index global_index = 0;
      /** Current position x = X + q of the slave node. */
      dealii::Point<dim> position;
      /** Reference position X of the slave node. */
      dealii::Point<dim> reference_position;
      /** Gap g_N in the current configuration (signed distance, < 0 = penetration). */
      double gap = 0.;
      /** Local frame (n, t1, t2); n points from the master/obstacle toward the slave. */
      ContactFrame<dim> frame;
      double friction_coefficient = 0.;
      double restitution_coefficient = 0.;
      /** Slave node DoFs, one per component. */
      std::array<dealii::types::global_dof_index, dim> slave_dofs;
      /** Master node DoFs (body pairs), one array per node, and their weights N_b(ξ*). */
      std::vector<std::array<dealii::types::global_dof_index, dim>> master_dofs;
      std::vector<double> master_weights;
      /**
       * Area that turns the normal impulse into a pressure, p = r_N / (h · area): the weighted
       * area D_jj = ∫ Ψ_j dΓ over the overlapped slave surface (integrated formulation), else the
       * tributary area ∫ N_j dΓ of the slave node in the reference configuration (0 in 1D).
       */
      double area = 0.;
      /** Velocity of the rigid obstacle at the contact (zero for body pairs). */
      dealii::Tensor<1, dim> obstacle_velocity;

      const dealii::Tensor<1, dim> &normal() const { return frame.vectors[0]; }
    };
  } // namespace Contact
} // namespace percussion

#endif
