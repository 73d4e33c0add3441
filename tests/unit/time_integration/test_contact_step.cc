// Requirement: the frictional contact step (FrictionalContactStep), run between
// compute_free_velocity() and finish_step() of a scheme on a 1–2 DoF system with a contact
// operator H given directly as a PETSc matrix (no mesh, no contact geometry), solves the law the
// header documents:
//  - frictionless impact with the standard law: p_N = −(u_free,N + e u_N,k)/W_NN, u_N,k+1 = −e u_N,k;
//  - Coulomb friction in 2D, sticking and sliding, for the standard law (on u_{k+1}) and the
//    Frémond law (on u_{k+θ}), against the cone solution written by hand (W = HᵀŴ⁻¹H non-diagonal);
//  - v_{k+1} = v_free + Ŵ⁻¹Hp, the works of (59) u_{k+θ}ᵀp (normal and tangential), the obstacles'
//    work −wᵀp, and the scheme's contact work v_{k+θ}ᵀHp in its closed energy balance;
//  - the 1D embedding (dim = 1) and the Schatzman–Paoli position-level law;
//  - no problem when the contact is open and separating;
//  - project_positions(): a penetrated end-of-step gap is projected back (min gap after ≥
//    −tolerance, in fact 0) with δq = 𝒫⁻¹H_N p̃, p̃ = −g/W_NN, and the returned energy change
//    equals the strain-energy change; nothing moves with the projection off.
#define BOOST_TEST_MODULE time_integration_contact_step
#include "../../mpi_test_fixture.h"

#include "small_system_tools.h"

#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/core/linear_solver_parameters.h>
#include <percussion/time_integration/moreau_jean_integrator.h>
#include <percussion/time_integration/nonsmooth_generalized_alpha_integrator.h>
#include <percussion/time_integration/schatzman_paoli_integrator.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <string>

using namespace small_system;
using namespace percussion;
using namespace percussion::ContactStep;
using namespace percussion::TimeIntegration;

namespace
{
  const double h = 0.01;
  // A 2-DoF system with non-diagonal M and K (so that W = HᵀŴ⁻¹H is non-diagonal in the contact
  // frame) and a constant force.
  const Dense mass{{2.0, 0.3}, {0.3, 1.5}};
  const Dense stiffness{{40.0, -10.0}, {-10.0, 30.0}};
  const DVec force{0.5, -2.0};
  const DVec q_start{0.0, 0.0};

  // Contact frame of a plane tilted by 0.3 rad: H = [n t], one column per local component.
  const double angle = 0.3;
  const DVec normal{std::sin(angle), std::cos(angle)}, tangent{std::cos(angle), -std::sin(angle)};
  const Dense H_frame{{normal[0], tangent[0]}, {normal[1], tangent[1]}};

  LinearSolverParameters direct_solver()
  {
    LinearSolverParameters p;
    p.type = LinearSolverType::direct;
    return p;
  }

  ContactDynamicsParameters contact_parameters()
  {
    ContactDynamicsParameters p;
    // The solver stops at this FCLIB error; a one-contact Newton solve ends far below it.
    p.tolerance = 1e-12;
    return p;
  }

  // Tolerances. The impulses come from the contact solver stopped at the relative error 1e-12 of
  // the FCLIB measure (velocity-scaled) with cond(W) ≈ 3: relative errors ≲ 1e-11 in p and in
  // the law's velocities; 1e-9 keeps a margin without letting a wrong law pass (the laws differ
  // by O(1) here). The states and the integrator are exact to round-off (1e-12 as in
  // test_integrators.cc).
  const double impulse_tolerance = 1e-9;
  const double state_tolerance = 1e-12;

  /// A candidate contact point with its index, key and gap (the rest default).
  OwnedContactPoint candidate(const unsigned int index, const unsigned long long key, const double gap)
  {
    OwnedContactPoint point;
    point.global_index = index;
    point.key = key;
    point.gap = gap;
    return point;
  }

