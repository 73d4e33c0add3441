#include <percussion/contact_solvers/error_measure.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace percussion::ContactSolvers
{
  void project_onto_coulomb_cone(int dimension, double mu, const double *x, double *z)
  {
    const double xn = x[0];
    const double t = dimension == 3 ? std::hypot(x[1], x[2]) : std::abs(x[1]);
    if (mu * t <= -xn)
      {
        for (int i = 0; i < dimension; ++i)
          z[i] = 0.0;
      }
    else if (t <= mu * xn)
      {
        for (int i = 0; i < dimension; ++i)
          z[i] = x[i];
      }
    else
      {
        const double zn = (mu * t + xn) / (mu * mu + 1.0);
        const double scale = mu * zn / t; // t > 0 here: t = 0 falls in one of the cases above
        z[0] = zn;
        for (int i = 1; i < dimension; ++i)
          z[i] = scale * x[i];
      }
  }

  double squared_contact_residual(const int d, const double mu, const double *r, const double *u)
  {
    const double uTn = d == 3 ? std::hypot(u[1], u[2]) : std::abs(u[1]);
    double x[3], z[3];
    x[0] = r[0] - (u[0] + mu * uTn);
    for (int i = 1; i < d; ++i)
      x[i] = r[i] - u[i];
    project_onto_coulomb_cone(d, mu, x, z);
    double sum = 0.0;
    for (int i = 0; i < d; ++i)
      sum += (r[i] - z[i]) * (r[i] - z[i]);
    return sum;
  }

  double natural_map_residual(const LocalProblem &p, const std::vector<double> &r, const std::vector<double> &u)
  {
    return std::sqrt(error_sums(p, r, u, 0, p.number_of_contacts).residual);
  }

  ErrorSums error_sums(const LocalProblem &p, const std::vector<double> &r, const std::vector<double> &u,
                       const int first, const int last)
  {
    const int d = p.dimension;
    ErrorSums sums;
    for (int a = first; a < last; ++a)
      sums.residual += squared_contact_residual(d, p.mu[a], &r[a * d], &u[a * d]);
    for (int i = d * first; i < d * last; ++i)
      {
        sums.q += p.q[i] * p.q[i];
        sums.r += r[i] * r[i];
        sums.u += u[i] * u[i];
      }
    return sums;
  }

  double error_from_sums(const ErrorSums &sums)
  {
    const double absolute = std::sqrt(sums.residual);
    const double scale = std::sqrt(std::max({sums.q, sums.r, sums.u}));
    return scale > DBL_EPSILON ? absolute / scale : absolute;
  }

  double compute_error(const LocalProblem &p, const std::vector<double> &r, const std::vector<double> &u)
  {
    return error_from_sums(error_sums(p, r, u, 0, p.number_of_contacts));
  }

  double compute_error(const LocalProblem &p, const std::vector<double> &r)
  {
    std::vector<double> u;
    p.compute_velocity(r, u);
    return compute_error(p, r, u);
  }
} // namespace percussion::ContactSolvers
