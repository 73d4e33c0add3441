#ifndef PERCUSSION_SIMULATOR_STEP_SNAPSHOTS_H
#define PERCUSSION_SIMULATOR_STEP_SNAPSHOTS_H

#include <deal.II/lac/petsc_vector.h>

#include <percussion/contact_step/frictional_contact_step.h>
#include <percussion/core/saved_value.h>
#include <percussion/time_integration/time_integrator.h>

#include <vector>

namespace percussion
{
  /**
   * The run's state before a step, in memory, one per halving level: what a checkpoint keeps (the
   * integrator's vectors and every saved value) and this rank's contact history. Enough to take a
   * step back and make it again (the energy creation policy retry).
   */
  class StepSnapshots
  {
  public:
    /// Keeps the state before a step at halving level @p level: @p integrator's saved vectors,
    /// the scalars @p values point to, and @p contact_step's history (nullptr without contact).
    void save(unsigned int level, TimeIntegration::TimeIntegrator &integrator, const SavedValues &values,
              const ContactStep::FrictionalContactStep *contact_step);
    /// Puts back what save() kept at @p level, into the same places.
    void restore(unsigned int level, TimeIntegration::TimeIntegrator &integrator, const SavedValues &values,
                 ContactStep::FrictionalContactStep *contact_step) const;

  private:
    struct Snapshot
    {
      std::vector<dealii::PETScWrappers::MPI::Vector> vectors;
      std::vector<double> reals;
      std::vector<unsigned int> counts;
      ContactStep::FrictionalContactStep::Snapshot contact;
    };
    std::vector<Snapshot> snapshots;
  };
} // namespace percussion

#endif
