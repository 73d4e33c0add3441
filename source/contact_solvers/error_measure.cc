#include <percussion/contact_solvers/error_measure.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace percussion::ContactSolvers
{
  void project_onto_coulomb_cone(int dimension, double mu, const double *x, double *z)
  {
    const double xn = x[0];
    const double t  = dimension == 3 ? std::hypot(x[1], x[2]) : std::abs(x[1]);
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
        const double zn    = (mu * t + xn) / (mu * mu + 1.0);
        const double scale = mu * zn / t; // t > 0 here: t = 0 falls in one of the cases above
        z[0]               = zn;
        for (int i = 1; i < dimension; ++i)
          z[i] = scale * x[i];
      }
  }

  double natural_map_residual(const LocalProblem &p, const std::vector<double> &r, const std::vector<double> &u)
  {
    const int d   = p.dimension;
    double    sum = 0.0;
    for (int a = 0; a < p.number_of_contacts; ++a)
      {
        const double *ra  = &r[a * d];
        const double *ua  = &u[a * d];
        const double  mu  = p.mu[a];
        const double  uTn = d == 3 ? std::hypot(ua[1], ua[2]) : std::abs(ua[1]);
        double        x[3], z[3];
        x[0] = ra[0] - (ua[0] + mu * uTn);
        for (int i = 1; i < d; ++i)
          x[i] = ra[i] - ua[i];
        project_onto_coulomb_cone(d, mu, x, z);
        for (int i = 0; i < d; ++i)
          sum += (ra[i] - z[i]) * (ra[i] - z[i]);
      }
    return std::sqrt(sum);
  }

  double compute_error(const LocalProblem &p, const std::vector<double> &r, const std::vector<double> &u)
  {
    const double absolute = natural_map_residual(p, r, u);
    auto norm = [](const std::vector<double> &v) {
      double s = 0.0;
      for (double x : v)
        s += x * x;
      return std::sqrt(s);
    };
    const double scale = std::max({norm(p.q), norm(r), norm(u)});
    return scale > DBL_EPSILON ? absolute / scale : absolute;
  }

  double compute_error(const LocalProblem &p, const std::vector<double> &r)
  {
    std::vector<double> u;
    p.compute_velocity(r, u);
    return compute_error(p, r, u);
  }
} // namespace percussion::ContactSolvers
