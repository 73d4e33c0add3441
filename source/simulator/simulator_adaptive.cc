// Dyadic adaptive time steps of the Simulator (AdaptiveStepPolicy decides; this file observes the
// contacts for it and sets the integrator's step).
#include <deal.II/base/mpi.h>

#include <percussion/simulator/simulator.h>

#include <iomanip>
#include <limits>

namespace percussion
{
  using namespace dealii;

  template <int dim>
  void Simulator<dim>::choose_step_size()
  {
    auto &integrator = *time_integrator;
    double closing_time = std::numeric_limits<double>::infinity();
    if (geometry && geometry->n_global_points() > 0)
      {
        // The shortest time in which an open candidate's gap closes at its present normal
        // velocity (u_N = ġ, normal first in u): the step is refined so that an impact starts at
        // the finest level.
        const auto &u = geometry->local_velocity(integrator.velocity());
        const auto first = u.local_range().first;
        const auto &points = geometry->owned_points();
        for (std::size_t i = 0; i < points.size(); ++i)
          if (const double u_n = u(first + dim * i); points[i].gap > 0 && u_n < 0)
            closing_time = std::min(closing_time, points[i].gap / -u_n);
        closing_time = Utilities::MPI::min(closing_time, communicator);
      }
    adaptive->limit_to_closing(closing_time);
    integrator.set_time_step(adaptive->step_size());
  }

  template <int dim>
  void Simulator<dim>::note_step_for_adaptivity()
  {
    // The contacts active at the end of the step, as a count and an XOR of their keys' hashes
    // over all ranks: both are the same on any partition (a resumed run may have another one).
    ContactObservation observed;
    unsigned int hash = 0;
    for (std::size_t i = 0; i < contact_result.state.size() && i < contact_points.size(); ++i)
      if (contact_result.state[i] != ContactStep::ContactState::open)
        {
          ++observed.n_active;
          const unsigned long long mixed = contact_points[i].key * 0x9E3779B97F4A7C15ULL;
          hash ^= static_cast<unsigned int>(mixed >> 32);
        }
    observed.n_active = Utilities::MPI::sum(observed.n_active, communicator);
    MPI_Allreduce(&hash, &observed.active_hash, 1, MPI_UNSIGNED, MPI_BXOR, communicator);
    // (The contact result's impulse is summed over the ranks already.)
    observed.normal_force = contact_result.normal_impulse / time_integrator->time_step();
    adaptive->step_done(time_integrator->time_step(), time_integrator->elapsed_nominal_steps(), observed);
  }

  template <int dim>
  bool Simulator<dim>::adaptive_run_finished() const
  {
    return time_integrator->elapsed_nominal_steps() >= static_cast<double>(parameters.time.n_steps());
  }

#define PERCUSSION_INSTANTIATE(dim)                                 \
  template void Simulator<dim>::choose_step_size();                 \
  template void Simulator<dim>::note_step_for_adaptivity();         \
  template bool Simulator<dim>::adaptive_run_finished() const;
  PERCUSSION_INSTANTIATE(1)
  PERCUSSION_INSTANTIATE(2)
  PERCUSSION_INSTANTIATE(3)
#undef PERCUSSION_INSTANTIATE
} // namespace percussion
