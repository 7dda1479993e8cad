// Transform<T>: the slab/pencil 3D FFT as a path of stages and exchanges, one per direction.
//
//   forward   X stage (per z plane): x FFT user plane -> P, scatter into ROW    (M1 > 1)
//             Y stage (per z plane): gather P from ROW, y FFT, scatter into COL
//             Z stage (per y plane): gather P from COL, scale, z FFT, copy to the user
//   backward  Z stage: user plane -> P, z FFT, scale, scatter into COL;  Y stage: gather
//             from COL, y FFT, scatter into ROW;  X stage: gather from ROW, x FFT -> user.
//   With M1 = 1 (slabs) the X and Y stages fuse on each plane (x FFT, y FFT, scatter) and
//   there is no ROW exchange; with M2 = 1 the COL "exchange" is the rank's own block, kept
//   in place so the z FFT reads it without a copy (Exchange::view).
//
// Each "FFT" is its axis's kind (Options::kinds: the DFT, or an r2r kind through
// fft/axis_fft.hpp); the path, exchanges and driver are the same for every kind.
//
// Every FFT runs on one plane in cache, P, whose rows are padded so that columns do not
// collide in the cache (the user's rows of nx_i points are often a power of two long: an
// FFT striding through them directly ran 2x slower); every copy moves rows or whole blocks.
// Each stage reads all its input before the next writes, so in-place transforms need no
// special path.
//
// One driver, run(), executes a path for any direction and any number of fields:
//   - each stage runs chunk by chunk of the exchange after it, starting that chunk's
//     collective as soon as its planes are done, with at most `depth` chunks in flight
//     (bulk: one chunk; plane pipeline, seed 001 §5: K chunks, all in flight; seed 002's
//     per-plane kernels: K chunks, depth 1);
//   - with two workspaces, several fields are pipelined over the COL exchange as in seed 000
//     Fig. 4: field j's work up to its COL exchange overlaps the exchange of field j-1, and
//     field j-1's work after it the exchange of field j; on pencils with pipeline_row over
//     both exchanges (run_pencils);
//   - while anything is in flight, stage loops are cut into progress_chunks pieces with
//     coll::progress_all() between them, so the caller engine moves data during the FFTs.
//
// A Transform is immutable after construction: local FFT plans and exchange geometry. The
// buffers and the collectives bound to them live in a Workspace (one per field in flight).
//
// Lean workspace (Options::lean_workspace): side 0 of every exchange is the caller's
// in-place array U and side 1 one buffer A of about the local data (the M1 > 1, M2 = 1 COL
// "exchange" keeps its own block in U too). Each stage then reads one of U, A and writes
// the other, except the first forward stage and the last backward one, which run on U
// in place: the first exchange is chunked and laid out chunk after chunk, so the blocks'
// parts of the user's plane u end below the end of that plane (forward writes them after
// reading it; backward reads them before writing it, planes last to first); the plan picks
// the largest chunk (about 1/8 of the planes, halved until it fits). The pencils' COL
// exchange is bulk, its own block first in A with z slowest, written behind the Y stage's
// reads of the ROW blocks in A. Checked at plan time; transforms must be in place.
//
// Padded plans (Options::padding, fft/padding.hpp): each stage pads its axis before its
// backward FFT and truncates it after its forward FFT, on the plane in cache (z: nz -> mz
// rows, y: ny -> my rows, x: each row's xc -> mx/2+1 or mx points), so each exchange
// carries the padded length of the axes not yet transformed and the spectral length of
// the others (Decomposition's header); none carries the padded spectrum.
#pragma once

#include "nbfft/coll/comm.hpp"
#include "nbfft/coll/request.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/timings.hpp"
#include "fft/exchange.hpp"
#include "fft/axis_fft.hpp"
#include "local/memory.hpp"
#include "fft/padding.hpp"
#include "fft/threads.hpp"

#include <array>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <vector>

