#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_check.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/time_integration/schatzman_paoli_integrator.h>
#include <percussion/time_integration/system_algebra.h>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace percussion::TimeIntegration
{
  using dealii::PETScWrappers::MPI::Vector;
  namespace Algebra = SystemAlgebra;

  SchatzmanPaoliIntegrator::SchatzmanPaoliIntegrator(const LinearElastodynamicSystem &system,
                                                     const TimeIntegrationParameters &time_parameters,
                                                     const LinearSolverParameters &solver_parameters,
                                                     const dealii::IndexSet &locally_owned_dofs, MPI_Comm communicator)
    : TimeIntegrator(time_parameters.time_step)
    , system(system)
    , beta(time_parameters.schatzman_paoli_beta)
    , owned(locally_owned_dofs)
    , communicator(communicator)
    , solver_parameters(solver_parameters)
    , solver(std::make_unique<IterationMatrixSolver>(solver_parameters, communicator))
  {
    for (Vector *x : {&q, &v, &v_new, &q_previous, &stiffness_q, &stiffness_q_previous, &force, &rhs, &work, &work2,
                      &impulse, &prescribed_velocity, &scratch, &q_new, &stiffness_q_new, &mean_velocity})
      x->reinit(owned, communicator);
  }

  double SchatzmanPaoliIntegrator::shadow_strain_energy(const Vector &a, const Vector &stiffness_a, const Vector &b,
                                                        const Vector &stiffness_b) const
  {
    return 0.5 * beta * (a * stiffness_a + b * stiffness_b) + 0.5 * (1 - 2 * beta) * (a * stiffness_b);
  }

  void SchatzmanPaoliIntegrator::initialize(const double start, const Vector &displacement, const Vector &velocity)
  {
    start_at(start);
    q = displacement;
    if (system.has_external_force)
      system.assemble_external_force(current_time, force);
    else
      force = 0;
    system.apply_stiffness(stiffness_q, q);

    // The two-step scheme starts from q_{−1} = q_0 − h v_0 + (h²/2) a_0 with
    // M a_0 = f_0 − K q_0 − C v_0 (a_0 = 0 on Dirichlet DoFs): w_0 = v_0 − (h/2) a_0 approximates
    // v(t_{−½}) to O(h²), which keeps the scheme second order (w_0 = v_0 would make it first order).
    const auto &dofs = system.constrained_dofs;
    {
      const MatHandle mass(Algebra::scaled_sum(system, 1.0, 0.0)); // (destroyed after mass_solver, which refers to it)
      Algebra::eliminate(mass, dofs);
      IterationMatrixSolver mass_solver(solver_parameters, communicator);
      mass_solver.set_near_null_space(system.rigid_body_modes, system.node_block_size);
      mass_solver.set_matrix(mass, owned.size());
      Algebra::smooth_force(system, q, velocity, system.has_external_force ? &force : nullptr, rhs, work);
      work2 = 0; // a_0
      Algebra::solve_eliminated(mass_solver, rhs, work2, dofs, scratch);
    }
    q_previous = q;
    q_previous.add(-h, velocity, 0.5 * h * h, work2);
    v = q;
    v.add(-1.0, q_previous);
    v /= h;
    system.apply_stiffness(stiffness_q_previous, q_previous);

    // Ŵ = M + h²βK + (h/2)C with C = αM + β_R K.
    const double c_mass = 1 + 0.5 * h * system.rayleigh_alpha;
    const double c_stiffness = h * h * beta + 0.5 * h * system.rayleigh_beta;
    iteration = Algebra::scaled_sum(system, c_mass, c_stiffness);
    if (system.has_prescribed_motion)
      PERCUSSION_PETSC_CALL(MatDuplicate(iteration, MAT_COPY_VALUES, iteration_full.out()));
    constrained_diagonal = Algebra::eliminate(iteration, dofs);
    solver->set_near_null_space(system.rigid_body_modes, system.node_block_size);
    solver->set_matrix(iteration, owned.size());

    energy = StepEnergy();
    system.apply_mass(work, v);
    energy.kinetic_energy = 0.5 * (v * work);
    energy.strain_energy = shadow_strain_energy(q, stiffness_q, q_previous, stiffness_q_previous);
  }

  void SchatzmanPaoliIntegrator::compute_free_velocity()
  {
    const double t_new = start_time + (step + 1) * h;
    // rhs = (1 − hα/2) M w_k − hK((1−β) q_k + β q_{k−1}) − (h β_R/2) K w_k + h f_k
    system.apply_mass(rhs, v);
    rhs *= 1 - 0.5 * h * system.rayleigh_alpha;
    rhs.add(-h * (1 - beta), stiffness_q, -h * beta, stiffness_q_previous);
    if (system.rayleigh_beta != 0)
      {
        system.apply_stiffness(work, v);
        rhs.add(-0.5 * h * system.rayleigh_beta, work);
      }
    if (system.has_external_force)
      rhs.add(h, force);

    // Dirichlet DoFs: w_{k+1} = (g(t_{k+1}) − q_k)/h, lifted to the free rows' right-hand side.
    const auto &dofs = system.constrained_dofs;
    std::vector<double> w_c(dofs.size(), 0.0);
    if (system.has_prescribed_motion)
      {
        std::vector<double> g(dofs.size()), q_c(dofs.size());
        system.prescribed_displacement(t_new, g);
        q.extract_subvector_to(dofs, q_c);
        for (std::size_t i = 0; i < dofs.size(); ++i)
          w_c[i] = (g[i] - q_c[i]) / h;
      }
    Algebra::lift(system.has_prescribed_motion ? iteration_full.get() : nullptr, w_c, dofs, constrained_diagonal,
                  prescribed_velocity, work, rhs);

    v_new = v; // initial guess for CG
    solver->solve(rhs, v_new);
    impulse = 0;
    impulse_applied = false;
  }

  void SchatzmanPaoliIntegrator::apply_impulse(const Vector &generalized_impulse, const Vector &velocity_correction)
  {
    v_new.add(1.0, velocity_correction);
    impulse.add(1.0, generalized_impulse);
    impulse_applied = true;
  }

  void SchatzmanPaoliIntegrator::finish_step()
  {
    // (The step's vectors are members: nothing is allocated per step.)
    q_new = q;
    q_new.add(h, v_new);
    system.apply_stiffness(stiffness_q_new, q_new);

    StepEnergy e;
    system.apply_mass(work, v_new);
    e.kinetic_energy = 0.5 * (v_new * work);
    e.strain_energy = shadow_strain_energy(q_new, stiffness_q_new, q, stiffness_q);
    check_finite(e);

    // v̄ = (w_k + w_{k+1})/2 = (q_{k+1} − q_{k−1})/(2h).
    mean_velocity = v;
    mean_velocity.sadd(0.5, 0.5, v_new);
    system.apply_mass(work, mean_velocity);
    system.apply_stiffness(work2, mean_velocity);
    e.damping_work =
      -h * (system.rayleigh_alpha * (mean_velocity * work) + system.rayleigh_beta * (mean_velocity * work2));
    e.external_work = system.has_external_force ? h * (mean_velocity * force) : 0.0;
    e.contact_work = impulse_applied ? mean_velocity * impulse : 0.0;
    e.numerical_dissipation = 0;

    if (system.has_prescribed_motion)
      {
        // Support reactions: the residual of the step's equation on the Dirichlet rows,
        // R = M(w_{k+1} − w_k) + hK q̂_k + (h/2)C(w_{k+1} + w_k) − h f_k − HΛ; their work is v̄ᵀR.
        system.apply_mass(rhs, v_new);
        system.apply_mass(scratch, v);
        rhs.add(-1.0, scratch);
        rhs.add(h * beta, stiffness_q_new);
        rhs.add(h * (1 - 2 * beta), stiffness_q);
        rhs.add(h * beta, stiffness_q_previous);
        rhs.add(h * system.rayleigh_alpha, work, h * system.rayleigh_beta, work2);
        if (system.has_external_force)
          rhs.add(-h, force);
        if (impulse_applied)
          rhs.add(-1.0, impulse);
        e.external_work += Algebra::inner_product(rhs, mean_velocity, system.constrained_dofs, communicator);
      }

    SystemAlgebra::swap_storage(q_previous, q);
    SystemAlgebra::swap_storage(q, q_new);
    SystemAlgebra::swap_storage(stiffness_q_previous, stiffness_q);
    SystemAlgebra::swap_storage(stiffness_q, stiffness_q_new);
    SystemAlgebra::swap_storage(v, v_new);
    accept_step(e);
    if (system.has_external_force && system.external_force_depends_on_time)
      system.assemble_external_force(current_time, force);
  }

  double SchatzmanPaoliIntegrator::correct_displacement(const Vector &)
  {
    // The two-step state (q_{k−1}, q_k) carries the velocity: moving q_k alone would change it.
    // The scheme's position-level law needs no projection.
    throw std::logic_error("Schatzman-Paoli: a position correction of q_k alone is not defined.");
  }

  PositionCorrectionCost SchatzmanPaoliIntegrator::position_correction_cost(const Vector &)
  {
    throw std::logic_error("Schatzman-Paoli: a position correction of q_k alone is not defined.");
  }

  void SchatzmanPaoliIntegrator::check_parameters(const TimeIntegrationParameters &time,
                                                  const ContactStep::SchemeContactSettings &contact,
                                                  std::vector<std::string> &warnings)
  {
    for (unsigned int i = 0; i < contact.friction.size(); ++i)
      if (contact.friction[i] != 0)
        throw InputError("Parameter 'Contact/Pair " + std::to_string(i + 1) +
                         "/Friction coefficient' must be 0 with 'Time integration/Scheme' = Schatzman-Paoli "
                         "(a position-level, frictionless impact law).");
    if (contact.position_projection == ContactStep::PositionProjection::on)
      throw InputError("Parameter 'Contact solver/Position projection' = on does not apply to 'Time "
                       "integration/Scheme' = Schatzman-Paoli: its law holds the gaps at position level "
                       "(set it off).");
    if (time.schatzman_paoli_beta < 0.25)
      warnings.push_back("'Time integration/Schatzman-Paoli beta' = " + std::to_string(time.schatzman_paoli_beta) +
                         " < 1/4: the scheme is only conditionally stable (h below about 2/omega_max).");
  }

  std::string SchatzmanPaoliIntegrator::description() const
  {
    std::ostringstream s;
    s << "Schatzman-Paoli (beta = " << beta << ")";
    return s.str();
  }
} // namespace percussion::TimeIntegration
