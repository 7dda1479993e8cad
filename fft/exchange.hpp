// Exchange: one global transpose of the pencil FFT (ROW or COL), built once at plan time.
//
// An exchange moves every point between two pencils, side 0 (the one forward starts from)
// and side 1. Every rank of its communicator owns one box on each side; the block that
// rank s sends rank r is box_send(s) ∩ box_recv(r), the same Box3 arithmetic for both
// exchanges and both directions (the constructor, exchange.cpp, is the only place that
// computes counts and offsets). A stage walks its side's box plane by plane (planes along
// `plane_axis`, rows along `row_axis`, x contiguous in every pencil), scattering each
// plane into the send blocks or gathering it from the receive blocks:
//
//   ROW  side 0 = X-pencil (after the x FFT), side 1 = Y-pencil; both walk z planes, rows y
//   COL  side 0 = Y-pencil (z planes, rows y), side 1 = Z-pencil (y planes, rows z)
//
// Wire layout: a block keeps x fastest, then the other axis, then `slow` (z for ROW, y for
// COL): the receiving side of forward then gathers a plane as one memcpy per peer. The
// rank's own block never travels (count 0): both directions keep it in side 1's buffer,
// where the stage of side 0 writes or reads it directly. Side 0's buffer holds only the
// peers' blocks, side 1's all of them.
//
// Chunking: with chunk_planes = cp > 0 the exchange of one direction runs as K collectives,
// chunk k carrying local planes [k cp, (k+1) cp) of every sender (K from the sender with
// the most planes; late chunks may be empty on some ranks, every rank takes part in all).
// Blocks are chunk-major, so each chunk is one alltoallv. cp = 0 is one bulk chunk.
// `depth` is how many started chunks may be in flight while the next planes are
// transformed: 0 = all of them (the plane pipeline, seed 001 §5), 1 = seed 002's per-plane
// kernels (chunk k completes after chunk k+1 has been started).
//
// The lean workspace (Options::lean_workspace, docs/fft.md "Memory") asks two more things
// of a layout: chunks of both directions cut along side 0's planes (backward: the
// receiver's, so that every chunk's receive blocks are one z plane of the X- or
// Y-pencil, laid out plane after plane), and the own block of side 1 stored first with z
// slowest (the Y stage then writes it behind its own reads of the same buffer).
#pragma once

#include "local/move.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/coll/request.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/box.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/fft/direction.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

namespace nbfft::fft {

// The public Direction as an index of per-direction tables (send_[d], a transform's path_[d]).
enum Dir { kForward = 0, kBackward = 1 };
constexpr Dir dir_of(Direction d) { return d == Direction::Forward ? kForward : kBackward; }

// The exchanges' scatter and gather move rows through local/move.hpp.
using local::copy_rows;

// Row stride for a plane of rows of n elements held in cache: whole cache lines and an
// odd number of them, so that walking a column does not hit the same few cache sets (a
// power-of-two stride made the y and z FFTs 2x slower).
template <typename C>
inline std::int64_t padded_ld(std::int64_t n) {
  const std::int64_t per = std::max<std::int64_t>(1, 64 / static_cast<std::int64_t>(sizeof(C)));
  std::int64_t ld = (n + per - 1) / per * per;
  if ((ld / per) % 2 == 0) ld += per;
  return ld;
}

// One side of an exchange: the box of every rank of the communicator, and how a stage
// walks this rank's box.
struct ExchangeSide {
  std::vector<Box3> box;  // by rank in the exchange's communicator
  int plane_axis = 2, row_axis = 1;
};

// A block in a buffer: its points (global), the buffer (side) and the element offset and
// strides (x, y, z) of its storage.
struct Block {
  Box3 box;
  int side = 0;
  std::int64_t off = 0;
  std::array<std::int64_t, 3> stride{1, 0, 0};
};

// Layout choices beyond the defaults (all off: the fast layout of the default workspace).
struct ExchangeLayout {
  bool chunk_by_side0 = false;  // backward chunks follow side 0's (the receiver's) planes
  bool own_first_z = false;     // side 1's own block first, z slowest
};

class Exchange {
 public:
  Exchange() = default;
  // me: this rank in `comm`; slow: the axis stored slowest in a block; own_pitch: row
  // pitch of the own block when the exchange has one rank (then side 1's buffer is this
  // rank's padded pencil and a side-1 stage reads it in place; 0 = tight).
  Exchange(std::string name, int me, ExchangeSide side0, ExchangeSide side1, int slow, std::int64_t chunk_planes,
           int depth, std::int64_t own_pitch, coll::Comm comm, coll::Transport transport,
           ExchangeLayout layout = {});

