#include <deal.II/base/utilities.h>

#include <percussion/contact_solvers/solve.h>
#include <percussion/contact_step/contact_dynamics_parameters.h>
#include <percussion/core/exceptions.h>
#include <percussion/core/name_table.h>

namespace percussion::ContactStep
{
  namespace
  {
    // The names of the choices, as the parameter entries spell them (their Selection patterns too).
    constexpr NameTable<NonConvergencePolicy, 3> non_convergence_policies{
      {{NonConvergencePolicy::continue_run, "continue"},
       {NonConvergencePolicy::stop, "stop"},
       {NonConvergencePolicy::retry, "retry"}}};
    constexpr NameTable<DissipationRangePolicy, 2> dissipation_range_policies{
      {{DissipationRangePolicy::warn, "warn"}, {DissipationRangePolicy::refuse, "refuse"}}};
    constexpr NameTable<DelassusOperatorChoice, 3> delassus_operators{{{DelassusOperatorChoice::automatic, "auto"},
                                                                       {DelassusOperatorChoice::dense, "dense"},
                                                                       {DelassusOperatorChoice::probed, "probed"}}};
    constexpr NameTable<PositionProjection, 3> position_projections{
      {{PositionProjection::automatic, "auto"}, {PositionProjection::on, "on"}, {PositionProjection::off, "off"}}};
    constexpr NameTable<ProjectionMetric, 3> projection_metrics{
      {{ProjectionMetric::adaptive, "adaptive"},
       {ProjectionMetric::quasi_static, "quasi-static"},
       {ProjectionMetric::iteration_matrix, "iteration matrix"}}};
  } // namespace

  namespace
  {
    /// The entries of the contact solver and its failure policy.
    void declare_solver_entries(dealii::ParameterHandler &prm)
    {
      using namespace dealii::Patterns;
      prm.declare_entry("Solver", "alart_curnier", Selection("alart_curnier|alart_curnier_pure|proximal_point|nsgs"),
                        "Solver of each step's frictional contact problem: 'alart_curnier' (semismooth "
                        "Newton on the Alart-Curnier function with line search, falling back to NSGS "
                        "and, for singular Delassus operators, to the proximal-point loop when it "
                        "stalls), 'alart_curnier_pure' (no fallback), 'proximal_point' (the "
                        "proximal-point loop alone: sub-problems W + alpha D, for rank-deficient "
                        "problems; doc/contact_solvers.md), 'nsgs' (nonsmooth Gauss-Seidel).");
      prm.declare_entry("Tolerance", "1e-10", Double(0, 1),
                        "Tolerance on the normalised FCLIB/Siconos residual of the contact problem.");
      prm.declare_entry("Max iterations", "200", Integer(1),
                        "Iteration limit of the contact solver (Newton iterations or NSGS sweeps).");
      prm.declare_entry("Non-convergence policy", "continue", Selection(names_pattern(non_convergence_policies)),
                        "When a step's contact problem is not solved to the tolerance: report it and "
                        "'continue' with the best iterate, 'stop' the run (after writing the "
                        "output of the last step), or 'retry': solve it again with NSGS (10 times "
                        "'Max iterations' sweeps), and if that fails too, redo the step as two steps "
                        "of h/2 (the iteration matrix of h/2 factorised once and kept), each of them "
                        "retried the same way, down to h/2^'Retry step halvings'; then the nominal h "
                        "again. What still fails is continued with the best iterate. Every retry is "
                        "a row of events.csv. Moreau-Jean schemes only.");
      prm.declare_entry("Retry step halvings", "2", Integer(1, 10),
                        "With 'Non-convergence policy' = retry: how many times a step may be halved.");
      prm.declare_entry("Write FCLIB on failure", "true", Bool(),
                        "Write the contact problem of a step that did not converge to "
                        "<Output/Directory>/contact_problem_<step>.hdf5 (FCLIB local form).");
      prm.declare_entry("Write FCLIB at steps", "", List(Integer(1)),
                        "Steps whose contact problem is written to <Output/Directory>/"
                        "contact_problem_<step>.hdf5, to share hard steps with other codes.");
      prm.declare_entry("Dissipation range policy", "warn", Selection(names_pattern(dissipation_range_policies)),
                        "The Frémond scheme provably dissipates energy for 1/2 <= theta <= 1/(1+max e) "
                        "(paper Proposition 1). Outside that range: 'warn' and run, or 'refuse' to run.");
    }

