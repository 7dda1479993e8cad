// The serial reference of the N-D plan tests: a naive transform of the whole array (axis by
// axis, no FFTW) and the boxes of every rank gathered into it; and their error check.
#pragma once

#include "nbfft/error.hpp"
#include "nbfft/fft/r2r_kinds.hpp"
#include "nbfft/nd/plan.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace nbfft::nd::test {

using cplx = std::complex<double>;
using Shape = std::vector<std::int64_t>;
using nbfft::fft::AxisKind;

inline std::int64_t volume(const Shape& n) {
  return std::accumulate(n.begin(), n.end(), std::int64_t{1}, std::multiplies<>());
}

// Calls f(global index vector, offset in the box) for every point of b, in memory order
// (b.order; C order when empty).
template <typename F>
inline void for_each(const Box& b, F&& f) {
  const auto n = b.count();
  std::vector<std::int64_t> g(b.lo);
  std::vector<int> order(b.order);
  if (order.empty())
    for (std::size_t a = 0; a < g.size(); ++a) order.push_back(static_cast<int>(a));
  for (std::int64_t at = 0; at < n; ++at) {
    f(g, at);
    for (std::size_t i = g.size(); i-- > 0;) {
      const auto a = static_cast<std::size_t>(order[i]);
      if (++g[a] < b.lo[a] + b.n[a]) break;
      g[a] = b.lo[a];
    }
  }
}

inline Box whole(const Shape& n) { return Box{Shape(n.size(), 0), n, {}}; }

// The whole array on every rank from each rank's box (a sum: the boxes tile the array).
inline std::vector<cplx> gather(const Shape& shape, const Box& b, const std::vector<cplx>& local) {
  std::vector<cplx> all(static_cast<std::size_t>(volume(shape)));
  const Box w = whole(shape);
  for_each(b, [&](const Shape& g, std::int64_t at) { all[static_cast<std::size_t>(w.index(g))] += local[at]; });
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(2 * all.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

// Naive transform of the whole array along each of `axes`: the DFT (sign -1) or FFTW's r2r
// kind (its definition written out, unnormalized), applied to complex data (r2r acts on the
// real and imaginary parts alike).
inline std::vector<cplx> dft(const Shape& shape, std::vector<cplx> x, const std::vector<int>& axes,
                      const std::vector<AxisKind>& kinds = {}) {
  const double pi = std::acos(-1.0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const int ax = axes[i];
    const AxisKind kind = kinds.empty() ? AxisKind::Periodic : kinds[i];
    const std::int64_t n = shape[ax];
    const double dn = double(n);
    // The weight of input j in output k.
    auto w = [&](std::int64_t j, std::int64_t k) -> cplx {
      const double jd = double(j), kd = double(k), sgn = (k % 2) ? -1.0 : 1.0;
      switch (kind) {
        case AxisKind::Periodic: return std::polar(1.0, -2 * pi * double((j * k) % n) / dn);
        case AxisKind::Dct1:
          if (j == 0) return 1.0;
          if (j == n - 1) return sgn;
          return 2 * std::cos(pi * jd * kd / (dn - 1));
        case AxisKind::Dct2: return 2 * std::cos(pi * (jd + 0.5) * kd / dn);
        case AxisKind::Dct3: return j == 0 ? 1.0 : 2 * std::cos(pi * jd * (kd + 0.5) / dn);
        case AxisKind::Dct4: return 2 * std::cos(pi * (jd + 0.5) * (kd + 0.5) / dn);
        case AxisKind::Dst1: return 2 * std::sin(pi * (jd + 1) * (kd + 1) / (dn + 1));
        case AxisKind::Dst2: return 2 * std::sin(pi * (jd + 0.5) * (kd + 1) / dn);
        case AxisKind::Dst3: return j == n - 1 ? sgn : 2 * std::sin(pi * (jd + 1) * (kd + 0.5) / dn);
        case AxisKind::Dst4: return 2 * std::sin(pi * (jd + 0.5) * (kd + 0.5) / dn);
      }
      return 0.0;
    };
    std::int64_t inner = 1;
    for (std::size_t a = ax + 1; a < shape.size(); ++a) inner *= shape[a];
    const std::int64_t outer = volume(shape) / (n * inner);
    std::vector<cplx> y(x.size());
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i)
        for (std::int64_t k = 0; k < n; ++k) {
          cplx s = 0;
          for (std::int64_t j = 0; j < n; ++j) s += x[(o * n + j) * inner + i] * w(j, k);
          y[(o * n + k) * inner + i] = s;
        }
    x.swap(y);
  }
  return x;
}

// A padded plan's spectrum along axis a of a whole C-order array (docs/fft.md "Padding"):
// resized from shape[a] coefficients to `to` in numpy's order. Truncating (to < shape[a])
// keeps the lowest modes, index to/2 of an even `to` the sum of +to/2 and -to/2; padding
// (to > shape[a]) puts zeros between the positive and negative modes, an even shape[a]'s
// Nyquist coefficient halved onto +n/2 and -n/2. shape[a] becomes `to`.
inline std::vector<cplx> resize_axis(Shape& shape, const std::vector<cplx>& x, int a, std::int64_t to) {
  const std::int64_t from = shape[a];
  if (from == to) return x;
  std::int64_t inner = 1;
  for (std::size_t b = a + 1; b < shape.size(); ++b) inner *= shape[b];
  const std::int64_t outer = volume(shape) / (from * inner);
  const bool pad = to > from;
  const std::int64_t n = pad ? from : to, m = pad ? to : from, h = (n + 1) / 2;
  std::vector<cplx> y(static_cast<std::size_t>(outer * to * inner));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      const auto in = [&](std::int64_t k) -> const cplx& {
        return x[static_cast<std::size_t>((o * from + k) * inner + i)];
      };
      const auto out = [&](std::int64_t k) -> cplx& { return y[static_cast<std::size_t>((o * to + k) * inner + i)]; };
      for (std::int64_t k = 0; k < n; ++k) {  // mode k (k < h) or k - n, at index k of n and k or k - n + m of m
        const std::int64_t km = k < h ? k : k - n + m;
        if (pad) out(km) = in(k);
        else out(k) = in(km);
      }
      if (n % 2 == 0 && pad) out(n / 2) = out(m - n / 2) = 0.5 * in(n / 2);
      if (n % 2 == 0 && !pad) out(n / 2) += in(n / 2);
    }
  shape[a] = to;
  return y;
}

