#include <percussion/core/exceptions.h>
#include <percussion/time_integration/time_integration_parameters.h>

#include <cmath>

namespace percussion::TimeIntegration
{
  unsigned int TimeIntegrationParameters::n_steps() const
  {
    return static_cast<unsigned int>(std::floor((end_time - start_time) / time_step + 1e-6));
  }

  void TimeIntegrationParameters::declare_parameters(dealii::ParameterHandler &prm)
  {
    using namespace dealii::Patterns;
    prm.enter_subsection("Time integration");
    prm.declare_entry("Scheme", "Moreau-Jean Fremond", Selection("Moreau-Jean Fremond|Moreau-Jean standard"),
                      "'Moreau-Jean Fremond': the contact law on u_{k+theta} (paper eq. (63)-(64)), "
                      "energy-dissipating with impact and friction for 1/2 <= theta <= 1/(1+e). "
                      "'Moreau-Jean standard': the contact law on u_{k+1} (eq. (53)). Without contact "
                      "both are the theta-scheme (53a)-(53b).");
    prm.declare_entry("Theta", "0.5", Double(),
                      "theta in [0, 1]: 1/2 conserves the energy of the smooth dynamics, > 1/2 "
                      "dissipates it (numerical damping), < 1/2 creates energy.");
    prm.declare_entry("Time step", "1e-3", Double(), "The step size h (> 0), constant.");
    prm.declare_entry("Start time", "0", Double(), "Time of the initial conditions.");
    prm.declare_entry("End time", "1", Double(),
                      "The run takes floor((End time - Start time)/Time step) steps; when that does not "
                      "reach End time exactly, the run says so at the start.");
    prm.leave_subsection();
  }

  void TimeIntegrationParameters::parse_parameters(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Time integration");
    scheme = prm.get("Scheme");
    theta = prm.get_double("Theta");
    time_step = prm.get_double("Time step");
    start_time = prm.get_double("Start time");
    end_time = prm.get_double("End time");
    prm.leave_subsection();
    if (!(theta >= 0 && theta <= 1))
      throw InputError("Parameter 'Time integration/Theta' must lie in [0, 1] (got " + std::to_string(theta) + ").");
    if (!(time_step > 0))
      throw InputError("Parameter 'Time integration/Time step' must be positive (got " +
                       std::to_string(time_step) + ").");
    if (!(end_time > start_time))
      throw InputError("Parameter 'Time integration/End time' must be larger than 'Start time'.");
    if (n_steps() == 0)
      throw InputError("Parameter 'Time integration/Time step' is larger than End time - Start time: no step to take.");
  }
} // namespace percussion::TimeIntegration
