#include <deal.II/base/mpi.h>

#include <percussion/time_integration/moreau_jean_integrator.h>
#include <percussion/time_integration/system_algebra.h>

#include <cmath>

namespace percussion::TimeIntegration
{
  void MoreauJeanIntegrator::swap_turned_state()
  {
    SystemAlgebra::swap_storage(q, q_turned);
    SystemAlgebra::swap_storage(v, v_turned);
    SystemAlgebra::swap_storage(mass_v, mass_v_turned);
    SystemAlgebra::swap_storage(stiffness_q, stiffness_q_turned);
    SystemAlgebra::swap_storage(stiffness_v, stiffness_v_turned);
  }

  void MoreauJeanIntegrator::turn_into_step_basis()
  {
    if (in_step_basis)
      return;
    BodyFrames &frames = *system.frames;
    // ω = J⁻¹L, V = P/m and c of each body at t_k (scratch = M(X + q)).
    const auto motions = rigid_motions(work, scratch, frames.fit(q));
    step_turns.assign(motions.size(), BodyTurn());
    any_body_turns = false;
    // A body turning less than a hundredth of 'Frame update angle' a step (1e-6 rad by default)
    // keeps the fixed basis: its chord damping (θ − ½)(ωh)² is below 1e-12 a step, and a body at
    // rest keeps its frame (and what the contact step built from it).
    for (std::size_t b = 0; b < motions.size(); ++b)
      {
        BodyTurn &t = step_turns[b];
        const auto &w = motions[b].angular_velocity;
        t.turns = frames.is_free(b) && motions[b].mass > 0 &&
                  h * std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) > 0.01 * system.frame_update_angle;
        if (!t.turns)
          continue;
        any_body_turns = true;
        t.angular_velocity = w;
        t.center = motions[b].center;
        for (unsigned int d = 0; d < 3; ++d)
          t.velocity[d] = motions[b].momentum[d] / motions[b].mass;
        // Half of the step's turn in, half out: the basis is the fixed one at t_{k+½}, so that a
        // point that a contact holds at rest (a pivot, a rolling contact) does not drift at second
        // order (a basis fixed at t_{k+θ} moves it by (θ − ½)h²ω²r a step, outward from c).
        t.rotation = BodyFrames::rotation_exponential({{0.5 * h * w[0], 0.5 * h * w[1], 0.5 * h * w[2]}});
      }
    in_step_basis = true;
    if (!any_body_turns)
      return;
    // The state at t_k in the basis of t_{k+½}: positions about c, velocities about V, forces
    // (𝐑Kũ, 𝐑K𝐑ᵀv: the strain turns with the frames, K takes no translation) turned alike.
    q_turned = q;
    frames.turn(step_turns, TurnedQuantity::positions, q_turned);
    v_turned = v;
    frames.turn(step_turns, TurnedQuantity::velocities, v_turned);
    stiffness_q_turned = stiffness_q;
    frames.turn(step_turns, TurnedQuantity::forces, stiffness_q_turned);
    stiffness_v_turned = stiffness_v;
    frames.turn(step_turns, TurnedQuantity::forces, stiffness_v_turned);
    system.apply_mass(mass_v_turned, v_turned);
    frames.turn_frames(step_turns);
    ++version;