namespace nbfft::fft {

enum ExchangeId { kRow = 0, kCol = 1 };

// The local FFT backend and effort of the x, y and z stages.
using StageChoices = std::array<LocalChoice, 3>;

// Buffers of one field in flight and the collectives bound to them; El: the element type of
// the planes and exchanges (complex, or T when every axis is r2r on real data).
template <typename T, typename El = std::complex<T>>
struct Workspace {
  using C = El;
  std::vector<local::Buffer> planes;              // P of each lane (Options::threads)
  local::Buffer buf[2][2];                        // [exchange][side]
  C* side[2][2] = {};                          // the same, typed (lean: U or A)
  std::vector<coll::Collective> coll[2][2];    // [exchange][direction], one per chunk
  local::Buffer shared;                           // lean: A, side 1 of the exchanges
  local::Buffer stand_in;                         // lean: U of ranks with empty boxes
  const void* user = nullptr;                  // lean: the U the collectives are bound to
  bool may_rebind = true;                      // lean: the call's agreement said some rank's U may move
  C* P(int lane = 0) const { return static_cast<C*>(planes[static_cast<std::size_t>(lane)].get()); }
  std::size_t bytes() const {
    std::size_t b = shared.bytes();
    for (const auto& p : planes) b += p.bytes();
    for (const auto& e : buf) b += e[0].bytes() + e[1].bytes();
    return b;
  }
};

// What a caller runs around each field of Transform::run (the plan's reshapes to and from
// the user's boxes, fft/user_layout.hpp): before(j) just before field j's first stage,
// after(j) right after its last, in field order. Whatever they leave in flight travels
// during the other fields' stages, which then make progress calls throughout.
struct FieldHooks {
  std::function<void(int)> before, after;
};

// El: the element type of the planes and exchanges: std::complex<T>, or T for real data
// whose every axis is an r2r kind (real all the way: half the memory and traffic).
template <typename T, typename El = std::complex<T>>
class Transform {
 public:
  using C = El;

  // Plans every local FFT (purely local: it may throw on one rank only). row / col are the
  // exchanges' communicators (unused when M1 / M2 is 1).
  // agree: the plan's communicator, for the lean workspace's per-call binding. lean_cp > 0:
  // the lean workspace, its first exchange in chunks of lean_cp planes (see lean_fit).
  Transform(const Decomposition& d, const Options& o, const StageChoices& local, coll::Comm row, coll::Comm col,
            MPI_Comm agree, std::int64_t lean_cp = 0);
  // Whether the lean layout with chunks of cp planes fits this rank's array ("" = it does;
  // else why not). Local and cheap: the plan agrees on a cp that fits every rank.
  static std::string lean_fit(const Decomposition& d, const Options& o, std::int64_t cp);

  // A workspace's buffers (local), then its collectives, one exchange at a time
  // (collective over that exchange's communicator).
  std::unique_ptr<Workspace<T, El>> allocate() const;
  void bind(Workspace<T, El>& w, ExchangeId e) const;
  // Whether fields can pipeline over the COL exchange (a bulk exchange that moves data on a
  // transport that can overlap): only then does a second workspace let forward_many overlap
  // one field's exchange with its neighbours' FFTs (with chunked exchanges, or blocking ones,
  // the fields run one after the other).
  bool fields_pipeline() const { return col_.moves_data() && !col_.chunked() && col_.overlaps(); }
  // Whether the workspace is lean (Options::lean_workspace and the plan found a layout).
  bool lean() const { return lean_; }
  // Whether the Z stage writes (and reads) the user's spectrum in the natural order
  // [kz][ky][kx] (Options::output_order): each z row of a y plane goes where numpy's order
  // puts it, so the natural order costs no pass of its own. Not with the lean workspace on
  // M1 > 1, M2 = 1, where the Z stage works in place on the user's array (the plan then
  // reorders with a local copy, fft/user_layout.hpp).
  bool natural_out() const { return natural_; }
  LanePool* lanes() const { return lanes_.get(); }  // the plan's threads (Options::threads)
  // Lean: binds the workspace's U sides to the caller's array. The collectives must be
  // rebuilt on every rank together when ANY rank's array moved, which no rank can see
  // alone; so each collective call of the plan first asks rebinds() (local: would this
  // call's attaches move a binding here?), folds the answer into the agreement the call
  // makes anyway (agree_call_any) and hands the result to agreed(). Then attach() costs no
  // collective when no rank moved (the steady state); when one did, each attach agrees
  // with an MPI_Allreduce over the plan's communicator, as the binding changes field by
  // field. A call that did not agree (exchange_only) sets may_rebind itself.
  void attach(Workspace<T, El>& w, const void* user) const;
  bool rebinds(Dir d, int nv, void* const* out, Workspace<T, El>* const* ws, int nws) const;
  static void agreed(Workspace<T, El>* const* ws, int nws, bool any_rank_rebinds) {
    for (int k = 0; k < nws; ++k) ws[k]->may_rebind = any_rank_rebinds;
  }

