#ifndef PERCUSSION_SIMULATOR_ENERGY_GUARD_H
#define PERCUSSION_SIMULATOR_ENERGY_GUARD_H

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/petsc_sparse_matrix.h>

#include <percussion/core/saved_value.h>
#include <percussion/postprocess/energy_audit.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/time_integration/time_integration_parameters.h>
#include <percussion/time_integration/time_integrator.h>

#include <mpi.h>

namespace percussion
{
  /**
   * The energy guard: judges each step, once the audit has booked it, by the energy it created. A
   * step whose energy exceeds the previous one plus the loads' work by more than 'Time
   * integration/Energy creation tolerance' × the energy scale (and than the energy of round-off,
   * round_off_energy()) is an `energy_created` event, and 'Energy creation policy' stops the run
   * (SolverError), asks for the step to be made again in halves (EnergyCreated, which the run loop
   * takes up as StepRetryPolicy says) or warns. Its counters are part of a checkpoint
   * (saved_values()).
   */
  class EnergyGuard
  {
  public:
    EnergyGuard(const TimeIntegration::TimeIntegrationParameters &time, const Postprocess::EnergyAudit &audit,
                Postprocess::EventLog &events, dealii::ConditionalOStream &log);

    /// At the start of a run: the energy of round-off below which no change counts (round_off_energy()).
    void start(double round_off) { energy_round_off = round_off; }

    /**
     * Judges the step @p integrator has just finished (and the audit booked). @throws SolverError
     * (policy stop) or EnergyCreated (policy retry) where it created energy, after its event.
     */
    void check(const TimeIntegration::TimeIntegrator &integrator);

    /**
     * The step @p step of size @p h that ended at @p t and created energy is taken back (the state
     * before it restored, at @p restored_time) to be made again in halves: counted, said in the log
     * (the first 20 times), and a retry_half_steps event.
     */
    void take_back(unsigned int step, double t, double h, double restored_time);

    /// Whether the policy stopped the run on the last step (it was accepted and audited).
    bool stopped_the_run() const { return stopped; }

    /// The summary's line: no step created energy, or how many did and how much.
    void write_summary() const;

    /// The counters a checkpoint keeps, by name.
    SavedValues saved_values();

  private:
    const TimeIntegration::TimeIntegrationParameters &time;
    const Postprocess::EnergyAudit &audit;
    Postprocess::EventLog &events;
    dealii::ConditionalOStream &log;
    double energy_round_off = 0;
    /// Steps that created energy, the first of them, warnings written, what they created in all.
    unsigned int n_energy_created_steps = 0, first_energy_created_step = 0, n_energy_warnings = 0;
    double energy_created_in_flagged_steps = 0;
    /// Steps taken back and made again in halves.
    unsigned int n_energy_retries = 0;
    bool stopped = false;
  };

  /**
   * The strain energy of the round-off in the positions: ½(ε D)² tr K, the mean of ½δᵀKδ for
   * independent errors δ_i of size ε D in every DoF (ε the machine epsilon, D the largest
   * |coordinate| of @p triangulation, K the @p stiffness). A body at rest has no energy above it:
   * a change below it is round-off (a box turned rigidly at rest: 1e-25 J). Collective.
   */
  template <int dim>
  double round_off_energy(const dealii::Triangulation<dim> &triangulation,
                          const dealii::PETScWrappers::MPI::SparseMatrix &stiffness, MPI_Comm communicator);
} // namespace percussion

#endif
