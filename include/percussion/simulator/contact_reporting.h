#ifndef PERCUSSION_SIMULATOR_CONTACT_REPORTING_H
#define PERCUSSION_SIMULATOR_CONTACT_REPORTING_H

#include <deal.II/base/conditional_ostream.h>

#include <percussion/contact_step/contact_dynamics_parameters.h>
#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/core/saved_value.h>
#include <percussion/postprocess/energy_audit.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/time_integration/time_integrator.h>

#include <limits>
#include <string>

#include <mpi.h>

namespace percussion
{
  /**
   * What a run says about its contacts, step by step: the warnings and events of each contact
   * problem (positive contact work, the dense fallback, an unsolved problem), the FCLIB dumps of
   * 'Contact solver/Write FCLIB at steps' and of unsolved problems, the 'Non-convergence policy'
   * (stop throws), the end-of-step gaps and the position projections' events, and the summary's
   * contact lines. Its counters are part of a checkpoint (saved_values()). A run without contact
   * pairs has one too, with no contact step: its counters stay as they start.
   */
  class ContactReporting
  {
  public:
    /**
     * @p contact_step: nullptr without contact pairs; @p projects_positions and
     * @p penetration_tolerance: the end-of-step projection's settings (for the summary).
     */
    ContactReporting(const ContactStep::ContactDynamicsParameters &settings, std::string output_directory,
                     const TimeIntegration::TimeIntegrator &integrator,
                     ContactStep::FrictionalContactStep *contact_step, bool projects_positions,
                     double penetration_tolerance, Postprocess::EventLog &events, dealii::ConditionalOStream &log,
                     MPI_Comm communicator);

    /// The smallest gap of the initial state (the first statistics row's min_gap).
    void start(double initial_min_gap) { end_of_step_min_gap = initial_min_gap; }

    /**
     * The end-of-step gaps (@p min_gap, the smallest over the ranks) and, where the step projected
     * positions, its event and, where the projection was not solved, a warning (the first 20).
     */
    void report_positions(const ContactStep::PositionProjectionResult &projection, double min_gap);

    /**
     * The warnings, events and FCLIB dumps of the step's contact problem @p result, and its
     * non-convergence policy. @throws SolverError where the policy is stop and the problem was not
     * solved (after its warning, event and dump). Collective (a dump gathers the problem).
     */
    void report_step(const ContactStep::ContactStepResult &result);

    /**
     * An unsolved contact problem @p result of the step to come is solved again with NSGS
     * (@p halving false: a retry_nsgs event) or, where that failed too, the step is made in two
     * halves (a retry_half_steps event).
     */
    void report_retry(const ContactStep::ContactStepResult &result, bool halving);

    /// The summary's lines on the contact work, unsolved problems, gaps and projections.
    void write_summary(const Postprocess::EnergyAudit &audit) const;

    /// Whether the non-convergence policy stop ended the run (after its step was accepted).
    bool stopped_the_run() const { return stopped_by_policy; }
    /// The smallest end-of-step gap of the last step (the statistics' min_gap).
    double last_min_gap() const { return end_of_step_min_gap; }
    /// Steps in a row with an active contact, at most (RunReport's note on unresolved modes).
    unsigned int longest_contact_streak() const { return longest_streak; }

    /// The counters and gaps a checkpoint keeps, by name.
    SavedValues saved_values();

  private:
    /// Writes the step's contact problem (rank 0) and records an fclib_dump event (every rank).
    /// Collective.
    void write_contact_problem(const ContactStep::ContactStepResult &result, const std::string &reason);
    /// The detail of a position_projection event: solved, metric, scale.
    static std::string projection_detail(const ContactStep::PositionProjectionResult &projection);

    const ContactStep::ContactDynamicsParameters &settings;
    const std::string output_directory;
    const TimeIntegration::TimeIntegrator &integrator;
    ContactStep::FrictionalContactStep *contact_step;
    const bool projects_positions;
    const double penetration_tolerance;
    Postprocess::EventLog &events;
    dealii::ConditionalOStream &log;
    MPI_Comm communicator;

    double end_of_step_min_gap = 0, lowest_gap = std::numeric_limits<double>::infinity();
    unsigned int n_projection_steps = 0, n_projection_warnings = 0;
    unsigned int n_positive_work_warnings = 0, n_unconverged_steps = 0;
    /// Steps in a row with an active contact, now and at most.
    unsigned int contact_streak = 0, longest_streak = 0;
    bool stopped_by_policy = false;
  };
} // namespace percussion

#endif
