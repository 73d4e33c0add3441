#ifndef PERCUSSION_CORE_SAVED_VALUE_H
#define PERCUSSION_CORE_SAVED_VALUE_H

#include <string>
#include <vector>

namespace percussion
{
  /**
   * One scalar of a component's state, by name, for a checkpoint: the checkpoint writer reads it
   * through the pointer, the reader writes it back (Simulator, doc/user_guide.md "Checkpoints").
   * Exactly one of @p real and @p count is set.
   */
  struct SavedValue
  {
    std::string name;
    double *real = nullptr;
    unsigned int *count = nullptr;
  };

  using SavedValues = std::vector<SavedValue>;
} // namespace percussion

#endif