  double relative(const double a, const double b)
  {
    return std::abs(a - b) / std::abs(b);
  }

  /// The hand solution of the one-contact 2D Coulomb problem w = A p + b, K* ∋ w + (μ|w_T|, 0) ⊥ p ∈ K.
  struct Coulomb
  {
    DVec p;
    ContactState state = ContactState::open;
  };

  Coulomb coulomb_2d(const Dense &A, const DVec &b, const double mu)
  {
    Coulomb c;
    if (b[0] >= 0)
      {
        c.p = {0.0, 0.0};
        return c; // open: the free velocity already satisfies the law
      }
    // Stick: w = 0, p strictly inside the cone.
    const DVec p_stick = solve(A, lin(-1.0, b, 0.0, b));
    if (p_stick[0] > 0 && std::abs(p_stick[1]) < mu * p_stick[0])
      {
        c.p = p_stick;
        c.state = ContactState::stick;
        return c;
      }
    // Slip in direction s: p_T = −sμp_N, w_N = 0, s·w_T > 0.
    for (const double s : {1.0, -1.0})
      {
        const double p_n = -b[0] / (A[0][0] - s * mu * A[0][1]);
        const double p_t = -s * mu * p_n;
        const double w_t = A[1][0] * p_n + A[1][1] * p_t + b[1];
        if (p_n > 0 && s * w_t > 0)
          {
            c.p = {p_n, p_t};
            c.state = ContactState::slip;
            return c;
          }
      }
    throw std::runtime_error("coulomb_2d: no solution found");
  }

  struct Case
  {
    std::string name;
    ContactLaw law = ContactLaw::standard;
    double theta = 0.5, e = 0, mu = 0;
    DVec v_start;
    DVec w{0.0, 0.0}; ///< obstacle velocity offset (local frame)
    ContactState expected_state = ContactState::stick;
  };

  /**
   * The works of the step @p r (paper (59)) against the hand values from u_free, W and the hand
   * impulse @p p: normal and tangential parts of u_{k+θ}ᵀp, the obstacle's −wᵀp, no positive work
   * for the Frémond law (Proposition 1) and the dissipated energy. Returns the hand normal and
   * tangential works.
   */
  std::pair<double, double> check_works(const Case &c, const ContactStepResult &r, FrictionalContactStep &step,
                                        const OwnedContactPoint &point, const DVec &u_k, const DVec &u_free,
                                        const Dense &W, const DVec &p)
  {
    // Works of (59) with the hand values: u_{k+θ}ᵀp split into normal and tangential parts;
    // the obstacle's part −wᵀp.
    const DVec u_new_hand = lin(1.0, u_free, 1.0, matvec(W, p));
    const DVec u_theta_hand = lin(1 - c.theta, u_k, c.theta, u_new_hand);
    const double work_scale = norm(u_k) * norm(p);
    const double work_normal = u_theta_hand[0] * p[0];
    const double work_tangential = u_theta_hand[1] * p[1];
    BOOST_TEST(std::abs(r.work_normal - work_normal) <= impulse_tolerance * work_scale);
    BOOST_TEST(std::abs(r.work_tangential - work_tangential) <= impulse_tolerance * work_scale);
    BOOST_TEST(std::abs(r.obstacle_work + dot(c.w, p)) <= impulse_tolerance * work_scale);
    if (c.law == ContactLaw::fremond) // Proposition 1: ≤ 0 in the range ½ ≤ θ ≤ 1/(1+e)
      BOOST_TEST(r.n_positive_work == 0u);
    BOOST_TEST(std::abs(step.dissipated_energy({point})[0] + work_normal + work_tangential) <=
               impulse_tolerance * work_scale);
    return {work_normal, work_tangential};
  }

