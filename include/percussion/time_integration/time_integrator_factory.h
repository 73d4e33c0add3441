#ifndef PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATOR_FACTORY_H
#define PERCUSSION_TIME_INTEGRATION_TIME_INTEGRATOR_FACTORY_H

#include <deal.II/base/index_set.h>

#include <percussion/contact_step/scheme_contact_settings.h>
#include <percussion/core/linear_solver_parameters.h>
#include <percussion/time_integration/linear_elastodynamic_system.h>
#include <percussion/time_integration/time_integration_parameters.h>
#include <percussion/time_integration/time_integrator.h>

#include <memory>
#include <string>
#include <vector>

namespace percussion::TimeIntegration
{
  /// The integrator of `time.scheme` (the one place a Scheme becomes a class).
  std::unique_ptr<TimeIntegrator> create_time_integrator(const LinearElastodynamicSystem &system,
                                                         const TimeIntegrationParameters &time,
                                                         const LinearSolverParameters &linear_solver,
                                                         const dealii::IndexSet &locally_owned_dofs,
                                                         MPI_Comm communicator);

  /**
   * The scheme's own checks of its parameter combinations with the contact settings (each
   * integrator's static check_parameters()): throws InputError naming the parameter, or adds
   * warnings. Called while parsing, before any computation.
   */
  void check_scheme_parameters(const TimeIntegrationParameters &time, const ContactStep::SchemeContactSettings &contact,
                               std::vector<std::string> &warnings);
} // namespace percussion::TimeIntegration

#endif
