// nd::Plan's state, shared by its construction (nd/plan.cpp) and its transforms (nd/run.cpp).
#pragma once

#include "nbfft/fft/plan.hpp"
#include "nbfft/fft/transpose.hpp"
#include "nbfft/nd/plan.hpp"
#include "nbfft/nd/tune.hpp"
#include "fft/axis_fft.hpp"
#include "fft/threads.hpp"
#include "local/memory.hpp"
#include "local/transform.hpp"
#include "geometry/reshape.hpp"
#include "nd/schedule.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

namespace nbfft::nd::detail {

// A work array: aligned, with huge pages from 4 MiB on (local/memory.hpp).
using Bytes = local::Bytes;
// Throws OutOfMemory naming the size.
Bytes allocate_or_throw(std::size_t bytes);

template <typename T>
using LocalPlan = local::Transform<T>;

// The local FFT plans of one local step in one precision (empty where the step has none). real_r2r: the r2r axes of the r2c
// step, on the real input before the r2c; r2r: the r2r axes of any other step, on the work
// buffer (real elements, or complex ones part by part).
template <typename T>
struct Fft {
  LocalPlan<T> real_r2r_fwd, real_r2r_bwd, r2c, c2r, fwd, bwd, r2r_fwd, r2r_bwd;
  // In chunks (Plan::Impl::chunks > 1): the same transforms over `count` chunks of the
  // step's slowest untransformed axis (piece), then the rest (tail, when shorter), in_step /
  // out_step bytes apart in the step's input / output, so that a caller engine's exchanges
  // get a progress pass between chunks. Empty: the step runs whole.
  std::unique_ptr<Fft> piece, tail;
  std::int64_t count = 0;
  std::size_t in_step = 0, out_step = 0;
};

// The plan's work arrays: the real input of a halving plan (stage 0) and two arrays of the
// largest other stage. One field at a time runs on them: a field whose exchange is in
// flight holds none of them (the exchange packed its data at the start and unpacks at the
// end), so one set serves every field in flight.
struct Lane {
  Bytes real, work[2];
};

// One field's part of a caller's array: `chunks` runs of `chunk` bytes, `stride` bytes
// apart (a slice along a batch axis), or one run.
struct View {
  unsigned char* base = nullptr;
  std::int64_t chunks = 1;
  std::size_t chunk = 0, stride = 0;
  bool contiguous() const { return chunks == 1; }
  const unsigned char* end() const { return base + static_cast<std::size_t>(chunks - 1) * stride + chunk; }
};

// A pencil transpose over one grid dimension's ranks with the axes between the two moved
// aside: [A][S][B][F][C] with S the slower exchanged axis, F the faster, R = F*C bytes per
// row, elem = C bytes. swap: the stage after it is [A][F][B][S][C] (a transposed output
// order), written from the received [A][B][S][F][C] by a transposition of elem-byte
// elements, which backward reads.
//
// The plane pipeline (Options::col_chunk_planes): `chunks` exchanges of `planes` local planes
// of axis 0 each (the last the rest), plane_a of A's extent per plane, plane_bytes[0] / [1]
// bytes a plane before / after it,
// on pencils of their own (piece; tail for the last when shorter), each started as soon as
// the FFT step before it in the call's order has transformed its planes, `depth` in flight
// (0: all). chunks == 0: one bulk exchange.
struct Xchg {
  std::unique_ptr<fft::Pencils> pen;
  fft::Pencil side_before{}, side_after{};
  std::int64_t A = 1, B = 1, S[2] = {0, 0}, F[2] = {0, 0}, R[2] = {0, 0};  // [0]: before, [1]: after
  std::size_t elem = 0;
  bool swap = false;
  std::int64_t chunks = 0, planes = 0, tail = 0, plane_a = 0;  // tail: the last chunk's planes
  std::size_t plane_bytes[2] = {0, 0};
  std::int64_t chunk_planes(std::int64_t j) const { return j + 1 < chunks || tail == 0 ? planes : tail; }
  int depth = 0;
  std::unique_ptr<fft::Pencils> piece_pen, tail_pen;
};

// The caller's boxes (Plan's user-box constructor): every rank's, in rank order, and the
// plan's own boxes of the same arrays, between which each call reshapes (geometry/reshape.hpp,
// the 3-D plan's reshape too): the reshapes of a side the caller set, made once with the
// plan, and the engine they run on (the plan's transport).
struct UserBoxes {
  using Reshape = geometry::Reshape;
  bool in_set = false, out_set = false;
  std::vector<Box> caller_in, caller_out, plan_in, plan_out;
  std::unique_ptr<Reshape> in_to_plan, plan_to_in, out_to_plan, plan_to_out;
  coll::Comm comm;  // only when some reshape exchanges
  coll::Transport transport;
  bool any() const { return in_set || out_set; }
};


}  // namespace nbfft::nd::detail

