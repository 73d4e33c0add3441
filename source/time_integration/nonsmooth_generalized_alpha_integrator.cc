#include <percussion/core/exceptions.h>
#include <percussion/core/petsc_check.h>
#include <percussion/core/petsc_handle.h>
#include <percussion/time_integration/nonsmooth_generalized_alpha_integrator.h>
#include <percussion/time_integration/system_algebra.h>

#include <cmath>
#include <sstream>
#include <string>

namespace percussion::TimeIntegration
{
  using dealii::PETScWrappers::MPI::Vector;
  namespace Algebra = SystemAlgebra;

  NonsmoothGeneralizedAlphaIntegrator::NonsmoothGeneralizedAlphaIntegrator(
    const LinearElastodynamicSystem &system, const TimeIntegrationParameters &time_parameters,
    const LinearSolverParameters &solver_parameters, const dealii::IndexSet &locally_owned_dofs, MPI_Comm communicator)
    : FramedIntegrator(system, time_parameters.time_step, time_parameters.energy_creation_tolerance, locally_owned_dofs,
                       communicator)
    , name(to_string(time_parameters.scheme))
    , gamma_(time_parameters.newmark_gamma())
    , beta_(time_parameters.newmark_beta())
    , alpha_m_(time_parameters.alpha_m())
    , alpha_f_(time_parameters.alpha_f())
    , solver(std::make_unique<IterationMatrixSolver>(solver_parameters, communicator))
    , mass_solver(std::make_unique<IterationMatrixSolver>(solver_parameters, communicator))
  {
    if (this->system.quasi_static_projection_time > 0)
      quasi_static = std::make_unique<QuasiStaticMetric>(this->system, solver_parameters, owned.size(), communicator);
    for (Vector *x : {&spin_damping,
                      &stiffness_v,
                      &force_before_frames,
                      &a,
                      &force,
                      &force_new,
                      &q_predicted,
                      &v_predicted,
                      &a_free,
                      &impulse,
                      &impulsive_velocity,
                      &correction,
                      &rhs,
                      &work,
                      &work2,
                      &scratch,
                      &reaction,
                      &reaction_new,
                      &prescribed_acceleration,
                      &a_new,
                      &q_new,
                      &dq,
                      &da,
                      &v_omega})
      x->reinit(owned, communicator);
    // N = (1−α_m)M + (1−α_f)h²(β−γ/2)K is a multiple of M (and 𝒯 = S⁻¹NM⁻¹ symmetric) when β = γ/2.
    symmetric_response = std::abs(beta_ - 0.5 * gamma_) <= 1e-14 * beta_;
  }

  void NonsmoothGeneralizedAlphaIntegrator::damping_force(const Vector &v_at, Vector &result)
  {
    if (system.rayleigh_alpha != 0)
      {
        system.apply_mass(result, v_at);
        result *= system.rayleigh_alpha;
      }
    else
      result = 0;
    if (system.rayleigh_beta != 0)
      {
        stiffness_times_velocity(v_at, stiffness_v);
        result.add(system.rayleigh_beta, stiffness_v);
        result.add(-1.0, spin_damping);
      }
  }

  void NonsmoothGeneralizedAlphaIntegrator::smooth_force(const Vector &q_at, const Vector &v_at, const Vector *f,
                                                         Vector &result)
  {
    damping_force(v_at, result);
    elastic_force(q_at, work2);
    result.add(1.0, work2);
    if (f != nullptr)
      result.add(-1.0, *f);
    result *= -1.0;
  }

  void NonsmoothGeneralizedAlphaIntegrator::weighted_smooth_force(const Vector &q_next, const Vector &v_next,
                                                                  Vector &result)
  {
    smooth_force(q_next, v_next, system.has_external_force ? &force_new : nullptr, result);
    result *= 1 - alpha_f_;
    if (alpha_f_ != 0)
      {
        smooth_force(q, v, system.has_external_force ? &force : nullptr, scratch);
        result.add(alpha_f_, scratch);
      }
  }

