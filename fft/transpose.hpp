// The two global transposes of the pencil FFT: their wire layouts, alltoallv counts, and
// the copies between send/receive blocks and the plane a stage transforms.
//
// Every local FFT runs on one plane held in cache (a strided FFT over a whole pencil, with
// strides of hundreds of KiB, runs several times slower: TLB misses and cache-set
// conflicts). So each stage gathers a plane from the receive blocks, transforms it, and
// scatters it into the send blocks; the wire layouts make the gathers large memcpys.
//
//   ROW (M1 ranks of one column; X-pencil <-> Y-pencil; x is cut, y joined):
//     A  X side, block for peer p = [z_c][y_i][x_p]   X stage scatters row segments here
//     B  Y side, block from peer q = [z_c][y_q][x_i]  Y stage gathers plane z: M1 chunks
//   COL (M2 ranks of one row; Y-pencil <-> Z-pencil; y is cut, z joined):
//     C  Y side, block for peer p = [y_p][z_c][x_i]   Y stage scatters rows here
//     D  Z side, block from peer q = [y_j][z_q][x_i]  Z stage gathers plane y: M2 chunks
//
// Blocks are concatenated in rank order; A and C hold only the peers' blocks (the own block
// never travels: its alltoallv count is 0 and the stage writes it straight into B or D),
// B and D hold every block. Planes in cache have padded rows (padded_ld). Backward runs
// the same exchanges the other way (B -> A, D -> C) with the mirror copies.
#pragma once

#include "nbfft/fft/decomposition.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <vector>

namespace nbfft::fft {

// Element counts and displacements of one alltoallv direction ("from" side -> "to" side).
struct ExchangeCounts {
  std::vector<std::int64_t> send_counts, send_displs, recv_counts, recv_displs;
};

// Copies `rows` rows of `len` elements between strided places (one memcpy when both are
// contiguous).
template <typename C>
inline void copy_rows(C* dst, std::int64_t dst_ld, const C* src, std::int64_t src_ld,
                      std::int64_t rows, std::int64_t len) {
  if (rows <= 0 || len <= 0) return;
  if (dst_ld == len && src_ld == len) {
    std::memcpy(dst, src, sizeof(C) * rows * len);
    return;
  }
  for (std::int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * dst_ld, src + r * src_ld, sizeof(C) * len);
}

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

template <typename T>
class RowTranspose {
 public:
  using C = std::complex<T>;
  explicit RowTranspose(const Decomposition& d)
      : me_(d.i), nzc_(d.x_pencil.n[2]), nyi_(d.x_pencil.n[1]), xc_(d.xc) {
    const int m = d.m1;
    x_.resize(m);
    y_.resize(m);
    for (int p = 0; p < m; ++p) {
      x_[p] = d.row_x(p);
      y_[p] = d.row_y(p);
    }
    nxi_ = x_[me_].n;
    a_off_.assign(m, 0);
    b_off_.assign(m, 0);
    ExchangeCounts& f = fwd_;
    f.send_counts.assign(m, 0);
    f.recv_counts.assign(m, 0);
    std::int64_t a = 0;
    for (int p = 0; p < m; ++p) {
      b_off_[p] = nzc_ * y_[p].lo * nxi_;
      if (p == me_) continue;
      a_off_[p] = a;
      a += nzc_ * nyi_ * x_[p].n;
      f.send_counts[p] = nzc_ * nyi_ * x_[p].n;
      f.recv_counts[p] = nzc_ * y_[p].n * nxi_;
    }
    a_size_ = a;
    b_size_ = nzc_ * d.n[1] * nxi_;
    f.send_displs = a_off_;
    f.recv_displs = b_off_;
    bwd_ = {f.recv_counts, f.recv_displs, f.send_counts, f.send_displs};
  }

  std::int64_t a_size() const { return a_size_; }
  std::int64_t b_size() const { return b_size_; }
  const ExchangeCounts& forward_counts() const { return fwd_; }   // A -> B
  const ExchangeCounts& backward_counts() const { return bwd_; }  // B -> A