  /// Runs one Moreau–Jean step with the contact step on the 2-DoF system and checks it by hand.
  void check_2d_case(const Case &c)
  {
    BOOST_TEST_CONTEXT(c.name)
    {
      const SmallSystem s(mass, stiffness, 0.1, 1e-3, force);
      TimeIntegrationParameters tp;
      tp.scheme = c.law == ContactLaw::fremond ? Scheme::moreau_jean_fremond : Scheme::moreau_jean_standard;
      tp.theta = c.theta;
      tp.time_step = h;
      MoreauJeanIntegrator integrator(s.system, tp, direct_solver(), s.owned(), MPI_COMM_SELF);
      integrator.initialize(0.0, petsc_vector(q_start), petsc_vector(c.v_start));

      const auto H = petsc_matrix(H_frame);
      const DVec u_k = lin(1.0, tmatvec(H_frame, c.v_start), 1.0, c.w);
      OwnedContactPoint point;
      point.global_index = 0;
      point.key = 7;
      point.mu = c.mu;
      point.e = c.e;
      point.gap = 0.0; // touching: in the active set whatever the velocities
      point.position = {{1.0, 2.0, 0.0}};

      // By hand: Ŵ, v_free, u_free, W, the law's (A, b) and its Coulomb solution.
      const MoreauJeanStep free_step(s, h, c.theta, q_start, c.v_start);
      const Dense X = solve_columns(free_step.W_hat, H_frame); // Ŵ⁻¹H
      const Dense W = tmatmat(H_frame, X);
      const DVec u_free = lin(1.0, tmatvec(H_frame, free_step.v_free), 1.0, c.w);
      Dense A = W;
      DVec b = u_free;
      if (c.law == ContactLaw::standard)
        b[0] += c.e * u_k[0];
      else
        {
          A = lin(c.theta, W, 0.0, W);
          b = {c.theta * (u_free[0] + c.e * u_k[0]), c.theta * u_free[1] + (1 - c.theta) * u_k[1]};
        }
      const Coulomb expected = coulomb_2d(A, b, c.mu);
      BOOST_REQUIRE(expected.state == c.expected_state); // the case exercises what it says

      FrictionalContactStep step(contact_parameters(), c.law, 2, 0.5, MPI_COMM_SELF);
      integrator.compute_free_velocity();
      BOOST_TEST(relative_error(to_std(integrator.new_velocity()), free_step.v_free) <= state_tolerance);
      const ContactStepResult r = step.solve(integrator, *H, petsc_vector(c.w), true, {point}, petsc_vector(u_k));

      BOOST_TEST(r.solved);
      BOOST_TEST(r.n_active == 1u);
      BOOST_TEST(r.n_penetrated_left_out == 0u);
      BOOST_TEST((r.solver.status == ContactSolvers::SolverStatus::converged));
      const DVec p{r.impulse[0], r.impulse[1]};
      const double error_p = relative_error(p, expected.p);
      BOOST_TEST(error_p <= impulse_tolerance);
      BOOST_TEST((r.state[0] == expected.state));
      BOOST_TEST(r.normal_impulse == p[0]);

      // v_{k+1} = v_free + Ŵ⁻¹Hp with the hand p.
      const DVec v_new = lin(1.0, free_step.v_free, 1.0, matvec(X, expected.p));
      // (Relative to the velocity scale ‖v_k‖: v_{k+1} itself is 0 when sticking with e = 0 and
      // H invertible.)
      const double error_v = norm(lin(1.0, to_std(integrator.new_velocity()), -1.0, v_new)) / norm(c.v_start);
      BOOST_TEST(error_v <= impulse_tolerance);

      // The law's velocities from the integrator's new velocity.
      const DVec u_new = lin(1.0, tmatvec(H_frame, to_std(integrator.new_velocity())), 1.0, c.w);
      const DVec u_theta = lin(1 - c.theta, u_k, c.theta, u_new);
      const double u_scale = norm(u_k);
      // Normal: u_N,k+1 + e u_N,k = 0 for both laws (the contact is approaching).
      BOOST_TEST(std::abs(u_new[0] + c.e * u_k[0]) <= impulse_tolerance * u_scale);
      if (expected.state == ContactState::stick)
        {
          // Standard: u_T,k+1 = 0; Frémond: u_T,k+θ = 0.
          const double slip = c.law == ContactLaw::standard ? u_new[1] : u_theta[1];
          BOOST_TEST(std::abs(slip) <= impulse_tolerance * u_scale);
        }
      else
        BOOST_TEST(std::abs(p[1]) == c.mu * p[0], boost::test_tools::tolerance(impulse_tolerance));
      for (unsigned int k = 0; k < 2; ++k)
        BOOST_TEST(std::abs(r.velocity[k] - u_theta[k]) <= impulse_tolerance * u_scale);

      const auto [work_normal, work_tangential] = check_works(c, r, step, point, u_k, u_free, W, expected.p);
      const double work_scale = norm(u_k) * norm(expected.p);

      // The scheme's contact work v_{k+θ}ᵀHp = (u_{k+θ} − w)ᵀp = the three works, and its balance closes.
      const double E0 = SmallSystem::half_norm(s.M, c.v_start);
      integrator.finish_step();
      const StepEnergy &e = integrator.last_step_energy();
      BOOST_TEST(std::abs(e.contact_work - (r.work_normal + r.work_tangential + r.obstacle_work)) <=
                 1e-12 * work_scale);
      BOOST_TEST(std::abs(e.residual) <= 1e-13 * (E0 + std::abs(e.contact_work) + std::abs(e.external_work)));
      std::cout << c.name << ": |p - hand|/|p| = " << error_p << ", |v - hand|/|v_k| = " << error_v << ", p = (" << p[0]
                << ", " << p[1] << "), work N " << r.work_normal << " (hand " << work_normal << "), T "
                << r.work_tangential << " (hand " << work_tangential << "), solver error " << r.solver.error
                << ", balance residual " << e.residual << std::endl;
    }
  }
} // namespace

