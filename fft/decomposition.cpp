#include "nbfft/fft/decomposition.hpp"

#include "nbfft/error.hpp"

#include <cstdint>
#include <cstdlib>
#include <sstream>

namespace nbfft::fft {

namespace {

std::string grid_str(const std::array<std::int64_t, 3>& n) {
  std::ostringstream os;
  os << n[0] << "x" << n[1] << "x" << n[2];
  return os.str();
}

// Each rank's pencils must be addressable: every buffer a plan makes (input, output, two
// workspaces of send and receive halves) is at most this many complex-double pencils, and
// its byte size must fit in ptrdiff_t, which FFTW's guru64 interface and pointer
// arithmetic use. A grid past this gets an OutOfMemory Error at plan time, never a wrapped
// size or an FFTW abort.
constexpr std::int64_t kBytesPerPoint = 16;  // complex double, the largest element
constexpr std::int64_t kBuffersPerPlan = 8;

std::int64_t checked_points(const std::array<std::int64_t, 3>& n, const std::string& what,
                            const std::array<std::int64_t, 3>& grid) {
  std::int64_t p = 1, bytes = 0;
  for (int d = 0; d < 3; ++d)
    if (__builtin_mul_overflow(p, n[d], &p)) p = -1;
  if (p < 0 || __builtin_mul_overflow(p, kBytesPerPoint * kBuffersPerPlan, &bytes))
    throw Error("grid " + grid_str(grid) + ": " + what + " of " + grid_str(n) +
                    " points cannot be addressed on one rank (its buffers would exceed " +
                    std::to_string(PTRDIFF_MAX) + " bytes); use more ranks or a smaller grid",
                ErrorCode::OutOfMemory);
  return p;
}

}  // namespace

std::string Decomposition::empty_reason(std::array<std::int64_t, 3> n, bool r2c, int m1, int m2) {
  const std::int64_t xc = r2c ? n[0] / 2 + 1 : n[0];
  std::ostringstream os;
  if (m1 > n[1])
    os << "M1 = " << m1 << " > ny = " << n[1] << " (y of the X-pencils is split over M1)";
  else if (m1 > xc)
    os << "M1 = " << m1 << " > " << xc << " complex x-points" << (r2c ? " (nx/2+1)" : "")
       << " (x of the Y- and Z-pencils is split over M1)";
  else if (m2 > n[2])
    os << "M2 = " << m2 << " > nz = " << n[2] << " (z of the X- and Y-pencils is split over M2)";
  else if (m2 > n[1])
    os << "M2 = " << m2 << " > ny = " << n[1] << " (y of the Z-pencils is split over M2)";
  return os.str();
}

std::pair<int, int> Decomposition::choose_grid(std::array<std::int64_t, 3> n, bool r2c,
                                               int nranks) {
  if (empty_reason(n, r2c, 1, nranks).empty()) return {1, nranks};
  std::pair<int, int> best{0, 0};
  for (int m1 = 1; m1 <= nranks; ++m1) {
    if (nranks % m1) continue;
    const int m2 = nranks / m1;
    if (!empty_reason(n, r2c, m1, m2).empty()) continue;
    // Closest to square, M1 <= M2 preferred (the ROW exchange stays among near ranks).
    const auto score = [](int a, int b) { return std::abs(a - b) * 2 + (a > b ? 1 : 0); };
    if (best.first == 0 || score(m1, m2) < score(best.first, best.second)) best = {m1, m2};
  }
  if (best.first != 0) return best;
  return {1, nranks};
}

Decomposition Decomposition::make(std::array<std::int64_t, 3> n, bool r2c, int m1, int m2,
                                  int nranks, int rank, bool allow_empty, std::array<std::int64_t, 3> phys) {
  static const char* names[3] = {"nx", "ny", "nz"};
  for (int d = 0; d < 3; ++d)
    if (n[d] <= 0)
      throw Error("grid size " + std::string(names[d]) + " = " + std::to_string(n[d]) +
                  " must be positive (grid " + grid_str(n) + ")");
  for (int d = 0; d < 3; ++d) {
    if (phys[d] == 0) phys[d] = n[d];
    if (phys[d] < n[d])
      throw Error("padded grid " + grid_str(phys) + " is smaller than the spectrum's grid " + grid_str(n) +
                  " along " + names[d]);
  }
  if (nranks <= 0) throw Error("communicator has no ranks");
  if (m1 < 0 || m2 < 0)
    throw Error("process grid " + std::to_string(m1) + "x" + std::to_string(m2) +
                " has a negative dimension");
  if (m1 == 0 && m2 == 0) {
    auto g = choose_grid(n, r2c, nranks);
    m1 = g.first;
    m2 = g.second;
  } else if (m1 == 0 || m2 == 0) {
    const int given = m1 ? m1 : m2;
    if (nranks % given)
      throw Error("process grid: " + std::string(m1 ? "M1" : "M2") + " = " +
                  std::to_string(given) + " does not divide the communicator size " +
                  std::to_string(nranks));
    (m1 ? m2 : m1) = nranks / given;
  }
  if (static_cast<long long>(m1) * m2 != nranks)
    throw Error("process grid " + std::to_string(m1) + "x" + std::to_string(m2) + " has " +
                std::to_string(static_cast<long long>(m1) * m2) +
                " ranks but the communicator has " + std::to_string(nranks) +
                " (M1*M2 must equal the communicator size)");
  if (!allow_empty) {
    const std::string why = empty_reason(n, r2c, m1, m2);
    if (!why.empty())
      throw Error("process grid " + std::to_string(m1) + "x" + std::to_string(m2) +
                  " leaves ranks without points of grid " + grid_str(n) + ": " + why +
                  "; use fewer ranks along that dimension or allow empty boxes");
  }

  Decomposition d;
  d.n = n;
  d.m = phys;
  d.r2c = r2c;
  d.xc = r2c ? n[0] / 2 + 1 : n[0];
  d.m1 = m1;
  d.m2 = m2;
  d.rank = rank;
  d.i = rank % m1;
  d.j = rank / m1;
  const Range xall{0, phys[0]}, xcall{0, d.xc}, yall{0, phys[1]}, zall{0, n[2]}, mzall{0, phys[2]};
  d.x_pencil = Box3::from(xall, d.row_y(d.i), d.col_z(d.j));
  d.xc_pencil = Box3::from(xcall, d.row_y(d.i), d.col_z(d.j));
  d.y_pencil = Box3::from(d.row_x(d.i), yall, d.col_z(d.j));
  d.z_pencil = Box3::from(d.row_x(d.i), d.col_y(d.j), zall, {0, 2, 1});
  // Every rank checks the largest pencils, those of grid position (0, 0) (split() gives
  // the remainder to the first parts), so every rank reaches the same verdict.
  checked_points(Box3::from(xall, d.row_y(0), d.col_z(0)).n, "the largest X-pencil", n);
  checked_points(Box3::from(xcall, d.row_y(0), d.col_z(0)).n, "the largest complex X-pencil", n);
  checked_points(Box3::from(d.row_x(0), yall, d.col_z(0)).n, "the largest Y-pencil", n);
  checked_points(Box3::from(d.row_x(0), d.col_y(0), mzall).n, "the largest Z-pencil", n);
  return d;
}

}  // namespace nbfft::fft