  const std::string& name() const { return name_; }
  int ranks() const { return static_cast<int>(side_[0].box.size()); }
  bool moves_data() const { return ranks() > 1; }
  // Whether its transport can be in flight behind other work: `blocking` completes each
  // exchange where it starts, so nothing overlaps it.
  bool overlaps() const { return transport_.algorithm.name != "blocking"; }
  int chunks(Dir d) const { return static_cast<int>(send_[d].size()); }
  int depth() const { return depth_; }  // 0 = all chunks in flight
  bool chunked() const { return cp_ > 0; }
  // Local planes of this rank's send-side box in chunk k of direction d.
  std::int64_t chunk_begin(Dir d, int k) const { return std::min(k * step(d), planes(send_side(d))); }
  std::int64_t chunk_end(Dir d, int k) const { return std::min((k + 1) * step(d), planes(send_side(d))); }
  std::int64_t planes(int side) const { return mine(side).n[side_[side].plane_axis]; }
  // Planes of the stage that feeds direction d's exchange (its send side).
  std::int64_t send_planes(Dir d) const { return planes(send_side(d)); }
  // Whether chunk k of d holds the sender's planes [chunk_begin, chunk_end) (else each
  // chunk needs every plane of the sending stage: it starts after the whole stage).
  bool chunks_follow_sender(Dir d) const { return !layout_.chunk_by_side0 || d == kForward; }
  // Elements of side 0's buffer up to the end of the last block part of this rank's side-0
  // plane u in direction d (0 when no block holds part of it).
  std::int64_t side0_plane_end(Dir d, std::int64_t u) const { return side0_plane_end_[d][static_cast<std::size_t>(u)]; }
  std::int64_t buffer_elems(int side) const { return size_[side]; }
  const Box3& mine(int side) const { return side_[side].box[static_cast<std::size_t>(me_)]; }

  // The collectives of direction d, one per chunk, on the given buffers (side 0, side 1).
  std::vector<coll::Collective> bind(Dir d, void* side0, void* side1, std::size_t elem) const;

  // Plane u (local) of the send side of d, rows ld apart, into its chunk's send blocks.
  template <typename C>
  void scatter(Dir d, const C* plane, std::int64_t ld, std::int64_t u, C* const buf[2]) const {
    const int s = send_side(d);
    if (!chunks_follow_sender(d)) {  // plane u has a part in every chunk
      for (const auto& chunk : send_[d])
        for (const Block& b : chunk) copy(b, s, const_cast<C*>(plane), ld, u, buf, true);
      return;
    }
    const int k = static_cast<int>(cp_ > 0 ? u / cp_ : 0);
    for (const Block& b : send_[d][static_cast<std::size_t>(k)]) copy(b, s, const_cast<C*>(plane), ld, u, buf, true);
  }
  // Plane u (local) of the receive side of d from every block that holds part of it.
  template <typename C>
  void gather(Dir d, C* plane, std::int64_t ld, std::int64_t u, C* const buf[2]) const {
    const int s = 1 - send_side(d);
    for (const auto& chunk : recv_[d])
      for (const Block& b : chunk) copy(b, s, plane, ld, u, buf, false);
  }
  // Plane u of side 1 where it lies in side 1's buffer with rows ld apart (a one-rank
  // exchange with own_pitch = ld), or nullptr: then gather/scatter through a plane.
  template <typename C>
  C* view(std::int64_t u, std::int64_t ld, C* const buf[2]) const {
    if (ranks() != 1 || own_pitch_ != ld) return nullptr;
    const Block& b = recv_[kForward][0][0];
    return buf[1] + b.off + u * b.stride[side_[1].plane_axis];
  }

  // "COL: 4 ranks, pairwise:4@caller, 8 chunks of 2 planes, depth 1 (fwd 8, bwd 8 chunks)"
  void describe(std::ostream& os) const;

 private:
  static int send_side(Dir d) { return d == kForward ? 0 : 1; }
  std::int64_t step(Dir d) const { return cp_ > 0 ? cp_ : std::max<std::int64_t>(1, planes(send_side(d))); }
  // Copies the part of block b in plane u of side s (this rank's box) to or from `plane`.
  template <typename C>
  void copy(const Block& b, int s, C* plane, std::int64_t ld, std::int64_t u, C* const buf[2], bool to_block) const {
    const ExchangeSide& side = side_[s];
    const Box3& m = mine(s);
    const int a = side.plane_axis, r = side.row_axis;
    const std::int64_t g = m.lo[a] + u;
    if (b.box.empty() || g < b.box.lo[a] || g >= b.box.lo[a] + b.box.n[a]) return;
    C* blk = buf[b.side] + b.off + (g - b.box.lo[a]) * b.stride[a];
    C* pl = plane + (b.box.lo[r] - m.lo[r]) * ld + (b.box.lo[0] - m.lo[0]);
    if (to_block)
      copy_rows(blk, b.stride[r], pl, ld, b.box.n[r], b.box.n[0]);
    else
      copy_rows(pl, ld, blk, b.stride[r], b.box.n[r], b.box.n[0]);
  }

  std::string name_;
  int me_ = 0, depth_ = 0;
  std::int64_t cp_ = 0, own_pitch_ = 0;
  ExchangeSide side_[2];
  // [dir][chunk][peer]: the block this rank sends peer p / receives from peer q in chunk k
  // (the own block is the same storage in both).
  std::vector<std::vector<Block>> send_[2], recv_[2];
  struct Counts {  // one alltoallv, in elements
    std::vector<std::int64_t> send_counts, send_displs, recv_counts, recv_displs;
  };
  std::vector<Counts> counts_[2];               // [dir][chunk]
  std::int64_t size_[2] = {0, 0};               // elements of each side's buffer
  std::vector<std::int64_t> side0_plane_end_[2];  // [dir][side-0 plane]
  coll::Comm comm_;
  coll::Transport transport_;
  ExchangeLayout layout_;
};

// The ROW and COL exchanges of a decomposition (peer boxes from its split).
Exchange make_row_exchange(const Decomposition& d, coll::Comm comm, coll::Transport t, std::int64_t chunk_planes = 0,
                           int depth = 0, ExchangeLayout layout = {});
Exchange make_col_exchange(const Decomposition& d, coll::Comm comm, coll::Transport t, std::int64_t chunk_planes,
                           int depth, std::int64_t own_pitch, ExchangeLayout layout = {});

}  // namespace nbfft::fft
