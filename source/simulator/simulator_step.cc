// The parts of one time step of the Simulator (StepController runs them): the integrator's parts,
// the contact geometry, the contact problem, the end-of-step gaps and projection, the reports.
#include <deal.II/base/utilities.h>

#include <percussion/contact_solvers/fclib_writer.h>
#include <percussion/core/exceptions.h>
#include <percussion/simulator/simulator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

namespace percussion
{
  using namespace dealii;

  namespace
  {
    // The phases are timed with steady_clock, which costs no system call (deal.II's Timer also
    // reads the CPU time, a getrusage() call each time).
    using Clock = std::chrono::steady_clock;
    double seconds_since(const Clock::time_point start)
    {
      return std::chrono::duration<double>(Clock::now() - start).count();
    }
  } // namespace

  template <int dim>
  void Simulator<dim>::compute_free_velocity()
  {
    const auto start = Clock::now();
    time_integrator->compute_free_velocity();
    run_timings.free_velocity += seconds_since(start);
  }

  template <int dim>
  void Simulator<dim>::end_step()
  {
    auto &integrator = *time_integrator;
    integrator.finish_step();
    if (geometry)
      check_contact_positions();
    const auto &c = contact_result;
    audit.add_step(integrator.last_step_energy(), {c.work_normal, c.work_tangential, c.obstacle_work});
    if (geometry)
      report_contact_step();
  }

  template <int dim>
  void Simulator<dim>::update_contact_geometry()
  {
    // H(q_k), gaps and frames, and u_k = Hᵀv_k + w; the geometry imports ghost DoFs itself if it
    // needs them and keeps u_k: nothing is allocated here per step. (At step 0 run() has computed
    // the geometry of q_0 already.)
    const auto start = Clock::now();
    const auto &integrator = *time_integrator;
    displacement_increment = integrator.displacement(); // q_k, for the end-of-step gaps
    if (integrator.step_number() > 0)
      geometry->update(integrator.displacement(), integrator.time());
    contact_points.clear();
    const auto n_dofs = bodies->get_dof_handler().n_dofs();
    for (const auto &point : geometry->owned_points())
      {
        TimeIntegration::OwnedContactPoint p;
        p.global_index = point.global_index;
        p.key = static_cast<unsigned long long>(point.pair) * n_dofs + point.slave_dofs[0];
        p.mu = point.friction_coefficient;
        p.e = point.restitution_coefficient;
        p.gap = point.gap;
        for (unsigned int d = 0; d < dim; ++d)
          p.position[d] = point.position[d];
        contact_points.push_back(p);
      }
    run_timings.contact_geometry += seconds_since(start);
  }

  template <int dim>
  void Simulator<dim>::solve_contact_problem()
  {
    const auto start = Clock::now();
    auto &integrator = *time_integrator;
    contact_result = TimeIntegration::ContactStepResult();
    if (geometry->n_global_points() > 0)
      contact_result = contact_step->solve(integrator, geometry->contact_operator(), geometry->obstacle_velocity_offset(),
                                           geometry->operator_changed(), contact_points,
                                           geometry->local_velocity(integrator.velocity()),
                                           std::max(audit.flow_scale(), std::abs(audit.total_energy())));
    else
      contact_step->forget_impulses();
    run_timings.contact_step += seconds_since(start);
    // (Without candidates on any rank the default result, empty per-point fields, is the step's.)
    if (contact_result.solved)
      run_timings.contact_solver += contact_result.solver.seconds;
  }

  template <int dim>
  void Simulator<dim>::check_contact_positions()
  {
    // End-of-step gaps and, where a contact penetrates beyond the tolerance, the position
    // projection (velocity-level schemes hold velocities, not gaps).
    const auto start = Clock::now();
    auto &integrator = *time_integrator;
    displacement_increment.sadd(-1.0, 1.0, integrator.displacement());
    projection_result = contact_step->project_positions(integrator, geometry->contact_operator(),
                                                        geometry->obstacle_velocity_offset(), contact_points,
                                                        displacement_increment, projects_positions,
                                                        penetration_tolerance);
    run_timings.projection += seconds_since(start);
    end_of_step_min_gap = geometry->n_global_points() > 0 ? projection_result.min_gap : parameters.contact.search_distance;
    lowest_gap = std::min(lowest_gap, end_of_step_min_gap);
    if (projection_result.n_contacts == 0)
      return;
    ++n_projection_steps;
    events.add(integrator.step_number(), integrator.time(), "position_projection", projection_result.n_contacts,
               projection_result.energy_change,
               std::string(projection_result.solver.status == ContactSolvers::SolverStatus::converged ? "solved"
                                                                                                      : "not solved") +
                 (projection_result.impulse_metric ? "; metric: impulse response" : "; metric: quasi-static"));
    if (projection_result.solver.status != ContactSolvers::SolverStatus::converged && n_projection_warnings++ < 20)
      log << "warning: step " << integrator.step_number() << " (t = " << integrator.time()
          << "): the position projection of " << projection_result.n_contacts
          << " contact(s) was not solved: " << ContactSolvers::to_string(projection_result.solver.status)
          << ", residual " << projection_result.solver.error << "; smallest gap after it " << projection_result.min_gap
          << std::endl;
  }