  // X side: plane = the ny_i x xc plane of local z index zl (x fastest, rows ld apart).
  void scatter_x(const C* plane, std::int64_t ld, std::int64_t zl, C* a, C* b) const {
    const int m = static_cast<int>(x_.size());
    for (std::int64_t y = 0; y < nyi_; ++y) {
      const C* row = plane + y * ld;
      for (int p = 0; p < m; ++p) {
        const std::int64_t at = (zl * nyi_ + y) * x_[p].n;
        C* dst = p == me_ ? b + b_off_[p] + (zl * nyi_ + y) * nxi_ : a + a_off_[p] + at;
        copy_rows(dst, x_[p].n, row + x_[p].lo, x_[p].n, 1, x_[p].n);
      }
    }
  }
  void gather_x(C* plane, std::int64_t ld, std::int64_t zl, const C* a, const C* b) const {
    const int m = static_cast<int>(x_.size());
    for (std::int64_t y = 0; y < nyi_; ++y) {
      C* row = plane + y * ld;
      for (int p = 0; p < m; ++p) {
        const std::int64_t at = (zl * nyi_ + y) * x_[p].n;
        const C* src = p == me_ ? b + b_off_[p] + (zl * nyi_ + y) * nxi_ : a + a_off_[p] + at;
        copy_rows(row + x_[p].lo, x_[p].n, src, x_[p].n, 1, x_[p].n);
      }
    }
  }
  // Y side: plane = the ny x nx_i plane of local z index zl (rows ld apart); the rows of
  // one peer are one contiguous chunk of its block.
  void gather_y(C* plane, std::int64_t ld, std::int64_t zl, const C* b) const {
    for (std::size_t q = 0; q < y_.size(); ++q)
      copy_rows(plane + y_[q].lo * ld, ld, b + b_off_[q] + zl * y_[q].n * nxi_, nxi_, y_[q].n, nxi_);
  }
  void scatter_y(const C* plane, std::int64_t ld, std::int64_t zl, C* b) const {
    for (std::size_t q = 0; q < y_.size(); ++q)
      copy_rows(b + b_off_[q] + zl * y_[q].n * nxi_, nxi_, plane + y_[q].lo * ld, ld, y_[q].n, nxi_);
  }

 private:
  int me_;
  std::int64_t nzc_, nyi_, xc_, nxi_ = 0;  // X-pencil z and y points, complex x points, own x part
  std::vector<Range> x_, y_;                // x part (Y side) and y part (X side) of each peer
  std::vector<std::int64_t> a_off_, b_off_;
  std::int64_t a_size_ = 0, b_size_ = 0;
  ExchangeCounts fwd_, bwd_;
};

template <typename T>
class ColTranspose {
 public:
  using C = std::complex<T>;
  // local_ld: row stride of D when M2 = 1. Then nothing is exchanged, D is just the
  // rank's Z-pencil, and padding its rows lets the z FFT read it in place of a gathered
  // plane (one copy less each way).
  ColTranspose(const Decomposition& d, std::int64_t local_ld)
      : me_(d.j), nxi_(d.y_pencil.n[0]), nzc_(d.y_pencil.n[2]), nz_(d.n[2]),
        nyj_(d.z_pencil.n[1]), dld_(d.m2 == 1 ? local_ld : d.y_pencil.n[0]) {
    const int m = d.m2;
    y_.resize(m);
    z_.resize(m);
    for (int p = 0; p < m; ++p) {
      y_[p] = d.col_y(p);
      z_[p] = d.col_z(p);
    }
    c_off_.assign(m, 0);
    d_off_.assign(m, 0);
    ExchangeCounts& f = fwd_;
    f.send_counts.assign(m, 0);
    f.recv_counts.assign(m, 0);
    std::int64_t c = 0;
    for (int p = 0; p < m; ++p) {
      d_off_[p] = nyj_ * z_[p].lo * dld_;
      if (p == me_) continue;
      c_off_[p] = c;
      c += y_[p].n * nzc_ * nxi_;
      f.send_counts[p] = y_[p].n * nzc_ * nxi_;
      f.recv_counts[p] = nyj_ * z_[p].n * nxi_;
    }
    c_size_ = c;
    d_size_ = nyj_ * nz_ * dld_;
    f.send_displs = c_off_;
    f.recv_displs = d_off_;
    bwd_ = {f.recv_counts, f.recv_displs, f.send_counts, f.send_displs};
  }

