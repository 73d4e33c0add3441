#ifndef PERCUSSION_SIMULATOR_STEP_RETRY_POLICY_H
#define PERCUSSION_SIMULATOR_STEP_RETRY_POLICY_H

namespace percussion
{
  /**
   * What becomes of a step that went wrong: the run loop (Simulator::advance()) asks it, and does
   * what it says. A step at halving level k has the size h/2^k of the step it replaces.
   *
   * With 'Contact solver/Non-convergence policy' = retry, a contact problem that is not solved is
   * solved again with NSGS (and ten times the iterations), and if that fails too the step is
   * replaced by two steps of half the size (up to 'Retry step halvings' times in a row), each of
   * which may be retried the same way; past that the step is accepted unsolved. With
   * 'Time integration/Energy creation policy' = retry, a step the energy guard finds to have
   * created energy is taken back (the state before it is kept for that) and replaced by two steps
   * of half the size, up to 'Energy retry halvings' times in a row; past that the run stops.
   * Plain logic: it holds no state of the run.
   */
  class StepRetryPolicy
  {
  public:
    /// What to do with a step.
    enum class Verdict
    {
      /// Finish the step as it is.
      accept,
      /// Solve the step's contact problem again with NSGS.
      retry_with_nsgs,
      /// Take the step back and make it as two steps of half the size, at the next level.
      halve,
      /// Give up: the failure goes on to the caller (the run stops).
      stop
    };

    /**
     * @p retry_unsolved_contact: whether the non-convergence policy is retry, with at most
     * @p max_contact_halvings halvings in a row; @p max_energy_halvings: the energy creation
     * policy's halvings (0 where that policy is not retry).
     */
    StepRetryPolicy(bool retry_unsolved_contact, unsigned int max_contact_halvings, unsigned int max_energy_halvings);

    /// Whether the state before each step must be kept, to take a step that created energy back.
    bool keeps_state_before_step() const { return max_energy_halvings > 0; }

    /**
     * After the contact problem of a step at @p level: @p unsolved whether it was posed and not
     * solved, @p retried_with_nsgs whether this was the NSGS retry already. accept, retry_with_nsgs
     * or halve.
     */
    Verdict after_contact_problem(bool unsolved, bool retried_with_nsgs, unsigned int level) const;

    /// After the energy guard found that a step at @p level created energy: halve or stop.
    Verdict after_energy_created(unsigned int level) const;

  private:
    bool retry_unsolved_contact;
    unsigned int max_contact_halvings;
    unsigned int max_energy_halvings;
  };
} // namespace percussion

#endif
