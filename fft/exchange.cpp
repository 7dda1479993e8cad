#include "fft/exchange.hpp"

#include "nbfft/coll/alltoall.hpp"

#include <utility>

namespace nbfft::fft {

namespace {

Box3 intersect(const Box3& a, const Box3& b) {
  Box3 r;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.n[d] = std::max<std::int64_t>(0, std::min(a.lo[d] + a.n[d], b.lo[d] + b.n[d]) - r.lo[d]);
  }
  return r;
}

// Local planes [k cp, (k+1) cp) of `box` along `axis` (the whole box when cp = 0).
Box3 chunk_of(Box3 box, int axis, std::int64_t cp, int k) {
  if (cp <= 0) return box;
  const std::int64_t lo = std::min(k * cp, box.n[axis]), hi = std::min((k + 1) * cp, box.n[axis]);
  box.lo[axis] += lo;
  box.n[axis] = hi - lo;
  return box;
}

}  // namespace

// Every count, offset and stride of both directions, from the boxes alone.
Exchange::Exchange(std::string name, int me, ExchangeSide side0, ExchangeSide side1, int slow, std::int64_t chunk_planes,
                   int depth, std::int64_t own_pitch, coll::Comm comm, coll::Transport transport,
                   ExchangeLayout layout)
    : name_(std::move(name)), me_(me), depth_(depth), cp_(std::max<std::int64_t>(0, chunk_planes)),
      own_pitch_(own_pitch), side_{std::move(side0), std::move(side1)}, comm_(std::move(comm)),
      transport_(std::move(transport)), layout_(layout) {
  const int m = ranks();
  for (Dir d : {kForward, kBackward}) {
    const ExchangeSide& S = side_[send_side(d)];
    const ExchangeSide& R = side_[1 - send_side(d)];
    // Chunks cut the sender's box, or with chunk_by_side0 on a backward exchange the receiver's.
    const bool by_sender = chunks_follow_sender(d);
    const ExchangeSide& Ck = by_sender ? S : R;
    int K = 1;
    if (cp_ > 0)
      for (const Box3& b : Ck.box) K = std::max<int>(K, static_cast<int>((b.n[Ck.plane_axis] + cp_ - 1) / cp_));
    send_[d].assign(K, std::vector<Block>(m));
    recv_[d].assign(K, std::vector<Block>(m));
    counts_[d].assign(K, {});
    std::int64_t off[2] = {0, 0};
    auto place = [&](const Box3& box, int side, bool own) {
      Block b{box, side, off[side], {1, 0, 0}};
      const int sl = own && layout_.own_first_z ? 2 : slow, other = 3 - sl;  // x (0) is always fastest
      const std::int64_t pitch = own && m == 1 && own_pitch_ > 0 ? own_pitch_ : box.n[0];
      b.stride[other] = pitch;
      b.stride[sl] = pitch * box.n[other];
      off[side] += pitch * box.n[other] * box.n[sl];
      return b;
    };
    for (int k = 0; k < K; ++k) {
      auto& c = counts_[d][static_cast<std::size_t>(k)];
      c.send_counts.assign(m, 0);
      c.send_displs.assign(m, 0);
      c.recv_counts.assign(m, 0);
      c.recv_displs.assign(m, 0);
      // With own_first_z the own block takes the front of side 1 (no chunking then).
      std::vector<int> order;
      if (layout_.own_first_z) order.push_back(me);
      for (int p = 0; p < m; ++p)
        if (!layout_.own_first_z || p != me) order.push_back(p);
      for (int p : order) {
        const Box3 sb = by_sender ? intersect(chunk_of(S.box[me], S.plane_axis, cp_, k), R.box[p])
                                  : intersect(S.box[me], chunk_of(R.box[p], R.plane_axis, cp_, k));
        const Box3 rb = by_sender ? intersect(chunk_of(S.box[p], S.plane_axis, cp_, k), R.box[me])
                                  : intersect(S.box[p], chunk_of(R.box[me], R.plane_axis, cp_, k));
        Block& s = send_[d][k][p];
        Block& r = recv_[d][k][p];
        // Side 1 holds every block (own included); side 0 only the peers'.
        if (d == kForward) {
          r = place(rb, 1, p == me);
          s = p == me ? r : place(sb, 0, false);
        } else {
          s = place(sb, 1, p == me);
          r = p == me ? s : place(rb, 0, false);
        }
        if (p == me) continue;
        c.send_counts[p] = sb.count();
        c.send_displs[p] = s.off;
        c.recv_counts[p] = rb.count();
        c.recv_displs[p] = r.off;
      }
    }
    for (int side = 0; side < 2; ++side) size_[side] = std::max(size_[side], off[side]);
    // Where each plane's parts end in side 0 (the lean workspace's in-place condition).
    const ExchangeSide& z = side_[0];
    const int a = z.plane_axis, r = z.row_axis;
    side0_plane_end_[d].assign(static_cast<std::size_t>(planes(0)), 0);
    for (const auto& chunk : d == kForward ? send_[d] : recv_[d])
      for (const Block& b : chunk) {
        if (b.side != 0 || b.box.empty()) continue;
        for (std::int64_t g = b.box.lo[a]; g < b.box.lo[a] + b.box.n[a]; ++g) {
          const std::int64_t end = b.off + (g - b.box.lo[a]) * b.stride[a] + (b.box.n[r] - 1) * b.stride[r] + b.box.n[0];
          auto& e = side0_plane_end_[d][static_cast<std::size_t>(g - mine(0).lo[a])];
          e = std::max(e, end);
        }
      }
  }
}

