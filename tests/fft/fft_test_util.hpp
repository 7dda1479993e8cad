// Helpers shared by the FFT tests: reproducible random fields, gathering boxes to rank 0,
// and serial references: FFTW's transforms where the tests are built with FFTW, else (a
// build whose only local backend is MKL) a direct DFT along each axis in long double.
#pragma once

#include "nbfft/fft/box.hpp"
#include "nbfft/fft/options.hpp"

#if NBFFT_TESTS_WITH_FFTW
#include <fftw3.h>
#endif
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

namespace nbfft::fft::test {

inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}
inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Value in [-1, 1) from (seed, index): every rank computes the same field from global
// indices, so no rank needs the whole field to fill its box.
inline double random_value(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// Fills a box of a global grid n with `comps` values per point (1 real, 2 complex).
inline std::vector<double> random_box(const Box3& b, const std::array<std::int64_t, 3>& n,
                                      int comps, std::uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(b.count() * comps));
  std::size_t k = 0;
  for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
    for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
      for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x) {
        const std::uint64_t g = static_cast<std::uint64_t>(x + n[0] * (y + n[1] * z));
        for (int c = 0; c < comps; ++c) v[k++] = random_value(seed, g * comps + c);
      }
  return v;
}

// Gathers every rank's box (comps values per point, stored in the box's memory order) into
// the global array of size n (x fastest) on rank 0; other ranks get an empty vector.
inline std::vector<double> gather_box(const Box3& b, const std::vector<double>& data,
                                      const std::array<std::int64_t, 3>& n, int comps) {
  const int size = world_size(), rank = world_rank();
  std::int64_t mine[9] = {b.lo[0], b.lo[1], b.lo[2], b.n[0], b.n[1], b.n[2],
                          b.order[0], b.order[1], b.order[2]};
  std::vector<std::int64_t> boxes(9 * size);
  MPI_Gather(mine, 9, MPI_INT64_T, boxes.data(), 9, MPI_INT64_T, 0, MPI_COMM_WORLD);
  std::vector<int> counts(size), displs(size);
  std::vector<double> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      counts[r] = static_cast<int>(boxes[9 * r + 3] * boxes[9 * r + 4] * boxes[9 * r + 5] * comps);
      displs[r] = total;
      total += counts[r];
    }
    all.resize(total);
  }
  MPI_Gatherv(data.data(), static_cast<int>(data.size()), MPI_DOUBLE, all.data(), counts.data(),
              displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::vector<double> global;
  if (rank != 0) return global;
  global.assign(static_cast<std::size_t>(n[0] * n[1] * n[2] * comps), 0.0);
  for (int r = 0; r < size; ++r) {
    const std::int64_t* bx = &boxes[9 * r];
    Box3 box{{bx[0], bx[1], bx[2]}, {bx[3], bx[4], bx[5]},
             {static_cast<int>(bx[6]), static_cast<int>(bx[7]), static_cast<int>(bx[8])}};
    for (std::int64_t z = bx[2]; z < bx[2] + bx[5]; ++z)
      for (std::int64_t y = bx[1]; y < bx[1] + bx[4]; ++y)
        for (std::int64_t x = bx[0]; x < bx[0] + bx[3]; ++x)
          for (int c = 0; c < comps; ++c)
            global[static_cast<std::size_t>((x + n[0] * (y + n[1] * z)) * comps + c)] =
                all[displs[r] + box.index(x, y, z) * comps + c];
  }
  return global;
}

