// The one reshape (geometry/reshape.hpp): every rank's block of one tiling to its block of
// another, by one alltoallv of the coll engine.
#include "geometry/reshape.hpp"

#include "nbfft/coll/alltoall.hpp"
#include "nbfft/error.hpp"

#include <algorithm>
#include <new>
#include <utility>

namespace nbfft::geometry {

Reshape::Reshape(std::vector<Box> from, std::vector<Box> to, int me, std::size_t elem)
    : from_(std::move(from)), to_(std::move(to)), me_(me), elem_(elem) {
  const int m = static_cast<int>(from_.size());
  bool same = true, all_points = true;
  for (int r = 0; r < m; ++r) {
    const Box &f = from_[static_cast<std::size_t>(r)], &t = to_[static_cast<std::size_t>(r)];
    const bool pts = same_points(f, t);
    all_points = all_points && pts;
    same = same && pts && (f.empty() || (f.natural() == t.natural() && (f.natural() || f.order == t.order)));
  }
  kind_ = same ? Identity : all_points ? Local : Exchange;
  if (kind_ != Exchange) return;
  send_blk_.resize(m);
  recv_blk_.resize(m);
  send_counts_.assign(m, 0);
  send_displs_.assign(m, 0);
  recv_counts_.assign(m, 0);
  recv_displs_.assign(m, 0);
  for (int p = 0; p < m; ++p) {
    // Blocks travel in the receiver's memory order.
    Box sb = intersect(from_[me_], to_[p]);
    Box rb = intersect(from_[p], to_[me_]);
    sb.order = to_[p].order;
    rb.order = to_[me_].order;
    send_blk_[p] = sb;
    recv_blk_[p] = rb;
    if (p == me_) continue;
    send_displs_[p] = sent_;
    send_counts_[p] = sb.count();
    sent_ += sb.count();
    recv_displs_[p] = received_;
    recv_counts_[p] = rb.count();
    received_ += rb.count();
  }
}

std::unique_ptr<Reshape::Staging> Reshape::staging(const coll::Comm& comm, const coll::Transport& t) const {
  auto s = buffers();
  bind(*s, comm, t);
  return s;
}

std::unique_ptr<Reshape::Staging> Reshape::buffers() const {
  auto s = std::make_unique<Staging>();
  if (kind_ != Exchange) return s;
  // One byte at least, so that every rank binds a real address.
  const std::size_t sb = std::max<std::size_t>(1, static_cast<std::size_t>(sent_) * elem_),
                    rb = std::max<std::size_t>(1, static_cast<std::size_t>(received_) * elem_);
  try {
    s->send.resize(sb);
    s->recv.resize(rb);
  } catch (const std::bad_alloc&) {
    throw Error("out of memory allocating " + std::to_string(sb + rb) + " bytes of a reshape's send and receive blocks",
                ErrorCode::OutOfMemory);
  }
  return s;
}

void Reshape::bind(Staging& s, const coll::Comm& comm, const coll::Transport& t) const {
  if (kind_ != Exchange) return;
  s.coll.clear();
  s.coll.push_back(coll::alltoallv_agreed_counts(comm, s.send.data(), send_counts_, send_displs_, s.recv.data(),
                                                 recv_counts_, recv_displs_, elem_, t.algorithm));
}

void Reshape::run(const void* src, void* dst, Staging& s) const {
  post(src, dst, s);
  finish(s);
}

void Reshape::post(const void* src, void* dst, Staging& s) const {
  const Box &f = from(), &t = to();
  if (kind_ != Exchange) {
    copy(src, f, dst, t, t);
    return;
  }
  const int m = static_cast<int>(from_.size());
  for (int p = 0; p < m; ++p)
    if (p != me_ && send_counts_[p] > 0)
      copy(src, f, s.send.data() + static_cast<std::size_t>(send_displs_[p]) * elem_, send_blk_[p], send_blk_[p]);
  s.req = s.coll.front().start();
  s.dst = dst;
  s.posted = true;
  copy(src, f, dst, t, send_blk_[me_]);  // the own block, while the rest travels
}

bool Reshape::arrived(Staging& s) const {
  if (!s.posted) return true;
  if (!s.req.test()) return false;
  unpack(s);
  return true;
}

void Reshape::finish(Staging& s) const {
  if (!s.posted) return;
  s.req.wait();
  unpack(s);
}

void Reshape::copy(const void* src, const Box& sb, void* dst, const Box& db, const Box& region) const {
  // Along db's slowest axis of more than one point; never its fastest (rows stay whole).
  const std::size_t d = region.n.size();
  std::size_t k = 0;
  while (k + 1 < d && region.n[static_cast<std::size_t>(db.axis_at(k))] <= 1) ++k;
  if (!share_ || region.empty() || k + 1 >= d) {
    copy_region(src, sb, dst, db, region, elem_);
    return;
  }
  const auto a = static_cast<std::size_t>(db.axis_at(k));
  const std::int64_t units = region.n[a];
  share_(units, static_cast<std::size_t>(region.count() / units) * elem_, [&](std::int64_t u0, std::int64_t u1) {
    Box part = region;
    part.lo[a] += u0;
    part.n[a] = u1 - u0;
    copy_region(src, sb, dst, db, part, elem_);
  });
}

void Reshape::unpack(Staging& s) const {
  const int m = static_cast<int>(from_.size());
  for (int p = 0; p < m; ++p)
    if (p != me_ && recv_counts_[p] > 0)
      copy(s.recv.data() + static_cast<std::size_t>(recv_displs_[p]) * elem_, recv_blk_[p], s.dst, to(), recv_blk_[p]);
  s.dst = nullptr;
  s.posted = false;
}

}  // namespace nbfft::geometry
