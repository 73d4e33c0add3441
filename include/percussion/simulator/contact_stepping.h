#ifndef PERCUSSION_SIMULATOR_CONTACT_STEPPING_H
#define PERCUSSION_SIMULATOR_CONTACT_STEPPING_H

#include <deal.II/lac/petsc_vector.h>

#include <percussion/body/elastic_body.h>
#include <percussion/contact/contact_geometry.h>
#include <percussion/contact_solvers/solver_options.h>
#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/postprocess/energy_audit.h>
#include <percussion/simulator/adaptive_step_policy.h>
#include <percussion/simulator/run_parameters.h>
#include <percussion/simulator/run_report.h>
#include <percussion/time_integration/time_integrator.h>

#include <memory>
#include <vector>

#include <mpi.h>

namespace percussion
{
  /**
   * Replaces the contact solver's options for the time it lives (a retry with other settings) and
   * puts the configured ones back when it ends, also when the retry throws.
   */
  class SolverOptionsOverride
  {
  public:
    explicit SolverOptionsOverride(ContactSolvers::SolverOptions &options)
      : options(options)
      , configured(options)
    {
    }
    ~SolverOptionsOverride() { options = configured; }
    SolverOptionsOverride(const SolverOptionsOverride &) = delete;
    SolverOptionsOverride &operator=(const SolverOptionsOverride &) = delete;

    /// The options in force (to be changed).
    ContactSolvers::SolverOptions &options;
    /// The options as configured (restored at the end).
    const ContactSolvers::SolverOptions configured;
  };

  /**
   * The contact part of a run with contact pairs: sets up the contact geometry and the frictional
   * contact step from the parameters, checks the initial state for overlaps, and in each step
   * computes the geometry at q_k, solves the frictional contact problem (the impulse goes into the
   * integrator) and checks the end-of-step gaps with the optional position projection; it also
   * observes the contacts for the adaptive steps. Each part adds its wall-clock seconds to the
   * run's timings.
   */
  template <int dim>
  class ContactStepping
  {
  public:
    using Geometry = Contact::ContactGeometry<dim>;

    /**
     * The geometry of the parameters' contact pairs on @p bodies, and the contact step of the
     * scheme's @p law; @p smallest_cell scales the tolerances. The phases add their seconds to
     * @p timings.
     */
    ContactStepping(const RunParameters &parameters, const Body::ElasticBody<dim> &bodies, ContactLaws::ContactLaw law,
                    double smallest_cell, RunTimings &timings, MPI_Comm communicator);

    /**
     * The geometry of the initial displacement @p q0 at the start time (the first step reuses its
     * H). @throws InputError, on every rank, when a slave node starts inside its obstacle or
     * master surface by more than the position projection's tolerance ('Contact
     * solver/Penetration tolerance' × the smallest cell diameter), naming the pair, the slave
     * surface and its body, the depth and the deepest node. Collective.
     */
    void start(const dealii::PETScWrappers::MPI::Vector &q0);

    /// H(q_k), gaps, frames and the owned contact points of the step (at step 0 start()'s).
    void update_geometry(const TimeIntegration::TimeIntegrator &integrator);
    /// The step's frictional contact problem and its impulse (FrictionalContactStep::solve), with
    /// the audit's scale of the energies. Collective.
    void solve(TimeIntegration::TimeIntegrator &integrator, const Postprocess::EnergyAudit &audit);
    /// Whether the step's contact problem was posed and not solved.
    bool unsolved() const;
    /**
     * The step's contact problem again, with NSGS and ten times the iterations (the configured
     * solver options are back afterwards): the attempt's per-contact dissipation is taken back
     * and the free velocity computed anew (not timed). Collective.
     */
    void solve_again_with_nsgs(TimeIntegration::TimeIntegrator &integrator, const Postprocess::EnergyAudit &audit);
    /// Takes the last solve back (its per-contact dissipation), before the step is made in halves.
    void discard_last_solve() { contact_step->discard_last_solve(); }
    /// The end-of-step gaps and the optional position projection, which may add at most what
    /// allowed_projection_energy() says. Collective.
    void check_positions(TimeIntegration::TimeIntegrator &integrator, const Postprocess::EnergyAudit &audit);

    /// The smallest gap of the geometry's candidates (the search distance without any). Collective.
    double smallest_candidate_gap() const;
    /// The smallest end-of-step gap of the last check_positions() (the search distance without candidates).
    double end_of_step_min_gap() const;
    /**
     * Adaptive steps, after update_geometry(): the shortest time in which an open candidate's gap
     * g closes at its normal velocity u_N (g / −u_N), infinite where none closes. Collective.
     */
    double closing_time(const TimeIntegration::TimeIntegrator &integrator) const;
    /// Adaptive steps, at the end of a step of size @p h: the active contacts (a count and a hash
    /// of their keys, the same on any partition) and the normal force. Collective.
    ContactObservation observe(double h) const;

    Geometry &geometry() { return *contact_geometry; }
    const Geometry &geometry() const { return *contact_geometry; }
    ContactStep::FrictionalContactStep &step() { return *contact_step; }
    /// The last step's contact result and end-of-step projection.
    const ContactStep::ContactStepResult &result() const { return contact_result; }
    const ContactStep::PositionProjectionResult &projection() const { return projection_result; }
    /// Whether the end-of-step position projection is on ('Contact solver/Position projection').
    bool projects_positions() const { return projects; }
    /// Absolute penetration tolerance: 'Penetration tolerance' × the smallest cell diameter.
    double penetration_tolerance() const { return tolerance; }

  private:
    /// The most energy the step's position projection may add: what the step took out before it
    /// (E_k + W_ext − E_{k+1}, where positive) plus 'Contact solver/Projection energy tolerance' ×
    /// the energy scale (the audit's, and the step's new energy).
    double allowed_projection_energy(const TimeIntegration::TimeIntegrator &integrator,
                                     const Postprocess::EnergyAudit &audit) const;
    /// start()'s check of the initial gaps. Collective.
    void check_initial_overlap() const;

    const RunParameters &parameters;
    const Body::ElasticBody<dim> &bodies;
    RunTimings &timings;
    MPI_Comm communicator;
    std::unique_ptr<Geometry> contact_geometry;
    std::unique_ptr<ContactStep::FrictionalContactStep> contact_step;
    double tolerance = 0;
    bool projects = false;
    ContactStep::ContactStepResult contact_result;
    std::vector<ContactStep::OwnedContactPoint> contact_points;
    ContactStep::PositionProjectionResult projection_result;
    /// q_k during a step, then q_{k+1} − q_k (for the end-of-step gaps).
    dealii::PETScWrappers::MPI::Vector displacement_increment;
  };
} // namespace percussion

#endif
