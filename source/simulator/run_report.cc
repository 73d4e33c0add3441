// The estimates a run makes from its materials and mesh, and what its log says at the end. Apart
// from the simulator: none of it changes the run, and the set-up and the report read the same
// wave speeds.
#include <deal.II/base/mpi.h>
#include <deal.II/base/point.h>
#include <deal.II/base/utilities.h>
#include <deal.II/grid/grid_tools.h>

#include <percussion/simulator/run_report.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  RunReport<dim>::RunReport(const RunParameters &parameters, const Triangulation<dim> &triangulation,
                            MPI_Comm communicator, ConditionalOStream &log)
    : parameters(parameters)
    , triangulation(triangulation)
    , communicator(communicator)
    , log(log)
    , smallest_cell_diameter(GridTools::minimal_cell_diameter(triangulation))
  {
  }

  template <int dim>
  double RunReport<dim>::fastest_wave_speed() const
  {
    // The bar speed √(E/ρ) in 1D, the dilatational speed √((λ+2μ)/ρ) otherwise; with Maxwell
    // branches the fast waves see the instantaneous modulus E(0) = E∞ + Σ Eᵢ (same ν).
    double wave_speed = 0;
    for (const auto &[id, material] : parameters.body.materials)
      wave_speed =
        std::max(wave_speed,
                 std::sqrt(material.instantaneous_modulus() / material.youngs_modulus *
                           (dim == 1 ? material.youngs_modulus : material.lame_lambda() + 2 * material.lame_mu()) /
                           material.density));
    return wave_speed;
  }

  template <int dim>
  double RunReport<dim>::quasi_static_time() const
  {
    // T = 100 L/c with L the diagonal of the mesh's bounding box and c the slowest wave speed (the
    // shear speed √(μ/ρ); the bar speed in 1D): the lowest elastic mode of a compact body has
    // ω ≳ c/L, so K + M/T² weighs a body's rigid motion about 10⁴ (ωT)² ≳ 10⁵ times more than its
    // deformation. Measured: with 10 L/c a stiff bouncing mass lifted by 1 cm after a free-flight
    // crossing kept 2 % of its kinetic energy in the lift's elastic part (paid by its velocity),
    // with 100 L/c nothing visible. The price is the metric's condition number (ω_max T)², whose
    // round-off shows between runs on different numbers of ranks (4e-8 of the kinetic energy on
    // the rolling disk of regression.large_rotations, against 5e-10 with 10 L/c).
    Point<dim> lower, upper;
    for (unsigned int d = 0; d < dim; ++d)
      {
        lower[d] = std::numeric_limits<double>::max();
        upper[d] = -std::numeric_limits<double>::max();
      }
    const auto &vertices = triangulation.get_vertices();
    const auto &used = triangulation.get_used_vertices();
    for (unsigned int i = 0; i < vertices.size(); ++i)
      if (used[i])
        for (unsigned int d = 0; d < dim; ++d)
          {
            lower[d] = std::min(lower[d], vertices[i][d]);
            upper[d] = std::max(upper[d], vertices[i][d]);
          }
    double diagonal2 = 0;
    for (unsigned int d = 0; d < dim; ++d)
      {
        const double extent =
          Utilities::MPI::max(upper[d], communicator) + Utilities::MPI::max(-lower[d], communicator);
        diagonal2 += extent * extent;
      }
    double wave_speed = std::numeric_limits<double>::max();
    for (const auto &[id, material] : parameters.body.materials)
      wave_speed =
        std::min(wave_speed, std::sqrt((dim == 1 ? material.youngs_modulus : material.lame_mu()) / material.density));
    return 100 * std::sqrt(diagonal2) / wave_speed;
  }

  Postprocess::StepView::PhaseSeconds RunTimings::phases_since(const RunTimings &before) const
  {
    return {contact_geometry - before.contact_geometry, free_velocity - before.free_velocity,
            contact_step - before.contact_step, contact_solver - before.contact_solver, projection - before.projection};
  }

  void RunTimings::close_time_stepping(const unsigned int n_steps, const double stepping_seconds,
                                       const double output_before, const double metric_seconds)
  {
    steps = n_steps;
    projection_metric_factorisation = metric_seconds;
    projection -= metric_seconds;
    time_stepping = stepping_seconds - (output - output_before) - metric_seconds;
  }

  template <int dim>
  void RunReport<dim>::log_set_up(const types::global_dof_index n_dofs, const unsigned int n_bodies) const
  {
    log << "percussion: " << dim << "D, " << triangulation.n_global_active_cells() << " cells, " << n_dofs << " DoFs, Q"
        << parameters.mesh.fe_degree << ", " << Utilities::MPI::n_mpi_processes(communicator) << " MPI rank(s)"
        << std::endl;
    if (dim > 1)
      log << "kinematics: "
          << (parameters.large_rotations ? "large rotations (a frame per body, exact rigid motion, linear strain in it)"
                                         : "small displacements (x = X + q)")
          << ", " << n_bodies << " bod" << (n_bodies == 1 ? "y" : "ies") << std::endl;
  }

  template <int dim>
  void RunReport<dim>::log_scheme(const TimeIntegration::TimeIntegrator &integrator) const
  {
    log << "scheme: " << integrator.description() << std::endl;
    log << "iteration matrix: " << integrator.linear_solver().description() << ", set up in " << std::setprecision(3)
        << integrator.linear_solver().setup_seconds() << " s" << std::endl;
  }

  template <int dim>
  double RunReport<dim>::node_spacing() const
  {
    return smallest_cell_diameter / std::sqrt(static_cast<double>(dim)) / parameters.mesh.fe_degree;
  }

  template <int dim>
  double RunReport<dim>::courant_number() const
  {
    return fastest_wave_speed() * parameters.time.time_step / node_spacing();
  }

  template <int dim>
  void RunReport<dim>::write(RunTimings &run_timings, const Run &run) const
  {
    Utilities::System::MemoryStats memory;
    Utilities::System::get_memory_stats(memory);
    run_timings.peak_memory_mib_max_rank = Utilities::MPI::max(memory.VmHWM / 1024.0, communicator);
    run_timings.peak_memory_mib_total = Utilities::MPI::sum(memory.VmHWM / 1024.0, communicator);
    const unsigned int steps = std::max(1u, run_timings.steps);
    const auto &audit = run.audit;
    log << "timing: mesh " << std::setprecision(4) << run_timings.mesh << " s, DoFs and assembly "
        << run_timings.setup_and_assembly << " s, factorisation " << run_timings.factorisation << " s";
    if (run_timings.projection_metric_factorisation > 0)
      log << ", projection metric factorisation " << run_timings.projection_metric_factorisation << " s";
    log << ", time per step " << run_timings.time_stepping / steps << " s, output " << run_timings.output
        << " s; peak memory " << run_timings.peak_memory_mib_total << " MiB (all ranks), "
        << run_timings.peak_memory_mib_max_rank << " MiB (largest rank)" << std::endl;
    if (run.contact != nullptr)
      log << "contact timing per step: geometry " << run_timings.contact_geometry / steps
          << " s, position check/projection " << run_timings.projection / steps << " s, free-velocity solve "
          << run_timings.free_velocity / steps << " s, contact step " << run_timings.contact_step / steps
          << " s (of which the contact solver " << run_timings.contact_solver / steps << " s)" << std::endl;
    log << "done: " << run.n_steps << " steps";
    if (run.first_step > 0)
      log << " (" << run_timings.steps << " after resuming at step " << run.first_step << ")";
    log << " in " << std::setprecision(4) << run.wall_seconds << " s; energy E_end/E_0 = " << std::setprecision(10)
        << (audit.initial_energy() != 0 ? audit.total_energy() / audit.initial_energy() : 0.0)
        << ", largest per-step energy-balance residual (relative) = " << std::setprecision(3)
        << audit.max_relative_step_residual() << std::endl;
    if (run.contact != nullptr)
      run.contact->write_summary(audit);
    run.energy_guard.write_summary();
    if (run.adaptive != nullptr)
      write_adaptive_steps(*run.adaptive, run.integrator.factors_memory_mib());
    if (run.contact != nullptr)
      note_unresolved_modes(run.integrator, run.contact->longest_contact_streak());
  }

  template <int dim>
  std::string RunReport<dim>::interruption_message(const std::string &signal_name,
                                                   const TimeIntegration::TimeIntegrator &integrator,
                                                   const bool adaptive) const
  {
    const auto &out = parameters.output;
    std::ostringstream message;
    message << "stopped by " << signal_name << " after step " << integrator.step_number();
    if (adaptive)
      message << " (t = " << integrator.time() << " of " << parameters.time.end_time << ")";
    else
      message << " of " << parameters.time.n_steps() << " (t = " << integrator.time() << ")";
    message << "; the output of that step is written" << (out.writes_vtu() ? " (statistics and VTU)" : " (statistics)")
            << " with a checkpoint; the run is not complete (continue it with --resume " << out.directory << ")";
    return message.str();
  }

  template <int dim>
  void RunReport<dim>::write_failure(const TimeIntegration::TimeIntegrator &integrator, const bool step_accepted,
                                     const std::string &checkpoint, const unsigned int last_vtu_step) const
  {
    // Where the user can go on from: the last checkpoint and the last output written.
    log << "numerical failure in step " << integrator.step_number() + (step_accepted ? 0 : 1)
        << ": the last checkpoint is " << (checkpoint.empty() ? std::string("none") : checkpoint)
        << "; statistics.csv ends with the last step computed";
    if (last_vtu_step != static_cast<unsigned int>(-1))
      log << ", the last VTU record is of step " << last_vtu_step;
    log << " (" << parameters.output.directory << ")" << std::endl;
  }

  template <int dim>
  void RunReport<dim>::write_adaptive_steps(const AdaptiveStepPolicy &adaptive, const double factors_mib) const
  {
    const auto &steps = adaptive.steps_per_level();
    const auto &times = adaptive.time_per_level();
    unsigned int levels_used = 0, total = 0;
    log << "adaptive steps:";
    for (unsigned int k = 0; k < steps.size(); ++k)
      {
        total += steps[k];
        if (steps[k] == 0)
          continue;
        ++levels_used;
        log << (levels_used > 1 ? ";" : "") << " h = " << std::setprecision(4) << adaptive.step_size(k)
            << " s: " << steps[k] << " steps over " << times[k] << " s";
      }
    // Each step size used has its iteration matrix factorised once and kept.
    log << " (" << total << " steps at " << levels_used << " step size(s), each factorised once";
    if (factors_mib > 0)
      log << "; the factors kept: " << std::setprecision(4) << factors_mib << " MiB";
    log << ")" << std::endl;
  }

  template <int dim>
  void RunReport<dim>::note_unresolved_modes(const TimeIntegration::TimeIntegrator &integrator,
                                             const unsigned int longest_contact_streak) const
  {
    // θ = ½ (and any scheme without high-frequency damping) damps no mode: the modes with ωh ≫ 1
    // are not resolved by the step, and with contact that lasts their energy stays in the body as
    // chatter at the contact nodes. (Said at the end of a run whose contacts lasted only: a brief
    // impact with θ = ½ for its undamped waves, the default example's, needs no such advice.) The highest mode of a
    // consistent-mass mesh is about ω_max ≈ 2√3 c √dim / Δx (1D linear elements: exactly 2√3 c/Δx;
    // c the dilatational wave speed, Δx the node spacing).
    // (Stiffness-proportional damping βK damps them as well: the ratio βω/2 grows with ω.)
    const bool kelvin_voigt_everywhere = std::all_of(parameters.body.materials.begin(), parameters.body.materials.end(),
                                                     [](const auto &m) { return m.second.kelvin_voigt_time > 0; });
    if (longest_contact_streak < 100 || integrator.damps_high_frequencies() || parameters.body.rayleigh_beta > 0 ||
        kelvin_voigt_everywhere)
      return;
    const double wave_speed = fastest_wave_speed(), spacing = node_spacing();
    const double omega_h = 2 * std::sqrt(3.0 * dim) * wave_speed * parameters.time.time_step / spacing;
    if (omega_h > 2)
      log << "note: contacts lasted up to " << longest_contact_streak << " steps in a row, and the scheme ("
          << integrator.description() << ") damps no mode while this step leaves the mesh's stiffest "
          << "modes unresolved (omega*h up to ~" << std::setprecision(3) << omega_h << ", from c = " << wave_speed
          << " m/s and node spacing " << spacing << " m): they can ring for ever at contacts that last "
          << "(the contact force alternating from step to step, a resting body that never comes to rest). "
          << "Where that matters more than wave accuracy, use a scheme "
          << "that damps them (Moreau-Jean theta slightly above 0.5, e.g. 0.55, inside the Fremond range "
          << "[0.5, 1/(1+e)]), a material damping (Damping/Stiffness proportional coefficient, a few "
          << "percent of critical on the lowest elastic mode), or h <= "
          << spacing / (std::sqrt(3.0 * dim) * wave_speed) << " s to resolve them (doc/contact.md, lasting contact)."
          << std::endl;
  }

  template class RunReport<1>;
  template class RunReport<2>;
  template class RunReport<3>;
} // namespace percussion