  void NonsmoothGeneralizedAlphaIntegrator::solve_iteration(Vector &b, Vector &x, const bool lifted)
  {
    // 𝐑S𝐑ᵀx = b: S(𝐑ᵀx) = 𝐑ᵀb with the factor of S (Dirichlet DoFs are on bodies whose frame is
    // the identity: their lifted rows stay as they are).
    rotate_if_turned(b, true);
    rotate_if_turned(x, true);
    if (lifted)
      solver->solve(b, x);
    else
      Algebra::solve_eliminated(*solver, b, x, system.constrained_dofs, scratch);
    rotate_if_turned(x, false);
  }

  void NonsmoothGeneralizedAlphaIntegrator::start_step_in_frames()
  {
    // The damping acts on the deformation rate in the frame: the spin of the strain field with
    // its body, β𝐑K(Ω × ũ_k), is taken out of β𝐑K𝐑ᵀv (as for Moreau–Jean: without it a spinning
    // disk with β > 0 loses its spin).
    spin_damping = 0;
    if (!frames_turned() || system.rayleigh_beta == 0)
      return;
    system.apply_mass(mass_v, v);
    strain_spin(work, scratch);
    system.apply_stiffness(spin_damping, work);
    spin_damping *= system.rayleigh_beta;
    system.frames->rotate(spin_damping, false);
  }

  void NonsmoothGeneralizedAlphaIntegrator::constrained_part(const Vector &x, Vector &result) const
  {
    const auto &dofs = system.constrained_dofs;
    std::vector<double> values(dofs.size());
    x.extract_subvector_to(dofs, values);
    result = 0;
    if (!dofs.empty())
      result.set(dofs, values);
    result.compress(dealii::VectorOperation::insert);
  }

  void NonsmoothGeneralizedAlphaIntegrator::initialize(const double start, const Vector &displacement,
                                                       const Vector &velocity)
  {
    start_at(start);
    q = displacement;
    v = velocity;
    // (The body's initial conditions already hold q = g(t_0) on Dirichlet DoFs and v = 0 on fixed ones.)
    if (system.has_external_force)
      system.assemble_external_force(current_time, force);
    else
      force = 0;

    const double c_mass = (1 - alpha_m_) + (1 - alpha_f_) * h * gamma_ * system.rayleigh_alpha;
    const double c_stiffness = (1 - alpha_f_) * (h * gamma_ * system.rayleigh_beta + h * h * beta_);
    const auto &dofs = system.constrained_dofs;
    iteration = Algebra::scaled_sum(system, c_mass, c_stiffness);
    if (system.has_prescribed_motion)
      PERCUSSION_PETSC_CALL(MatDuplicate(iteration, MAT_COPY_VALUES, iteration_full.out()));
    iteration_diagonal = Algebra::eliminate(iteration, dofs);
    mass_eliminated = Algebra::scaled_sum(system, 1.0, 0.0);
    Algebra::eliminate(mass_eliminated, dofs);
    response_numerator = Algebra::scaled_sum(system, 1 - alpha_m_, (1 - alpha_f_) * h * h * (beta_ - 0.5 * gamma_));
    Algebra::zero_rows(response_numerator, dofs);
    solver->set_near_null_space(system.rigid_body_modes, system.node_block_size);
    solver->set_matrix(iteration, owned.size());
    mass_solver->set_near_null_space(system.rigid_body_modes, system.node_block_size);
    mass_solver->set_matrix(mass_eliminated, owned.size());

    energy = StepEnergy();
    if (system.frames)
      {
        system.apply_mass(mass_v, v);
        update_frames(false, 0.5);
      }
    spin_damping = 0;
    // a_0 = M⁻¹(f_0 − K q_0 − C v_0): the smooth acceleration at the start.
    smooth_force(q, v, system.has_external_force ? &force : nullptr, rhs);
    a = 0;
    Algebra::solve_eliminated(*mass_solver, rhs, a, dofs, scratch);
    // On prescribed DoFs a_0 = 0 (g'' is not known); the reaction there closes M a_0 = F_0 + R_0.
    if (system.has_prescribed_motion)
      {
        system.apply_mass(work, a);
        work.add(-1.0, rhs);
        constrained_part(work, reaction);
      }

    energy = StepEnergy();
    system.apply_mass(work, v);
    energy.kinetic_energy = 0.5 * (v * work);
    energy.strain_energy = elastic_force(q, work); // (in the first frames)
    system.apply_mass(work, a);
    energy.algorithmic_energy = 0.25 * h * h * (2 * beta_ - gamma_) * (a * work);
  }