BOOST_AUTO_TEST_CASE(frictionless_impact_standard_law)
{
  // μ = 0: p_T = 0 and p_N = −(u_free,N + e u_N,k)/W_NN.
  for (const double e : {0.0, 0.5})
    {
      Case c;
      c.name = "frictionless standard e = " + std::to_string(e);
      c.law = ContactLaw::standard;
      c.e = e;
      c.mu = 0;
      c.v_start = {0.4, -1.0};
      c.expected_state = ContactState::slip;
      check_2d_case(c);

      // The closed form above, independently of the generic hand solver.
      const SmallSystem s(mass, stiffness, 0.1, 1e-3, force);
      const MoreauJeanStep free_step(s, h, 0.5, q_start, c.v_start);
      const Dense W = tmatmat(H_frame, solve_columns(free_step.W_hat, H_frame));
      const double u_free_n = dot(normal, free_step.v_free), u_k_n = dot(normal, c.v_start);
      const double p_n = -(u_free_n + e * u_k_n) / W[0][0];
      TimeIntegrationParameters tp;
      tp.scheme = Scheme::moreau_jean_standard;
      tp.time_step = h;
      MoreauJeanIntegrator integrator(s.system, tp, direct_solver(), s.owned(), MPI_COMM_SELF);
      integrator.initialize(0.0, petsc_vector(q_start), petsc_vector(c.v_start));
      integrator.compute_free_velocity();
      FrictionalContactStep step(contact_parameters(), ContactLaw::standard, 2, 0.5, MPI_COMM_SELF);
      OwnedContactPoint point;
      point.e = e;
      const auto H = petsc_matrix(H_frame);
      const auto r =
        step.solve(integrator, *H, petsc_vector({0.0, 0.0}), true, {point}, petsc_vector(tmatvec(H_frame, c.v_start)));
      BOOST_TEST(relative(r.impulse[0], p_n) <= impulse_tolerance);
      BOOST_TEST(std::abs(r.impulse[1]) <= impulse_tolerance * p_n);
    }
}

