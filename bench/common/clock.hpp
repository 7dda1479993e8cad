// Wall-clock seconds on a monotonic clock, for the benchmarks' own timing loops.
#pragma once

#include <chrono>

namespace nbfft::bench {

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace nbfft::bench
