#include <percussion/postprocess/postprocessor.h>

namespace percussion::Postprocess
{
  std::map<unsigned int, Matrix3> material_rotations(const BodyFrames &frames)
  {
    std::map<unsigned int, Matrix3> rotations;
    for (const auto &[id, b] : frames.body_of_material())
      rotations[id] = frames.frames()[b].rotation;
    return rotations;
  }
} // namespace percussion::Postprocess