BOOST_AUTO_TEST_CASE(coulomb_friction_stick_and_slip_for_both_laws)
{
  std::vector<Case> cases;
  {
    Case c;
    c.name = "standard stick (mu = 1, e = 0)";
    c.law = ContactLaw::standard;
    c.mu = 1.0;
    c.v_start = {0.1, -1.0}; // u_T,k ≈ 0.4, u_N,k ≈ −0.93
    c.expected_state = ContactState::stick;
    cases.push_back(c);
  }
  {
    Case c;
    c.name = "standard slip (mu = 0.2, e = 0.3), moving obstacle";
    c.law = ContactLaw::standard;
    c.mu = 0.2;
    c.e = 0.3;
    c.v_start = {2.0, -1.0};
    c.w = {-0.1, 0.05};
    c.expected_state = ContactState::slip;
    cases.push_back(c);
  }
  {
    Case c;
    c.name = "Fremond stick (theta = 0.6, mu = 1, e = 0.5)";
    c.law = ContactLaw::fremond;
    c.theta = 0.6;
    c.mu = 1.0;
    c.e = 0.5;
    c.v_start = {0.1, -1.0};
    c.expected_state = ContactState::stick;
    cases.push_back(c);
  }
  {
    Case c;
    c.name = "Fremond slip (theta = 0.6, mu = 0.2, e = 0.5)";
    c.law = ContactLaw::fremond;
    c.theta = 0.6;
    c.mu = 0.2;
    c.e = 0.5;
    c.v_start = {-2.0, -1.0};
    c.expected_state = ContactState::slip;
    cases.push_back(c);
  }
  for (const Case &c : cases)
    check_2d_case(c);
}

BOOST_AUTO_TEST_CASE(open_separating_contact_is_not_in_the_problem)
{
  // Gap 1 and separating velocity: not in the active set, no impulse, v_free kept.
  const SmallSystem s(mass, stiffness, 0.0, 0.0, force);
  TimeIntegrationParameters tp;
  tp.time_step = h;
  MoreauJeanIntegrator integrator(s.system, tp, direct_solver(), s.owned(), MPI_COMM_SELF);
  const DVec v0{0.0, 1.0};
  integrator.initialize(0.0, petsc_vector(q_start), petsc_vector(v0));
  integrator.compute_free_velocity();
  const DVec v_free = to_std(integrator.new_velocity());
  FrictionalContactStep step(contact_parameters(), ContactLaw::fremond, 2, 0.5, MPI_COMM_SELF);
  OwnedContactPoint point;
  point.gap = 1.0;
  point.mu = 0.5;
  const auto H = petsc_matrix(H_frame);
  const auto r =
    step.solve(integrator, *H, petsc_vector({0.0, 0.0}), true, {point}, petsc_vector(tmatvec(H_frame, v0)));
  BOOST_TEST(!r.solved);
  BOOST_TEST(r.n_active == 0u);
  BOOST_TEST(!r.in_problem[0]);
  BOOST_TEST((to_std(integrator.new_velocity()) == v_free));
}

