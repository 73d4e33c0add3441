#ifndef PERCUSSION_CONTACT_STEP_CONTACT_HISTORY_H
#define PERCUSSION_CONTACT_STEP_CONTACT_HISTORY_H

#include <percussion/contact_laws/active_contact.h>
#include <percussion/contact_laws/local_law.h>
#include <percussion/contact_step/delassus_columns.h>
#include <percussion/contact_step/owned_contact_point.h>

#include <mpi.h>

#include <array>
#include <map>
#include <utility>
#include <vector>

namespace percussion::ContactStep
{
  /**
   * What the contact step carries from one step to the next, by contact key (OwnedContactPoint::key),
   * each rank for its own contacts: the last step's impulses (the next step's warm start and the
   * lasting-contact law's memory), the energy each contact has dissipated since the start, the
   * contacts in lasting contact at the last step (the adaptive projection metric), and whether the
   * contact operator H moves. FrictionalContactStep reads and writes it in its phases; a checkpoint
   * keeps it (Record) and the energy guard's retry takes it back (Snapshot).
   */
  class ContactHistory
  {
  public:
    explicit ContactHistory(MPI_Comm communicator);

    /**
     * The contact history a checkpoint keeps, by contact key: the last step's impulses (the next
     * step's warm start) and the energy each contact has dissipated. The caches (Delassus columns,
     * the probed operator) are rebuilt on demand, in the same way as the uninterrupted run's:
     * whether H changed at the last solve (which decides whether it moves, and so which columns
     * and which form, at the next one) and the batches the Delassus columns' support was solved in
     * (DelassusColumns::SupportBatches; FrictionalContactStep::history() adds them) are kept.
     */
    struct Record
    {
      std::map<unsigned long long, std::vector<double>> impulses;
      std::map<unsigned long long, double> dissipation;
      bool operator_changed = false;
      DelassusColumns::SupportBatches support_batches;
    };

    /// What a step changes of the history, kept in memory to take a step back (the energy
    /// guard's retry): this rank's part, no communication.
    struct Snapshot
    {
      std::map<unsigned long long, std::vector<double>> impulses;
      std::map<unsigned long long, double> dissipation;
      std::vector<unsigned long long> lasting_keys;
      double lasting_impulse = 0;
      bool previous_operator_changed = false, operator_moves = false;
    };

    /**
     * A step's start: forgets the last solve's dissipation record (discard_last_solve()), keeps
     * this rank's @p points' part of a restored history, and notes whether H moves (@p
     * operator_changed at this solve and the last one).
     */
    void start_step(const std::vector<OwnedContactPoint> &points, bool operator_changed);
    /// H changed at the last solve and at the one before (then only needed columns are computed).
    bool operator_moves() const { return moves; }

    /// Takes the threshold of a lasting contact for the step (lasting_impulse()): 1e-6 of the
    /// previous step's largest normal impulse, all ranks. Collective.
    void take_lasting_threshold();
    /**
     * A contact is lasting (ContactLaws::FremondLaw) when its previous normal impulse exceeds this:
     * 1e-6 of the previous step's largest normal impulse (all ranks), so that the law does not
     * switch on impulses at the contact solver's round-off (solvers agree to their tolerance, not
     * to the bit).
     */
    double lasting_impulse() const { return lasting_threshold; }
    /// Notes which of this rank's contacts @p own are in lasting contact at this step (the law's
    /// lasting part whole under @p law_step), for lasting_keys().
    void note_lasting_contacts(const std::vector<ContactLaws::ActiveContact> &own,
                               const ContactLaws::LawStep &law_step);
    /// The keys of this rank's contacts in lasting contact at the last solve, sorted.
    const std::vector<unsigned long long> &lasting_keys() const { return lasting_own_keys; }

    /// The last step's impulse of the contact @p key into @p warm_start, where it had one (kept by
    /// its owner); @p warm_start unchanged otherwise.
    void copy_warm_start(unsigned long long key, std::array<double, 3> &warm_start) const;
    /// The step's impulses @p reaction (@p local_dimension per held contact) of this rank's
    /// contacts [@p first, @p last) of @p held, by key: the next step's warm start.
    void keep_impulses(const std::vector<ContactLaws::ActiveContact> &held, unsigned int first, unsigned int last,
                       const std::vector<double> &reaction, unsigned int local_dimension);
    /// No contact carries an impulse (warm start, lasting law) into the next step.
    void forget_impulses() { previous_impulse.clear(); }

    /// Contact @p key did the work @p work = u_{k+θ}ᵀp in this step: it dissipated −work.
    void add_work(unsigned long long key, double work);
    /// The last solve is not the step's (a retry follows): its works are taken back.
    void discard_last_solve();
    /// Energy dissipated at each of @p points since the start (−Σ u_{k+θ}ᵀp).
    std::vector<double> dissipated_energy(const std::vector<OwnedContactPoint> &points) const;

    /// The history of all contacts, gathered from their owners (each rank keeps its own) on every
    /// rank; the support batches are left empty. Collective.
    Record record() const;
    /// A resumed run: the history of its checkpoint (keys translated to this run's numbering); each
    /// rank keeps its own contacts' part from the next start_step() on.
    void restore(Record restored);

    /// The history before a step.
    Snapshot snapshot() const;
    /// Back to @p saved (taken by snapshot() on this rank); the last solve's dissipation record is
    /// dropped.
    void restore(const Snapshot &saved);

  private:
    /// A resumed run's first step: the rank keeps the history of its own @p points only.
    void keep_own_history(const std::vector<OwnedContactPoint> &points);

    MPI_Comm communicator;
    std::map<unsigned long long, std::vector<double>> previous_impulse; ///< warm start by key
    std::map<unsigned long long, double> dissipation_by_key;
    /// The last solve's contributions to dissipation_by_key, for discard_last_solve().
    std::vector<std::pair<unsigned long long, double>> last_dissipation;
    double lasting_threshold = 0;
    std::vector<unsigned long long> lasting_own_keys;
    bool previous_operator_changed = false;
    bool moves = false;
    /// restore() gave every rank all contacts' history: the next start_step() keeps its own.
    bool history_restored = false;
  };
} // namespace percussion::ContactStep

#endif
