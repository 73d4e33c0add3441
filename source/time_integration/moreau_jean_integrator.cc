#include <deal.II/base/mpi.h>

#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_access.h>
#include <percussion/core/petsc_check.h>
#include <percussion/time_integration/moreau_jean_integrator.h>
#include <percussion/time_integration/system_algebra.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace percussion::TimeIntegration
{
  using dealii::PETScWrappers::MPI::Vector;
  using SystemAlgebra::petsc;

  MoreauJeanIntegrator::MoreauJeanIntegrator(const LinearElastodynamicSystem &system,
                                             const TimeIntegrationParameters &time_parameters,
                                             const LinearSolverParameters &solver_parameters,
                                             const dealii::IndexSet &locally_owned_dofs, MPI_Comm communicator)
    : FramedIntegrator(system, time_parameters.time_step, time_parameters.energy_creation_tolerance, locally_owned_dofs,
                       communicator)
    , theta(time_parameters.theta)
    , law(time_parameters.scheme == Scheme::moreau_jean_standard ? ContactLaw::standard : ContactLaw::fremond)
    , solver_parameters(solver_parameters)
    , solver(std::make_unique<IterationMatrixSolver>(solver_parameters, communicator))
  {
    if (this->system.quasi_static_projection_time > 0)
      quasi_static = std::make_unique<QuasiStaticMetric>(this->system, solver_parameters, owned.size(), communicator);
    for (Vector *x : {&stiffness_v,
                      &force,
                      &q_new,
                      &mass_v_new,
                      &stiffness_q_new,
                      &stiffness_v_new,
                      &force_new,
                      &force_theta,
                      &rhs,
                      &work,
                      &impulse,
                      &prescribed_velocity,
                      &v_theta,
                      &scratch,
                      &spin_damping,
                      &q_turned,
                      &v_turned,
                      &mass_v_turned,
                      &stiffness_q_turned,
                      &stiffness_v_turned,
                      &spin_velocity,
                      &spin_stiffness,
                      &gyroscopic_impulse,
                      &basis_offset})
      x->reinit(owned, communicator);
    // (lift() is collective: every rank takes the same branch.)
    constrained_anywhere = dealii::Utilities::MPI::max(this->system.constrained_dofs.empty() ? 0 : 1, communicator) > 0;
    const std::size_t n_branches = this->system.maxwell_branches.size();
    for (auto *branch : {&branch_strain, &branch_force, &branch_spin, &branch_in_space})
      {
        branch->resize(n_branches);
        for (Vector &x : *branch)
          x.reinit(owned, communicator);
      }
    for (Vector *x : {&increment, &branch_force_theta, &kelvin_voigt_v, &strain_change, &branch_force_new})
      x->reinit(owned, communicator);
  }

  double MoreauJeanIntegrator::branch_decay(const std::size_t i) const
  {
    return std::exp(-h / system.maxwell_branches[i].relaxation_time);
  }

  double MoreauJeanIntegrator::branch_gain(const std::size_t i) const
  {
    // (τ/h)(1 − exp(−h/τ)) with expm1: no cancellation for h ≪ τ.
    const double x = h / system.maxwell_branches[i].relaxation_time;
    return -std::expm1(-x) / x;
  }

  void MoreauJeanIntegrator::maxwell_force(Vector &out) const
  {
    out = 0;
    for (const Vector &s : branch_force)
      out.add(1.0, s);
    rotate_if_turned(out, false);
  }

  double MoreauJeanIntegrator::factors_memory_mib() const
  {
    double mib = solver->factor_memory_mib();
    for (const auto &[step_size, stored] : other_step_sizes)
      mib += stored.solver->factor_memory_mib();
    return mib;
  }

  void MoreauJeanIntegrator::set_time_step(const double new_time_step)
  {
    // A step made again with another size (halved where its contact problem was not solved)
    // starts from the frames of t_k.
    undo_step_basis();
    if (new_time_step == h)
      return;
    // Keep this step size's matrices and factor; take the new one's from the store or build it.
    Factorised current;
    current.iteration = std::move(iteration);
    current.iteration_full = std::move(iteration_full);
    current.constrained_diagonal = constrained_diagonal;
    current.solver = std::move(solver);
    other_step_sizes[h] = std::move(current);
    h = new_time_step;
    if (auto stored = other_step_sizes.find(h); stored != other_step_sizes.end())
      {
        iteration = std::move(stored->second.iteration);
        iteration_full = std::move(stored->second.iteration_full);
        constrained_diagonal = stored->second.constrained_diagonal;
        solver = std::move(stored->second.solver);
        other_step_sizes.erase(stored);
      }
    else
      {
        build_iteration_matrix();
        solver = std::make_unique<IterationMatrixSolver>(solver_parameters, communicator);
        solver->set_near_null_space(system.rigid_body_modes, system.node_block_size);
        solver->set_matrix(iteration, owned.size());
      }
    ++version;
    ++factor_version;
  }

  void MoreauJeanIntegrator::build_iteration_matrix()
  {
    // Ŵ = M + hθC + h²θ²K with C = αM + βK: (1 + hθα) M + (hθβ + h²θ²) K, same sparsity as M.
    const double c_mass = 1 + h * theta * system.rayleigh_alpha;
    const double c_stiffness = h * theta * system.rayleigh_beta + h * h * theta * theta;
    iteration = SystemAlgebra::scaled_sum(system, c_mass, c_stiffness);
    // + hθ K_KV (Kelvin–Voigt part of C) + h²θ²Σγᵢ Kᵢ (V5); these have K's sparsity on a subset of cells.
    if (system.kelvin_voigt != nullptr)
      PERCUSSION_PETSC_CALL(
        MatAXPY(iteration, h * theta, SystemAlgebra::petsc(*system.kelvin_voigt), SUBSET_NONZERO_PATTERN));
    for (std::size_t i = 0; i < system.maxwell_branches.size(); ++i)
      PERCUSSION_PETSC_CALL(MatAXPY(iteration, h * h * theta * theta * branch_gain(i),
                                    SystemAlgebra::petsc(*system.maxwell_branches[i].stiffness),
                                    SUBSET_NONZERO_PATTERN));
    if (system.has_prescribed_motion)
      PERCUSSION_PETSC_CALL(MatDuplicate(iteration, MAT_COPY_VALUES, iteration_full.out()));
    constrained_diagonal = SystemAlgebra::eliminate(iteration, system.constrained_dofs);
  }

  void MoreauJeanIntegrator::initialize(const double start, const Vector &displacement, const Vector &velocity)
  {
    start_at(start);
    q = displacement;
    v = velocity;
    system.apply_mass(mass_v, v);
    if (system.has_external_force)
      system.assemble_external_force(current_time, force);
    else
      force = 0;

    build_iteration_matrix();
    solver->set_near_null_space(system.rigid_body_modes, system.node_block_size);
    solver->set_matrix(iteration, owned.size());

    // The branches start relaxed (eᵢ = sᵢ = 0): the initial displacement is a state held for ever.
    for (auto *branch : {&branch_strain, &branch_force})
      for (Vector &x : *branch)
        x = 0;
    energy = StepEnergy();
    energy.kinetic_energy = 0.5 * (v * mass_v);
    energy.strain_energy = elastic_force(q, stiffness_q);
    if (system.frames)
      {
        // (The turning basis carries the frames of t_k; the fixed one takes them at t_{k+θ}.)
        update_frames(false, turning_basis() ? 0.0 : theta);
        energy.frame_correction = 0; // the initial strain energy is the one in the first frames
      }
    stiffness_times_velocity(v, stiffness_v);
    system.apply_mass(mass_q, q);
  }

  void MoreauJeanIntegrator::hold_internal_variables_in_space()
  {
    for (std::size_t i = 0; i < branch_strain.size(); ++i)
      {
        branch_in_space[i] = branch_strain[i];
        system.frames->rotate(branch_in_space[i], false);
      }
  }

  double MoreauJeanIntegrator::remeasure_internal_variables(const double energy_before)
  {
    if (branch_strain.empty())
      return 0.0;
    double energy_after = 0;
    for (std::size_t i = 0; i < branch_strain.size(); ++i)
      {
        branch_strain[i] = branch_in_space[i];
        system.frames->rotate(branch_strain[i], true);
        system.maxwell_branches[i].stiffness->vmult(branch_force[i], branch_strain[i]);
        energy_after += 0.5 * (branch_strain[i] * branch_force[i]);
      }
    return energy_after - energy_before;
  }

  void MoreauJeanIntegrator::solve_in_frames(Mat B, Mat X, const double relative_tolerance)
  {
    SystemAlgebra::solve_in_frames(system.frames.get(), B, X, [this, relative_tolerance](Mat rhs, Mat solution) {
      relative_tolerance > 0 ? solver->solve(rhs, solution, relative_tolerance) : solver->solve(rhs, solution);
    });
  }

  void MoreauJeanIntegrator::impulse_response(const Vector &b, Vector &x)
  {
    if (!frames_turned())
      {
        solver->solve(b, x);
        return;
      }
    scratch = b;
    system.frames->rotate(scratch, true);
    system.frames->rotate(x, true); // (the initial guess of CG)
    solver->solve(scratch, x);
    system.frames->rotate(x, false);
  }

  void MoreauJeanIntegrator::spin_terms()
  {
    // The damping acts on the deformation rate in the frame, 𝐑ᵀv − Ω × (X̄ + ũ): the spin of the
    // strain field with the body (Ω × ũ, K(Ω × X̄) = 0) is no deformation rate and must not brake
    // the rotation. That part of C v is taken out with the spin and ũ of the step's start:
    // g = 𝐑(βK + C_KV)(Ω × ũ_k), a force of the step (measured: without it a disk spinning at
    // 10 rad/s with β = 0.01 loses 0.3 % of its spin in 0.3 s). A Maxwell branch is a dashpot in
    // series with a spring: the same spin would reach it through 𝐑ᵀΔq, so it is taken out of the
    // increment, and its eᵢ, a strain field of the body, turns with the body within the step as ũ
    // does (the frame's re-measure at the end of the step takes that turn out again, update_frames()).
    const auto motions = strain_spin(v_theta, scratch); // (v_theta is free until finish_step)
    if (system.rayleigh_beta > 0)
      {
        system.apply_stiffness(spin_damping, v_theta);
        spin_damping *= system.rayleigh_beta;
      }
    if (system.kelvin_voigt != nullptr)
      {
        system.kelvin_voigt->vmult(work, v_theta);
        spin_damping.add(1.0, work);
      }
    system.frames->rotate(spin_damping, false);
    if (branch_strain.empty())
      return;
    // The branches must not gather the rigid rotation Ω × X̄ either: Kᵢ does not see it, but the
    // frame's re-measure of eᵢ would turn it into a dilatation.
    system.frames->reference_positions(strain_change);
    system.frames->spin_of(motions, strain_change, increment);
    v_theta.add(1.0, increment); // Ω × (X̄ + ũ_k)
    for (std::size_t i = 0; i < branch_strain.size(); ++i)
      {
        system.frames->spin_of(motions, branch_strain[i], branch_spin[i]);
        branch_spin[i].sadd(h, -h * branch_gain(i), v_theta);
      }
  }

  void MoreauJeanIntegrator::compute_free_velocity()
  {
    const double t_new = start_time + (elapsed_steps + h / nominal_h) * nominal_h; // (as accept_step() counts it)
    // (Without loads F, F_new and F_θ stay the zero vectors they were made.)
    if (system.has_external_force)
      {
        if (system.external_force_depends_on_time)
          system.assemble_external_force(t_new, force_new);
        else
          force_new = force;
        PERCUSSION_PETSC_CALL(VecAXPBYPCZ(petsc(force_theta), 1 - theta, theta, 0.0, petsc(force), petsc(force_new)));
      }

    // rhs = (1 − h(1−θ)α) M v_k − h K q_k − (h(1−θ)β + h²θ(1−θ)) K v_k + h F_{k+θ}; with large
    // rotations K q_k is 𝐑Kũ_k (stiffness_q) and K v_k is 𝐑K𝐑ᵀv_k (stiffness_v, kept from the
    // last step: no mat-vec here).
    if (turning_basis())
      turn_into_step_basis();
    const bool turning = step_turns_bodies();
    if (turning)
      swap_turned_state(); // (the right-hand side below is that of the turned state)
    const bool rotated = frames_turned();
    if (!turning)
      spin_damping = 0;
    if (!turning && rotated && (system.rayleigh_beta > 0 || system.kelvin_voigt != nullptr || !branch_strain.empty()))
      spin_terms();
    rhs.equ(1 - h * (1 - theta) * system.rayleigh_alpha, mass_v);
    rhs.add(-h, stiffness_q);
    rhs.add(-(h * (1 - theta) * system.rayleigh_beta + h * h * theta * (1 - theta)), stiffness_v);
    rhs.add(h, spin_damping);
    if (system.has_external_force)
      rhs.add(h, force_theta);
    if (turning)
      {
        // q̃_{k+θ} = q̃_k + hθ(v_θ − s): −h𝐑̃K𝐑̃ᵀ(hθ(−s)), and the gyroscopic impulse.
        rhs.add(h * h * theta, spin_stiffness);
        rhs.add(1.0, gyroscopic_impulse);
      }
    add_viscoelastic_right_hand_side(rotated);

    // Dirichlet DoFs: the velocity that brings q to the prescribed displacement. With θ > 0,
    // q_{k+1} = q_k + h((1−θ)v_k + θv_{k+1}) = g(t_{k+1}); with θ = 0, v_{k+1} only enters
    // q_{k+2} = q_k + h v_k + h v_{k+1} = g(t_{k+2}).
    const auto &dofs = system.constrained_dofs;
    constrained_velocity.assign(dofs.size(), 0.0);
    if (system.has_prescribed_motion)
      {
        std::vector<double> q_c(dofs.size()), v_c(dofs.size());
        q.extract_subvector_to(dofs, q_c);
        v.extract_subvector_to(dofs, v_c);
        system.prescribed_displacement(theta > 0 ? t_new : t_new + h, prescribed_values);
        for (std::size_t i = 0; i < dofs.size(); ++i)
          constrained_velocity[i] = theta > 0 ? ((prescribed_values[i] - q_c[i]) / h - (1 - theta) * v_c[i]) / theta
                                              : (prescribed_values[i] - q_c[i] - h * v_c[i]) / h;
      }
    if (constrained_anywhere)
      SystemAlgebra::lift(system.has_prescribed_motion ? iteration_full.get() : nullptr, constrained_velocity, dofs,
                          constrained_diagonal, prescribed_velocity, work, rhs);

    if (!solver->is_direct())
      v_new = v; // initial guess for CG
    if (rotated)
      {
        // 𝐑Ŵ𝐑ᵀ v = rhs: Ŵ (𝐑ᵀv) = 𝐑ᵀrhs with the factor of Ŵ (Dirichlet DoFs are on bodies
        // whose frame is the identity: the lifted rows stay as they are).
        system.frames->rotate(rhs, true);
        system.frames->rotate(v_new, true);
        solver->solve(rhs, v_new);
        system.frames->rotate(v_new, false);
      }
    else
      solver->solve(rhs, v_new);
    if (turning)
      {
        swap_turned_state();
        v_new.add(1.0, basis_offset);
      }
    impulse = 0;
    impulse_applied = false;
  }

  void MoreauJeanIntegrator::add_viscoelastic_right_hand_side(const bool rotated)
  {
    if (system.kelvin_voigt != nullptr)
      {
        product_in_frames(*system.kelvin_voigt, v, work);
        rhs.add(-h * (1 - theta), work);
      }
    // Maxwell branches (V5): h𝐑sᵢ,k+θ = h(1−θ+θaᵢ)𝐑sᵢ,k + h²θγᵢ𝐑Kᵢ𝐑ᵀv_{k+θ} (+ hθ𝐑Kᵢ branch_spin[i]
    // with large rotations); the v_k part of the second term goes here.
    for (std::size_t i = 0; i < branch_force.size(); ++i)
      {
        work = branch_force[i];
        rotate_if_turned(work, false);
        rhs.add(-h * (1 - theta + theta * branch_decay(i)), work);
        if (theta < 1)
          {
            product_in_frames(*system.maxwell_branches[i].stiffness, v, work);
            rhs.add(-h * h * theta * (1 - theta) * branch_gain(i), work);
          }
        if (rotated)
          {
            system.maxwell_branches[i].stiffness->vmult(work, branch_spin[i]);
            system.frames->rotate(work, false);
            rhs.add(-h * theta, work);
          }
      }
  }

  void MoreauJeanIntegrator::apply_impulse(const Vector &generalized_impulse, const Vector &velocity_correction)
  {
    v_new.add(1.0, velocity_correction);
    impulse.add(1.0, generalized_impulse);
    impulse_applied = true;
  }

  void MoreauJeanIntegrator::finish_step()
  {
    // Turning step basis: the step ends in the turned state (v_new less the offset is ṽ_{k+1}),
    // its positions move by h(v_θ − s).
    const bool turning = step_turns_bodies();
    if (turning)
      {
        v_new.add(-1.0, basis_offset);
        swap_turned_state();
      }
    PERCUSSION_PETSC_CALL(VecAXPBYPCZ(petsc(v_theta), 1 - theta, theta, 0.0, petsc(v), petsc(v_new)));
    PERCUSSION_PETSC_CALL(VecWAXPY(petsc(q_new), h, petsc(v_theta), petsc(q)));
    if (turning)
      q_new.add(-h, spin_velocity);
    // The step's two mat-vecs, M v_{k+1} and K v_{k+1}; then M v_θ into work, K v_θ into scratch.
    system.apply_mass(mass_v_new, v_new);
    stiffness_times_velocity(v_new, stiffness_v_new);
    PERCUSSION_PETSC_CALL(VecAXPBYPCZ(petsc(work), 1 - theta, theta, 0.0, petsc(mass_v), petsc(mass_v_new)));
    PERCUSSION_PETSC_CALL(
      VecAXPBYPCZ(petsc(scratch), 1 - theta, theta, 0.0, petsc(stiffness_v), petsc(stiffness_v_new)));
    // K q_{k+1} = K q_k + h K v_θ and M q_{k+1} = M q_k + h M v_θ: the products of the update
    // q_{k+1} = q_k + h v_θ, exact but for round-off (relative 1e-16 a step, a random walk).
    PERCUSSION_PETSC_CALL(VecWAXPY(petsc(stiffness_q_new), h, petsc(scratch), petsc(stiffness_q)));
    if (turning)
      stiffness_q_new.add(-h, spin_stiffness);
    mass_q.add(h, work); // (turning: M q is recomputed in space)

    // In the step's frames (large rotations): ũ_{k+1} − ũ_k = h𝐑ᵀv_θ, so that the identity of (56)
    // holds with ½ũᵀKũ = ½(𝐑ũ)ᵀ(𝐑Kũ) as it does with ½qᵀKq.
    const Vector *displacement_in_frames = &q_new;
    if (frames_turned())
      {
        system.frames->unrotated_displacement(q_new, unrotated);
        system.frames->rotate(unrotated, false);
        displacement_in_frames = &unrotated;
      }
    // Every inner product of the step's energy terms, with one reduction: kinetic and strain
    // energy, v_θᵀM v_θ-like work of C, v_θᵀK v_θ (damping and the numerical dissipation's
    // Δqᵀ K Δq), the loads' and the contact work, and Δvᵀ M v_{k+1}, Δvᵀ M v_k.
    rhs.equ(1.0, v_new);
    rhs.add(-1.0, v);
    double products[8];
    SystemAlgebra::inner_products({{&v_new, &mass_v_new},
                                   {displacement_in_frames, &stiffness_q_new},
                                   {&v_theta, &work},
                                   {&v_theta, &scratch},
                                   {&v_theta, &force_theta},
                                   {&v_theta, &impulse},
                                   {&rhs, &mass_v_new},
                                   {&rhs, &mass_v}},
                                  products, communicator);
    const auto &[kinetic_2, strain_2, v_M_v, v_K_v, v_force, v_impulse, dv_M_v_new, dv_M_v] = products;

    StepEnergy e;
    e.kinetic_energy = 0.5 * kinetic_2;
    e.strain_energy = 0.5 * strain_2;
    check_finite(e);
    e.damping_work = -h * (system.rayleigh_alpha * v_M_v + system.rayleigh_beta * v_K_v);
    if (system.kelvin_voigt != nullptr)
      {
        product_in_frames(*system.kelvin_voigt, v_theta, kelvin_voigt_v);
        e.damping_work -= h * (v_theta * kelvin_voigt_v);
      }
    const double branch_numerical = branch_strain.empty() ? 0.0 : update_branches(e);
    if (system.frames)
      e.damping_work += h * (v_theta * spin_damping);
    e.external_work = system.has_external_force ? h * v_force : 0.0;
    e.contact_work = impulse_applied ? v_impulse : 0.0;

    double dq_K_dq = h * h * v_K_v;
    const double basis_work = turning ? turning_basis_work(dq_K_dq) : 0.0;
    e.frame_correction = basis_work;
    const double dv_M_dv = dv_M_v_new - dv_M_v;
    e.numerical_dissipation = (theta - 0.5) * (dv_M_dv + dq_K_dq) + branch_numerical;

    if (system.has_prescribed_motion)
      e.external_work += support_reaction_work(turning);

    SystemAlgebra::swap_storage(q, q_new);
    SystemAlgebra::swap_storage(v, v_new);
    SystemAlgebra::swap_storage(mass_v, mass_v_new);
    SystemAlgebra::swap_storage(stiffness_q, stiffness_q_new);
    SystemAlgebra::swap_storage(stiffness_v, stiffness_v_new);
    SystemAlgebra::swap_storage(force, force_new);
    accept_step(e);
    if (turning)
      {
        turn_out_of_step_basis();
        pay_turning_basis_work(basis_work);
      }
    in_step_basis = false;
    if (system.frames)
      update_frames(true, turning_basis() ? 0.0 : theta);
  }

  double MoreauJeanIntegrator::support_reaction_work(const bool turning)
  {
    // Support reactions: the momentum residual on the Dirichlet rows,
    // R = M(v_{k+1} − v_k) + hK q_{k+θ} + hC v_{k+θ} − hF_{k+θ} − H p; their work is v_θᵀR there.
    rhs.equ(1.0, mass_v_new);
    rhs.add(-1.0, mass_v);
    rhs.add(h * (1 - theta), stiffness_q);
    rhs.add(h * theta, stiffness_q_new);
    rhs.add(h * system.rayleigh_alpha, work);
    rhs.add(h * system.rayleigh_beta, scratch);
    if (system.frames)
      rhs.add(-h, spin_damping);
    if (system.kelvin_voigt != nullptr)
      rhs.add(h, kelvin_voigt_v);
    if (!branch_strain.empty())
      rhs.add(h, branch_force_theta);
    if (system.has_external_force)
      rhs.add(-h, force_theta);
    if (impulse_applied)
      rhs.add(-1.0, impulse);
    if (turning)
      rhs.add(-1.0, gyroscopic_impulse);
    return SystemAlgebra::inner_product(rhs, v_theta, system.constrained_dofs, communicator);
  }

  double MoreauJeanIntegrator::update_branches(StepEnergy &e)
  {
    // The update (V4) of eᵢ and sᵢ = Kᵢeᵢ, and the split (V7) of the branch's work Δqᵀ𝐑sᵢ,k+θ
    // into the change of ½eᵢᵀKᵢeᵢ, the scheme's (θ−½)‖Δeᵢ‖²_Kᵢ and the dashpot's dissipation
    // (Δq − Δeᵢ)ᵀsᵢ,k+θ, each computed from the update; in the step's frames with large rotations
    // (𝐑ᵀΔq, eᵢ and sᵢ all held in them: the products are those in space).
    const bool rotated = frames_turned(), turning = step_turns_bodies();
    increment.equ(h, v_theta); // Δq = q_{k+1} − q_k
    if (turning)
      increment.add(-h, spin_velocity); // (its spin is in branch_spin for the right-hand side only)
    rotate_if_turned(increment, true);
    branch_force_theta = 0;
    double numerical = 0;
    for (std::size_t i = 0; i < branch_strain.size(); ++i)
      {
        Vector &strain = branch_strain[i], &force_i = branch_force[i];
        // Δeᵢ = (aᵢ − 1)eᵢ,k + γᵢΔq (+ the spin terms) into strain_change, sᵢ,k+1 = Kᵢeᵢ,k+1 into
        // branch_force_new.
        strain_change.equ(branch_decay(i) - 1, strain);
        strain_change.add(branch_gain(i), increment);
        if (rotated && !turning)
          strain_change.add(1.0, branch_spin[i]);
        strain.add(1.0, strain_change);
        system.maxwell_branches[i].stiffness->vmult(branch_force_new, strain);
        const double energy_new = 0.5 * (strain * branch_force_new);
        // sᵢ,k+θ into force_i (sᵢ,k is not needed after this step), Δsᵢ kept for ‖Δeᵢ‖²_Kᵢ.
        const double dK_d = strain_change * branch_force_new - strain_change * force_i;
        force_i.sadd(1 - theta, theta, branch_force_new);
        const double work_i = increment * force_i;
        const double dashpot = work_i - strain_change * force_i; // (Δq − Δeᵢ)ᵀsᵢ,k+θ
        branch_force_theta.add(1.0, force_i);
        force_i = branch_force_new;
        e.viscoelastic_energy += energy_new;
        e.viscoelastic_dissipation += dashpot;
        numerical += (theta - 0.5) * dK_d;
      }
    rotate_if_turned(branch_force_theta, false); // (for the support reactions, in space)
    return numerical;
  }

  double MoreauJeanIntegrator::correct_displacement(const Vector &displacement_correction)
  {
    // q and K q are the state the next step starts from (force holds F_{k+1}). The Maxwell
    // branches' eᵢ stay: the correction is no strain history they see (doc/theory.md, after (V9)).
    q.add(1.0, displacement_correction);
    const double strain_energy = elastic_force(q, stiffness_q);
    const double load_work = system.has_external_force ? displacement_correction * force : 0.0;
    system.apply_mass(work, displacement_correction);
    mass_q.add(1.0, work);
    // K δq for K v, should the correction take energy from v (a projection step only).
    stiffness_times_velocity(displacement_correction, scratch);
    return book_position_correction(strain_energy, load_work, displacement_correction, work, &mass_v, &stiffness_v,
                                    &scratch);
  }

  PositionCorrectionCost MoreauJeanIntegrator::position_correction_cost(const Vector &displacement_correction)
  {
    // The terms of correct_displacement()'s energy as polynomials in the scale of δq: ũ is affine
    // in q with slope 𝐑ᵀ, so the strain energy is quadratic in it (stiffness_q holds 𝐑Kũ).
    PositionCorrectionCost cost;
    stiffness_times_velocity(displacement_correction, scratch);
    cost.quadratic = 0.5 * (displacement_correction * scratch);
    cost.linear = displacement_correction * stiffness_q;
    if (system.has_external_force)
      cost.linear -= displacement_correction * force;
    system.apply_mass(work, displacement_correction);
    const double a = displacement_correction * work, b = v * work;
    cost.kinetic_release = a > 0 ? 0.5 * b * b / a : 0.0;
    return cost;
  }

  void MoreauJeanIntegrator::check_parameters(const TimeIntegrationParameters &time,
                                              const ContactStep::SchemeContactSettings &contact,
                                              std::vector<std::string> &warnings)
  {
    // Proposition 1: the Frémond scheme dissipates energy for ½ ≤ θ ≤ 1/(1+ē), ē = max e.
    if (time.scheme != Scheme::moreau_jean_fremond || contact.restitution.empty())
      return;
    if (!time.provably_dissipative(contact.restitution))
      {
        const double max_e = TimeIntegrationParameters::largest_restitution(contact.restitution);
        const std::string message =
          "'Time integration/Theta' = " + std::to_string(time.theta) + " lies outside [1/2, 1/(1+max e)] = [0.5, " +
          std::to_string(1.0 / (1.0 + max_e)) +
          "], where the Fremond scheme is proven to dissipate energy (max e = " + std::to_string(max_e) + ").";
        if (contact.dissipation_range_policy == ContactStep::DissipationRangePolicy::refuse)
          throw InputError("Parameter " + message +
                           " Set 'Contact solver/Dissipation range policy' = warn to run anyway.");
        warnings.push_back(message);
      }
  }

  std::string MoreauJeanIntegrator::description() const
  {
    return "Moreau-Jean theta = " + std::to_string(theta);
  }
} // namespace percussion::TimeIntegration
