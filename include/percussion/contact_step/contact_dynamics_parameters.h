#ifndef PERCUSSION_CONTACT_STEP_CONTACT_DYNAMICS_PARAMETERS_H
#define PERCUSSION_CONTACT_STEP_CONTACT_DYNAMICS_PARAMETERS_H

#include <deal.II/base/parameter_handler.h>

#include <percussion/contact_solvers/solver_options.h>
#include <percussion/contact_step/scheme_contact_settings.h>

#include <string>
#include <vector>

namespace percussion::ContactStep
{
  /// 'Non-convergence policy': what a step whose contact problem is not solved to the tolerance
  /// does.
  enum class NonConvergencePolicy
  {
    continue_run, ///< "continue": report it and go on
    stop,         ///< "stop": write a checkpoint and stop with an error
    retry         ///< "retry": solve the step again with halved steps ('Retry step halvings')
  };

  /// 'Delassus operator': how W = Hᵀ𝒯H enters the step's problem.
  enum class DelassusOperatorChoice
  {
    automatic, ///< "auto": by the number of contacts (FrictionalContactStep::choose_operator())
    dense,     ///< "dense": DenseDelassusOperator
    probed     ///< "probed": ProbedDelassusOperator (2D/3D)
  };

  /// 'Projection metric': the metric in which the position projection moves the bodies.
  enum class ProjectionMetric
  {
    adaptive, ///< "adaptive": the impulse response 𝒯 where an impact left the penetration beside a lasting contact,
              ///< else quasi-static
    quasi_static,    ///< "quasi-static": 𝒫 = K + M/T² (QuasiStaticMetric)
    iteration_matrix ///< "iteration matrix": the scheme's own impulse response
  };

  /// `subsection Contact solver`: how each step's frictional contact problem is solved and audited.
  struct ContactDynamicsParameters
  {
    ContactSolvers::SolverKind solver = ContactSolvers::SolverKind::alart_curnier;
    double tolerance = 1e-10;
    unsigned int max_iterations = 200;
    /// When a step's contact problem is not solved to the tolerance.
    NonConvergencePolicy non_convergence_policy = NonConvergencePolicy::continue_run;
    unsigned int retry_step_halvings = 2;
    /// Write the contact problem of a step that did not converge to an FCLIB file.
    bool write_fclib_on_failure = true;
    /// Steps whose contact problem is written to <output>/contact_problem_<step>.hdf5.
    std::vector<unsigned int> write_fclib_steps;
    /// When the Frémond scheme runs with θ outside [½, 1/(1+max e)].
    DissipationRangePolicy dissipation_range_policy = DissipationRangePolicy::warn;
    /// Keep Ŵ⁻¹H for all candidate contacts when there are at most this many columns.
    unsigned int delassus_column_limit = 1500;
    /// How W = Hᵀ𝒯H enters the step's problem (doc/contact.md,
    /// "Many contacts"): dense columns 𝒯H (DelassusColumns), or the probed sparse approximation
    /// with exact products in an outer iteration (ProbedDelassus).
    DelassusOperatorChoice delassus_operator = DelassusOperatorChoice::automatic;
    /// auto: the probed operator when dim × active contacts exceeds this.
    unsigned int probed_operator_threshold = 600;
    /// auto, when H moves (changed at this solve and the one before): the probed operator when
    /// dim × active contacts exceeds this.
    unsigned int moving_operator_threshold = 96;
    /// 'Body compliance': the dense columns take the body-compliance form where H moves
    /// (DelassusColumns, BodyCompliance).
    bool body_compliance = true;
    /// R of ProbedDelassus, in node spacings; 0: auto (probing_radius_for()).
    double probing_radius = 0;

    /// The radius to use: probing_radius, or for auto 7 with rigid obstacles only (H fixed: a
    /// larger R saves an exact product per lasting-contact step) and 5 with a body pair (H moves:
    /// W_s = HᵀGH, whose entries grow like R², is made again at every step).
    double probing_radius_for(bool has_body_pair) const
    {
      return probing_radius > 0 ? probing_radius : has_body_pair ? 5.0 : 7.0;
    }
    /// Outer iterations (exact products W p) of the probed operator's solve at most.
    unsigned int probed_operator_max_iterations = 30;
    /// Whether to project the end-of-step displacement back onto g ≥ 0 where a contact
    /// penetrates beyond the tolerance (FrictionalContactStep::project_positions()).
    PositionProjection position_projection = PositionProjection::automatic;
    /// The most energy one position projection may add (after the velocity's share) beyond what
    /// its step dissipated before it, relative to the energy scale: a correction that would add
    /// more is scaled back (PositionProjector::energy_safe_correction(),
    /// ContactStepping::allowed_projection_energy()); 1 bounds nothing in practice.
    double projection_energy_tolerance = 1e-8;
    /// The position projection's metric (ProjectionMetric).
    ProjectionMetric projection_metric = ProjectionMetric::adaptive;
    /// Penetration tolerance of the projection, relative to the smallest cell diameter.
    double penetration_tolerance = 1e-6;

    static void declare_parameters(dealii::ParameterHandler &prm);
    void parse_parameters(dealii::ParameterHandler &prm);
  };
} // namespace percussion::ContactStep

#endif