  // Requests of one field's exchanges in flight.
  using InFlight = std::vector<coll::Request>;

  // nv fields in[k] -> out[k] in direction d (nv = 1: one transform) through nws
  // workspaces, up to nws fields in flight (seed 000 Fig. 4 for nws = 2). Backward never
  // modifies its input. Built from start() and complete() below.
  void run(Dir d, int nv, const void* const* in, void* const* out, Workspace<T, El>* const* ws, int nws, Timings* t,
           const FieldHooks* hooks = nullptr) const;
  // Split phase: start() runs the stages up to the COL exchange and leaves that exchange in
  // flight in `col`; complete() waits for it and runs the stages after it. Between them the
  // workspace belongs to this field. `progress`: cut the stages into progress_chunks pieces
  // with coll::progress_all() between them (other exchanges are in flight).
  void start(Dir d, const void* in, void* out, Workspace<T, El>& ws, InFlight& col, bool progress, Timings* t) const;
  void complete(Dir d, const void* in, void* out, Workspace<T, El>& ws, InFlight& col, bool progress, Timings* t) const;
  // Only exchange e of direction d, on the workspace's buffers, timed into t->row / t->col.
  void exchange_only(Workspace<T, El>& ws, ExchangeId e, Dir d, Timings* t) const;

  const Exchange& exchange(ExchangeId e) const { return e == kRow ? row_ : col_; }
  const Decomposition& decomposition() const { return d_; }

 private:
  // Geometry and, for lean_cp > 0, the lean exchanges without communicators: a probe.
  Transform(const Decomposition& d, const Options& o, std::int64_t lean_cp);
  // A stage on units [u0, u1) with lane `lane`'s plane (fft/threads.hpp).
  using Stage = void (Transform::*)(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1,
                                    int lane, Timings* t) const;
  struct Step {
    Stage stage;
    ExchangeId ex;      // the exchange after the stage
    bool last;          // no exchange after it
    std::int64_t units; // planes of the last stage
    bool reverse;       // planes last to first (lean backward: in place behind its reads)
  };
  struct Field {
    const void* in;
    void* out;
    Workspace<T, El>* ws;
  };
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  // Steps [i0, i1) of one field; the exchange of step `keep` is left in flight in `mine`.
  void steps(Dir d, std::size_t i0, std::size_t i1, const Field& f, InFlight& mine, bool others, std::size_t keep,
             Timings* t) const;
  // How many of nws workspaces run() uses for nv fields (field j takes ws[j % K]).
  int workspaces_used(Dir d, int nv, int nws) const;
  // The array attach() binds for `user` (ranks with empty boxes pass null).
  static const void* bound_array(const Workspace<T, El>& w, const void* user) { return user ? user : w.stand_in.get(); }
  void run_pencils(Dir d, int nv, const void* const* in, void* const* out, Workspace<T, El>* const* ws, Timings* t,
                   const FieldHooks* hooks) const;
  void run_stage(Stage s, const Field& f, std::int64_t u0, std::int64_t u1, bool progress, bool reverse,
                 Timings* t) const;
  void make_exchanges(const Decomposition& d, const Options& o, const coll::Comm& row, const coll::Comm& col,
                      bool lean, std::int64_t first_cp);
  std::string lean_problem() const;  // "" when the lean layout fits the user's array
  bool in_user(ExchangeId e, int side) const {
    return lean_ && (side == 0 || (e == kCol && d_.m1 > 1 && d_.m2 == 1));
  }
  std::size_t inplace_bytes() const;
  static void finish(InFlight& q, double Timings::*phase, Timings* t);
  static double Timings::*phase(ExchangeId e) { return e == kRow ? &Timings::row : &Timings::col; }

