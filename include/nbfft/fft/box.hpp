// Box3: a rectangular block of the global grid with its memory order, and the even/uneven
// 1D split.
//
// order[0] is the fastest-varying dimension in memory, order[2] the slowest (heFFTe's
// convention). The default {0, 1, 2} is x fastest, then y, then z (C array [z][y][x]):
//     element (x, y, z) at (x - lo[0]) + n[0] * ((y - lo[1]) + n[1] * (z - lo[2])).
// Splitting n points over m parts gives the first n % m parts one extra point, so part
// sizes differ by at most one. Parts may be empty when m > n.
#pragma once

#include "nbfft/geometry/box.hpp"

#include <array>
#include <cstdint>
#include <ostream>

namespace nbfft::fft {

struct Range {
  std::int64_t lo = 0;
  std::int64_t n = 0;
  std::int64_t hi() const { return lo + n; }
};

// Part k of n points split over m parts (0 <= k < m).
inline Range split(std::int64_t n, std::int64_t m, std::int64_t k) {
  const std::int64_t base = n / m, rem = n % m;
  return {k * base + (k < rem ? k : rem), base + (k < rem ? 1 : 0)};
}

struct Box3 {
  std::array<std::int64_t, 3> lo{0, 0, 0};  // global offset of the first point (x, y, z)
  std::array<std::int64_t, 3> n{0, 0, 0};   // points along x, y, z
  std::array<int, 3> order{0, 1, 2};        // dimensions from fastest to slowest in memory

  static Box3 from(const Range& x, const Range& y, const Range& z,
                   std::array<int, 3> order = {0, 1, 2}) {
    return {{x.lo, y.lo, z.lo}, {x.n, y.n, z.n}, order};
  }
  Range range(int d) const { return {lo[d], n[d]}; }
  std::int64_t count() const { return n[0] * n[1] * n[2]; }
  bool empty() const { return count() == 0; }
  bool contains(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return x >= lo[0] && x < lo[0] + n[0] && y >= lo[1] && y < lo[1] + n[1] && z >= lo[2] &&
           z < lo[2] + n[2];
  }
  // Offset of global point (x, y, z) inside this box's storage, in its memory order.
  std::int64_t index(std::int64_t x, std::int64_t y, std::int64_t z) const {
    const std::int64_t r[3] = {x - lo[0], y - lo[1], z - lo[2]};
    return r[order[0]] + n[order[0]] * (r[order[1]] + n[order[1]] * r[order[2]]);
  }
  friend bool operator==(const Box3& a, const Box3& b) {
    return a.lo == b.lo && a.n == b.n && a.order == b.order;
  }
  friend bool operator!=(const Box3& a, const Box3& b) { return !(a == b); }
};

inline std::ostream& operator<<(std::ostream& os, const Box3& b) {
  static const char xyz[] = "xyz";
  return os << "[" << b.lo[0] << ":" << b.lo[0] + b.n[0] << ", " << b.lo[1] << ":"
            << b.lo[1] + b.n[1] << ", " << b.lo[2] << ":" << b.lo[2] + b.n[2] << "] order "
            << xyz[b.order[0]] << xyz[b.order[1]] << xyz[b.order[2]];
}

// The same block as an nbfft::Box (numpy's axis order: z, y, x; memory order slowest
// first), the box every reshape and layout speaks, and back.
inline Box to_box(const Box3& b) {
  Box r;
  r.lo = {b.lo[2], b.lo[1], b.lo[0]};
  r.n = {b.n[2], b.n[1], b.n[0]};
  if (b.order != std::array<int, 3>{0, 1, 2}) r.order = {2 - b.order[2], 2 - b.order[1], 2 - b.order[0]};
  return r;
}
inline Box3 to_box3(const Box& b) {
  Box3 r{{b.lo[2], b.lo[1], b.lo[0]}, {b.n[2], b.n[1], b.n[0]}, {0, 1, 2}};
  if (!b.order.empty()) r.order = {2 - b.order[2], 2 - b.order[1], 2 - b.order[0]};
  return r;
}

}  // namespace nbfft::fft
