// The energy guard apart from the step: the step books its energy in the audit, and this file
// decides whether that energy was created and what the run does about it.
#include <deal.II/base/mpi.h>

#include <percussion/core/exceptions.h>
#include <percussion/simulator/energy_guard.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace percussion
{
  EnergyGuard::EnergyGuard(const TimeIntegration::TimeIntegrationParameters &time,
                           const Postprocess::EnergyAudit &audit, Postprocess::EventLog &events,
                           dealii::ConditionalOStream &log)
    : time(time)
    , audit(audit)
    , events(events)
    , log(log)
  {
  }

  SavedValues EnergyGuard::saved_values()
  {
    return {{"energy_created_steps", nullptr, &n_energy_created_steps},
            {"first_energy_created_step", nullptr, &first_energy_created_step},
            {"energy_warnings", nullptr, &n_energy_warnings},
            {"energy_retries", nullptr, &n_energy_retries},
            {"energy_created_in_flagged_steps", &energy_created_in_flagged_steps}};
  }

  void EnergyGuard::check(const TimeIntegration::TimeIntegrator &integrator)
  {
    // No step may end with more energy than the previous one plus the loads' work: damping,
    // contact (Proposition 1), numerical dissipation (θ ≥ ½) and dashpots only take energy away.
    // The audit would close whatever a projection or a frame added (they are columns of it): the
    // guard refuses such energy instead of explaining it.
    const double created = audit.created_in_last_step();
    const double allowed = std::max(time.energy_creation_tolerance * audit.guard_scale(), energy_round_off);
    if (!(created > allowed) && std::isfinite(created))
      return;
    const unsigned int step = integrator.step_number();
    const bool stop = time.energy_creation_policy == TimeIntegration::EnergyCreationPolicy::stop;
    const bool retry = time.energy_creation_policy == TimeIntegration::EnergyCreationPolicy::retry;
    ++n_energy_created_steps;
    energy_created_in_flagged_steps += created;
    if (first_energy_created_step == 0)
      first_energy_created_step = step;
    std::ostringstream detail;
    detail << "term " << audit.largest_creating_term() << "; scale " << audit.guard_scale() << "; policy: "
           << (stop    ? "stopped"
               : retry ? "retried"
                       : "continued");
    events.add(step, integrator.time(), "energy_created", 0, created, detail.str());
    std::ostringstream message;
    message << "step " << step << " (t = " << integrator.time() << ") created energy " << created << " J ("
            << created / audit.guard_scale() << " of the energy scale " << audit.guard_scale()
            << ", tolerance 'Time integration/Energy creation tolerance' = " << time.energy_creation_tolerance
            << "), largest in the term " << audit.largest_creating_term();
    if (stop || retry)
      {
        // The step stays accepted (it has its row) unless the run loop takes it back.
        stopped = true;
        if (retry)
          throw EnergyCreated("Energy created: " + message.str() + ", also after " +
                              std::to_string(time.energy_retry_halvings) +
                              " halvings of the step; 'Time integration/Energy creation policy' = retry.");
        throw SolverError("Energy created: " + message.str() + "; 'Time integration/Energy creation policy' = stop.");
      }
    if (n_energy_warnings++ < 20)
      log << "warning: " << message.str() << std::endl;
  }

  void EnergyGuard::take_back(const unsigned int step, const double t, const double h, const double restored_time)
  {
    stopped = false;
    if (n_energy_retries++ < 20)
      log << "energy created: the step from t = " << restored_time
          << " is taken back and made again in halves (events.csv: retry_half_steps)" << std::endl;
    std::ostringstream h_text;
    h_text << "h = " << h << " -> two steps of h/2 (energy created)";
    events.add(step, t, "retry_half_steps", 0, 0.0, h_text.str());
  }

  void EnergyGuard::write_summary() const
  {
    log << "energy guard: ";
    if (n_energy_created_steps == 0)
      log << "no step created energy (tolerance " << time.energy_creation_tolerance << " of the energy scale "
          << audit.guard_scale() << ")";
    else
      log << n_energy_created_steps << " step(s) created energy, " << energy_created_in_flagged_steps
          << " in all (first at step " << first_energy_created_step << "; events.csv: energy_created)";
    if (n_energy_retries > 0)
      log << "; " << n_energy_retries << " step(s) that created energy were made again in halves";
    log << std::endl;
  }

  template <int dim>
  double round_off_energy(const dealii::Triangulation<dim> &triangulation,
                          const dealii::PETScWrappers::MPI::SparseMatrix &stiffness, MPI_Comm communicator)
  {
    double largest_coordinate = 0;
    for (const auto &cell : triangulation.active_cell_iterators())
      if (cell->is_locally_owned())
        for (const unsigned int v : cell->vertex_indices())
          for (unsigned int d = 0; d < dim; ++d)
            largest_coordinate = std::max(largest_coordinate, std::abs(cell->vertex(v)[d]));
    largest_coordinate = dealii::Utilities::MPI::max(largest_coordinate, communicator);
    double trace = 0;
    const auto rows = stiffness.local_range();
    for (auto i = rows.first; i < rows.second; ++i)
      trace += stiffness.diag_element(i);
    trace = dealii::Utilities::MPI::sum(trace, communicator);
    const double error = std::numeric_limits<double>::epsilon() * largest_coordinate;
    return 0.5 * error * error * trace;
  }

  template double round_off_energy(const dealii::Triangulation<1> &, const dealii::PETScWrappers::MPI::SparseMatrix &,
                                   MPI_Comm);
  template double round_off_energy(const dealii::Triangulation<2> &, const dealii::PETScWrappers::MPI::SparseMatrix &,
                                   MPI_Comm);
  template double round_off_energy(const dealii::Triangulation<3> &, const dealii::PETScWrappers::MPI::SparseMatrix &,
                                   MPI_Comm);
} // namespace percussion
