#include <percussion/postprocess/statistics_output.h>

namespace percussion::Postprocess
{
  namespace
  {
    std::vector<std::string> column_names(const StepView &view)
    {
      std::vector<std::string> names;
      for (const auto &column : StatisticsOutput::row(view))
        names.push_back(column.first);
      return names;
    }

    /// Σ over the bodies of the kinetic energy of their translation (or rotation).
    double rigid_energy(const std::vector<RigidMotion> &motions, const bool translation)
    {
      double sum = 0;
      for (const auto &m : motions)
        sum += translation ? m.kinetic_energy_translation : m.kinetic_energy_rotation;
      return sum;
    }
  } // namespace

  StatisticsOutput::StatisticsOutput(const StepView &present, const std::string &file_name, const bool write,
                                     const std::optional<unsigned int> resume_after_step, const bool keep_rows)
    : statistics(column_names(present))
  {
    statistics.keep_rows_in_memory(keep_rows);
    statistics.open(file_name, write, resume_after_step);
  }

  void StatisticsOutput::execute(const StepView &view)
  {
    if (!view.adds_rows())
      return;
    values.clear();
    for (const auto &column : row(view))
      values.push_back(column.second);
    statistics.add_row(values);
  }

  std::vector<std::pair<const char *, double>> StatisticsOutput::row(const StepView &view)
  {
    const auto &integrator = view.integrator;
    const auto &audit = view.audit;
    const auto &c = view.contact;
    const bool stepped = integrator.step_number() > 0;
    // The stable column names of statistics.csv (doc/user_guide.md), each beside its value.
    return {{"step", static_cast<double>(integrator.step_number())},
            {"time", integrator.time()},
            {"kinetic_energy", audit.kinetic_energy()},
            {"strain_energy", audit.strain_energy()},
            {"total_energy", audit.total_energy()},
            {"external_work", audit.external_work()},
            {"damping_work", audit.damping_work()},
            {"numerical_dissipation", audit.numerical_dissipation()},
            {"contact_work_normal", audit.contact_work_normal()},
            {"contact_work_tangential", audit.contact_work_tangential()},
            {"impact_dissipation", 0.0 - audit.contact_work_normal()},
            {"friction_dissipation", 0.0 - audit.contact_work_tangential()},
            {"energy_balance_residual", audit.balance_residual()},
            {"linear_solver_iterations",
             static_cast<double>(stepped ? integrator.linear_solver().last_iterations() : 0)},
            {"contact_candidates", view.contact_candidates},
            {"contact_active", static_cast<double>(c.n_active)},
            {"contact_sticking", static_cast<double>(c.n_stick)},
            {"contact_sliding", static_cast<double>(c.n_slip)},
            {"contact_normal_force", stepped ? c.normal_impulse / integrator.time_step() : 0.0},
            {"contact_solver_iterations", static_cast<double>(c.solved ? c.solver.iterations : 0)},
            {"contact_solver_error", c.solved ? c.solver.error : 0.0},
            {"contact_positive_work_count", static_cast<double>(c.n_positive_work)},
            {"algorithmic_energy", audit.algorithmic_energy()},
            {"projection_energy", audit.projection_energy()},
            {"frame_energy", audit.frame_energy()},
            {"kinetic_energy_translation", rigid_energy(view.rigid_motions, true)},
            {"kinetic_energy_rotation", rigid_energy(view.rigid_motions, false)},
            {"min_gap", view.min_gap},
            {"contact_penetrated_left_out", static_cast<double>(c.n_penetrated_left_out)},
            {"contact_projected", static_cast<double>(view.projection.n_contacts)},
            {"contact_exact_products", static_cast<double>(c.exact_products)},
            {"contact_probing_solves", static_cast<double>(c.probing_solves)},
            {"contact_column_solves", static_cast<double>(c.column_solves)},
            {"contact_probed_operator", c.probed_operator ? 1.0 : 0.0},
            {"contact_held_per_rank", static_cast<double>(c.held_per_rank)},
            {"events", static_cast<double>(view.events.count())},
            {"viscoelastic_energy", audit.viscoelastic_energy()},
            {"viscoelastic_dissipation", audit.viscoelastic_dissipation()},
            {"time_step", stepped ? integrator.time_step() : 0.0}};
  }

  StepTimingsOutput::StepTimingsOutput(const std::string &file_name, const bool write,
                                       const std::optional<unsigned int> resume_after_step, const bool keep_rows)
    : timings(
        {"step", "step_seconds", "contact_geometry", "free_velocity", "contact_step", "contact_solver", "projection"})
  {
    timings.keep_rows_in_memory(keep_rows);
    timings.open(file_name, write, resume_after_step);
  }

  void StepTimingsOutput::execute(const StepView &view)
  {
    if (view.occasion != StepView::Occasion::step)
      return;
    const auto &p = view.phases;
    timings.add_row({static_cast<double>(view.step()), view.step_seconds, p.contact_geometry, p.free_velocity,
                     p.contact_step, p.contact_solver, p.projection});
  }
} // namespace percussion::Postprocess
