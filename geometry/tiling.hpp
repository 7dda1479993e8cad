// Whether boxes tile an array: every rank's box inside it, no two overlapping, together all
// of it. The one check of every plan's user boxes: the N-D plans' (nd/plan.cpp) and the 3-D
// plan's (fft/user_boxes.cpp, after its own checks of a Box3's order and extents). Its
// messages name the rank or ranks, their boxes, the points two boxes share and a point no
// rank holds, in the words of the plan that asks (TilingWords).
#pragma once

#include "nbfft/geometry/box.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nbfft::geometry {

struct TilingWords {
  std::string what = "box";          // "in_box": "in_box of rank 2 ..."
  std::string array = "the array";   // "the input grid 12x10x9"
  // Rank r's box and a point (numpy order) as the plan's users write them; empty: numpy
  // order, "[0:4, 0:6]" and "point (0, 5)".
  std::function<std::string(std::size_t r)> box;
  std::function<std::string(const std::vector<std::int64_t>&)> point;
};

// "" or what is wrong with boxes (one per rank, lo and n per axis; order ignored) as a
// tiling of `shape`.
std::string tiling_problem(const std::vector<Box>& boxes, const std::vector<std::int64_t>& shape,
                           const TilingWords& words);

}  // namespace nbfft::geometry
