#include <deal.II/base/mpi.h>

#include <percussion/contact_solvers/plain_all_gather.h>
#include <percussion/contact_step/contact_history.h>

#include <algorithm>

namespace percussion::ContactStep
{
  using ContactSolvers::plain_all_gather;

  ContactHistory::ContactHistory(MPI_Comm communicator)
    : communicator(communicator)
  {
  }

  void ContactHistory::start_step(const std::vector<OwnedContactPoint> &points, const bool operator_changed)
  {
    last_dissipation.clear();
    if (history_restored)
      keep_own_history(points);
    // Columns for all candidates are worth computing only if H did not change at this step and
    // the previous one (body pairs, curved obstacles change it every step).
    moves = operator_changed && previous_operator_changed;
    previous_operator_changed = operator_changed;
  }

  void ContactHistory::take_lasting_threshold()
  {
    double largest = 0;
    for (const auto &[key, impulse] : previous_impulse)
      if (!impulse.empty())
        largest = std::max(largest, impulse[0]);
    lasting_threshold = 1e-6 * dealii::Utilities::MPI::max(largest, communicator);
  }

  void ContactHistory::note_lasting_contacts(const std::vector<ContactLaws::ActiveContact> &own,
                                             const ContactLaws::LawStep &law_step)
  {
    // (An impulse of round-off size decides nothing: runs on different rank counts choose the same
    // projection metric.)
    lasting_own_keys.clear();
    for (const ContactLaws::ActiveContact &a : own)
      if (law_step.lasting_share(a) == 1.0)
        lasting_own_keys.push_back(a.key);
    std::sort(lasting_own_keys.begin(), lasting_own_keys.end());
  }

  void ContactHistory::copy_warm_start(const unsigned long long key, std::array<double, 3> &warm_start) const
  {
    if (const auto it = previous_impulse.find(key); it != previous_impulse.end())
      std::copy(it->second.begin(), it->second.end(), warm_start.begin());
  }

  void ContactHistory::keep_impulses(const std::vector<ContactLaws::ActiveContact> &held, const unsigned int first,
                                     const unsigned int last, const std::vector<double> &reaction,
                                     const unsigned int local_dimension)
  {
    const unsigned int ld = local_dimension;
    previous_impulse.clear();
    for (unsigned int a = first; a < last; ++a)
      previous_impulse[held[a].key].assign(reaction.begin() + ld * a, reaction.begin() + ld * (a + 1));
  }

  void ContactHistory::add_work(const unsigned long long key, const double work)
  {
    dissipation_by_key[key] -= work;
    last_dissipation.emplace_back(key, work);
  }

  void ContactHistory::discard_last_solve()
  {
    for (const auto &[key, work] : last_dissipation)
      dissipation_by_key[key] += work;
    last_dissipation.clear();
  }

  std::vector<double> ContactHistory::dissipated_energy(const std::vector<OwnedContactPoint> &points) const
  {
    std::vector<double> energy(points.size(), 0.0);
    for (unsigned int i = 0; i < points.size(); ++i)
      if (const auto it = dissipation_by_key.find(points[i].key); it != dissipation_by_key.end())
        energy[i] = it->second;
    return energy;
  }

  void ContactHistory::keep_own_history(const std::vector<OwnedContactPoint> &points)
  {
    // A checkpoint's history holds every contact; a rank keeps its own (the owners of the
    // points do not change within a run).
    std::map<unsigned long long, std::vector<double>> own_impulses;
    std::map<unsigned long long, double> own_dissipation;
    for (const OwnedContactPoint &point : points)
      {
        if (const auto it = previous_impulse.find(point.key); it != previous_impulse.end())
          own_impulses.insert(*it);
        if (const auto it = dissipation_by_key.find(point.key); it != dissipation_by_key.end())
          own_dissipation.insert(*it);
      }
    previous_impulse = std::move(own_impulses);
    dissipation_by_key = std::move(own_dissipation);
    history_restored = false;
  }

  ContactHistory::Record ContactHistory::record() const
  {
    // Each rank holds its own contacts' history (after a restart possibly all of them, the same
    // on every rank, until the next step): the union.
    struct ImpulseRecord
    {
      unsigned long long key;
      unsigned int size;
      std::array<double, 3> impulse;
    };
    struct DissipationRecord
    {
      unsigned long long key;
      double energy;
    };
    std::vector<ImpulseRecord> impulses, all_impulses;
    for (const auto &[key, impulse] : previous_impulse)
      {
        ImpulseRecord record{key, static_cast<unsigned int>(impulse.size()), {}};
        std::copy_n(impulse.begin(), std::min<std::size_t>(impulse.size(), 3), record.impulse.begin());
        impulses.push_back(record);
      }
    std::vector<DissipationRecord> dissipation, all_dissipation;
    for (const auto &[key, energy] : dissipation_by_key)
      dissipation.push_back({key, energy});
    plain_all_gather(impulses, all_impulses, communicator);
    plain_all_gather(dissipation, all_dissipation, communicator);
    Record history;
    for (const ImpulseRecord &record : all_impulses)
      history.impulses[record.key].assign(record.impulse.begin(), record.impulse.begin() + record.size);
    for (const DissipationRecord &record : all_dissipation)
      history.dissipation[record.key] = record.energy;
    history.operator_changed = previous_operator_changed;
    return history;
  }

  void ContactHistory::restore(Record restored)
  {
    previous_impulse = std::move(restored.impulses);
    dissipation_by_key = std::move(restored.dissipation);
    previous_operator_changed = restored.operator_changed;
    history_restored = true;
  }

  ContactHistory::Snapshot ContactHistory::snapshot() const
  {
    return {previous_impulse,  dissipation_by_key,        lasting_own_keys,
            lasting_threshold, previous_operator_changed, moves};
  }

  void ContactHistory::restore(const Snapshot &saved)
  {
    previous_impulse = saved.impulses;
    dissipation_by_key = saved.dissipation;
    lasting_own_keys = saved.lasting_keys;
    lasting_threshold = saved.lasting_impulse;
    previous_operator_changed = saved.previous_operator_changed;
    moves = saved.operator_moves;
    last_dissipation.clear();
  }
} // namespace percussion::ContactStep