BOOST_AUTO_TEST_CASE(one_dimensional_impact_standard_and_schatzman_paoli)
{
  // One mass m on a spring k hitting a wall (dim = 1, H = [1]): the 1D embedding of the local
  // problem gives the scalar law.
  const double m = 2, k = 50;
  const SmallSystem s({{m}}, {{k}}, 0.0, 0.0, {-1.0});
  const auto H = petsc_matrix({{1.0}});
  const double e = 0.5, q0 = 0.0, v0 = -1.0;

  // Moreau–Jean θ = ½, standard law: p = −(u_free + e u_k)/W, W = 1/Ŵ.
  {
    TimeIntegrationParameters tp;
    tp.scheme = Scheme::moreau_jean_standard;
    tp.time_step = h;
    MoreauJeanIntegrator integrator(s.system, tp, direct_solver(), s.owned(), MPI_COMM_SELF);
    integrator.initialize(0.0, petsc_vector({q0}), petsc_vector({v0}));
    const MoreauJeanStep free_step(s, h, 0.5, {q0}, {v0});
    const double W = 1 / free_step.W_hat[0][0];
    const double p = -(free_step.v_free[0] + e * v0) / W;
    integrator.compute_free_velocity();
    FrictionalContactStep step(contact_parameters(), ContactLaw::standard, 1, 0.5, MPI_COMM_SELF);
    OwnedContactPoint point;
    point.e = e;
    const auto r = step.solve(integrator, *H, petsc_vector({0.0}), true, {point}, petsc_vector({v0}));
    BOOST_TEST(relative(r.impulse[0], p) <= impulse_tolerance);
    BOOST_TEST(relative(to_std(integrator.new_velocity())[0], -e * v0) <= impulse_tolerance);
    const double u_theta = 0.5 * v0 + 0.5 * (-e * v0);
    BOOST_TEST(relative(r.work_normal, u_theta * p) <= impulse_tolerance);
    BOOST_TEST(r.work_tangential == 0.0);
    std::cout << "1D Moreau-Jean standard: p = " << r.impulse[0] << " (hand " << p << ")" << std::endl;
  }

  // Schatzman–Paoli: 0 ≤ U_{k+1} − e U_k + (1+e) g_k/h ⊥ P ≥ 0, U = mean velocity, W = 1/Ŵ,
  // Ŵ = m + h²βk; a small positive gap closed within the step.
  {
    TimeIntegrationParameters tp;
    tp.scheme = Scheme::schatzman_paoli;
    tp.time_step = h;
    SchatzmanPaoliIntegrator integrator(s.system, tp, direct_solver(), s.owned(), MPI_COMM_SELF);
    integrator.initialize(0.0, petsc_vector({q0}), petsc_vector({v0}));
    const double U_k = to_std(integrator.velocity())[0]; // w_0 = v_0 − (h/2) a_0
    integrator.compute_free_velocity();
    const double U_free = to_std(integrator.new_velocity())[0];
    const double gap = 2e-3;
    const double W = 1 / (m + h * h * 0.25 * k);
    const double p = -(U_free - e * U_k + (1 + e) * gap / h) / W;
    BOOST_REQUIRE(p > 0); // the contact closes within the step
    FrictionalContactStep step(contact_parameters(), ContactLaw::schatzman_paoli, 1, 0.5, MPI_COMM_SELF);
    BOOST_TEST(step.takes_every_candidate());
    BOOST_TEST(!step.is_velocity_level());
    OwnedContactPoint point;
    point.e = e;
    point.gap = gap;
    const auto r = step.solve(integrator, *H, petsc_vector({0.0}), true, {point}, petsc_vector({U_k}));
    BOOST_TEST(relative(r.impulse[0], p) <= impulse_tolerance);
    const double U_new = to_std(integrator.new_velocity())[0];
    BOOST_TEST(std::abs(U_new - e * U_k + (1 + e) * gap / h) <= impulse_tolerance * std::abs(U_k));
    // Contact work ½(U_k + U_{k+1}) P (contact_work_weight() = ½), also in the scheme's balance.
    BOOST_TEST(relative(r.work_normal, 0.5 * (U_k + U_new) * r.impulse[0]) <= impulse_tolerance);
    integrator.finish_step();
    BOOST_TEST(relative(integrator.last_step_energy().contact_work, r.work_normal) <= 1e-12);
    std::cout << "1D Schatzman-Paoli: P = " << r.impulse[0] << " (hand " << p << "), U_k+1 = " << U_new << std::endl;
  }
}

