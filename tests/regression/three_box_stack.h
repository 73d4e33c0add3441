#ifndef PERCUSSION_TESTS_REGRESSION_THREE_BOX_STACK_H
#define PERCUSSION_TESTS_REGRESSION_THREE_BOX_STACK_H

#include <string>

namespace percussion::testing
{
  /**
   * Three boxes 1 mm apart above the plane y = 0 (2D): 1 × 0.3, 0.8 × 0.3 and 0.6 × 0.3 m,
   * E = 1e7 Pa, density 1000, material ids 0, 1, 2, under gravity and mass damping 20, with friction
   * 0.3 at the plane and between the boxes, θ = 0.55, h = 1 ms, to @p end_time s (a number as
   * written in the file), the position projection on.
   */
  inline std::string three_box_stack_text(const std::string &end_time)
  {
    return R"(
set Dimension = 2
subsection Mesh
  set Type = boxes
  set Boxes = 0,0.001 : 1,0.301; 0.1,0.302 : 0.9,0.602; 0.2,0.603 : 0.8,0.903
  set Subdivisions = 5, 2
end
subsection Materials
  set Material ids = 0, 1, 2
  set Young's modulus = 1e7, 1e7, 1e7
  set Poisson's ratio = 0.3, 0.3, 0.3
  set Density = 1000, 1000, 1000
end
subsection Damping
  set Mass proportional coefficient = 20
end
subsection Loads
  set Gravity = 0, -9.81
end
subsection Time integration
  set Theta = 0.55
  set Time step = 1e-3
  set End time = )" +
           end_time + R"(
end
subsection Contact solver
  set Position projection = on
  set Penetration tolerance = 1e-6
end
subsection Contact
  set Number of pairs = 3
  set Search distance = 0.05
  subsection Pair 1
    set Type = plane
    set Point = 0, 0
    set Normal = 0, 1
    set Slave boundary id = 2
    set Friction coefficient = 0.3
  end
  subsection Pair 2
    set Type = body
    set Slave boundary id = 12
    set Master boundary id = 3
    set Friction coefficient = 0.3
  end
  subsection Pair 3
    set Type = body
    set Slave boundary id = 22
    set Master boundary id = 13
    set Friction coefficient = 0.3
  end
end
)";
  }
} // namespace percussion::testing

#endif
