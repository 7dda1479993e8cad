// Reshape: moves one field between two tilings of the same array, any number of dimensions
// (a user's bricks and a plan's pencils, a caller's blocks and an N-D plan's), each rank's
// part in its own memory order (Box::order). The one reshape of every plan: the 3-D plan's
// user boxes and natural output order (fft/user_layout.hpp) and the N-D plan's user boxes
// (nd/calls.cpp) run on it.
//
// Built once at plan time from every rank's `from` and `to` box (allgathered and checked by
// the plan). The block rank s sends rank r is from[s] ∩ to[r], the same box
// arithmetic as the plans' exchanges; it travels packed in the receiver's memory order, so
// the receiver unpacks whole rows with memcpy and only the sender walks a transposing
// pattern (when the two orders differ). The rank's own block never travels: it is copied
// straight from the source array into the destination.
//
// Kinds of reshape, decided from the boxes of every rank (the same verdict everywhere):
//   identity  from[r] == to[r] on every rank, order included: nothing to do, the plan
//             hands the user's array to the FFT itself (the zero-cost path);
//   local     from[r] and to[r] cover the same points on every rank but some order
//             differs (the natural output order): one local permuting copy, no exchange;
//   exchange  anything else: one alltoallv on the plan's transport (the 3-D plan's COL one).
//
// Staging (the packed send and receive blocks and the collective bound to them) belongs to
// whoever runs the reshape: a workspace per transform in flight, as for the exchanges.
//
// Split phase (what lets the plan overlap a reshape with other work): post() packs, starts
// the alltoallv and copies the own block while the rest travels; arrived() (local) unpacks
// once the exchange has completed; finish() waits and unpacks. run() is post + finish. One
// reshape in flight per Staging.
#pragma once

#include "nbfft/coll/comm.hpp"
#include "nbfft/coll/request.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/geometry/box.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nbfft::geometry {

class Reshape {
 public:
  enum Kind { Identity, Local, Exchange };

  Reshape() = default;
  // from / to: every rank's box, by rank of the plan's communicator; elem: bytes per point.
  Reshape(std::vector<Box> from, std::vector<Box> to, int me, std::size_t elem);

  Kind kind() const { return kind_; }
  bool identity() const { return kind_ == Identity; }
  const Box& from() const { return from_[static_cast<std::size_t>(me_)]; }
  const Box& to() const { return to_[static_cast<std::size_t>(me_)]; }
  const Box& from(int rank) const { return from_.at(static_cast<std::size_t>(rank)); }
  const Box& to(int rank) const { return to_.at(static_cast<std::size_t>(rank)); }

  // The packed blocks and the collective of one reshape in flight.
  struct Staging {
    std::vector<unsigned char> send, recv;
    std::vector<coll::Collective> coll;  // empty unless kind() == Exchange
    coll::Request req;                   // the exchange in flight (between post and unpack)
    void* dst = nullptr;                 // where it unpacks (null for an empty box)
    bool posted = false;                 // from post to unpack
    std::size_t bytes() const { return send.size() + recv.size(); }
  };
  // Collective over comm when kind() == Exchange (every rank calls it), else local:
  // buffers() then bind().
  std::unique_ptr<Staging> staging(const coll::Comm& comm, const coll::Transport& t) const;
  // The two halves, for a caller that allocates before its ranks agree on a call and binds
  // after: buffers() is local (OutOfMemory naming the size); bind() builds the collective
  // (collective when kind() == Exchange, as a build of transport t may be).
  std::unique_ptr<Staging> buffers() const;
  void bind(Staging& s, const coll::Comm& comm, const coll::Transport& t) const;

  // src (this rank's `from` box) -> dst (its `to` box). Collective when kind() == Exchange.
  // src and dst must not overlap. Identity: a plain copy (callers skip it).
  void run(const void* src, void* dst, Staging& s) const;
  // The same in two halves. post: src is read in full before it returns (free to change
  // after it); dst receives the own block now and the rest at arrived() or finish(). Without
  // an exchange post does the whole copy. Collective when kind() == Exchange, like run.
  void post(const void* src, void* dst, Staging& s) const;
  // Local: whether the posted reshape is complete, unpacking it if it just arrived (true
  // when nothing is posted).
  bool arrived(Staging& s) const;
  // Waits for the posted reshape and unpacks it (nothing when nothing is posted).
  void finish(Staging& s) const;

  // Points this rank sends / receives (own block excluded): what the exchange moves.
  std::int64_t sent() const { return sent_; }
  std::int64_t received() const { return received_; }

  // The plan's threads for the copies (Options::threads; geometry/ sits below the plans'
  // thread pool, so the plan hands it in): share(units, unit_bytes, body) runs body(a, b) on
  // ranges that together cover [0, units) once. Each block's copy is split along its
  // destination's slowest axis, so threads write disjoint rows. Unset: the calling thread.
  using Body = std::function<void(std::int64_t, std::int64_t)>;
  using Share = std::function<void(std::int64_t units, std::size_t unit_bytes, const Body& body)>;
  void share_copies(Share share) { share_ = std::move(share); }

 private:
  void unpack(Staging& s) const;
  void copy(const void* src, const Box& sb, void* dst, const Box& db, const Box& region) const;

  std::vector<Box> from_, to_;
  int me_ = 0;
  std::size_t elem_ = 0;
  Kind kind_ = Identity;
  std::vector<Box> send_blk_, recv_blk_;  // by peer: from[me] ∩ to[p], from[p] ∩ to[me]
  std::vector<std::int64_t> send_counts_, send_displs_, recv_counts_, recv_displs_;  // elements
  std::int64_t sent_ = 0, received_ = 0;
  Share share_;
};

}  // namespace nbfft::geometry