  void NonsmoothGeneralizedAlphaIntegrator::compute_free_velocity()
  {
    const double t_new = start_time + (step + 1) * h;
    if (system.has_external_force && system.external_force_depends_on_time)
      system.assemble_external_force(t_new, force_new);
    else
      force_new = force;

    start_step_in_frames();
    // Predictors: q̃ = q_k + h v_k + h²(½−β)a_k, ṽ = v_k + h(1−γ)a_k.
    q_predicted = q;
    q_predicted.add(h, v, h * h * (0.5 - beta_), a);
    v_predicted = v;
    v_predicted.add(h * (1 - gamma_), a);

    // S a_free = (1−α_f)(f_{k+1} − K q̃ − C ṽ) + α_f(f_k − K q_k − C v_k) − α_m M a_k.
    weighted_smooth_force(q_predicted, v_predicted, rhs);
    if (alpha_m_ != 0)
      {
        system.apply_mass(work, a);
        rhs.add(-alpha_m_, work);
      }
    a_free = a; // initial guess for CG
    if (system.has_prescribed_motion)
      {
        // Prescribed DoFs: a_{k+1} such that q_{k+1} = q̃ + h²β a_{k+1} = g(t_{k+1}) (no impulse
        // acts there); the known values are lifted to the right-hand side of the free rows.
        const auto &dofs = system.constrained_dofs;
        std::vector<double> g(dofs.size()), q_c(dofs.size()), a_c(dofs.size());
        system.prescribed_displacement(t_new, g);
        q_predicted.extract_subvector_to(dofs, q_c);
        for (std::size_t i = 0; i < dofs.size(); ++i)
          a_c[i] = (g[i] - q_c[i]) / (h * h * beta_);
        Algebra::lift(iteration_full, a_c, dofs, iteration_diagonal, prescribed_acceleration, work, rhs);
        solve_iteration(rhs, a_free, true);
      }
    else
      solve_iteration(rhs, a_free, false);
    v_new = v_predicted;
    v_new.add(h * gamma_, a_free);

    impulse = 0;
    impulsive_velocity = 0;
    correction = 0;
    impulse_applied = false;
  }

  void NonsmoothGeneralizedAlphaIntegrator::apply_impulse(const Vector &generalized_impulse,
                                                          const Vector &velocity_correction)
  {
    // Δv^con = M⁻¹ H Λ (zero on Dirichlet DoFs, where the support takes the impulse).
    work = 0;
    Algebra::solve_eliminated(*mass_solver, generalized_impulse, work, system.constrained_dofs, scratch);
    impulsive_velocity.add(1.0, work);
    impulse.add(1.0, scratch);
    correction.add(1.0, velocity_correction);
    v_new.add(1.0, velocity_correction);
    impulse_applied = true;
  }

  void NonsmoothGeneralizedAlphaIntegrator::response(Mat B, Mat X, const bool rotated)
  {
    // Y = M⁻¹B, Z = N 𝐑ᵀY, X = 𝐑 S⁻¹Z: two multiple-right-hand-side sweeps and a sparse-dense product.
    MatHandle Y, Z;
    PERCUSSION_PETSC_CALL(MatDuplicate(B, MAT_DO_NOT_COPY_VALUES, Y.out()));
    mass_solver->solve(B, Y);
    if (rotated)
      system.frames->rotate_rows(Y, true);
    PERCUSSION_PETSC_CALL(MatMatMult(response_numerator, Y, MAT_INITIAL_MATRIX, PETSC_DEFAULT, Z.out()));
    solver->solve(Z, X);
    if (rotated)
      system.frames->rotate_rows(X, false);
  }