    /// The entries of the Delassus operator's forms (dense, probed, body compliance).
    void declare_operator_entries(dealii::ParameterHandler &prm)
    {
      using namespace dealii::Patterns;
      prm.declare_entry("Delassus column limit", "1500", Integer(1),
                        "Keep W^-1 H for all candidate contacts (reused while H does not change, "
                        "e.g. fixed obstacles) when dim x candidates is at most this; otherwise only "
                        "the active contacts' columns are computed each step. With 'Body compliance' "
                        "it also bounds the DoFs of each body's support.");
      prm.declare_entry("Delassus operator", "auto", Selection(names_pattern(delassus_operators)),
                        "How the step's Delassus operator W = H^T W^-1 H enters the contact problem "
                        "(doc/contact.md, 'Many contacts'). 'dense': the columns W^-1 H of the contacts "
                        "(one solve per column, cached while H does not change) and a dense W: exact, "
                        "best for up to a few hundred contacts. 'probed': a sparse approximation "
                        "H^T G H, G ~ W^-1 between contact DoFs closer than 'Probing radius', obtained "
                        "once per factorisation with one solve per colour of the contact DoFs, and an "
                        "outer iteration that corrects it with the exact product W p (one solve each) "
                        "until the exact problem is solved to 'Tolerance': cost and memory linear in "
                        "the number of contacts. 'auto': 'probed' when dim x active contacts exceeds "
                        "'Probed operator threshold' (in 2D and 3D), else 'dense'; once probed, it "
                        "stays probed while the active set shrinks on a fixed H (a body lifting off a "
                        "rigid obstacle) or the dense path would compute more columns than that "
                        "threshold. 1D always uses 'dense' (a 1D model has at most a few contacts).");
      prm.declare_entry("Body compliance", "true", Bool(),
                        "Where H changes from step to step (contacts between bodies) and the bodies "
                        "have frames (large rotations): keep each body's compliance W^-1 on the DoFs "
                        "where contacts act on it, in its frame, computed once per step size (the "
                        "solves shared among the bodies) and extended as contacts reach new nodes; "
                        "W = H^T W^-1 H is then formed without a solve, block-sparse by body (posed "
                        "sparse when at most a quarter of it is nonzero), and the impulse's response "
                        "takes one solve; with 'Delassus operator = auto' it is used for any number of "
                        "contacts while no body's support exceeds 'Probed operator threshold' DoFs "
                        "(doc/contact.md, 'Many bodies'). false: the columns W^-1 H of the active "
                        "contacts are solved for at every step.");
      prm.declare_entry("Probed operator threshold", "600", Integer(0),
                        "With 'Delassus operator = auto': the probed operator is used when dim x the "
                        "number of active contacts exceeds this (measured crossover, doc/contact.md).");
      prm.declare_entry("Moving operator threshold", "96", Integer(0),
                        "With 'Delassus operator = auto', when H changes from step to step (body "
                        "pairs) and the dense path computes the columns of every active contact at "
                        "every step (no 'Body compliance'): the probed operator is used when dim x "
                        "the number of active contacts exceeds this (measured crossover, "
                        "doc/contact.md).");
      prm.declare_entry("Probing radius", "auto", Anything(),
                        "Radius R of the probed operator in node spacings (smallest cell edge / "
                        "degree), a number in [0.5, 10] or auto: entries of W^-1 between contact DoFs "
                        "closer than R are kept. Larger: fewer outer iterations, more probing solves "
                        "(about dim x (2R+1)^(dim-1)) and more work per step where H moves. auto: 7 "
                        "when every pair is a rigid obstacle (H fixed), 5 with a body pair (measured, "
                        "doc/contact.md).");
      prm.declare_entry("Probed operator iterations", "30", Integer(1),
                        "Outer iterations (exact products W p, one solve each) of the probed operator "
                        "at most, not counting the approximate start where H moved (a body pair; "
                        "doc/contact.md); a step that reaches it is reported as not solved.");
    }

