#ifndef PERCUSSION_POSTPROCESS_POSTPROCESSOR_H
#define PERCUSSION_POSTPROCESS_POSTPROCESSOR_H

#include <percussion/core/body_frames.h>
#include <percussion/postprocess/energy_audit.h>
#include <percussion/postprocess/event_log.h>
#include <percussion/postprocess/postprocessor_interface.h>

#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace percussion::Postprocess
{
  /// Calls a function after every completed step (StepView::Occasion::step): drivers and tests that
  /// look at the state as it evolves.
  class StepCallback : public Postprocessor
  {
  public:
    explicit StepCallback(std::function<void()> callback)
      : callback(std::move(callback))
    {
    }
    void execute(const StepView &view) override
    {
      if (view.occasion == StepView::Occasion::step)
        callback();
    }

  private:
    std::function<void()> callback;
  };

  /// The postprocessors of a run, run in the order they were added.
  class PostprocessorList
  {
  public:
    /// The first postprocessor of type @p P (or derived from it) in the list; nullptr if none.
    template <class P>
    P *find() const
    {
      for (const auto &p : list)
        if (auto *found = dynamic_cast<P *>(p.get()))
          return found;
      return nullptr;
    }
    /// Adds @p postprocessor at the end of the list and returns it.
    template <class P>
    P &add(std::unique_ptr<P> postprocessor)
    {
      P &added = *postprocessor;
      list.push_back(std::move(postprocessor));
      return added;
    }
    void execute(const StepView &view)
    {
      for (const auto &p : list)
        p->execute(view);
    }
    void flush()
    {
      for (const auto &p : list)
        p->flush();
    }
    void finish(const StepView &view)
    {
      for (const auto &p : list)
        p->finish(view);
    }
    /// The saved_values() of every postprocessor, in the list's order.
    SavedValues saved_values()
    {
      SavedValues values;
      for (const auto &p : list)
        for (SavedValue &value : p->saved_values())
          values.push_back(std::move(value));
      return values;
    }

  private:
    std::vector<std::unique_ptr<Postprocessor>> list;
  };

  /// The rotation of the frame of each material's body (large rotations), by material id.
  std::map<unsigned int, Matrix3> material_rotations(const BodyFrames &frames);
} // namespace percussion::Postprocess

#endif
