#include "fft/user_boxes.hpp"

#include "geometry/tiling.hpp"

#include "nbfft/error.hpp"

#include <algorithm>
#include <sstream>

namespace nbfft::fft {

namespace {

bool valid_order(const std::array<int, 3>& o) {
  std::array<int, 3> s = o;
  std::sort(s.begin(), s.end());
  return s[0] == 0 && s[1] == 1 && s[2] == 2;
}

// As operator<< of Box3, which cannot print an order that is not a permutation.
std::string box_str(const Box3& b) {
  std::ostringstream os;
  if (valid_order(b.order)) {
    os << b;
  } else {
    os << "[" << b.lo[0] << ":" << b.lo[0] + b.n[0] << ", " << b.lo[1] << ":" << b.lo[1] + b.n[1] << ", " << b.lo[2]
       << ":" << b.lo[2] + b.n[2] << "]";
  }
  return os.str();
}

}  // namespace

std::string boxes_problem(const std::vector<Box3>& boxes, const std::array<std::int64_t, 3>& grid,
                          const std::string& what, const std::string& grid_what) {
  const int m = static_cast<int>(boxes.size());
  for (int r = 0; r < m; ++r) {
    const Box3& b = boxes[static_cast<std::size_t>(r)];
    const std::string head = what + " of rank " + std::to_string(r) + " " + box_str(b) + ": ";
    if (!valid_order(b.order))
      return head + "order {" + std::to_string(b.order[0]) + ", " + std::to_string(b.order[1]) + ", " +
             std::to_string(b.order[2]) + "} is not a permutation of the axes {0, 1, 2} (x, y, z; fastest first)";
    for (int d = 0; d < 3; ++d)
      if (b.n[d] < 0) return head + "a negative extent along " + "xyz"[d];
    // Empty by its extents, not by count(): a product of huge extents can wrap to 0.
    if (b.n[0] == 0 || b.n[1] == 0 || b.n[2] == 0) continue;
    for (int d = 0; d < 3; ++d)  // (lo > grid - n: lo + n could overflow)
      if (b.lo[d] < 0 || b.n[d] > grid[d] || b.lo[d] > grid[d] - b.n[d])
        return head + "out of range along " + std::string(1, "xyz"[d]) + " (" + grid_what + " has " +
               std::to_string(grid[d]) + " points along " + "xyz"[d] + ": 0.." + std::to_string(grid[d] - 1) + ")";
    // Its rank's array and buffers are counted in bytes (16 per point at most).
    std::int64_t bytes = 16;
    for (int d = 0; d < 3; ++d)
      if (__builtin_mul_overflow(bytes, b.n[d], &bytes))
        return head + "holds more points than one rank can address (" + std::to_string(b.n[0]) + " x " +
               std::to_string(b.n[1]) + " x " + std::to_string(b.n[2]) + "); give that rank a smaller box";
  }
  // Overlaps and gaps: the one tiling check of every plan, in the 3-D plan's words (x, y, z).
  std::vector<Box> as_boxes;
  for (const Box3& b : boxes) {  // an empty box anywhere (its lo unchecked above) is none
    const bool none = b.n[0] == 0 || b.n[1] == 0 || b.n[2] == 0;
    as_boxes.push_back(to_box(none ? Box3{{0, 0, 0}, {0, 0, 0}, {0, 1, 2}} : b));
  }
  geometry::TilingWords words;
  words.what = what;
  words.array = grid_what;
  words.box = [&](std::size_t r) { return box_str(boxes[r]); };
  words.point = [](const std::vector<std::int64_t>& p) {  // numpy order (z, y, x)
    return "(x, y, z) = (" + std::to_string(p[2]) + ", " + std::to_string(p[1]) + ", " + std::to_string(p[0]) + ")";
  };
  return geometry::tiling_problem(as_boxes, {grid[2], grid[1], grid[0]}, words);
}

std::vector<Box3> agree_boxes(MPI_Comm comm, const Box3& mine, const std::array<std::int64_t, 3>& grid,
                              const std::string& what, const std::string& grid_what) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const std::int64_t b[9] = {mine.lo[0], mine.lo[1], mine.lo[2], mine.n[0], mine.n[1], mine.n[2],
                             mine.order[0], mine.order[1], mine.order[2]};
  std::vector<std::int64_t> all(static_cast<std::size_t>(9) * size);
  check_mpi(MPI_Allgather(b, 9, MPI_INT64_T, all.data(), 9, MPI_INT64_T, comm), "MPI_Allgather");
  std::vector<Box3> boxes(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const std::int64_t* v = &all[static_cast<std::size_t>(9) * r];
    Box3& x = boxes[static_cast<std::size_t>(r)];
    x.lo = {v[0], v[1], v[2]};
    x.n = {v[3], v[4], v[5]};
    // Out-of-int orders stay invalid (-1) rather than wrapping into a permutation.
    for (int d = 0; d < 3; ++d) x.order[d] = v[6 + d] >= 0 && v[6 + d] <= 2 ? static_cast<int>(v[6 + d]) : -1;
  }
  const std::string problem = boxes_problem(boxes, grid, what, grid_what);
  if (!problem.empty()) throw Error(problem, ErrorCode::InvalidArgument);
  for (Box3& x : boxes)
    if (x.empty()) x.n = {0, 0, 0};
  return boxes;
}

}  // namespace nbfft::fft
