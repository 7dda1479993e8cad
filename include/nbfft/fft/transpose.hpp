// Pencils: the pencil decomposition of a global grid and the transposes between pencils,
// on the user's own arrays of any element size (2DECOMP&FFT's decomposition and
// transpose_x_to_y / transpose_y_to_z in spirit, on nbfft's exchange path).
//
//   nbfft::fft::Pencils p(MPI_COMM_WORLD, {nx, ny, nz});       // process grid chosen
//   using nbfft::fft::Pencil;
//   std::vector<double> ux(p.count(Pencil::X)), uy(p.count(Pencil::Y)), uz(p.count(Pencil::Z));
//   p.transpose(Pencil::X, Pencil::Y, ux, uy);                  // blocking
//   auto pend = p.start(Pencil::Y, Pencil::Z, uy, uz);          // split phase
//   other_work();  pend.progress();  pend.wait();
//   p.transpose_many(Pencil::Z, Pencil::Y, {uz.data(), wz.data()}, nz, {uy.data(), wy.data()}, ny);
//
// Process grid M1 x M2 (Options::m1/m2, 0 = chosen as for a c2c plan); rank r sits at
// i = r % M1, j = r / M1, and owns (0-based, half-open [start, end), size = end - start):
//
//   X-pencil   x: all nx              y: part i of ny over M1    z: part j of nz over M2
//   Y-pencil   x: part i of nx over M1   y: all ny               z: part j of nz over M2
//   Z-pencil   x: part i of nx over M1   y: part j of ny over M2    z: all nz
//
// Parts follow nbfft::fft::split (the first n % m parts hold one point more); a part may be
// empty when the grid has fewer points than ranks along an axis. EVERY pencil is stored x
// fastest, then y, then z (C array [z][y][x], Fortran ux(x, y, z) — 2DECOMP&FFT's default
// layout): point (x, y, z) of pencil P is at box(P).index(x, y, z). The X-pencil is the
// in_box() of a Plan with the same grid and process grid (c2c: also the points of its
// out_box(), whose order is {x, z, y} instead of this Z-pencil's {x, y, z}).
//
// Transposes: X<->Y (within a ROW of M1 ranks), Y<->Z (within a COL of M2 ranks) and, on a
// slab grid (M1 = 1 or M2 = 1), X<->Z directly (with M1 = 1 the X- and Y-pencils coincide,
// with M2 = 1 the Y- and Z-pencils do: the direct transpose is the one exchange that moves
// data). Arrays hold elements of any size (the typed calls: sizeof(T); the _bytes calls: a
// byte count per element), the counts are elements, and an array may be larger than its
// pencil. In place (the same pointer as in and out) works when the array holds both pencils;
// partly overlapping arrays are an error. Each call is collective over the communicator:
// every rank makes the same calls in the same order with the same element size and number
// of fields; a short array, a pencil that is not X, Y or Z, a pair of pencils this grid
// cannot transpose directly, an element size whose bytes cannot be addressed, buffers that
// cannot be allocated (OutOfMemory), or ranks in different calls are an nbfft::Error on every
// rank (RanksDisagree for the last). A moved-from Pencils' members throw InvalidState.
//
// The exchanges run on the transports of Options (the plan's option strings: "blocking",
// "pairwise:4@thread", "rma", ...); the thread engine moves a started transpose by itself,
// the caller engine inside progress(), test() and wait(). Nothing is allocated per call
// after the first call of each (pair, element size): buffers are pooled, one set per
// transpose in flight (at most 64 per pair and element size), and every rank of a call uses
// the same set, even where ranks waited for different transposes (waits are local).
#pragma once

#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/box.hpp"
#include "nbfft/request.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string_view>
#include <vector>

namespace nbfft::fft {

enum class Pencil { X = 0, Y = 1, Z = 2 };

// How Pencils runs (a namespace-level struct so that `= {}` works as a default argument).
struct PencilOptions {
  int m1 = 0, m2 = 0;               // process grid (0, 0: chosen; one of them 0: the other divides)
  coll::Transport row_transport{};  // X<->Y (and X<->Z when M2 = 1)
  coll::Transport col_transport{};  // Y<->Z (and X<->Z when M1 = 1)
  int fields_in_flight = 2;         // transpose_many: fields whose exchanges overlap
  PencilOptions& transport(std::string_view name);  // both transports from one name
};

class LanePool;  // fft/threads.hpp: a plan's threads inside a rank

class Pencils {
 public:
  using Options = PencilOptions;

  // n = {nx, ny, nz}. Collective; throws nbfft::Error on every rank for a non-positive size,
  // a process grid that does not multiply to the communicator size, ranks that disagree on
  // the grid or the options, or a transport the collective layer cannot run.
  Pencils(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& options);
  Pencils(MPI_Comm comm, std::array<std::int64_t, 3> n);  // default Options
  ~Pencils();
  Pencils(Pencils&&) noexcept;
  Pencils& operator=(Pencils&&) noexcept;

  std::array<std::int64_t, 3> global_size() const;
  int m1() const;
  int m2() const;
  int row() const;  // i = rank % M1
  int col() const;  // j = rank / M1
  const Box3& box(Pencil p) const;  // this rank's pencil, order {0, 1, 2}
  Box3 box_of_rank(Pencil p, int rank) const;
  std::array<std::int64_t, 3> start(Pencil p) const { return box(p).lo; }
  std::array<std::int64_t, 3> end(Pencil p) const;  // exclusive
  std::array<std::int64_t, 3> size(Pencil p) const { return box(p).n; }
  std::int64_t count(Pencil p) const { return box(p).count(); }
  // Whether `from` -> `to` is one transpose on this grid (X<->Z needs a slab grid).
  bool can_transpose(Pencil from, Pencil to) const;
  // The object's private duplicate of the communicator (for a front end's own agreements).
  MPI_Comm comm() const;

