#include <percussion/postprocess/energy_audit.h>

#include <algorithm>
#include <cmath>

namespace percussion::Postprocess
{
  void EnergyAudit::start(const TimeIntegration::StepEnergy &initial)
  {
    *this = EnergyAudit();
    current = initial;
    initial_total = initial.kinetic_energy + initial.strain_energy + initial.viscoelastic_energy;
    energy_scale = std::abs(initial_total);
  }

  SavedValues EnergyAudit::saved_values()
  {
    SavedValues values = TimeIntegration::saved_values(current, "audit_current_");
    for (auto [name, value] : {std::pair<const char *, double *>{"audit_initial_total", &initial_total},
                               {"audit_energy_scale", &energy_scale},
                               {"audit_external", &external},
                               {"audit_damping", &damping},
                               {"audit_numerical", &numerical},
                               {"audit_contact_normal", &contact_normal},
                               {"audit_contact_tangential", &contact_tangential},
                               {"audit_projection", &projection},
                               {"audit_frame", &frame},
                               {"audit_viscoelastic", &viscoelastic},
                               {"audit_residual", &residual},
                               {"audit_max_relative_residual", &max_relative_residual}})
      values.push_back({name, value});
    return values;
  }

  void EnergyAudit::add_step(const TimeIntegration::StepEnergy &step, const ContactWorks &contact)
  {
    current = step;
    external += step.external_work + contact.obstacle;
    damping += step.damping_work;
    numerical += step.numerical_dissipation;
    contact_normal += contact.normal;
    contact_tangential += contact.tangential;
    projection += step.position_correction;
    frame += step.frame_correction;
    viscoelastic += step.viscoelastic_dissipation;
    residual += step.residual;
    // The residual is judged against the largest energy that has flowed through the balance.
    energy_scale = std::max({energy_scale, std::abs(total_energy()), std::abs(external), std::abs(damping),
                             std::abs(numerical), std::abs(contact_normal) + std::abs(contact_tangential),
                             std::abs(projection), std::abs(frame), std::abs(viscoelastic)});
    if (energy_scale > 0)
      max_relative_residual = std::max(max_relative_residual, std::abs(step.residual) / energy_scale);
  }
} // namespace percussion::Postprocess
