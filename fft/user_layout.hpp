// UserLayout: a plan's boxes in and out when they are not its internal pencils (user boxes,
// Plan's box constructor; or the natural output order, Options::output_order).
//
// Four reshapes (geometry/reshape.hpp) wrap the internal transform:
//   forward   in_fwd: user input box -> X-pencil    out_fwd: Z-pencil -> user output box
//   backward  out_bwd: user output box -> Z-pencil  in_bwd: X-pencil -> user input box
// A side whose reshape is the identity on every rank passes the user's array straight to
// the transform (no copy, no exchange); otherwise the transform runs on a buffer B of the
// internal pencils (in place when both sides reshape) and the reshapes copy between B and
// the user's arrays. Each transform in flight needs its own B and staging (Buffers): the
// plan's own calls use the plan's, split-phase calls their workspace's, and a multi-field
// call one B per field (made on the first call with that many fields, then kept). With
// the lean workspace (transforms in place only) every side goes through B when any side
// reshapes: a passing side then costs one memcpy.
//
// The reshapes overlap other work (docs/fft.md "Your own layout"): each is posted and
// finished in two calls, so a multi-field call keeps field j+1's input reshape and field
// j-1's output reshape in flight while field j is transformed (fft/plan.cpp many_bytes,
// on Transform's FieldHooks; one in flight per staging: the next is posted only after the
// previous one finished), and a split-phase start leaves its input reshape in flight.
#pragma once

#include "nbfft/coll/comm.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/box.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/fft/timings.hpp"
#include "fft/exchange.hpp"
#include "fft/transform.hpp"
#include "geometry/reshape.hpp"

#include <array>
#include <cstddef>
#include <memory>
#include <ostream>
#include <vector>

namespace nbfft::fft {

class UserLayout {
 public:
  using Reshape = geometry::Reshape;
  // in_boxes / out_boxes: every rank's user box (already agreed); in_elem / out_elem: bytes
  // of a point of the input (real for r2c) and of the spectrum. comm: the plan's
  // communicator (duplicated by coll::Comm) on which reshapes that move data run.
  // z_order: the memory order of the transform's own Z-pencils (Decomposition's {0, 2, 1},
  // or {0, 1, 2} when its Z stage writes the natural order itself). lanes: the transform's
  // threads, which share the reshapes' copies (null: the calling thread).
  UserLayout(const Decomposition& d, std::vector<Box3> in_boxes, std::vector<Box3> out_boxes, std::size_t in_elem,
             std::size_t out_elem, MPI_Comm comm, const coll::Transport& t, bool lean, std::array<int, 3> z_order,
             LanePool* lanes = nullptr);

  const Box3& in_box() const { return in_boxes_[me_]; }
  const Box3& out_box() const { return out_boxes_[me_]; }
  const Box3& in_box(int rank) const { return in_boxes_.at(static_cast<std::size_t>(rank)); }
  const Box3& out_box(int rank) const { return out_boxes_.at(static_cast<std::size_t>(rank)); }
  bool in_passes() const { return in_fwd_.identity(); }
  bool out_passes() const { return out_fwd_.identity(); }
  bool passes() const { return in_passes() && out_passes(); }
  // Whether completing a transform of direction d runs a reshape that exchanges data (then
  // a split-phase wait of that direction is collective).
  bool finish_exchanges(Dir d) const {
    return (d == kForward ? out_fwd_ : in_bwd_).kind() == Reshape::Exchange;
  }

  // What one transform in flight writes besides the user's arrays: the staging of each
  // reshape and the internal buffers B (one per field).
  struct Buffers {
    std::unique_ptr<Reshape::Staging> staging[4];  // in_fwd, in_bwd, out_fwd, out_bwd
    std::vector<local::Buffer> b;
    std::size_t bytes() const;
  };
  // Collective over the plan's communicator (the staging binds collectives). fields: Bs.
  std::unique_ptr<Buffers> make_buffers(int fields) const;
  // Grows to `fields` Bs (local: every rank of a multi-field call has agreed on the count).
  void ensure_fields(Buffers& b, int fields) const;

  // The arrays the internal transform of field k reads and writes for the user's in / out
  // (no work: field k's B where a side reshapes).
  void arrays(Dir d, const void* in, void* out, Buffers& b, int k, const void** tin, void** tout) const;
  // The reshape of field k's input into what the transform reads (the user's `in` into its
  // B), in two halves (geometry/reshape.hpp: post reads `in` in full; finish completes it);
  // collective when it exchanges, nothing when that side passes. One in flight per Buffers
  // and direction. Timed into t->pack (and t->total unless `in_total`: a caller whose own
  // clock covers it).
  void post_in(Dir d, const void* in, Buffers& b, int k, Timings* t, bool in_total = true) const;
  void finish_in(Dir d, Buffers& b, Timings* t, bool in_total = true) const;
  // The reshape of field k's B into the user's `out`, the same way (t->unpack).
  void post_out(Dir d, void* out, Buffers& b, int k, Timings* t, bool in_total = true) const;
  void finish_out(Dir d, Buffers& b, Timings* t, bool in_total = true) const;
  // Local: unpacks those of direction d's reshapes in flight that have arrived; true when
  // none is left in flight.
  bool arrived(Dir d, Buffers& b) const;
  // Whether some reshape exchanges data (else each is a local copy or nothing).
  bool exchanges() const { return first_exchanges(kForward) || first_exchanges(kBackward) || finish_exchanges(kForward); }
  // Whether direction d's first (input) reshape exchanges data.
  bool first_exchanges(Dir d) const { return (d == kForward ? in_fwd_ : out_bwd_).kind() == Reshape::Exchange; }

  // arrays, then the input reshape done (post + finish); after: the output reshape done.
  void before(Dir d, const void* in, void* out, Buffers& b, int k, const void** tin, void** tout,
              Timings* t = nullptr) const;
  void after(Dir d, void* out, Buffers& b, int k, Timings* t = nullptr) const;
  // Field k's B (what a lean transform binds instead of the user's array).
  void* internal(Buffers& b, int k) const { return b.b[static_cast<std::size_t>(k)].get(); }

  // "in: exchange (sends 120 points) | out: local copy"
  void describe(std::ostream& os) const;

 private:
  // Direction d's input and output reshapes, and whether each runs (a side that passes
  // hands the user's array to the transform: nothing to do).
  const Reshape& first(Dir d) const { return d == kForward ? in_fwd_ : out_bwd_; }
  const Reshape& last(Dir d) const { return d == kForward ? out_fwd_ : in_bwd_; }
  bool first_runs(Dir d) const { return !passes() && (lean_ || !first(d).identity()); }
  bool last_runs(Dir d) const { return !passes() && (lean_ || !last(d).identity()); }
  static Reshape::Staging& first_staging(Dir d, Buffers& b) { return *b.staging[d == kForward ? 0 : 3]; }
  static Reshape::Staging& last_staging(Dir d, Buffers& b) { return *b.staging[d == kForward ? 2 : 1]; }

  std::vector<Box3> in_boxes_, out_boxes_;  // every rank's user boxes
  std::size_t me_ = 0;
  Reshape in_fwd_, in_bwd_, out_fwd_, out_bwd_;
  std::size_t b_bytes_ = 0;  // B: the larger internal pencil
  bool lean_ = false;        // every side through B (in place)
  coll::Comm comm_;          // only when some reshape exchanges
  coll::Transport transport_;
};

}  // namespace nbfft::fft