std::vector<coll::Collective> Exchange::bind(Dir d, void* side0, void* side1, std::size_t elem) const {
  std::vector<coll::Collective> out;
  if (!moves_data()) return out;
  void* buf[2] = {side0, side1};
  void* send = buf[send_side(d)];
  void* recv = buf[1 - send_side(d)];
  for (const auto& c : counts_[d])
    out.push_back(coll::alltoallv_agreed_counts(comm_, send, c.send_counts, c.send_displs, recv, c.recv_counts, c.recv_displs,
                                                elem, transport_.algorithm));
  return out;
}

void Exchange::describe(std::ostream& os) const {
  os << name_ << ": " << ranks() << (ranks() == 1 ? " rank (local copy)" : " ranks");
  if (!moves_data()) return;
  os << ", " << transport_.str();
  if (cp_ > 0)
    os << ", chunks of " << cp_ << " plane" << (cp_ == 1 ? "" : "s") << " (forward " << chunks(kForward)
       << ", backward " << chunks(kBackward) << "), depth " << (depth_ > 0 ? std::to_string(depth_) : "all");
  else
    os << ", bulk";
}

Exchange make_row_exchange(const Decomposition& d, coll::Comm comm, coll::Transport t, std::int64_t chunk_planes,
                           int depth, ExchangeLayout layout) {
  // X-pencil after the x FFT, Y-pencil before the y FFT (y physical: my): both walk z
  // planes, rows y.
  ExchangeSide x, y;
  for (int p = 0; p < d.m1; ++p) {
    x.box.push_back(Box3::from({0, d.xc}, d.row_y(p), d.col_z(d.j)));
    y.box.push_back(Box3::from(d.row_x(p), {0, d.m[1]}, d.col_z(d.j)));
  }
  return Exchange("ROW", d.i, std::move(x), std::move(y), /*slow=*/2, chunk_planes, depth, 0, std::move(comm),
                  std::move(t), layout);
}

Exchange make_col_exchange(const Decomposition& d, coll::Comm comm, coll::Transport t, std::int64_t chunk_planes,
                           int depth, std::int64_t own_pitch, ExchangeLayout layout) {
  // Y-pencil after the y FFT (y spectral: ny): z planes, rows y; Z-pencil before the z FFT
  // (z physical: mz): y planes, rows z.
  ExchangeSide y, z;
  z.plane_axis = 1;
  z.row_axis = 2;
  for (int q = 0; q < d.m2; ++q) {
    y.box.push_back(Box3::from(d.row_x(d.i), {0, d.n[1]}, d.col_z(q)));
    z.box.push_back(Box3::from(d.row_x(d.i), d.col_y(q), {0, d.m[2]}));
  }
  return Exchange("COL", d.j, std::move(y), std::move(z), /*slow=*/1, chunk_planes, depth, own_pitch, std::move(comm),
                  std::move(t), layout);
}

}  // namespace nbfft::fft