  template <int dim>
  void Simulator<dim>::report_contact_step()
  {
    const auto &integrator = *time_integrator;
    const unsigned int step = integrator.step_number();
    const auto &c = contact_result;
    if (c.n_positive_work > 0)
      {
        std::ostringstream where;
        where << "largest at (" << c.largest_positive_work_position[0] << ", " << c.largest_positive_work_position[1]
              << ", " << c.largest_positive_work_position[2] << ")";
        events.add(step, integrator.time(), "positive_contact_work", c.n_positive_work, c.largest_positive_work, where.str());
      }
    if (c.n_positive_work > 0 && n_positive_work_warnings++ < 20)
      log << "warning: step " << step << " (t = " << integrator.time() << "): " << c.n_positive_work
          << " contact(s) did positive work; largest " << c.largest_positive_work << " at ("
          << c.largest_positive_work_position[0] << ", " << c.largest_positive_work_position[1] << ", "
          << c.largest_positive_work_position[2] << ")" << std::endl;
    const auto &dump_steps = parameters.contact_solver.write_fclib_steps;
    if (std::find(dump_steps.begin(), dump_steps.end(), step) != dump_steps.end())
      {
        if (c.solved)
          write_contact_problem("requested in 'Contact solver/Write FCLIB at steps'");
        else
          log << "step " << step << " has no active contact: no contact problem to write (requested in "
              << "'Contact solver/Write FCLIB at steps')" << std::endl;
      }
    if (c.solved && c.solver.status != ContactSolvers::SolverStatus::converged)
      {
        ++n_unconverged_steps;
        log << "warning: step " << step << " (t = " << integrator.time() << "): the contact problem with "
            << c.n_active << " active contact(s) was not solved: " << ContactSolvers::to_string(c.solver.status)
            << ", residual " << c.solver.error << " after " << c.solver.iterations << " iterations" << std::endl;
        const bool stop = parameters.contact_solver.non_convergence_policy == TimeIntegration::NonConvergencePolicy::stop;
        events.add(step, integrator.time(), "contact_not_solved", c.n_active, c.solver.error,
                   ContactSolvers::to_string(c.solver.status) + "; policy: " + (stop ? "stopped" : "continued"));
        if (parameters.contact_solver.write_fclib_on_failure)
          write_contact_problem("not converged");
        stopped_by_policy = stop;
        if (stop)
          throw SolverError("The contact problem of step " + std::to_string(step) + " was not solved (residual " +
                            std::to_string(c.solver.error) + "); 'Contact solver/Non-convergence policy' = stop.");
      }
  }

  template <int dim>
  double Simulator<dim>::smallest_candidate_gap() const
  {
    if (geometry->n_global_points() == 0)
      return parameters.contact.search_distance;
    double smallest = std::numeric_limits<double>::infinity();
    for (const auto &point : geometry->owned_points())
      smallest = std::min(smallest, point.gap);
    return Utilities::MPI::min(smallest, communicator);
  }

  template <int dim>
  void Simulator<dim>::write_contact_problem(const std::string &reason)
  {
    const unsigned int step = time_integrator->step_number();
    const std::string name = "contact_problem_" + std::to_string(step) + ".hdf5";
    // (every rank counts the event; rank 0 writes the file)
    const auto &c = contact_result;
    events.add(step, time_integrator->time(), "fclib_dump", c.n_active,
               c.solver.status == ContactSolvers::SolverStatus::converged ? 0.0 : c.solver.error, name + " (" + reason + ")");
    // (collective: a distributed problem is gathered)
    ContactSolvers::LocalProblem problem;
    std::vector<double> reaction, velocity;
    contact_step->whole_last_problem(problem, reaction, velocity);
    if (Utilities::MPI::this_mpi_process(communicator) != 0)
      return;
    const std::string file = parameters.output.directory + "/" + name;
    ContactSolvers::write_fclib_local(file, problem, "percussion step " + std::to_string(step),
                                      "Frictional contact problem of time step " + std::to_string(step) + " at t = " +
                                        std::to_string(time_integrator->time()) + " (" + reason + ")",
                                      &reaction, &velocity);
    log << "wrote the contact problem of step " << step << " to " << file << " (" << reason << ")" << std::endl;
  }

  // The step's members of Simulator, for the dimensions Simulator is instantiated for in
  // simulator.cc.
#define PERCUSSION_INSTANTIATE(dim) \
  template void Simulator<dim>::compute_free_velocity(); \
  template void Simulator<dim>::end_step(); \
  template void Simulator<dim>::update_contact_geometry(); \
  template void Simulator<dim>::solve_contact_problem(); \
  template void Simulator<dim>::check_contact_positions(); \
  template void Simulator<dim>::report_contact_step(); \
  template double Simulator<dim>::smallest_candidate_gap() const; \
  template void Simulator<dim>::write_contact_problem(const std::string &);
  PERCUSSION_INSTANTIATE(1)
  PERCUSSION_INSTANTIATE(2)
  PERCUSSION_INSTANTIATE(3)
#undef PERCUSSION_INSTANTIATE
} // namespace percussion