  // A split-phase transpose in flight (start below). progress() gives the exchange a host
  // progress pass, test() also says whether it has arrived, wait() completes it (unpacks
  // into the output array). Destroying an active Pending waits for it.
  using Pending = nbfft::Request;  // nbfft/request.hpp

  // ---- Blocking, one field ---------------------------------------------------------------
  template <typename T>
  void transpose(Pencil from, Pencil to, const T* in, std::size_t in_n, T* out, std::size_t out_n) const {
    transpose_bytes(from, to, in, in_n * sizeof(T), out, out_n * sizeof(T), sizeof(T));
  }
  template <typename T>
  void transpose(Pencil from, Pencil to, const std::vector<T>& in, std::vector<T>& out) const {
    transpose(from, to, in.data(), in.size(), out.data(), out.size());
  }
  // Sizes in bytes; elem: bytes per element (>= 1).
  void transpose_bytes(Pencil from, Pencil to, const void* in, std::size_t in_bytes, void* out,
                       std::size_t out_bytes, std::size_t elem) const;

  // ---- Split phase: start packs and starts the exchange, Pending::wait unpacks ----------
  // Starts are collective and in the same order on every rank; waits are local. The arrays
  // must outlive the Pending.
  template <typename T>
  Pending start(Pencil from, Pencil to, const T* in, std::size_t in_n, T* out, std::size_t out_n) const {
    return start_bytes(from, to, in, in_n * sizeof(T), out, out_n * sizeof(T), sizeof(T));
  }
  template <typename T>
  Pending start(Pencil from, Pencil to, const std::vector<T>& in, std::vector<T>& out) const {
    return start(from, to, in.data(), in.size(), out.data(), out.size());
  }
  Pending start_bytes(Pencil from, Pencil to, const void* in, std::size_t in_bytes, void* out,
                      std::size_t out_bytes, std::size_t elem) const;

  // ---- A batch of fields: field k from in[k] to out[k], pipelined ----------------------
  // Up to Options::fields_in_flight exchanges travel while the neighbouring fields are
  // packed and unpacked. in.size() == out.size() must agree across ranks.
  template <typename T>
  void transpose_many(Pencil from, Pencil to, const std::vector<const T*>& in, std::size_t in_n,
                      const std::vector<T*>& out, std::size_t out_n) const {
    many_bytes(from, to, in.size(), reinterpret_cast<const void* const*>(in.data()), in_n * sizeof(T), out.size(),
               reinterpret_cast<void* const*>(out.data()), out_n * sizeof(T), sizeof(T));
  }
  template <typename T>
  void transpose_many(Pencil from, Pencil to, const std::vector<T*>& in, std::size_t in_n,
                      const std::vector<T*>& out, std::size_t out_n) const {
    transpose_many(from, to, std::vector<const T*>(in.begin(), in.end()), in_n, out, out_n);
  }
  void transpose_many_bytes(Pencil from, Pencil to, std::size_t nv, const void* const* in, std::size_t in_bytes,
                            void* const* out, std::size_t out_bytes, std::size_t elem) const {
    many_bytes(from, to, nv, in, in_bytes, nv, out, out_bytes, elem);
  }

  // Buffers: a transpose in flight holds one set of send and receive buffers of its pair of
  // pencils and element size; sets are pooled and made when a call finds too few free (the
  // ranks agree on it in the call's own agreement, and make the same number).
  // free_buffers: the sets of from<->to for elem-byte elements free on this rank now. Local.
  std::size_t free_buffers(Pencil from, Pencil to, std::size_t elem) const;
  // A plan's threads inside this rank (nd plans: Options::threads), which each transpose's
  // pack into its send blocks and unpack from its receive blocks then share by planes
  // (nullptr: the calling thread alone, the default). The pool must outlive the transposes
  // that use it; calls run on it one at a time, as the plan's own steps. Local.
  void share_copies(LanePool* lanes);
  // Makes sets now so that `transposes` such transposes can start on this rank without making
  // any; every rank makes the most that any rank lacks. Collective over this object's ranks,
  // or over agree_on: a communicator holding them, every rank of which calls reserve_bytes
  // here (on a Pencils of its own: nbfft's N-D plan reserves each exchange's buffers over the
  // plan's ranks); a failed allocation is OutOfMemory on every rank of it. InvalidArgument: a
  // pair this grid cannot transpose, an element size whose buffers cannot be addressed.
  void reserve_bytes(Pencil from, Pencil to, std::size_t elem, std::size_t transposes,
                     MPI_Comm agree_on = MPI_COMM_NULL) const;

  // Grid, boxes and transports (this rank's view).
  friend std::ostream& operator<<(std::ostream& os, const Pencils& p);
  struct Impl;

 private:
  void many_bytes(Pencil from, Pencil to, std::size_t nv_in, const void* const* in, std::size_t in_bytes,
                  std::size_t nv_out, void* const* out, std::size_t out_bytes, std::size_t elem) const;
  Impl& impl() const;
  std::unique_ptr<Impl> impl_;
};

const char* name(Pencil p);  // "X", "Y", "Z"

}  // namespace nbfft::fft