namespace nbfft::nd {

struct Plan::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  // The field's array (the batch axis taken out); the user's array has it back in.
  // shape: the input's (physical) extents; spectrum: the spectrum's grid, which a padded plan's
  // listed axes keep (Options::padding: shape's floor(spectrum * R)), shape's otherwise.
  std::vector<std::int64_t> shape, spectrum;
  std::vector<int> axes, grid, out_grid;  // of the field
  // user_shape: the user's input array (physical); given_shape: the shape the plan was made with.
  std::vector<std::int64_t> user_shape, given_shape;
  std::vector<double> ratio;  // per axis of the field: its padding (1: none)
  std::vector<int> user_axes, user_grid, user_out_grid;
  Box user_in, user_out;  // this rank's blocks of the user's array
  int batch_axis = -1;    // in the user's array; -1: none
  std::int64_t nbatch = 1;
  int in_flight = 2;  // fields_in_flight
  int depth = 1;      // fields a call keeps in flight: 1 on a blocking transport
  // Chunks each local FFT step runs in (Options::progress_chunks), with a progress pass
  // between them while other fields' exchanges are in flight: > 1 only where that moves an
  // exchange (fields in flight on a caller or native engine); 1: each step whole.
  int chunks = 1;
  // Threads of this rank (Options::threads resolved, fft/threads.hpp) and, with more than
  // one and nd's own steps, the pool they run the steps' chunks and copies on (nd/run.cpp).
  // A pool serves one call at a time; a second call meanwhile runs on its own thread alone.
  int threads = 1;
  std::unique_ptr<fft::LanePool> pool;
  std::vector<fft::AxisKind> kinds;      // per entry of axes
  std::vector<fft::AxisKind> axis_kind;  // per axis of the field (periodic when not listed)
  int half_axis = -1;                    // the r2c axis; -1: none (c2c, or a real spectrum)
  int swapped[2] = {-1, -1};             // the axes a transposed output order trades (p < q); -1: natural
  Options opt;
  Options made;  // opt with the grid as made: options()
  std::shared_ptr<const TuneReport> report;  // the tuner's, when the plan was tuned
  detail::UserBoxes boxes;
  detail::Schedule sch;
  std::vector<int> coords;
  std::vector<Box> box;  // this rank's box of a field at each stage
  double scale_fwd = 1, scale_bwd = 1;

  std::vector<detail::Fft<double>> fd;
  std::vector<detail::Fft<float>> ff;
  std::vector<detail::Xchg> xs;
  detail::Lane lane;
  std::size_t work_bytes = 0, real_bytes = 0;
  // The lean workspace (Options::lean_workspace): lane.work[0] alone, the caller's array the
  // other side of every step; lean_note: why it was asked for and not made.
  bool lean = false;
  std::string lean_note;
  // The bytes one call's array must hold in place: the larger of the input and spectrum,
  // and on a lean plan of one field per array also every stage (its stages live there in turn).
  std::size_t inplace_bytes = 0;
  // The bytes of the array a lean call's stages live in: the caller's in-place array
  // (inplace_bytes), or with user boxes an array of the plan's own per field (nd/calls.cpp
  // RunOnUserBoxes; inplace_bytes is then the caller's blocks').
  std::size_t lean_array_bytes = 0;
  // Split-phase starts so far (the same on every rank: they are agreed), numbering each
  // Pending for the agreement of its wait.
  mutable std::atomic<std::uint64_t> starts{0};
  // The 3-D plan the transforms run on (Options::use_3d_plan; nd/plan.cpp make_3d): then
  // fd, ff, xs and lane stay empty, and the schedule only gives the boxes and grids.
  std::unique_ptr<fft::Plan> p3;