  std::int64_t c_size() const { return c_size_; }
  std::int64_t d_size() const { return d_size_; }
  const ExchangeCounts& forward_counts() const { return fwd_; }   // C -> D
  const ExchangeCounts& backward_counts() const { return bwd_; }  // D -> C

  // Y side: plane = the ny x nx_i plane of local z index zl (rows ld apart).
  void scatter_y(const C* plane, std::int64_t ld, std::int64_t zl, C* c, C* d) const {
    for (int p = 0; p < static_cast<int>(y_.size()); ++p) {
      const std::int64_t rl = p == me_ ? dld_ : nxi_;  // row stride inside the block
      C* base = p == me_ ? d + d_off_[p] : c + c_off_[p];
      copy_rows(base + zl * rl, nzc_ * rl, plane + y_[p].lo * ld, ld, y_[p].n, nxi_);
    }
  }
  void gather_y(C* plane, std::int64_t ld, std::int64_t zl, const C* c, const C* d) const {
    for (int p = 0; p < static_cast<int>(y_.size()); ++p) {
      const std::int64_t rl = p == me_ ? dld_ : nxi_;
      const C* base = p == me_ ? d + d_off_[p] : c + c_off_[p];
      copy_rows(plane + y_[p].lo * ld, ld, base + zl * rl, nzc_ * rl, y_[p].n, nxi_);
    }
  }
  // Z side: plane = the nz x nx_i plane of local y index yl (rows ld apart); the rows of
  // one peer are one contiguous chunk of its block.
  void gather_z(C* plane, std::int64_t ld, std::int64_t yl, const C* d) const {
    for (std::size_t q = 0; q < z_.size(); ++q)
      copy_rows(plane + z_[q].lo * ld, ld, d + d_off_[q] + yl * z_[q].n * nxi_, nxi_, z_[q].n, nxi_);
  }
  void scatter_z(const C* plane, std::int64_t ld, std::int64_t yl, C* d) const {
    for (std::size_t q = 0; q < z_.size(); ++q)
      copy_rows(d + d_off_[q] + yl * z_[q].n * nxi_, nxi_, plane + z_[q].lo * ld, ld, z_[q].n, nxi_);
  }