    /// The entries of the end-of-step position projection.
    void declare_projection_entries(dealii::ParameterHandler &prm)
    {
      using namespace dealii::Patterns;
      prm.declare_entry("Position projection", "auto", Selection(names_pattern(position_projections)),
                        "Velocity-level schemes hold the contact velocities, not the gaps: an impact "
                        "step leaves a penetration up to h |u_N| (h/2 |u_N| at theta = 1/2) that the "
                        "law would then keep. 'on': after each step whose end gap is below -tolerance, "
                        "the displacement is projected back onto g >= 0 (Acary 2013, direct "
                        "projection) in the metric 'Projection metric'; velocities are not changed "
                        "and the strain-energy change is the statistics column projection_energy. "
                        "'auto': on for the Moreau-Jean schemes, off for the generalized-alpha family "
                        "and Schatzman-Paoli (position level, for which 'on' is an input error).");
      prm.declare_entry("Projection metric", "adaptive", Selection(names_pattern(projection_metrics)),
                        "The metric P of the position projection, min 1/2 dq^T P dq subject to g >= 0. "
                        "quasi-static: P = K + M/T^2 with T = 100 x the slowest wave's transit of the "
                        "mesh's bounding box, factorised once at the first projection: a body moves "
                        "as a whole where it can and deforms as under a static load where it cannot, "
                        "so the projection changes the strain energy by almost nothing. iteration "
                        "matrix: the scheme's own (M + h theta C + h^2 theta^2 K for Moreau-Jean), no "
                        "further factorisation, but mass-dominated: it moves the contact nodes alone "
                        "and stores strain energy (doc/contact.md, measured). adaptive: the "
                        "iteration matrix where a contact that was not in lasting contact penetrates "
                        "(an impact: what an impulse within the step would have prevented), "
                        "quasi-static where only contacts in lasting contact drifted under load.");
      prm.declare_entry("Projection energy tolerance", "1e-8", Double(0, 1),
                        "The most energy a position projection may add beyond what its step took out "
                        "before it (the impact's dissipation), relative to the energy scale (the largest "
                        "energy and cumulated work of the run so far), after the velocity has given up "
                        "what it holds along the correction: a correction that would add more is taken "
                        "in the quasi-static metric where that adds less, and scaled back to the "
                        "fraction that adds no more; the rest of the penetration is held by the "
                        "lasting-contact law (its gap does not decrease). 1 bounds nothing in practice.");
      prm.declare_entry("Penetration tolerance", "1e-6", Double(0),
                        "Gaps below -tolerance x (smallest cell diameter) at the end of a step trigger "
                        "the position projection; the contacts with gaps below +tolerance x (smallest "
                        "cell diameter) take part in it. A slave node whose gap is below -tolerance x "
                        "(smallest cell diameter) at the start (bodies that start inside an obstacle "
                        "or each other) is an input error.");
    }
  } // namespace

  void ContactDynamicsParameters::declare_parameters(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Contact solver");
    declare_solver_entries(prm);
    declare_operator_entries(prm);
    declare_projection_entries(prm);
    prm.leave_subsection();
  }

  void ContactDynamicsParameters::parse_parameters(dealii::ParameterHandler &prm)
  {
    prm.enter_subsection("Contact solver");
    solver = *ContactSolvers::solver_kind_from_name(prm.get("Solver")); // a name of the Selection
    tolerance = prm.get_double("Tolerance");
    max_iterations = prm.get_integer("Max iterations");
    non_convergence_policy =
      value_of(non_convergence_policies, prm.get("Non-convergence policy"), "Contact solver/Non-convergence policy");
    retry_step_halvings = prm.get_integer("Retry step halvings");
    write_fclib_on_failure = prm.get_bool("Write FCLIB on failure");
    write_fclib_steps.clear();
    for (const int s :
         dealii::Utilities::string_to_int(dealii::Utilities::split_string_list(prm.get("Write FCLIB at steps"), ',')))
      write_fclib_steps.push_back(s);
    dissipation_range_policy = value_of(dissipation_range_policies, prm.get("Dissipation range policy"),
                                        "Contact solver/Dissipation range policy");
    delassus_column_limit = prm.get_integer("Delassus column limit");
    delassus_operator = value_of(delassus_operators, prm.get("Delassus operator"), "Contact solver/Delassus operator");
    probed_operator_threshold = prm.get_integer("Probed operator threshold");
    moving_operator_threshold = prm.get_integer("Moving operator threshold");
    body_compliance = prm.get_bool("Body compliance");
    {
      const std::string radius = dealii::Utilities::trim(prm.get("Probing radius"));
      if (radius == "auto")
        probing_radius = 0;
      else
        {
          std::size_t used = 0;
          double value = 0;
          try
            {
              value = std::stod(radius, &used);
            }
          catch (const std::exception &)
            {
              used = 0;
            }
          if (used == 0 || used != radius.size() || !(value >= 0.5 && value <= 10))
            throw InputError("Parameter 'Contact solver/Probing radius' = '" + radius +
                             "': expected auto or a number in [0.5, 10] (node spacings).");
          probing_radius = value;
        }
    }
    probed_operator_max_iterations = prm.get_integer("Probed operator iterations");
    position_projection =
      value_of(position_projections, prm.get("Position projection"), "Contact solver/Position projection");
    projection_metric = value_of(projection_metrics, prm.get("Projection metric"), "Contact solver/Projection metric");
    penetration_tolerance = prm.get_double("Penetration tolerance");
    projection_energy_tolerance = prm.get_double("Projection energy tolerance");
    prm.leave_subsection();
    if (!(tolerance > 0))
      throw InputError("Parameter 'Contact solver/Tolerance' must be positive.");
  }
} // namespace percussion::ContactStep
