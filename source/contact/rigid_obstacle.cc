#include <percussion/contact/rigid_obstacle.h>
#include <percussion/core/exceptions.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>

#include <cmath>

namespace percussion
{
  namespace Contact
  {
    template <int dim>
    dealii::Tensor<1, dim> to_tensor(const std::vector<double> &values, const std::string &context)
    {
      if (values.size() < dim || values.size() > 3)
        throw InputError(context + ": expected " + std::to_string(dim) + " components, got " +
                         std::to_string(values.size()));
      for (unsigned int d = dim; d < values.size(); ++d)
        if (values[d] != 0.)
          throw InputError(context + ": component " + std::to_string(d + 1) + " must be 0 in " + std::to_string(dim) +
                           "D");
      dealii::Tensor<1, dim> t;
      for (unsigned int d = 0; d < dim; ++d)
        t[d] = values[d];
      return t;
    }

    template <int dim>
    RigidObstacle<dim>::RigidObstacle(const PairParameters &pair)
      : type(pair.type)
      , radius(pair.radius)
    {
      if (type == PairType::body || type == PairType::bodies)
        throw InputError(pair.name + ": a body-to-body pair is not a rigid obstacle");
      reference_point = dealii::Point<dim>(to_tensor<dim>(pair.point, pair.name + "/Point"));
      if (type == PairType::plane)
        {
          unit_normal = to_tensor<dim>(pair.normal, pair.name + "/Normal");
          if (!(unit_normal.norm() > 0.))
            throw InputError(pair.name + ": degenerate plane obstacle, the normal is zero");
          unit_normal /= unit_normal.norm();
        }
      if (type == PairType::sphere || type == PairType::cylinder)
        if (!(radius > 0.))
          throw InputError(pair.name + ": degenerate obstacle, radius " + std::to_string(radius) + " is not positive");
      if (type == PairType::cylinder && dim == 3)
        {
          unit_axis = to_tensor<dim>(pair.axis, pair.name + "/Axis");
          if (!(unit_axis.norm() > 0.))
            throw InputError(pair.name + ": degenerate cylinder obstacle, the axis is zero");
          unit_axis /= unit_axis.norm();
        }

      // The velocity is an expression of t only; the point variables are declared so that
      // FunctionParser<dim> can be used, but they are not meant to appear in the expression.
      std::vector<std::string> expressions = dealii::Utilities::split_string_list(pair.obstacle_velocity, ';');
      // The default '0; 0; 0' (and 3D-style input in general) is accepted in 1D and 2D as long
      // as the surplus components are zero, like the 3-entry vectors.
      while (expressions.size() > dim && expressions.size() <= 3)
        {
          if (expressions.back() != "0")
            throw InputError(pair.name + "/Obstacle velocity: component " + std::to_string(expressions.size()) +
                             " must be 0 in " + std::to_string(dim) + "D");
          expressions.pop_back();
        }
      if (expressions.size() != dim)
        throw InputError(pair.name + "/Obstacle velocity: expected " + std::to_string(dim) +
                         " expressions separated by ';', got '" + pair.obstacle_velocity + "'");
      fixed = true;
      for (const std::string &e : expressions)
        if (e != "0" && e != "0.0" && e != "0.")
          fixed = false;
      velocity_function = std::make_unique<dealii::FunctionParser<dim>>(dim);
      const std::string variables = (dim == 1)   ? "obstacle_x,t"
                                    : (dim == 2) ? "obstacle_x,obstacle_y,t"
                                                 : "obstacle_x,obstacle_y,obstacle_z,t";
      try
        {
          velocity_function->initialize(variables, expressions, std::map<std::string, double>(), true);
          velocity_function->set_time(0.);
          for (unsigned int d = 0; d < dim; ++d)
            velocity_function->value(dealii::Point<dim>(), d);
        }
      catch (const std::exception &exc)
        {
          throw InputError(pair.name + "/Obstacle velocity: cannot parse '" + pair.obstacle_velocity +
                           "' as functions of t: " + exc.what());
        }
    }

    template <int dim>
    dealii::Tensor<1, dim> RigidObstacle<dim>::velocity(const double time) const
    {
      dealii::Tensor<1, dim> v;
      if (fixed)
        return v;
      velocity_function->set_time(time);
      for (unsigned int d = 0; d < dim; ++d)
        v[d] = velocity_function->value(dealii::Point<dim>(), d);
      return v;
    }

    template <int dim>
    dealii::Tensor<1, dim> RigidObstacle<dim>::displacement(const double time) const
    {
      dealii::Tensor<1, dim> d;
      if (fixed || time == 0.)
        return d;
      // Composite Gauss–Legendre: exact for velocities polynomial in t up to degree 15 and
      // spectrally accurate for smooth ones, so that d(displacement)/dt matches V(t) in the
      // finite-difference checks.
      const dealii::QIterated<1> quadrature(dealii::QGauss<1>(8), 16);
      for (unsigned int q = 0; q < quadrature.size(); ++q)
        d += (quadrature.weight(q) * time) * velocity(quadrature.point(q)[0] * time);
      return d;
    }

    template <int dim>
    ObstacleProjection<dim> RigidObstacle<dim>::project(const dealii::Point<dim> &x, const double time) const
    {
      ObstacleProjection<dim> result;
      // The quadrature in displacement() costs hundreds of parser evaluations: do it once per time.
      if (!cache_valid || cached_time != time)
        {
          cached_displacement = displacement(time);
          cached_velocity = velocity(time);
          cached_time = time;
          cache_valid = true;
        }
      const dealii::Tensor<1, dim> offset = x - (reference_point + cached_displacement);
      result.velocity = cached_velocity;
      switch (type)
        {
        case PairType::plane:
          result.normal = unit_normal;
          result.gap = offset * unit_normal;
          break;
        case PairType::sphere:
        case PairType::cylinder:
          {
            dealii::Tensor<1, dim> radial = offset;
            if (type == PairType::cylinder && dim == 3)
              radial -= (offset * unit_axis) * unit_axis;
            const double distance = radial.norm();
            // On the axis/center the normal is undefined; any unit vector is a valid choice
            // (the point is deep inside the obstacle anyway).
            if (dim == 1)
              // Exactly ±1 (radial/distance may be off by one ulp): H stays constant and is
              // reused while the node stays on one side of the interval.
              result.normal[0] = (radial[0] >= 0.) ? 1. : -1.;
            else if (distance > 0.)
              result.normal = radial / distance;
            else
              result.normal[dim - 1] = 1.;
            result.gap = distance - radius;
            break;
          }
        case PairType::body:
        case PairType::bodies:
          break;
        }
      return result;
    }

    template class RigidObstacle<1>;
    template class RigidObstacle<2>;
    template class RigidObstacle<3>;
    template dealii::Tensor<1, 1> to_tensor<1>(const std::vector<double> &, const std::string &);
    template dealii::Tensor<1, 2> to_tensor<2>(const std::vector<double> &, const std::string &);
    template dealii::Tensor<1, 3> to_tensor<3>(const std::vector<double> &, const std::string &);
  } // namespace Contact
} // namespace percussion
