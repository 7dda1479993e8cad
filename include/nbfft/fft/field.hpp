// Field helpers: what every spectral code writes around a Plan (docs/layout.md).
//
//   auto k = nbfft::fft::wavenumbers(plan);            // k[0] along x of out_box(), ...
//   nbfft::fft::for_each_point(plan.out_box(), [&](std::int64_t at, std::int64_t x,
//                                                  std::int64_t y, std::int64_t z) {
//     const double k2 = k[0][x - lo0] * k[0][x - lo0] + ...;   U[at] /= k2;  });
//   nbfft::fft::gather(comm, plan, Layout::Input, u.data(), u.size(), g.data(), g.size(), 0);
//   nbfft::fft::forward_batch(plan, nv, u, nv * plan.in_count(), U, nv * plan.out_count());
//   MPI_Init_thread(..., nbfft::fft::required_thread_level(options), &provided);
//
// Wavenumbers follow numpy: along an axis of n points, index i has wavenumber
// fftfreq(n)*n = i for i < (n+1)/2, i - n above (n/2 of an even n is negative, -n/2);
// the r2c half axis x holds rfftfreq(nx)*nx = 0..nx/2. Physical wavenumbers scale by 2*pi/L.
//
// Global arrays (gather/scatter) are the whole grid in natural order, x fastest, then y,
// then z (C [z][y][x]): nx x ny x nz input elements (real for r2c) for Layout::Input,
// xc x ny x nz complex elements (xc = nx/2+1 for r2c) for Layout::Output, whatever the
// distributed boxes' memory order.
#pragma once

#include "nbfft/fft/box.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/plan.hpp"

#include <mpi.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace nbfft::fft {

// Which distribution of a plan: the X-pencil in_box() or the Z-pencil out_box().
enum class Layout { Input = 0, Output = 1 };

// numpy's integer wavenumber of index i (0 <= i < n): fftfreq(n)*n, or rfftfreq's i when half.
inline std::int64_t wavenumber(std::int64_t i, std::int64_t n, bool half = false) {
  return half || i < (n + 1) / 2 ? i : i - n;
}

// Wavenumbers of this rank's out_box(): k[d][m] belongs to global index out_box().lo[d] + m
// along axis d of a box of length[d]: periodic axes 2*pi/length[d] times the integers above
// (the default 2*pi gives the integers), r2r axes (Options::kinds) pi/length[d] times k,
// k+1 or k+1/2 by kind (nbfft/fft/r2r_kinds.hpp; length pi gives those). -k^2 is the
// eigenvalue of d^2/dx^2 in either case (a Poisson solve divides by -|k|^2).
constexpr double kTwoPi = 6.283185307179586476925286766559;
std::array<std::vector<double>, 3> wavenumbers(const Plan& plan,
                                               std::array<double, 3> length = {kTwoPi, kTwoPi, kTwoPi});

// Calls f(offset, x, y, z) for every point of b in memory order (offset = 0, 1, 2, ...),
// with the point's global indices: the inner loop runs along order[0].
template <typename F>
void for_each_point(const Box3& b, F&& f) {
  const int d0 = b.order[0], d1 = b.order[1], d2 = b.order[2];
  std::int64_t at = 0, p[3];
  for (std::int64_t c = 0; c < b.n[d2]; ++c) {
    p[d2] = b.lo[d2] + c;
    for (std::int64_t r = 0; r < b.n[d1]; ++r) {
      p[d1] = b.lo[d1] + r;
      for (std::int64_t q = 0; q < b.n[d0]; ++q) {
        p[d0] = b.lo[d0] + q;
        f(at++, p[0], p[1], p[2]);
      }
    }
  }
}

// Every rank's box of a layout (index = rank in the plan's communicator), computed from the
// decomposition alone: no communication.
std::vector<Box3> all_boxes(const Plan& plan, Layout layout);
inline const Box3& box(const Plan& plan, Layout layout) {
  return layout == Layout::Input ? plan.in_box() : plan.out_box();
}
// Bytes of one element of a layout: the input type (real for r2c) or the complex type.
std::size_t element_bytes(const Plan& plan, Layout layout);

namespace detail {
void check_element_bytes(const Plan& plan, Layout layout, std::size_t bytes, const char* what);
}

// Gathers a distributed field (each rank's box, in its memory order) into the global array
// on `root` (see above), and scatters one from root. comm is the plan's communicator (same
// ranks in the same order). Sizes are bytes; `global` matters on root only. Errors (short
// buffers, a bad root, a communicator of another size) are thrown on every rank.
// Collective over comm.
void gather_bytes(MPI_Comm comm, const Plan& plan, Layout layout, const void* local,
                  std::size_t local_bytes, void* global, std::size_t global_bytes, int root = 0);
void scatter_bytes(MPI_Comm comm, const Plan& plan, Layout layout, const void* global,
                   std::size_t global_bytes, void* local, std::size_t local_bytes, int root = 0);
// Typed forms: counts are elements of T, which must be the layout's element size.
template <typename T>
void gather(MPI_Comm comm, const Plan& plan, Layout layout, const T* local, std::size_t local_n,
            T* global, std::size_t global_n, int root = 0) {
  detail::check_element_bytes(plan, layout, sizeof(T), "gather");
  gather_bytes(comm, plan, layout, local, local_n * sizeof(T), global, global_n * sizeof(T), root);
}
template <typename T>
void scatter(MPI_Comm comm, const Plan& plan, Layout layout, const T* global, std::size_t global_n,
             T* local, std::size_t local_n, int root = 0) {
  detail::check_element_bytes(plan, layout, sizeof(T), "scatter");
  scatter_bytes(comm, plan, layout, global, global_n * sizeof(T), local, local_n * sizeof(T), root);
}
// Elements of the global array of a layout (nx*ny*nz or xc*ny*nz); OutOfMemory where that
// count exceeds an int64 (a grid spread over many ranks).
std::int64_t global_count(const Plan& plan, Layout layout);

