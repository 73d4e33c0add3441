// The state before a step, kept in memory for the energy guard's retry. It keeps exactly what a
// checkpoint keeps (the same saved vectors and values), so that a step made again starts from the
// state a resumed run would.
#include <percussion/simulator/step_snapshots.h>

namespace percussion
{
  void StepSnapshots::save(const unsigned int level, TimeIntegration::TimeIntegrator &integrator,
                           const SavedValues &values, const ContactStep::FrictionalContactStep *contact_step)
  {
    if (snapshots.size() <= level)
      snapshots.resize(level + 1);
    Snapshot &snapshot = snapshots[level];
    const auto vectors = integrator.saved_vectors();
    snapshot.vectors.resize(vectors.size());
    for (std::size_t i = 0; i < vectors.size(); ++i)
      snapshot.vectors[i] = *vectors[i].second;
    snapshot.reals.clear();
    snapshot.counts.clear();
    for (const SavedValue &value : values)
      {
        if (value.real != nullptr)
          snapshot.reals.push_back(*value.real);
        else
          snapshot.counts.push_back(*value.count);
      }
    if (contact_step != nullptr)
      snapshot.contact = contact_step->snapshot();
  }

  void StepSnapshots::restore(const unsigned int level, TimeIntegration::TimeIntegrator &integrator,
                              const SavedValues &values, ContactStep::FrictionalContactStep *contact_step) const
  {
    const Snapshot &snapshot = snapshots.at(level);
    const auto vectors = integrator.saved_vectors();
    for (std::size_t i = 0; i < vectors.size(); ++i)
      *vectors[i].second = snapshot.vectors[i];
    std::size_t real = 0, count = 0;
    for (const SavedValue &value : values)
      {
        if (value.real != nullptr)
          *value.real = snapshot.reals[real++];
        else
          *value.count = snapshot.counts[count++];
      }
    if (contact_step != nullptr)
      contact_step->restore(snapshot.contact);
  }
} // namespace percussion
