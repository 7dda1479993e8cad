// Padding: the per-axis zero padding and truncation of padded transforms (Options::padding).
//
// An axis has n spectral coefficients and m >= n physical points. In numpy's order on n
// coefficients, index i < h = (n+1)/2 holds mode i and index i >= h mode i - n. Backward
// pads a line of n coefficients to m, every mode keeping its number, zeros in between:
//
//     n:  [ 0 ....... h | h ... n )
//     m:  [ 0 ....... h | 0 .. 0 | m-n+h ... m )    ([h, n) moved to the end)
//
// Even n: the coefficient c at n/2 stands for +n/2 and -n/2 alike on the n grid. Padded it
// becomes c/2 at +n/2 and c/2 at -n/2: the symmetric trigonometric interpolant, so real data
// stays real (mpi4py-fft's and shenfun's convention). Forward truncates: the mirror, with
// the n/2 coefficient the sum of the +n/2 and -n/2 ones (the two modes alias onto one index
// on the n grid). So truncate(pad(c)) = c on every axis: a padded backward then forward
// returns the spectrum, and the forward of a field band-limited to |k| < n/2 is its exact
// n-mode spectrum.
//
// The r2c axis x is padded or truncated while y and z are still physical, on half spectra
// (kx = 0 .. n/2): kept as they are, zeros up to m/2+1. Even nx: the Nyquist column becomes
// Re(c)/2 (a length-nx c2r ignores Im(c); the conjugate half -nx/2 is implied) and truncates
// as 2 Re(c) (itself plus its mirror -nx/2, the conjugate for real data).
//
// A line lives in "slots": slot i at base + i * step, each `len` contiguous elements (a row
// of a plane for y and z, one element of a row for x). Everything runs in place.
#pragma once

#include "local/move.hpp"
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace nbfft::fft {

struct AxisPad {
  std::int64_t n = 1, m = 1;  // spectral coefficients, physical points (m >= n)
  bool half = false;          // the r2c axis: half spectra of n/2+1 and m/2+1 points
  bool active() const { return m != n; }
};

namespace detail {

template <typename C>
struct Slots {
  C* p;
  std::int64_t step, len;
  C* at(std::int64_t i) const { return p + i * step; }
  // count slots from src to dst (ranges may overlap).
  void move(std::int64_t dst, std::int64_t src, std::int64_t count) const {
    local::move_rows(p, step, dst, src, count, len);
  }
  void zero(std::int64_t i0, std::int64_t i1) const { local::zero_rows(at(i0), i1 - i0, step, len); }
};

// The real type of an element (T for T and std::complex<T>: real planes hold r2r data).
template <typename C>
struct real_of {
  using type = typename C::value_type;
};
template <>
struct real_of<double> {
  using type = double;
};
template <>
struct real_of<float> {
  using type = float;
};
template <typename C>
using real_of_t = typename real_of<C>::type;

}  // namespace detail

// Slots [0, n) (half: [0, n/2+1)) hold the spectrum; afterwards [0, m) ([0, m/2+1)) hold it
// padded.
template <typename C>
void pad_slots(C* p, std::int64_t step, std::int64_t len, const AxisPad& a) {
  if (!a.active() || len <= 0) return;
  using T = detail::real_of_t<C>;
  const detail::Slots<C> s{p, step, len};
  const bool even = a.n % 2 == 0;
  if (a.half) {
    if constexpr (!std::is_floating_point_v<C>)  // a halved axis holds complex data
      if (even)
        for (C* c = s.at(a.n / 2); c != s.at(a.n / 2) + len; ++c) *c = C(c->real() / 2, 0);
    s.zero(a.n / 2 + 1, a.m / 2 + 1);
    return;
  }
  const std::int64_t h = (a.n + 1) / 2, t = a.n - h, neg = a.m - t;
  s.move(neg, h, t);
  s.zero(h, neg);
  if (even) {  // the Nyquist coefficient, now at -n/2 (slot neg), halves onto +n/2 (slot h)
    C* c = s.at(neg);
    C* d = s.at(h);
    for (std::int64_t k = 0; k < len; ++k) d[k] = c[k] = c[k] * T(0.5);
  }
}

// Slots [0, m) ([0, m/2+1)) hold the padded spectrum; afterwards [0, n) ([0, n/2+1)) hold
// it truncated.
template <typename C>
void truncate_slots(C* p, std::int64_t step, std::int64_t len, const AxisPad& a) {
  if (!a.active() || len <= 0) return;
  const detail::Slots<C> s{p, step, len};
  const bool even = a.n % 2 == 0;
  if (a.half) {
    if constexpr (!std::is_floating_point_v<C>)  // a halved axis holds complex data
      if (even)
        for (C* c = s.at(a.n / 2); c != s.at(a.n / 2) + len; ++c) *c = C(2 * c->real(), 0);
    return;
  }
  const std::int64_t h = (a.n + 1) / 2, t = a.n - h, neg = a.m - t;
  if (even) {  // +n/2 joins -n/2, which lands on index n/2
    C* c = s.at(neg);
    const C* d = s.at(h);
    for (std::int64_t k = 0; k < len; ++k) c[k] += d[k];
  }
  s.move(h, neg, t);
}

}  // namespace nbfft::fft