 private:
  int me_;
  std::int64_t nxi_, nzc_, nz_, nyj_;  // own x part, Y-pencil z points, nz, Z-pencil y points
  std::int64_t dld_;                    // row stride inside D
  std::vector<Range> y_, z_;            // y part (Z side) and z part (Y side) of each peer
  std::vector<std::int64_t> c_off_, d_off_;
  std::int64_t c_size_ = 0, d_size_ = 0;
  ExchangeCounts fwd_, bwd_;
};

// The COL exchange cut into chunks of planes (the plane pipeline of seed 001 §5, and the
// per-plane kernels of seed 002): chunk k of the forward exchange carries local z planes
// [k*cp, (k+1)*cp) of every rank's Y-pencil, chunk k of the backward one local y planes
// [k*cp, (k+1)*cp) of every rank's Z-pencil. Ranks own different numbers of planes on
// uneven grids, so the chunk count comes from the largest part (part 0) and a rank's late
// chunks may be empty; every rank takes part in every chunk's exchange.
//
//   forward  send (C): chunk-major, block for peer p = [y_p][z of chunk k][x_i]
//            recv (D): chunk-major, block from peer q = [y_j][z_q of chunk k][x_i]
//   backward send (D): chunk-major, block for peer q = [y of chunk k][z_q][x_i]
//            recv (C): chunk-major, block from peer p = [y_p of chunk k][z_c][x_i]
//
// The own block is written straight to the receive side, as in ColTranspose. Each chunk's
// blocks are contiguous, so a chunk is one alltoallv over absolute displacements.
template <typename T>
class ColChunks {
 public:
  using C = std::complex<T>;
  ColChunks() = default;
  ColChunks(const Decomposition& d, std::int64_t cp)
      : me_(d.j), m_(d.m2), cp_(std::max<std::int64_t>(cp, 1)), nxi_(d.y_pencil.n[0]),
        nzc_(d.y_pencil.n[2]), nyj_(d.z_pencil.n[1]) {
    y_.resize(m_);
    z_.resize(m_);
    for (int p = 0; p < m_; ++p) {
      y_[p] = d.col_y(p);
      z_[p] = d.col_z(p);
    }
    kf_ = std::max<std::int64_t>(1, (z_[0].n + cp_ - 1) / cp_);
    kb_ = std::max<std::int64_t>(1, (y_[0].n + cp_ - 1) / cp_);
    // Forward.
    fsend_off_.assign(kf_ * m_, 0);
    frecv_off_.assign(kf_ * m_, 0);
    fwd_.resize(kf_);
    std::int64_t s = 0, r = 0;
    for (std::int64_t k = 0; k < kf_; ++k) {
      ExchangeCounts& e = fwd_[k];
      e.send_counts.assign(m_, 0);
      e.recv_counts.assign(m_, 0);
      e.send_displs.assign(m_, 0);
      e.recv_displs.assign(m_, 0);
      for (int p = 0; p < m_; ++p) {
        const std::int64_t at = k * m_ + p;
        frecv_off_[at] = r;
        e.recv_displs[p] = r;
        r += nyj_ * in_chunk(z_[p].n, k) * nxi_;
        if (p != me_) e.recv_counts[p] = nyj_ * in_chunk(z_[p].n, k) * nxi_;
        if (p == me_) continue;
        fsend_off_[at] = s;
        e.send_displs[p] = s;
        e.send_counts[p] = y_[p].n * in_chunk(nzc_, k) * nxi_;
        s += e.send_counts[p];
      }
    }
    fsend_size_ = s;
    frecv_size_ = r;
    // Backward.
    bsend_off_.assign(kb_ * m_, 0);
    brecv_off_.assign(kb_ * m_, 0);
    bwd_.resize(kb_);
    s = r = 0;
    for (std::int64_t k = 0; k < kb_; ++k) {
      ExchangeCounts& e = bwd_[k];
      e.send_counts.assign(m_, 0);
      e.recv_counts.assign(m_, 0);
      e.send_displs.assign(m_, 0);
      e.recv_displs.assign(m_, 0);
      for (int p = 0; p < m_; ++p) {
        const std::int64_t at = k * m_ + p;
        brecv_off_[at] = r;
        e.recv_displs[p] = r;
        r += in_chunk(y_[p].n, k) * nzc_ * nxi_;
        if (p != me_) e.recv_counts[p] = in_chunk(y_[p].n, k) * nzc_ * nxi_;
        if (p == me_) continue;
        bsend_off_[at] = s;
        e.send_displs[p] = s;
        e.send_counts[p] = in_chunk(nyj_, k) * z_[p].n * nxi_;
        s += e.send_counts[p];
      }
    }
    bsend_size_ = s;
    brecv_size_ = r;
  }