  void NonsmoothGeneralizedAlphaIntegrator::impulse_response(const dealii::PETScWrappers::MPI::Vector &b,
                                                             dealii::PETScWrappers::MPI::Vector &x)
  {
    // The vector form of the dense one above, with the same operations in the same order.
    if (response_y.size() != b.size())
      {
        response_y.reinit(b);
        response_z.reinit(b);
      }
    mass_solver->solve(b, response_y);
    rotate_if_turned(response_y, true);
    PERCUSSION_PETSC_CALL(
      MatMult(response_numerator, SystemAlgebra::petsc(response_y), SystemAlgebra::petsc(response_z)));
    rotate_if_turned(x, true); // (the initial guess of CG)
    solver->solve(response_z, x);
    rotate_if_turned(x, false);
  }

  void NonsmoothGeneralizedAlphaIntegrator::projection_response(Mat B, Mat X)
  {
    if (quasi_static)
      quasi_static->solve(B, X);
    else
      SystemAlgebra::solve_in_frames(system.frames.get(), B, X,
                                     [this](Mat rhs, Mat solution) { solver->solve(rhs, solution); });
  }

  void NonsmoothGeneralizedAlphaIntegrator::finish_step()
  {
    // a_{k+1} = a_free + S⁻¹(−(1−α_f)(C + h/2 K)Δv^con) = a_free + (𝒯HΛ − Δv^con)/(hγ), from
    // S − hγ(1−α_f)(C + h/2 K) = N; q_{k+1} = q̃ + h²β a_{k+1} + h/2 Δv^con.
    // (The step's vectors are members: nothing is allocated per step.)
    a_new = a_free;
    if (impulse_applied)
      {
        a_new.add(1.0 / (h * gamma_), correction);
        a_new.add(-1.0 / (h * gamma_), impulsive_velocity);
      }
    q_new = q_predicted;
    q_new.add(h * h * beta_, a_new);
    if (impulse_applied)
      q_new.add(0.5 * h, impulsive_velocity);

    StepEnergy e;
    system.apply_mass(work, v_new);
    e.kinetic_energy = 0.5 * (v_new * work);
    e.strain_energy = elastic_force(q_new, work); // ½ũᵀKũ in the step's frames
    const double c = 0.5 * h * h * (2 * beta_ - gamma_);
    system.apply_mass(work, a_new);
    e.algorithmic_energy = 0.5 * c * (a_new * work);
    check_finite(e);

    // Δq, Δa and the weighted velocity v_{k+ω}.
    const bool newmark = alpha_m_ == 0 && alpha_f_ == 0;
    const double omega = newmark ? gamma_ : 1 - alpha_f_;
    dq = q_new;
    dq.add(-1.0, q);
    da = a_new;
    da.add(-1.0, a);
    v_omega = v;
    v_omega.sadd(1 - omega, omega, v_new);
    stiffness_times_velocity(dq, work);
    const double dq_K_dq = dq * work;
    system.apply_mass(work, da);
    const double da_M_da = da * work;
    const double dq_M_da = dq * work;

    if (system.has_external_force)
      {
        work.equ(1 - omega, force);
        work.add(omega, force_new);
        e.external_work = dq * work;
      }
    damping_force(v_omega, rhs);
    e.damping_work = -(dq * rhs);
    if (system.has_prescribed_motion)
      {
        // Support reactions R_{k+1} = M ã − F_{k+1−α_f} on the Dirichlet rows; their work in the
        // identity is Δqᵀ R_{k+ω} (R_{k+γ} for Newmark, from M a_{k+γ} = F_{k+γ} + R_{k+γ}).
        system.apply_mass(work, a_new);
        work *= 1 - alpha_m_;
        if (alpha_m_ != 0)
          {
            system.apply_mass(work2, a);
            work.add(alpha_m_, work2);
          }
        weighted_smooth_force(q_new, v_new, rhs);
        work.add(-1.0, rhs);
        constrained_part(work, reaction_new);
        rhs.equ(newmark ? 1 - omega : 0.0, reaction);
        rhs.add(newmark ? omega : 1.0, reaction_new);
        e.external_work += dq * rhs;
      }
    e.numerical_dissipation =
      (omega - 0.5) * dq_K_dq + c * (gamma_ - 0.5) * da_M_da - (newmark ? 0.0 : (gamma_ - 1 + alpha_m_) * dq_M_da);
    if (impulse_applied)
      {
        work.equ(0.5, v);
        work.add(0.5, v_new);
        e.contact_work = work * impulse;
      }

    SystemAlgebra::swap_storage(q, q_new);
    SystemAlgebra::swap_storage(v, v_new);
    SystemAlgebra::swap_storage(a, a_new);
    if (system.has_prescribed_motion)
      SystemAlgebra::swap_storage(reaction, reaction_new);
    SystemAlgebra::swap_storage(force, force_new);
    accept_step(e);
    if (system.frames)
      {
        // The frames of the next step: the fit of its predicted midpoint q + ½hv.
        system.apply_mass(mass_v, v);
        smooth_force(q, v, nullptr, force_before_frames);
        acceleration_follows_frames = true;
        update_frames(true, 0.5);
        acceleration_follows_frames = false;
      }
  }