  ~Impl() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  bool single() const { return opt.precision == fft::Precision::Single; }
  bool halving() const { return half_axis >= 0; }
  bool real_spectrum() const { return opt.kind == Kind::R2C && half_axis < 0; }
  bool padded() const { return shape != spectrum; }
  // Whether every call runs in place (nd's own lean workspace, or the 3-D plan's).
  bool lean_plan() const { return lean || (p3 && p3->lean_workspace()); }
  std::size_t real_size() const { return single() ? sizeof(float) : sizeof(double); }
  // Bytes per element at stage k: complex except the real input of a halving plan and
  // every stage of a real spectrum.
  std::size_t esize(std::size_t k) const {
    const bool complex_elems = opt.kind == Kind::C2C || (halving() && k > 0);
    return real_size() * (complex_elems ? 2 : 1);
  }
  // Bytes of this rank's box of one field at stage k.
  std::size_t stage_bytes(std::size_t k) const { return static_cast<std::size_t>(box[k].count()) * esize(k); }
  template <typename T>
  std::vector<detail::Fft<T>>& ffts() {
    if constexpr (std::is_same_v<T, float>)
      return ff;
    else
      return fd;
  }
  template <typename T>
  const std::vector<detail::Fft<T>>& ffts() const {
    return const_cast<Impl*>(this)->ffts<T>();
  }
  void allocate_lane();  // throws OutOfMemory
  // The local FFT backend of a step's transform: made.backend (resolved and agreed at
  // construction) for periodic ones, resolve_backend's choice for r2r ones.
  local::Backend backend_for(bool r2r) const { return fft::resolve_backend(r2r ? opt.backend : made.backend, r2r); }
  // Every backend the steps run on.
  std::vector<local::Backend> backends_used() const;

  // A field's box in the user's array (the batch axis put back, whole).
  Box user_box(const Box& b) const;
  template <typename V, typename X>
  V with_batch(V v, X x) const {
    if (batch_axis >= 0) v.insert(v.begin() + batch_axis, x);
    return v;
  }
  // Field j of a user's array at stage k (0: the input, the last: the spectrum).
  detail::View view(const void* base, std::size_t k, std::int64_t j) const;

  // The 3-D plan's options for this plan, when it can hold exactly its boxes (every rank's
  // input and spectrum), kinds and output order; false (and `why`) when it cannot.
  bool options_3d(fft::Options& o, std::string& why) const;
  void set_user_boxes(const std::optional<Box>& in, const std::optional<Box>& out);  // collective
  template <typename T>
  void plan_fft(std::size_t k);
  // The FFTW plans of step k with the chunk axis `cax` (-1: none) at extent `cext`.
  template <typename T>
  detail::Fft<T> make_fft(std::size_t k, int cax, std::int64_t cext);
  void plan_exchange(std::size_t k);
  // The plane pipeline (Options::col_chunk_planes): per step, the planes of axis 0 each chunk
  // of a pipelined exchange holds, for that exchange and the FFT steps on either side (which
  // run in those chunks); 0: not pipelined. Decided by pipeline_planes() from this rank's
  // boxes (the same on every rank of an exchange's group).
  std::vector<std::int64_t> pipe_planes;
  std::int64_t pipeline_planes(std::size_t k) const;
  // Which exchange step k is (0: the first a forward meets): its transport's index.
  int exchange_index(std::size_t k) const {
    int i = 0;
    for (std::size_t j = 0; j < k; ++j) i += sch.step[j].fft ? 0 : 1;
    return i;
  }
};

}  // namespace nbfft::nd