namespace
{
  /**
   * The energy bound of project_positions(): the step of @p integrator from q_start, @p v0 again,
   * projected with no energy allowed, adds none; where the whole correction adds energy
   * (@p added_by_hand > 0), it is scaled back by the fraction whose added energy is zero, and the
   * gap @p g_end closes only that far.
   */
  void check_energy_bound(TimeIntegrator &integrator, FrictionalContactStep &step, const PetscMatrix &H,
                          const PetscVector &w, const std::vector<OwnedContactPoint> &points, const DVec &v0,
                          const DVec &dq, const double tolerance, const double added_by_hand, const double scale,
                          const double g_end)
  {
    // The energy bound: the same step projected with no energy allowed adds none; where the
    // whole correction adds energy (by hand), it is scaled back by the fraction whose added
    // energy is zero, and the gap is closed only that far.
    integrator.initialize(0.0, petsc_vector(q_start), petsc_vector(v0));
    integrator.advance();
    const auto bounded = step.project_positions(integrator, H, w, points, petsc_vector(dq), true, tolerance, 0.0);
    BOOST_TEST(bounded.energy_change <= 1e-12 * scale);
    if (added_by_hand > 1e-12 * scale)
      {
        BOOST_TEST(bounded.scale < 1.0);
        BOOST_TEST(std::abs(bounded.min_gap - (1 - bounded.scale) * g_end) <= impulse_tolerance * std::abs(g_end));
      }
    else
      BOOST_TEST(bounded.scale == 1.0);
    std::cout << "  with no energy allowed: scale " << bounded.scale << ", energy added " << bounded.energy_change
              << ", end gap " << bounded.min_gap << std::endl;
  }
} // namespace