  void NonsmoothGeneralizedAlphaIntegrator::frames_taken()
  {
    // The acceleration a_k pairs with the force at q_k in the next step (the weighted equation of
    // motion and the predictors): measured in the old frames it would be the force rotated by the
    // frames' turn, a torque the body does not have (a free disk spinning at 10 rad/s gains 3 % of
    // its angular momentum in 10 revolutions with Newmark's trapezoidal rule). It follows the
    // force's change, a ← a + M⁻¹(F_new − F_old) at the same q and v; the change of the algorithmic
    // energy it carries is the frames', booked with theirs.
    if (!acceleration_follows_frames)
      return;
    start_step_in_frames();
    smooth_force(q, v, nullptr, rhs);
    rhs.add(-1.0, force_before_frames);
    da = 0;
    Algebra::solve_eliminated(*mass_solver, rhs, da, system.constrained_dofs, scratch);
    a.add(1.0, da);
    system.apply_mass(work, a);
    const double algorithmic = 0.25 * h * h * (2 * beta_ - gamma_) * (a * work);
    energy.frame_correction += algorithmic - energy.algorithmic_energy;
    energy.algorithmic_energy = algorithmic;
  }

  double NonsmoothGeneralizedAlphaIntegrator::correct_displacement(const Vector &displacement_correction)
  {
    // Only q changes: v and a stay (the projection moves positions, not the smooth motion; the
    // scheme's algorithmic energy is written in v and a). force holds F_{k+1}.
    q.add(1.0, displacement_correction);
    const double strain_energy = elastic_force(q, work);
    const double load_work = system.has_external_force ? displacement_correction * force : 0.0;
    system.apply_mass(work, displacement_correction);
    return book_position_correction(strain_energy, load_work, displacement_correction, work, nullptr);
  }

  PositionCorrectionCost
  NonsmoothGeneralizedAlphaIntegrator::position_correction_cost(const Vector &displacement_correction)
  {
    // correct_displacement() keeps v: only the strain energy and the loads' work change.
    // (ũ is affine in q with slope 𝐑ᵀ: the strain energy is quadratic in the correction's scale.)
    PositionCorrectionCost cost;
    stiffness_times_velocity(displacement_correction, work);
    cost.quadratic = 0.5 * (displacement_correction * work);
    elastic_force(q, work2);
    cost.linear = displacement_correction * work2;
    if (system.has_external_force)
      cost.linear -= displacement_correction * force;
    return cost;
  }

  void NonsmoothGeneralizedAlphaIntegrator::check_parameters(const TimeIntegrationParameters &time,
                                                             const ContactStep::SchemeContactSettings &,
                                                             std::vector<std::string> &warnings)
  {
    const double g = time.newmark_gamma(), b = time.newmark_beta();
    if (!(g >= 0.5 - 1e-14 && 2 * b >= g - 1e-14))
      warnings.push_back("the nonsmooth Newmark parameters gamma = " + std::to_string(g) +
                         ", beta = " + std::to_string(b) +
                         " violate 2 beta >= gamma >= 1/2: the scheme is not "
                         "unconditionally stable and may create energy (talk (34), (74)).");
  }

  std::string NonsmoothGeneralizedAlphaIntegrator::description() const
  {
    std::ostringstream s;
    s << name << " (gamma = " << gamma_ << ", beta = " << beta_ << ", alpha_m = " << alpha_m_
      << ", alpha_f = " << alpha_f_ << ")";
    return s.str();
  }
} // namespace percussion::TimeIntegration
