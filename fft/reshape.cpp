#include "local/move.hpp"
#include "fft/reshape.hpp"

#include "nbfft/coll/alltoall.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace nbfft::fft {

Box3 intersect_boxes(const Box3& a, const Box3& b) {
  Box3 r;
  r.order = a.order;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.n[d] = std::max<std::int64_t>(0, std::min(a.lo[d] + a.n[d], b.lo[d] + b.n[d]) - r.lo[d]);
  }
  if (r.empty()) r.n = {0, 0, 0};
  return r;
}

namespace {

// Element strides (x, y, z) of a box's storage.
std::array<std::int64_t, 3> strides(const Box3& b) {
  std::array<std::int64_t, 3> s{};
  s[b.order[0]] = 1;
  s[b.order[1]] = b.n[b.order[0]];
  s[b.order[2]] = b.n[b.order[0]] * b.n[b.order[1]];
  return s;
}

}  // namespace

void copy_region(const void* src, const Box3& sb, void* dst, const Box3& db, const Box3& region, std::size_t elem) {
  if (region.empty()) return;
  const auto ss = strides(sb), ds = strides(db);
  const int a0 = db.order[0], a1 = db.order[1], a2 = db.order[2];
  const std::int64_t len = region.n[a0];
  const auto* s0 = static_cast<const unsigned char*>(src);
  auto* d0 = static_cast<unsigned char*>(dst);
  std::int64_t soff = 0, doff = 0;
  for (int d = 0; d < 3; ++d) {
    soff += (region.lo[d] - sb.lo[d]) * ss[d];
    doff += (region.lo[d] - db.lo[d]) * ds[d];
  }
  for (std::int64_t k = 0; k < region.n[a2]; ++k)
    for (std::int64_t j = 0; j < region.n[a1]; ++j) {
      const unsigned char* s = s0 + static_cast<std::size_t>(soff + k * ss[a2] + j * ss[a1]) * elem;
      unsigned char* d = d0 + static_cast<std::size_t>(doff + k * ds[a2] + j * ds[a1]) * elem;
      local::copy_strided(d, 1, s, ss[a0], len, elem);  // transposing when the source's row axis is not its fastest
    }
}

Reshape::Reshape(std::vector<Box3> from, std::vector<Box3> to, int me, std::size_t elem)
    : from_(std::move(from)), to_(std::move(to)), me_(me), elem_(elem) {
  const int m = static_cast<int>(from_.size());
  bool same = true, same_points = true;
  for (int r = 0; r < m; ++r) {
    const Box3 &f = from_[static_cast<std::size_t>(r)], &t = to_[static_cast<std::size_t>(r)];
    const bool pts = (f.lo == t.lo && f.n == t.n) || (f.empty() && t.empty());
    same_points = same_points && pts;
    same = same && pts && (f.order == t.order || f.empty());
  }
  kind_ = same ? Identity : same_points ? Local : Exchange;
  if (kind_ != Exchange) return;
  send_blk_.resize(m);
  recv_blk_.resize(m);
  send_counts_.assign(m, 0);
  send_displs_.assign(m, 0);
  recv_counts_.assign(m, 0);
  recv_displs_.assign(m, 0);
  for (int p = 0; p < m; ++p) {
    // Blocks travel in the receiver's memory order.
    Box3 sb = intersect_boxes(from_[me_], to_[p]);
    Box3 rb = intersect_boxes(from_[p], to_[me_]);
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
  auto s = std::make_unique<Staging>();
  if (kind_ != Exchange) return s;
  // One byte at least, so that every rank binds a real address.
  s->send.resize(std::max<std::size_t>(1, static_cast<std::size_t>(sent_) * elem_));
  s->recv.resize(std::max<std::size_t>(1, static_cast<std::size_t>(received_) * elem_));
  s->coll.push_back(coll::alltoallv_agreed_counts(comm, s->send.data(), send_counts_, send_displs_, s->recv.data(),
                                                  recv_counts_, recv_displs_, elem_, t.algorithm));
  return s;
}

void Reshape::run(const void* src, void* dst, Staging& s) const {
  post(src, dst, s);
  finish(s);
}

void Reshape::post(const void* src, void* dst, Staging& s) const {
  const Box3 &f = from(), &t = to();
  if (kind_ != Exchange) {
    copy_region(src, f, dst, t, t, elem_);
    return;
  }
  const int m = static_cast<int>(from_.size());
  for (int p = 0; p < m; ++p)
    if (p != me_ && send_counts_[p] > 0)
      copy_region(src, f, s.send.data() + static_cast<std::size_t>(send_displs_[p]) * elem_, send_blk_[p],
                  send_blk_[p], elem_);
  s.req = s.coll.front().start();
  s.dst = dst;
  s.posted = true;
  copy_region(src, f, dst, t, send_blk_[me_], elem_);  // the own block, while the rest travels
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

void Reshape::unpack(Staging& s) const {
  const int m = static_cast<int>(from_.size());
  for (int p = 0; p < m; ++p)
    if (p != me_ && recv_counts_[p] > 0)
      copy_region(s.recv.data() + static_cast<std::size_t>(recv_displs_[p]) * elem_, recv_blk_[p], s.dst, to(),
                  recv_blk_[p], elem_);
  s.dst = nullptr;
  s.posted = false;
}

}  // namespace nbfft::fft
