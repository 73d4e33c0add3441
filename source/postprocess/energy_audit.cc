#include <percussion/postprocess/energy_audit.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace percussion::Postprocess
{
  namespace
  {
    double total_energy_of(const TimeIntegration::StepEnergy &e)
    {
      return e.kinetic_energy + e.strain_energy + e.viscoelastic_energy;
    }
  } // namespace

  std::string EnergyAudit::largest_creating_term() const
  {
    const std::pair<const char *, double> terms[] = {{"projection_energy", last_step.position_correction},
                                                     {"frame_energy", last_step.frame_correction},
                                                     {"contact_work", last_contact.normal + last_contact.tangential},
                                                     {"numerical_dissipation", -last_step.numerical_dissipation},
                                                     {"balance_residual", last_step.residual}};
    std::string name = "none";
    double largest = 0;
    for (const auto &[term, value] : terms)
      if (value > largest)
        {
          largest = value;
          name = term;
        }
    return name;
  }

  void EnergyAudit::start(const TimeIntegration::StepEnergy &initial)
  {
    *this = EnergyAudit();
    current = initial;
    initial_total = initial.kinetic_energy + initial.strain_energy + initial.viscoelastic_energy;
    energy_scale = std::abs(initial_total);
    guard = std::abs(initial_total + initial.algorithmic_energy);
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
                               {"audit_max_relative_residual", &max_relative_residual},
                               {"audit_guard_scale", &guard},
                               {"audit_created", &created}})
      values.push_back({name, value});
    return values;
  }

  double EnergyAudit::energy_created_by(const TimeIntegration::StepEnergy &step, const ContactWorks &contact) const
  {
    const double before = total_energy() + current.algorithmic_energy;
    // (A frame's re-measure of the strain, StepEnergy::frame_correction, is paid from the bodies'
    // vibration where it rises, MoreauJeanIntegrator::update_frames(): what remains is judged too.)
    return total_energy_of(step) + step.algorithmic_energy - before - step.external_work - contact.obstacle;
  }

  void EnergyAudit::add_step(const TimeIntegration::StepEnergy &step, const ContactWorks &contact)
  {
    last_created = energy_created_by(step, contact);
    if (last_created > 0)
      created += last_created;
    last_step = step;
    last_contact = contact;
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
    guard =
      std::max({guard, std::abs(total_energy() + current.algorithmic_energy), std::abs(external), std::abs(damping),
                std::abs(numerical), std::abs(contact_normal) + std::abs(contact_tangential), std::abs(viscoelastic)});
    if (energy_scale > 0)
      max_relative_residual = std::max(max_relative_residual, std::abs(step.residual) / energy_scale);
  }
} // namespace percussion::Postprocess
