// The brick decomposition both brick benchmarks time (nbfft-bench-bricks and
// nbfft-bench-bricks-heffte), so that the two measure the same bricks.
#pragma once

#include "nbfft/fft/box.hpp"

#include <array>
#include <cstdint>

namespace nbfft::bench {

// The squarest px x py x pz = P (px >= py >= pz).
inline std::array<int, 3> brick_grid(int P) {
  std::array<int, 3> best{P, 1, 1};
  for (int pz = 1; pz <= P; ++pz)
    for (int py = pz; py <= P / pz; ++py)
      if (P % (pz * py) == 0 && P / (pz * py) >= py) {
        const std::array<int, 3> c{P / (pz * py), py, pz};
        if (c[0] - c[2] < best[0] - best[2]) best = c;
      }
  return best;
}

// Brick r of grid g over p = brick_grid(P): x fastest in rank order, then y, then z.
inline fft::Box3 brick(const std::array<std::int64_t, 3>& g, const std::array<int, 3>& p, int r) {
  using fft::split;
  return fft::Box3::from(split(g[0], p[0], r % p[0]), split(g[1], p[1], (r / p[0]) % p[1]),
                         split(g[2], p[2], r / (p[0] * p[1])));
}

}  // namespace nbfft::bench
