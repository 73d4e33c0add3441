#ifndef PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATION_PARAMETERS_H
#define PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATION_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <string>

namespace percussion::TimeIntegration
{
  /// `subsection Time integration`.
  struct TimeIntegrationParameters
  {
    /// "Moreau-Jean Fremond" (default, eq. (63)) or "Moreau-Jean standard" (eq. (53)).
    std::string scheme = "Moreau-Jean Fremond";
    double      theta = 0.5;
    double      time_step = 1e-3;
    double      start_time = 0;
    double      end_time = 1;

    /// Number of steps: end time reached to within a millionth of a step.
    unsigned int n_steps() const;

    static void declare_parameters(dealii::ParameterHandler &prm);
    /// @throws InputError for θ outside [0, 1], h ≤ 0 or end time ≤ start time.
    void parse_parameters(dealii::ParameterHandler &prm);
  };
} // namespace percussion::TimeIntegration

#endif
