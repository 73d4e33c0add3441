// The contact reports of a run, apart from the step that computes the contacts: the contact step
// and the geometry say what happened, this file decides what the user is told (log, events.csv,
// FCLIB files) and whether an unsolved problem stops the run.
#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/fclib_writer.h>
#include <percussion/core/exceptions.h>
#include <percussion/simulator/contact_reporting.h>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace percussion
{
  ContactReporting::ContactReporting(const ContactStep::ContactDynamicsParameters &settings,
                                     std::string output_directory, const TimeIntegration::TimeIntegrator &integrator,
                                     ContactStep::FrictionalContactStep *contact_step, const bool projects_positions,
                                     const double penetration_tolerance, Postprocess::EventLog &events,
                                     dealii::ConditionalOStream &log, MPI_Comm communicator)
    : settings(settings)
    , output_directory(std::move(output_directory))
    , integrator(integrator)
    , contact_step(contact_step)
    , projects_positions(projects_positions)
    , penetration_tolerance(penetration_tolerance)
    , events(events)
    , log(log)
    , communicator(communicator)
  {
  }

  SavedValues ContactReporting::saved_values()
  {
    return {{"lowest_gap", &lowest_gap},
            {"end_of_step_min_gap", &end_of_step_min_gap},
            {"projection_steps", nullptr, &n_projection_steps},
            {"projection_warnings", nullptr, &n_projection_warnings},
            {"positive_work_warnings", nullptr, &n_positive_work_warnings},
            {"unconverged_steps", nullptr, &n_unconverged_steps}};
  }

  void ContactReporting::report_positions(const ContactStep::PositionProjectionResult &projection, const double min_gap)
  {
    end_of_step_min_gap = min_gap;
    lowest_gap = std::min(lowest_gap, end_of_step_min_gap);
    if (projection.n_contacts == 0)
      return;
    ++n_projection_steps;
    events.add(integrator.step_number(), integrator.time(), "position_projection", projection.n_contacts,
               projection.energy_change, projection_detail(projection));
    // (At most 20 warnings: a run that projects at every step would otherwise drown its log.)
    if (projection.solver.status != ContactSolvers::SolverStatus::converged && n_projection_warnings++ < 20)
      log << "warning: step " << integrator.step_number() << " (t = " << integrator.time()
          << "): the position projection of " << projection.n_contacts
          << " contact(s) was not solved: " << ContactSolvers::to_string(projection.solver.status) << ", residual "
          << projection.solver.error << "; smallest gap after it " << projection.min_gap << std::endl;
  }

  std::string ContactReporting::projection_detail(const ContactStep::PositionProjectionResult &p)
  {
    std::ostringstream detail;
    detail << (p.solver.status == ContactSolvers::SolverStatus::converged ? "solved" : "not solved")
           << (p.impulse_metric && !p.metric_replaced ? "; metric: impulse response" : "; metric: quasi-static");
    if (p.metric_replaced)
      detail << " (the impulse response would have added energy)";
    if (p.scale < 1)
      detail << "; scaled back to " << p.scale << " (energy bound), smallest gap after it " << p.min_gap;
    return detail.str();
  }

  void ContactReporting::report_step(const ContactStep::ContactStepResult &c)
  {
    const unsigned int step = integrator.step_number();
    contact_streak = c.n_active > 0 ? contact_streak + 1 : 0;
    longest_streak = std::max(longest_streak, contact_streak);
    if (c.n_positive_work > 0)
      {
        std::ostringstream where;
        where << "largest at (" << c.largest_positive_work_position[0] << ", " << c.largest_positive_work_position[1]
              << ", " << c.largest_positive_work_position[2] << ")";
        events.add(step, integrator.time(), "positive_contact_work", c.n_positive_work, c.largest_positive_work,
                   where.str());
      }
    if (c.n_positive_work > 0 && n_positive_work_warnings++ < 20)
      log << "warning: step " << step << " (t = " << integrator.time() << "): " << c.n_positive_work
          << " contact(s) did positive work; largest " << c.largest_positive_work << " at ("
          << c.largest_positive_work_position[0] << ", " << c.largest_positive_work_position[1] << ", "
          << c.largest_positive_work_position[2] << ")" << std::endl;
    if (c.dense_fallback)
      events.add(step, integrator.time(), "dense_fallback", c.n_active, c.probed_error,
                 "the probed operator did not solve the step; solved again with the dense W: " +
                   ContactSolvers::to_string(c.solver.status));
    const auto &dump_steps = settings.write_fclib_steps;
    if (std::find(dump_steps.begin(), dump_steps.end(), step) != dump_steps.end())
      {
        if (c.solved)
          write_contact_problem(c, "requested in 'Contact solver/Write FCLIB at steps'");
        else
          log << "step " << step << " has no active contact: no contact problem to write (requested in "
              << "'Contact solver/Write FCLIB at steps')" << std::endl;
      }
    if (!c.solved || c.solver.status == ContactSolvers::SolverStatus::converged)
      return;
    ++n_unconverged_steps;
    log << "warning: step " << step << " (t = " << integrator.time() << "): the contact problem with " << c.n_active
        << " active contact(s) was not solved: " << ContactSolvers::to_string(c.solver.status) << ", residual "
        << c.solver.error << " after " << c.solver.iterations << " iterations" << std::endl;
    const bool stop = settings.non_convergence_policy == ContactStep::NonConvergencePolicy::stop;
    events.add(step, integrator.time(), "contact_not_solved", c.n_active, c.solver.error,
               ContactSolvers::to_string(c.solver.status) + "; policy: " + (stop ? "stopped" : "continued"));
    if (settings.write_fclib_on_failure)
      write_contact_problem(c, "not converged");
    // The step stays accepted: it gets its row and a checkpoint, from which a resumed run may try
    // other solver settings.
    stopped_by_policy = stop;
    if (stop)
      throw SolverError("The contact problem of step " + std::to_string(step) + " was not solved (residual " +
                        std::to_string(c.solver.error) + "); 'Contact solver/Non-convergence policy' = stop.");
  }

  void ContactReporting::report_retry(const ContactStep::ContactStepResult &c, const bool halving)
  {
    // (The events are of the step being attempted: the integrator is still at t_k.)
    const unsigned int step = integrator.step_number() + 1;
    const double t = integrator.time() + integrator.time_step();
    std::ostringstream h_text;
    h_text << "h = " << integrator.time_step();
    if (halving)
      events.add(step, t, "retry_half_steps", c.n_active, c.solver.error, h_text.str() + " -> two steps of h/2");
    else
      events.add(step, t, "retry_nsgs", c.n_active, c.solver.error,
                 h_text.str() + "; " + ContactSolvers::to_string(c.solver.status));
  }

  void ContactReporting::write_contact_problem(const ContactStep::ContactStepResult &c, const std::string &reason)
  {
    const unsigned int step = integrator.step_number();
    const std::string name = "contact_problem_" + std::to_string(step) + ".hdf5";
    // (every rank counts the event; rank 0 writes the file)
    events.add(step, integrator.time(), "fclib_dump", c.n_active,
               c.solver.status == ContactSolvers::SolverStatus::converged ? 0.0 : c.solver.error,
               name + " (" + reason + ")");
    // (collective: a distributed problem is gathered)
    ContactSolvers::LocalProblem problem;
    std::vector<double> reaction, velocity;
    contact_step->whole_last_problem(problem, reaction, velocity);
    if (dealii::Utilities::MPI::this_mpi_process(communicator) != 0)
      return;
    const std::string file = output_directory + "/" + name;
    ContactSolvers::write_fclib_local(file, problem, "percussion step " + std::to_string(step),
                                      "Frictional contact problem of time step " + std::to_string(step) +
                                        " at t = " + std::to_string(integrator.time()) + " (" + reason + ")",
                                      &reaction, &velocity);
    log << "wrote the contact problem of step " << step << " to " << file << " (" << reason << ")" << std::endl;
  }

  void ContactReporting::write_summary(const Postprocess::EnergyAudit &audit) const
  {
    log << "contact: impact dissipation " << 0.0 - audit.contact_work_normal() << ", friction dissipation "
        << 0.0 - audit.contact_work_tangential() << ", steps with positive contact work " << n_positive_work_warnings
        << ", steps whose contact problem was not solved " << n_unconverged_steps << std::endl
        << "contact positions: smallest end-of-step gap " << std::setprecision(3) << lowest_gap << " m, ";
    if (projects_positions)
      log << "projected at " << n_projection_steps << " step(s) (tolerance " << penetration_tolerance
          << " m), energy change " << audit.projection_energy() << std::endl;
    else
      log << "no position projection" << std::endl;
  }
} // namespace percussion