  // Stages on local planes [u0, u1).
  template <ExchangeId E>
  void forward_x(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                 Timings* t) const;
  template <Dir d>
  void middle_y(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                 Timings* t) const;
  void forward_z(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                 Timings* t) const;
  void backward_z(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                 Timings* t) const;
  template <ExchangeId E>
  void backward_x(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                 Timings* t) const;
  // One rank (transform.cpp, "The one-rank path"): no exchange, so forward out of place
  // copies once into the spectrum's layout and runs the z FFT from there into P and back.
  void make_local_path(const Options& o, const LocalChoice& z, void* plane);
  // Backward out of place: the z FFT's result goes straight into the caller's real array,
  // plane z's rows where the x stage of plane z reads them back, so there is no pass
  // through the workspace's Z-pencil buffer.
  const std::vector<Step>& path(Dir d, const void* in, const void* out) const {
    return local_ && in != out ? local_path_[d] : path_[d];
  }
  void local_forward_xy(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                        Timings* t) const;
  void local_forward_z(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                       Timings* t) const;
  void local_backward_z(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                        Timings* t) const;
  void local_backward_xy(const void* in, void* out, Workspace<T, El>& ws, std::int64_t u0, std::int64_t u1, int lane,
                         Timings* t) const;

  Decomposition d_;
  std::size_t in_elem_;  // bytes of one element of the X-pencil (real for r2c)
  T fwd_scale_ = 1, bwd_scale_ = 1;
  int progress_chunks_;
  Exchange row_, col_;
  bool lean_ = false;
  bool pipeline_row_ = false;
  MPI_Comm agree_ = MPI_COMM_NULL;
  // Lanes sharing each stage's units (Options::threads; 1 with the lean workspace, whose
  // in-place layout depends on the planes' order). Shared so the const stages can use it.
  std::shared_ptr<LanePool> lanes_;
  std::vector<Step> path_[2];
  std::size_t split_[2] = {0, 0};  // the step whose exchange is COL
  local::Transform<T> fx_fwd_, fx_bwd_, fy_fwd_, fy_bwd_, fz_fwd_, fz_bwd_;
  // The one-rank path (forward): z FFTs on groups of columns of the spectrum layout (a y
  // slab when transposed; zcols_ columns of the flattened (y, x) rows when natural, the
  // last group zlast_ wide: [1] its plan) into P, whose rows are zld_p_ apart.
  bool local_ = false;
  std::vector<Step> local_path_[2];
  local::Transform<T> lz_fwd_[2];
  std::int64_t zgroups_ = 0, zstep_ = 0, zcols_ = 0, zlast_ = 0, zld_p_ = 0;
  // Backward: of each z row's nxi points, the first bw_main_ go into the caller's plane z
  // (row y at y bw_main_, as many as fit in the plane's bytes), the other bw_side_ (r2c's
  // last point) into the workspace's Z-pencil buffer, idle on this path.
  std::int64_t bw_main_ = 0, bw_side_ = 0, bw_group_ = 1;
  std::int64_t fw_group_ = 1;  // forward: z planes per unit of the slab stage
  // Unit geometry (elements): nx_, my_, nz_ physical lengths (the FFTs'), nzo_ the
  // spectrum's z (the user's output rows); the rest this rank's parts.
  std::int64_t nx_, nyi_, nzc_, nxi_, nyj_, my_, nz_, nzo_;
  AxisPad pad_[3];  // x, y, z: padded plans' zero padding and truncation (fft/padding.hpp)
  std::int64_t ldx_, ldy_;  // padded row strides of P in the X stage and the Y/Z stages
  std::int64_t plane_elems_ = 0;  // P's size, for every stage that uses it
  // The user's spectrum: offset of y plane y (y * zoff_) and stride of its z rows.
  // Transposed [ky][kz][kx]: nzo_ nxi_ and nxi_; natural [kz][ky][kx]: nxi_ and nyj_ nxi_.
  std::int64_t zoff_ = 0, zld_ = 0;
  bool natural_ = false;
};

extern template class Transform<double>;
extern template class Transform<float>;
extern template class Transform<double, double>;
extern template class Transform<float, float>;

}  // namespace nbfft::fft