  std::int64_t planes_per_chunk() const { return cp_; }
  std::int64_t forward_chunks() const { return kf_; }
  std::int64_t backward_chunks() const { return kb_; }
  // Local plane range of chunk k: forward over nzc (z planes of the Y-pencil), backward over
  // nyj (y planes of the Z-pencil).
  std::int64_t forward_begin(std::int64_t k) const { return std::min(k * cp_, nzc_); }
  std::int64_t forward_end(std::int64_t k) const { return std::min((k + 1) * cp_, nzc_); }
  std::int64_t backward_begin(std::int64_t k) const { return std::min(k * cp_, nyj_); }
  std::int64_t backward_end(std::int64_t k) const { return std::min((k + 1) * cp_, nyj_); }
  // Buffers: forward send / backward receive live in C, forward receive / backward send in D.
  std::int64_t c_size() const { return std::max(fsend_size_, brecv_size_); }
  std::int64_t d_size() const { return std::max(frecv_size_, bsend_size_); }
  const ExchangeCounts& forward_counts(std::int64_t k) const { return fwd_[k]; }   // C -> D
  const ExchangeCounts& backward_counts(std::int64_t k) const { return bwd_[k]; }  // D -> C

  // Forward Y side: plane zl (ny x nx_i, rows ld apart) into the send blocks of its chunk.
  void scatter_y(const C* plane, std::int64_t ld, std::int64_t zl, C* c, C* d) const {
    const std::int64_t k = zl / cp_, dz = zl - k * cp_, nzk = in_chunk(nzc_, k);
    for (int p = 0; p < m_; ++p) {
      C* base = p == me_ ? d + frecv_off_[k * m_ + p] : c + fsend_off_[k * m_ + p];
      copy_rows(base + dz * nxi_, nzk * nxi_, plane + y_[p].lo * ld, ld, y_[p].n, nxi_);
    }
  }
  // Forward Z side: plane yl (nz x nx_i) from every chunk's block of every peer.
  void gather_z(C* plane, std::int64_t ld, std::int64_t yl, const C* d) const {
    for (std::int64_t k = 0; k < kf_; ++k)
      for (int q = 0; q < m_; ++q) {
        const std::int64_t n = in_chunk(z_[q].n, k);
        if (n > 0) copy_rows(plane + (z_[q].lo + k * cp_) * ld, ld, d + frecv_off_[k * m_ + q] + yl * n * nxi_, nxi_, n, nxi_);
      }
  }
  // Backward Z side: plane yl (nz x nx_i) into the send blocks of its chunk.
  void scatter_z(const C* plane, std::int64_t ld, std::int64_t yl, C* d, C* c) const {
    const std::int64_t k = yl / cp_, dy = yl - k * cp_;
    for (int q = 0; q < m_; ++q) {
      const std::int64_t n = z_[q].n;
      C* dst = q == me_ ? c + brecv_off_[k * m_ + q] + dy * nzc_ * nxi_ : d + bsend_off_[k * m_ + q] + dy * n * nxi_;
      copy_rows(dst, nxi_, plane + z_[q].lo * ld, ld, n, nxi_);
    }
  }
  // Backward Y side: plane zl (ny x nx_i) from every chunk's block of every peer.
  void gather_y(C* plane, std::int64_t ld, std::int64_t zl, const C* c) const {
    for (std::int64_t k = 0; k < kb_; ++k)
      for (int p = 0; p < m_; ++p) {
        const std::int64_t n = in_chunk(y_[p].n, k);
        if (n > 0)
          copy_rows(plane + (y_[p].lo + k * cp_) * ld, ld, c + brecv_off_[k * m_ + p] + zl * nxi_, nzc_ * nxi_, n, nxi_);
      }
  }

 private:
  // Planes of a part of n planes that fall into chunk k.
  std::int64_t in_chunk(std::int64_t n, std::int64_t k) const {
    return std::max<std::int64_t>(0, std::min(n, (k + 1) * cp_) - k * cp_);
  }
  int me_ = 0, m_ = 1;
  std::int64_t cp_ = 1, nxi_ = 0, nzc_ = 0, nyj_ = 0, kf_ = 1, kb_ = 1;
  std::vector<Range> y_, z_;
  std::vector<std::int64_t> fsend_off_, frecv_off_, bsend_off_, brecv_off_;  // [k * m + p]
  std::int64_t fsend_size_ = 0, frecv_size_ = 0, bsend_size_ = 0, brecv_size_ = 0;
  std::vector<ExchangeCounts> fwd_, bwd_;
};

}  // namespace nbfft::fft