// Serial 3D DFT of a complex global field of size n (x fastest, interleaved re/im): sign -1
// forward, +1 backward, unnormalized.
inline std::vector<double> serial_c2c(const std::vector<double>& in, const std::array<std::int64_t, 3>& n, int sign) {
  std::vector<double> out(in.size());
#if NBFFT_TESTS_WITH_FFTW
  std::vector<double> tmp(in);
  fftw_plan p = fftw_plan_dft_3d(static_cast<int>(n[2]), static_cast<int>(n[1]), static_cast<int>(n[0]),
                                 reinterpret_cast<fftw_complex*>(tmp.data()), reinterpret_cast<fftw_complex*>(out.data()),
                                 sign, FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
#else
  using L = std::complex<long double>;
  std::vector<L> a(in.size() / 2), line;
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = L(in[2 * k], in[2 * k + 1]);
  const std::int64_t stride[3] = {1, n[0], n[0] * n[1]};
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int ax = 0; ax < 3; ++ax) {
    const std::int64_t m = n[ax];
    std::vector<L> w(static_cast<std::size_t>(m));  // twiddles, exact up to long double
    for (std::int64_t k = 0; k < m; ++k)
      w[static_cast<std::size_t>(k)] = std::polar(1.0L, sign * 2 * pi * static_cast<long double>(k) / m);
    line.resize(static_cast<std::size_t>(m));
    const int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
    for (std::int64_t i = 0; i < n[o1]; ++i)
      for (std::int64_t j = 0; j < n[o2]; ++j) {
        L* base = a.data() + i * stride[o1] + j * stride[o2];
        for (std::int64_t k = 0; k < m; ++k) {
          L s = 0;
          for (std::int64_t x = 0; x < m; ++x) s += base[x * stride[ax]] * w[static_cast<std::size_t>((k * x) % m)];
          line[static_cast<std::size_t>(k)] = s;
        }
        for (std::int64_t k = 0; k < m; ++k) base[k * stride[ax]] = line[static_cast<std::size_t>(k)];
      }
  }
  for (std::size_t k = 0; k < a.size(); ++k) {
    out[2 * k] = static_cast<double>(a[k].real());
    out[2 * k + 1] = static_cast<double>(a[k].imag());
  }
#endif
  return out;
}

// Serial forward 3D FFT of the global field (x fastest), in double: r2c gives the
// nx/2+1 x ny x nz half spectrum, c2c the full one. Interleaved re/im.
inline std::vector<double> serial_forward(const std::vector<double>& in,
                                          const std::array<std::int64_t, 3>& n, bool r2c) {
  if (!r2c) return serial_c2c(in, n, -1);
  std::vector<double> c(2 * in.size(), 0.0);
  for (std::size_t k = 0; k < in.size(); ++k) c[2 * k] = in[k];
  const std::vector<double> full = serial_c2c(c, n, -1);
  const std::int64_t xc = n[0] / 2 + 1;
  std::vector<double> out(static_cast<std::size_t>(2 * xc * n[1] * n[2]));
  for (std::int64_t r = 0; r < n[1] * n[2]; ++r)
    for (std::int64_t x = 0; x < xc; ++x)
      for (int c2 = 0; c2 < 2; ++c2)
        out[static_cast<std::size_t>(2 * (r * xc + x) + c2)] = full[static_cast<std::size_t>(2 * (r * n[0] + x) + c2)];
  return out;
}

// max |a - s*b| / max |s*b|  over matching entries.
inline double rel_error(const std::vector<double>& a, const std::vector<double>& b, double s = 1.0) {
  double diff = 0, ref = 0;
  const std::size_t m = std::min(a.size(), b.size());
  for (std::size_t k = 0; k < m; ++k) {
    diff = std::max(diff, std::abs(a[k] - s * b[k]));
    ref = std::max(ref, std::abs(s * b[k]));
  }
  return ref > 0 ? diff / ref : diff;
}

// A plan's options for the tests: the process grid, transform and precision asked, FFTW
// estimating (measuring would make every small plan slow).
inline Options test_options(int m1, int m2, TransformKind tk = TransformKind::R2C, Precision p = Precision::Double) {
  Options o;
  o.m1 = m1;
  o.m2 = m2;
  o.transform = tk;
  o.precision = p;
  o.effort = Effort::Estimate;
  return o;
}

// All factorizations M1 x M2 of p.
inline std::vector<std::array<int, 2>> factorizations(int p) {
  std::vector<std::array<int, 2>> f;
  for (int a = 1; a <= p; ++a)
    if (p % a == 0) f.push_back({a, p / a});
  return f;
}

}  // namespace nbfft::fft::test