// The inverse of dft() over periodic axes, unnormalized (the sign +1).
inline std::vector<cplx> idft(const Shape& shape, std::vector<cplx> x, const std::vector<int>& axes) {
  for (auto& v : x) v = std::conj(v);
  x = dft(shape, std::move(x), axes);
  for (auto& v : x) v = std::conj(v);
  return x;
}

// Forward then backward of this rank's input block `in` through the plan, in its precision,
// real (r2c: the real parts) or complex input, with a complex spectrum; in place when the plan
// is lean (its only way). out: this rank's spectrum block, back: its input block again.
template <typename R>
inline void round_trip_in(const Plan& p, const std::vector<cplx>& in, std::vector<cplx>& out, std::vector<cplx>& back) {
  using C = std::complex<R>;
  const bool complex_in = p.kind() == Kind::C2C;
  const std::size_t words =
      std::max(p.inplace_bytes(), std::max(p.in_count(), p.out_count()) * sizeof(C)) / sizeof(C) + 1;
  std::vector<C> a(words), b(words);
  R* ar = reinterpret_cast<R*>(a.data());
  for (std::size_t i = 0; i < p.in_count(); ++i) {
    if (complex_in) a[i] = C(R(in[i].real()), R(in[i].imag()));
    else ar[i] = R(in[i].real());
  }
  C* res = p.lean_workspace() ? a.data() : b.data();
  if (complex_in) p.forward(a.data(), words, res, words);
  else p.forward(ar, 2 * words, res, words);
  out.resize(p.out_count());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = cplx(res[i].real(), res[i].imag());
  C* into = a.data();  // the input's array again (lean: the same in place)
  if (complex_in) p.backward(res, words, into, words);
  else p.backward(res, words, reinterpret_cast<R*>(into), 2 * words);
  back.resize(p.in_count());
  for (std::size_t i = 0; i < back.size(); ++i)
    back[i] = complex_in ? cplx(into[i].real(), into[i].imag()) : cplx(reinterpret_cast<R*>(into)[i], 0);
}

inline void round_trip(const Plan& p, const std::vector<cplx>& in, std::vector<cplx>& out, std::vector<cplx>& back) {
  if (p.precision() == nbfft::fft::Precision::Single) round_trip_in<float>(p, in, out, back);
  else round_trip_in<double>(p, in, out, back);
}

// f() throws an nbfft::Error of `code` whose message holds `words`.
template <typename F>
void expect_error(F&& f, nbfft::ErrorCode code, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "no error (expected: " << words << ")";
  } catch (const nbfft::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

}  // namespace nbfft::nd::test