    // The step's explicit terms: the spin s of the positions, which the position update takes out
    // (Δx = h(v_θ − s)), and with it 𝐑K𝐑ᵀs; the gyroscopic force of the turning basis,
    // −Mω × (ṽ_k − V), explicit so that the factor of Ŵ serves (its work, of order hω‖Δv‖‖v‖, is
    // booked and paid from the vibration, pay_turning_basis_work()).
    frames.spin_field(step_turns, TurnedQuantity::positions, q_turned, spin_velocity);
    stiffness_times_velocity(spin_velocity, spin_stiffness);
    frames.spin_field(step_turns, TurnedQuantity::velocities, v_turned, work);
    system.apply_mass(gyroscopic_impulse, work);
    gyroscopic_impulse *= -h;
    // The damping acts on the deformation rate 𝐑̃ᵀ(v − s): its spin part is a force of the step;
    // a Maxwell branch sees the increment 𝐑̃ᵀΔx = h𝐑̃ᵀ(v_θ − s) in its frame, which turns with it.
    spin_damping.equ(system.rayleigh_beta, spin_stiffness);
    if (system.kelvin_voigt != nullptr)
      {
        product_in_frames(*system.kelvin_voigt, spin_velocity, work);
        spin_damping.add(1.0, work);
      }
    for (std::size_t i = 0; i < branch_spin.size(); ++i)
      {
        branch_spin[i].equ(-h * branch_gain(i), spin_velocity);
        system.frames->rotate(branch_spin[i], true);
      }
    basis_offset.equ((1 - theta) / theta, v_turned);
    basis_offset.add(-(1 - theta) / theta, v);
  }

  void MoreauJeanIntegrator::undo_step_basis()
  {
    if (!in_step_basis)
      return;
    in_step_basis = false;
    if (!any_body_turns)
      return;
    // frame_values() kept the frames of the step's start.
    system.frames->frames_from_values();
    ++version;
  }

  void MoreauJeanIntegrator::turn_out_of_step_basis()
  {
    in_step_basis = false;
    if (!any_body_turns)
      return;
    BodyFrames &frames = *system.frames;
    // The new state turned on by ½hω with its frames, about its centre of mass and relative to its
    // mean velocity: the translation stays the θ-scheme's in space (a uniform load is not turned).
    const auto mean_q = frames.means(q), mean_v = frames.means(v);
    std::vector<BodyTurn> turns = step_turns;
    for (std::size_t b = 0; b < turns.size(); ++b)
      {
        BodyTurn &t = turns[b];
        if (!t.turns)
          continue;
        const auto center = frames.reference_center_of(b);
        for (unsigned int d = 0; d < 3; ++d)
          {
            t.center[d] = center[d] + mean_q[b][d];
            t.velocity[d] = mean_v[b][d];
          }
      }
    frames.turn(turns, TurnedQuantity::positions, q);
    frames.turn(turns, TurnedQuantity::velocities, v);
    frames.turn(turns, TurnedQuantity::forces, stiffness_q);
    frames.turn(turns, TurnedQuantity::forces, stiffness_v);
    frames.turn_frames(turns);
    frames.store_frames();
    system.apply_mass(mass_v, v);
    system.apply_mass(mass_q, q);
    ++version;
  }

  double MoreauJeanIntegrator::turning_basis_work(double &dq_K_dq)
  {
    // (v_theta holds v_θ, scratch 𝐑̃K𝐑̃ᵀv_θ, stiffness_q and stiffness_q_new 𝐑̃Kũ at t_k and
    // t_{k+1}, branch_force_theta 𝐑̃Σsᵢ,k+θ.)
    double products[6];
    SystemAlgebra::inner_products({{&v_theta, &gyroscopic_impulse},
                                   {&spin_velocity, &stiffness_q},
                                   {&spin_velocity, &stiffness_q_new},
                                   {&spin_velocity, &branch_force_theta},
                                   {&v_theta, &spin_stiffness},
                                   {&spin_velocity, &spin_stiffness}},
                                  products, communicator);
    const auto &[gyroscopic, s_Kq_old, s_Kq_new, s_branches, v_K_s, s_K_s] = products;
    dq_K_dq += h * h * (s_K_s - 2 * v_K_s);
    return gyroscopic - h * ((1 - theta) * s_Kq_old + theta * s_Kq_new + (branch_strain.empty() ? 0.0 : s_branches));
  }

  void MoreauJeanIntegrator::pay_turning_basis_work(const double work_done)
  {
    if (!(work_done > 0))
      return;
    // A rise may not stay: the turning basis creates no energy. It is paid as a frame's
    // re-measure is (update_frames()), from the turned bodies' deformation velocity where that
    // holds it (their momentum and angular momentum stay); the rest, which a transient leaves
    // where the vibration is still small (a sudden spin-up), from their motion about their mean
    // velocity, spin and vibration scaled together (the momentum stays; the spin gives what the
    // step created). A fall is left: it is no creation, and giving it back would feed the
    // vibration from the spin.
    std::vector<char> turned(step_turns.size(), 0);
    for (std::size_t b = 0; b < step_turns.size(); ++b)
      turned[b] = step_turns[b].turns ? 1 : 0;
    const double deformation_energy = deformation_energy_of(turned);
    double paid = -exchange_with_vibration(std::min(work_done, deformation_energy), deformation_energy);
    if (work_done - paid > 0)
      {
        const double relative_energy = relative_motion_energy_of(turned);
        paid -= exchange_with_vibration(std::min(work_done - paid, relative_energy), relative_energy);
      }
    energy.kinetic_energy -= paid;
    energy.frame_correction -= paid;
    stiffness_times_velocity(v, stiffness_v);
  }
} // namespace percussion::TimeIntegration
