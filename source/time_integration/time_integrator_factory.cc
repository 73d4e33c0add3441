#include <percussion/time_integration/moreau_jean_integrator.h>
#include <percussion/time_integration/nonsmooth_generalized_alpha_integrator.h>
#include <percussion/time_integration/schatzman_paoli_integrator.h>
#include <percussion/time_integration/time_integrator_factory.h>

namespace percussion::TimeIntegration
{
  std::unique_ptr<TimeIntegrator> create_time_integrator(const LinearElastodynamicSystem &system,
                                                         const TimeIntegrationParameters &time,
                                                         const LinearSolverParameters &linear_solver,
                                                         const dealii::IndexSet &locally_owned_dofs,
                                                         MPI_Comm communicator)
  {
    switch (time.scheme)
      {
      case Scheme::moreau_jean_fremond:
      case Scheme::moreau_jean_standard:
        return std::make_unique<MoreauJeanIntegrator>(system, time, linear_solver, locally_owned_dofs, communicator);
      case Scheme::nonsmooth_newmark:
      case Scheme::nonsmooth_hht:
      case Scheme::nonsmooth_generalized_alpha:
        return std::make_unique<NonsmoothGeneralizedAlphaIntegrator>(system, time, linear_solver, locally_owned_dofs,
                                                                     communicator);
      case Scheme::schatzman_paoli:
        return std::make_unique<SchatzmanPaoliIntegrator>(system, time, linear_solver, locally_owned_dofs,
                                                          communicator);
      }
    return nullptr; // not reached: every Scheme has a case
  }

  void check_scheme_parameters(const TimeIntegrationParameters &time, const ContactStep::SchemeContactSettings &contact,
                               std::vector<std::string> &warnings)
  {
    switch (time.scheme)
      {
      case Scheme::moreau_jean_fremond:
      case Scheme::moreau_jean_standard:
        MoreauJeanIntegrator::check_parameters(time, contact, warnings);
        break;
      case Scheme::nonsmooth_newmark:
      case Scheme::nonsmooth_hht:
      case Scheme::nonsmooth_generalized_alpha:
        NonsmoothGeneralizedAlphaIntegrator::check_parameters(time, contact, warnings);
        break;
      case Scheme::schatzman_paoli:
        SchatzmanPaoliIntegrator::check_parameters(time, contact, warnings);
        break;
      }
  }
} // namespace percussion::TimeIntegration
