// The one tiling check (geometry/tiling.hpp).
#include "geometry/tiling.hpp"

#include <algorithm>

namespace nbfft::geometry {

namespace {

std::string listed(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

std::string box_text(const Box& b) {
  std::string s = "[";
  for (std::size_t a = 0; a < b.lo.size(); ++a)
    s += (a ? ", " : "") + std::to_string(b.lo[a]) + ":" + std::to_string(b.lo[a] + b.n[a]);
  return s + "]";
}

// A non-negative 128-bit count in decimal (std::to_string has no __int128): an array of
// many ranks may hold more points than an int64 counts.
std::string decimal(__int128 v) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v > 0);
  return s;
}

// A point of the array no box holds, or false. The corner of an uncovered region lies at 0
// or at some box's end on each axis, so those coordinates are the only candidates; none is
// sought past about a million candidate points.
bool uncovered_point(const std::vector<Box>& boxes, const std::vector<std::int64_t>& shape,
                     std::vector<std::int64_t>& p) {
  const std::size_t d = shape.size();
  std::vector<std::vector<std::int64_t>> cand(d);
  double points = 1;
  for (std::size_t a = 0; a < d; ++a) {
    cand[a].push_back(0);
    for (const Box& b : boxes)
      if (!b.empty() && b.lo[a] + b.n[a] < shape[a]) cand[a].push_back(b.lo[a] + b.n[a]);
    std::sort(cand[a].begin(), cand[a].end());
    cand[a].erase(std::unique(cand[a].begin(), cand[a].end()), cand[a].end());
    points *= static_cast<double>(cand[a].size());
  }
  if (points * static_cast<double>(boxes.size()) > 64e6) return false;
  std::vector<std::size_t> at(d, 0);
  p.assign(d, 0);
  while (true) {
    for (std::size_t a = 0; a < d; ++a) p[a] = cand[a][at[a]];
    bool held = false;
    for (const Box& b : boxes) {
      if (b.empty()) continue;
      bool in = true;
      for (std::size_t a = 0; a < d && in; ++a) in = p[a] >= b.lo[a] && p[a] < b.lo[a] + b.n[a];
      held = held || in;
    }
    if (!held) return true;
    std::size_t a = d;
    while (a > 0 && ++at[a - 1] == cand[a - 1].size()) at[--a] = 0;
    if (a == 0) return false;
  }
}

}  // namespace

std::string tiling_problem(const std::vector<Box>& boxes, const std::vector<std::int64_t>& shape,
                           const TilingWords& w) {
  const std::size_t d = shape.size();
  const auto box = [&](std::size_t r) { return w.box ? w.box(r) : box_text(boxes[r]); };
  const auto point = [&](const std::vector<std::int64_t>& p) { return w.point ? w.point(p) : "point (" + listed(p) + ")"; };
  for (std::size_t r = 0; r < boxes.size(); ++r) {
    const Box& b = boxes[r];
    const std::string who = w.what + " of rank " + std::to_string(r);
    if (b.lo.size() != d || b.n.size() != d)
      return who + " has " + std::to_string(b.lo.size()) + " and " + std::to_string(b.n.size()) +
             " entries (lo and n) for a " + std::to_string(d) + "-D array";
    // Compared without adding lo and n (which a huge value would wrap).
    for (std::size_t a = 0; a < d; ++a)
      if (b.lo[a] < 0 || b.n[a] < 0 || b.lo[a] > shape[a] || b.n[a] > shape[a] - b.lo[a]) {
        std::int64_t end = 0;
        const std::string span = b.lo[a] >= 0 && b.n[a] >= 0 && !__builtin_add_overflow(b.lo[a], b.n[a], &end)
                                     ? "[" + std::to_string(b.lo[a]) + ", " + std::to_string(end) + ")"
                                     : "lo " + std::to_string(b.lo[a]) + " n " + std::to_string(b.n[a]);
        return who + " spans " + span + " along axis " + std::to_string(a) + ", outside the array's [0, " +
               std::to_string(shape[a]) + ")";
      }
  }
  for (std::size_t q = 0; q < boxes.size(); ++q)
    for (std::size_t r = q + 1; r < boxes.size(); ++r) {
      const Box c = intersect(boxes[q], boxes[r]);
      if (c.count() > 0)
        return w.what + " of ranks " + std::to_string(q) + " and " + std::to_string(r) + " overlap: " + box(q) +
               " and " + box(r) + " share " + std::to_string(c.count()) + " points, from " + point(c.lo);
    }
  // Inside the array and apart: together at most the array, in 128 bits.
  __int128 total = 0, volume = 1;
  for (const Box& b : boxes) total += b.count();
  for (auto s : shape) volume *= s;
  if (total == volume) return "";
  std::string msg = w.what + " of the " + std::to_string(boxes.size()) + " ranks do not tile " + w.array +
                    ": they hold " + decimal(total) + " of its " + decimal(volume) + " points";
  std::vector<std::int64_t> p;
  if (uncovered_point(boxes, shape, p)) msg += "; no rank holds " + point(p);
  return msg;
}

}  // namespace nbfft::geometry
