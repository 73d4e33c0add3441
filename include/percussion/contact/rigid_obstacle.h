#ifndef PERCUSSION_CONTACT_RIGID_OBSTACLE_H
#define PERCUSSION_CONTACT_RIGID_OBSTACLE_H

#include <percussion/contact/contact_parameters.h>

#include <deal.II/base/function_parser.h>
#include <deal.II/base/point.h>
#include <deal.II/base/tensor.h>

#include <memory>

namespace percussion
{
  namespace Contact
  {
    /** Where a point stands with respect to a rigid obstacle. */
    template <int dim>
    struct ObstacleProjection
    {
      /** Signed distance g_N (> 0 separated, < 0 penetrated). */
      double gap = 0.;
      /** Unit outward normal of the obstacle at the closest point (toward the slave). */
      dealii::Tensor<1, dim> normal;
      /** Obstacle velocity V(t) (rigid translation). */
      dealii::Tensor<1, dim> velocity;
    };

    /**
     * A rigid obstacle (plane, exterior of a sphere, exterior of a cylinder) translating with a
     * prescribed velocity V(t) (its position at t is the one at 0 plus ∫₀ᵗ V).
     * For all three, g is the exact signed distance and ∂g/∂x = n, so that
     * dg/dt = n·(ẋ − V) = u_N (paper §2, u = Hᵀv + w with w_N = −n·V).
     */
    template <int dim>
    class RigidObstacle
    {
    public:
      /** Throws InputError if the pair's vectors do not have dim components or are degenerate. */
      explicit RigidObstacle(const PairParameters &pair);

      ObstacleProjection<dim> project(const dealii::Point<dim> &x, double time) const;

      /** Obstacle translation at @p time: ∫₀ᵗ V(s) ds (Gauss–Legendre, exact for polynomials ≤ 15 in t). */
      dealii::Tensor<1, dim> displacement(double time) const;
      dealii::Tensor<1, dim> velocity(double time) const;

      /** True if V ≡ 0 (then H and w never change because of the obstacle). */
      bool is_fixed() const { return fixed; }

    private:
      PairType type;
      dealii::Point<dim> reference_point;
      dealii::Tensor<1, dim> unit_normal;
      dealii::Tensor<1, dim> unit_axis;
      double radius;
      bool fixed;
      std::unique_ptr<dealii::FunctionParser<dim>> velocity_function;
      /** The last time at which the motion was evaluated, with its displacement and velocity:
       *  project() is called for every slave node at the same time. */
      mutable double cached_time = 0.;
      mutable bool cache_valid = false;
      mutable dealii::Tensor<1, dim> cached_displacement;
      mutable dealii::Tensor<1, dim> cached_velocity;
    };

    /** dim components from a 2- or 3-entry list (a third entry in 2D must be 0); InputError otherwise. */
    template <int dim>
    dealii::Tensor<1, dim> to_tensor(const std::vector<double> &values, const std::string &context);
  } // namespace Contact
} // namespace percussion

#endif
