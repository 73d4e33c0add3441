#ifndef PERCUSSION_CONTACT_SOLVERS_CONTACT_STATE_H
#define PERCUSSION_CONTACT_SOLVERS_CONTACT_STATE_H

namespace percussion::ContactSolvers
{
  /// The state of one contact after a solve (Lemma 1 of the paper: take-off, stick, slide); the
  /// contact step classifies it, the contact output writes it (VTU `status`).
  enum class ContactState : int
  {
    open = 0,
    stick = 1,
    slip = 2
  };
} // namespace percussion::ContactSolvers

#endif