BOOST_AUTO_TEST_CASE(position_projection_reopens_a_penetrated_gap)
{
  // Two candidate points: point 0 on the tilted plane, penetrated by 5e-3 at q_k, point 1 (normal
  // (0, −1)) far open. One step without a contact solve, then project_positions() with the end
  // gaps g_{k+1} = g_k + [HᵀΔq]_N. With the projection, the penetrated contact alone enters
  // 0 ≤ g + W_NN p̃ ⊥ p̃ ≥ 0: p̃ = −g/W_NN, δq = 𝒫⁻¹H_N p̃ (𝒫 = Ŵ for Moreau–Jean, S for the
  // generalized-α family), and the gap after is 0 to round-off.
  const Dense H2{{normal[0], tangent[0], 0.0, 1.0}, {normal[1], tangent[1], -1.0, 0.0}};
  const DVec v0{0.3, -0.5};
  const SmallSystem s(mass, stiffness, 0.0, 0.0, force);
  const double tolerance = 1e-4;
  std::vector<OwnedContactPoint> points = {candidate(0, 1, -5e-3), candidate(1, 2, 1.0)};

  for (const Scheme scheme : {Scheme::moreau_jean_fremond, Scheme::nonsmooth_hht})
    {
      TimeIntegrationParameters tp;
      tp.scheme = scheme;
      tp.time_step = h;
      tp.hht_alpha = 0.1;
      std::unique_ptr<TimeIntegrator> integrator;
      Dense metric; // 𝒫
      if (scheme == Scheme::moreau_jean_fremond)
        {
          integrator = std::make_unique<MoreauJeanIntegrator>(s.system, tp, direct_solver(), s.owned(), MPI_COMM_SELF);
          metric = MoreauJeanStep(s, h, 0.5, q_start, v0).W_hat;
        }
      else
        {
          integrator = std::make_unique<NonsmoothGeneralizedAlphaIntegrator>(s.system, tp, direct_solver(), s.owned(),
                                                                             MPI_COMM_SELF);
          // S = (1−α_m)M + (1−α_f)(hγC + h²βK) with C = 0.
          metric = lin(1 - tp.alpha_m(), s.M, (1 - tp.alpha_f()) * h * h * tp.newmark_beta(), s.K);
        }
      BOOST_TEST_CONTEXT(integrator->description())
      {
        const auto H = petsc_matrix(H2);
        const auto w = petsc_vector({0.0, 0.0, 0.0, 0.0});
        FrictionalContactStep step(contact_parameters(), ContactLaw::standard, 2, 0.5, MPI_COMM_SELF);

        // Projection off: the gaps are reported, nothing moves.
        integrator->initialize(0.0, petsc_vector(q_start), petsc_vector(v0));
        integrator->advance();
        const DVec q1 = to_std(integrator->displacement()), v1 = to_std(integrator->velocity());
        const DVec dq = lin(1.0, q1, -1.0, q_start);
        const double g_end = points[0].gap + dot(normal, dq);
        BOOST_REQUIRE(points[1].gap - dq[1] > tolerance); // point 1 stays open
        BOOST_REQUIRE(g_end < -tolerance);
        const double unbounded = std::numeric_limits<double>::infinity();
        const auto off =
          step.project_positions(*integrator, *H, w, points, petsc_vector(dq), false, tolerance, unbounded);
        BOOST_TEST(std::abs(off.min_gap_before - g_end) <= 1e-12 * std::abs(points[0].gap));
        BOOST_TEST(off.min_gap == off.min_gap_before);
        BOOST_TEST(off.n_contacts == 0u);
        BOOST_TEST(off.energy_change == 0.0);
        BOOST_TEST((to_std(integrator->displacement()) == q1));

        // Projection on.
        const double W_nn = dot(normal, solve(metric, normal));
        const double p_tilde = -g_end / W_nn;
        const DVec delta_q = lin(p_tilde, solve(metric, normal), 0.0, normal);
        const DVec q_projected = lin(1.0, q1, 1.0, delta_q);
        // Moreau–Jean's velocity gives up what the correction would add beyond its loads' work;
        // the generalized-α family keeps v and a.
        HandCorrection by_hand = hand_correction(s, q1, v1, delta_q);
        if (scheme != Scheme::moreau_jean_fremond)
          {
            by_hand.v = v1;
            by_hand.kinetic_change = 0;
            by_hand.added = by_hand.strain_change - by_hand.load_work;
          }
        const auto on =
          step.project_positions(*integrator, *H, w, points, petsc_vector(dq), true, tolerance, unbounded);
        BOOST_TEST(on.n_contacts == 1u); // point 1 is open: not in the projection problem
        BOOST_TEST((on.solver.status == ContactSolvers::SolverStatus::converged));
        BOOST_TEST(std::abs(on.min_gap_before - g_end) <= 1e-12 * std::abs(points[0].gap));
        BOOST_TEST(on.min_gap >= -tolerance);
        // The gap is closed exactly (to the solver's tolerance on a 1-contact LCP).
        BOOST_TEST(std::abs(on.min_gap) <= impulse_tolerance * std::abs(g_end));
        const double error_q = relative_error(to_std(integrator->displacement()), q_projected);
        BOOST_TEST(error_q <= impulse_tolerance);
        // The velocity gives up what the correction would add beyond its loads' work, as far as
        // its component along δq holds it; the rest is the energy change the step's record keeps.
        BOOST_TEST(relative_error(to_std(integrator->velocity()), by_hand.v) <= impulse_tolerance);
        const double scale = std::abs(by_hand.strain_change) + std::abs(by_hand.load_work);
        BOOST_TEST(std::abs(on.energy_change - by_hand.added) <= impulse_tolerance * scale);
        BOOST_TEST(std::abs(integrator->last_step_energy().position_correction - by_hand.added) <=
                   impulse_tolerance * scale);
        std::cout << integrator->description() << ": end gap " << g_end << " -> " << on.min_gap
                  << ", |q - hand|/|q| = " << error_q << ", strain change " << by_hand.strain_change << ", loads' work "
                  << by_hand.load_work << ", kinetic change " << by_hand.kinetic_change << ", energy added "
                  << on.energy_change << " (hand " << by_hand.added << ")" << std::endl;

        check_energy_bound(*integrator, step, *H, w, points, v0, dq, tolerance, by_hand.added, scale, g_end);
      }
    }
}
