// Direction: which way a transform runs. Every front end names it with this type (C++
// Plan::transform, the C API, the Python bindings) instead of a string or a bool, so a
// misspelt direction is a compile error and no call compares names at run time.
#pragma once

namespace nbfft::fft {

// Forward: the input layout (X-pencils, real for r2c) to the output layout (Z-pencils,
// complex). Backward: the way back, scaled by Options::norm.
enum class Direction { Forward, Backward };

constexpr const char* name(Direction d) { return d == Direction::Forward ? "forward" : "backward"; }
constexpr Direction opposite(Direction d) { return d == Direction::Forward ? Direction::Backward : Direction::Forward; }

}  // namespace nbfft::fft