namespace detail {
// Field strides of a batch in bytes: {input, output}; both inplace_bytes() when in == out.
std::array<std::size_t, 2> batch_strides(const Plan& plan, Direction d, const void* in, const void* out);
// Checks on every rank together that nv fields of the strides fit the buffers (in_bytes,
// out_bytes) and can be addressed, before any rank splits them: a count beyond the
// buffers is nbfft's error on every rank, never an allocation of nv pointers. Collective.
void check_batch(const Plan& plan, Direction d, std::size_t nv, const void* in, std::size_t in_bytes,
                 const void* out, std::size_t out_bytes);
// Bytes of n elements of T, SIZE_MAX where that overflows (a size no buffer has).
template <typename T>
std::size_t saturated_bytes(std::size_t n) {
  return n > static_cast<std::size_t>(-1) / sizeof(T) ? static_cast<std::size_t>(-1) : n * sizeof(T);
}
// Splits a contiguous batch (checked by check_batch) into the pointer lists of
// Plan::transform_many, one stride per field.
template <typename In, typename Out>
struct Batch {
  std::vector<const In*> in;
  std::vector<Out*> out;
  std::size_t in_n = 0, out_n = 0;
  Batch(const Plan& plan, Direction d, std::size_t nv, const In* i, std::size_t i_n, Out* o, std::size_t o_n) {
    check_batch(plan, d, nv, i, saturated_bytes<In>(i_n), o, saturated_bytes<Out>(o_n));
    const auto s = batch_strides(plan, d, i, o);
    in_n = s[0] / sizeof(In);
    out_n = s[1] / sizeof(Out);
    in.resize(nv);
    out.resize(nv);
    for (std::size_t k = 0; k < nv; ++k) {
      in[k] = reinterpret_cast<const In*>(reinterpret_cast<const char*>(i) + k * s[0]);
      out[k] = reinterpret_cast<Out*>(reinterpret_cast<char*>(o) + k * s[1]);
    }
  }
};
}  // namespace detail

// Contiguous batch of nv fields back to back (FFTW's howmany, heFFTe's batch): field k
// starts at in + k*in_bytes() and out + k*out_bytes(); in place (in == out) every field
// takes inplace_bytes(). Sizes are the whole buffers, in bytes. Same results as nv single
// calls; runs the multi-field pipeline (Plan::transform_many_bytes). nv must agree on all ranks.
void transform_batch_bytes(const Plan& plan, Direction d, std::size_t nv, const void* in, std::size_t in_bytes,
                           void* out, std::size_t out_bytes, Timings* t = nullptr);
// Typed: element counts of the whole buffers; element types as for Plan::transform (a
// mismatch with the plan's shape(d) throws).
template <typename In, typename Out>
void transform_batch(const Plan& plan, Direction d, std::size_t nv, const In* in, std::size_t in_n, Out* out,
                     std::size_t out_n, Timings* t = nullptr) {
  detail::Batch<In, Out> b(plan, d, nv, in, in_n, out, out_n);
  plan.transform_many(d, b.in, b.in_n, b.out, b.out_n, t);
}
// The direction-named spellings: one-line aliases of the two above.
inline void forward_batch_bytes(const Plan& plan, std::size_t nv, const void* in, std::size_t in_bytes, void* out,
                                std::size_t out_bytes, Timings* t = nullptr) {
  transform_batch_bytes(plan, Direction::Forward, nv, in, in_bytes, out, out_bytes, t);
}
inline void backward_batch_bytes(const Plan& plan, std::size_t nv, const void* in, std::size_t in_bytes, void* out,
                                 std::size_t out_bytes, Timings* t = nullptr) {
  transform_batch_bytes(plan, Direction::Backward, nv, in, in_bytes, out, out_bytes, t);
}
template <typename In, typename Out>
void forward_batch(const Plan& plan, std::size_t nv, const In* in, std::size_t in_n, Out* out, std::size_t out_n,
                   Timings* t = nullptr) {
  transform_batch(plan, Direction::Forward, nv, in, in_n, out, out_n, t);
}
template <typename In, typename Out>
void backward_batch(const Plan& plan, std::size_t nv, const In* in, std::size_t in_n, Out* out, std::size_t out_n,
                    Timings* t = nullptr) {
  transform_batch(plan, Direction::Backward, nv, in, in_n, out, out_n, t);
}

// The MPI thread level one transport needs: MPI_THREAD_MULTIPLE when its engine needs it
// (coll::engines(), e.g. "thread"), else MPI_THREAD_SINGLE (nbfft then calls MPI only from
// the thread that calls it). The one rule: C, Fortran and Python ask this function.
int required_thread_level(const coll::Transport& transport);
// The level a plan with these options needs: the highest of its ROW and COL transports' and
// MPI_THREAD_FUNNELED when it runs more than one thread per rank (Options::threads, 0 read
// from the environment as the plan reads it).
int required_thread_level(const Options& options);

}  // namespace nbfft::fft
