#include "fft/transform.hpp"

#include "nbfft/coll/alltoall.hpp"
#include "nbfft/error.hpp"
#include "fft/fftw_api.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace nbfft::fft {

FftwBuffer::FftwBuffer(std::size_t bytes) : bytes_(bytes) {
  // fftw_malloc aligns for SIMD; every buffer gets at least one cache line so empty
  // ranks still have valid pointers to bind.
  void* p = fftw_malloc(std::max<std::size_t>(bytes, 64));
  if (!p) throw Error("out of memory allocating " + std::to_string(bytes) + " bytes of FFT workspace", ErrorCode::OutOfMemory);
  p_ = std::shared_ptr<void>(p, [](void* q) { fftw_free(q); });
}

template <typename T>
Transform<T>::Transform(const Decomposition& d, TransformKind kind, Norm norm, unsigned flags,
                        coll::Comm row, coll::Comm col, coll::Transport row_t, coll::Transport col_t,
                        int progress_chunks, int col_chunk_planes, ColKernel col_kernel)
    : d_(d),
      kind_(kind),
      fused_xy_(d.m1 == 1),
      row_comm_(std::move(row)),
      col_comm_(std::move(col)),
      row_t_(std::move(row_t)),
      col_t_(std::move(col_t)),
      row_(d),
      col_(d, padded_ld<C>(d.y_pencil.n[0])),
      progress_chunks_(progress_chunks > 0 ? progress_chunks : kDefaultProgressChunks),
      kernel_(col_kernel),
      chunked_(d.m2 > 1 && (col_kernel == ColKernel::Transport ? col_chunk_planes > 0
                                                                : col_kernel != ColKernel::Allplanes)),
      chunks_(d, col_chunk_planes > 0 ? col_chunk_planes : 1) {
  nx_ = d.n[0];
  xc_ = d.xc;
  nyi_ = d.x_pencil.n[1];
  nzc_ = d.x_pencil.n[2];
  ny_ = d.n[1];
  nxi_ = d.y_pencil.n[0];
  nyj_ = d.z_pencil.n[1];
  nz_ = d.n[2];
  ldx_ = padded_ld<C>(xc_);
  ldy_ = padded_ld<C>(nxi_);
  const double N = static_cast<double>(nx_) * ny_ * nz_;
  if (norm == Norm::Forward) fwd_scale_ = static_cast<T>(1.0 / N);
  if (norm == Norm::Backward) bwd_scale_ = static_cast<T>(1.0 / N);
  if (norm == Norm::Ortho) fwd_scale_ = bwd_scale_ = static_cast<T>(1.0 / std::sqrt(N));

  // Buffers first: the planner measures on them.
  ws_ = allocate();
  Workspace<T>& ws = *ws_;
  C* P = ws.P();
  // Stand-in for one plane of the user's X-pencil while planning (measuring overwrites it).
  const bool r2c = kind == TransformKind::R2C;
  FftwBuffer user(nyi_ * nx_ * (r2c ? sizeof(T) : sizeof(C)));
  void* U = user.get();

  // x: rows of the X-pencil plane; y, z: columns of a plane with x contiguous.
  fx_fwd_ = LocalFft<T>(r2c ? FftKind::R2C : FftKind::Forward, {nx_, 1, 1}, {{nyi_, nx_, ldx_}}, U, P,
                        flags | FFTW_PRESERVE_INPUT);  // input is the user's array
  fx_bwd_ = LocalFft<T>(r2c ? FftKind::C2R : FftKind::Backward, {nx_, 1, 1}, {{nyi_, ldx_, nx_}}, P, U,
                        flags | FFTW_DESTROY_INPUT);
  fy_fwd_ = LocalFft<T>(FftKind::Forward, {ny_, ldy_, ldy_}, {{nxi_, 1, 1}}, P, P, flags);
  fy_bwd_ = LocalFft<T>(FftKind::Backward, {ny_, ldy_, ldy_}, {{nxi_, 1, 1}}, P, P, flags);
  // z runs in place on a padded plane; the user's plane (rows of nx_i, a power of two in
  // common cases) is only copied to or from it row by row.
  fz_fwd_ = LocalFft<T>(FftKind::Forward, {nz_, ldy_, ldy_}, {{nxi_, 1, 1}}, P, P, flags);
  fz_bwd_ = LocalFft<T>(FftKind::Backward, {nz_, ldy_, ldy_}, {{nxi_, 1, 1}}, P, P, flags);
}

template <typename T>
std::unique_ptr<Workspace<T>> Transform<T>::allocate() const {
  auto w = std::make_unique<Workspace<T>>();
  const std::int64_t plane = std::max({nyi_ * ldx_, ny_ * ldy_, nz_ * ldy_});
  w->plane = FftwBuffer(sizeof(C) * plane);
  if (has_row()) {
    w->a = FftwBuffer(sizeof(C) * row_.a_size());
    w->b = FftwBuffer(sizeof(C) * row_.b_size());
  }
  const std::int64_t c = chunked_ ? std::max(col_.c_size(), chunks_.c_size()) : col_.c_size();
  const std::int64_t dd = chunked_ ? std::max(col_.d_size(), chunks_.d_size()) : col_.d_size();
  if (has_col()) w->c = FftwBuffer(sizeof(C) * c);
  w->d = FftwBuffer(sizeof(C) * dd);
  return w;
}

template <typename T>
void Transform<T>::bind(Workspace<T>& w, int exchange) const {
  if (has_row() && exchange != 1) {
    const auto& f = row_.forward_counts();
    const auto& b = row_.backward_counts();
    w.row_fwd = coll::alltoallv(row_comm_, w.A(), f.send_counts, f.send_displs, w.B(),
                                f.recv_counts, f.recv_displs, sizeof(C), row_t_.algorithm);
    w.row_bwd = coll::alltoallv(row_comm_, w.B(), b.send_counts, b.send_displs, w.A(),
                                b.recv_counts, b.recv_displs, sizeof(C), row_t_.algorithm);
  }
  if (has_col() && exchange != 0 && kernel_ != ColKernel::Transport) {
    std::vector<ExchangeCounts> f, b;
    if (chunked_) {
      for (std::int64_t k = 0; k < chunks_.forward_chunks(); ++k) f.push_back(chunks_.forward_counts(k));
      for (std::int64_t k = 0; k < chunks_.backward_chunks(); ++k) b.push_back(chunks_.backward_counts(k));
    }
    w.kernel = std::make_unique<KernelExchange>(kernel_, col_comm_.private_duplicate(), sizeof(C), std::move(f),
                                                std::move(b));
  } else if (has_col() && exchange != 0 && chunked_) {
    w.col_fwd_chunks.clear();
    w.col_bwd_chunks.clear();
    for (std::int64_t k = 0; k < chunks_.forward_chunks(); ++k) {
      const auto& f = chunks_.forward_counts(k);
      w.col_fwd_chunks.push_back(coll::alltoallv(col_comm_, w.Cb(), f.send_counts, f.send_displs, w.D(),
                                                 f.recv_counts, f.recv_displs, sizeof(C), col_t_.algorithm));
    }
    for (std::int64_t k = 0; k < chunks_.backward_chunks(); ++k) {
      const auto& b = chunks_.backward_counts(k);
      w.col_bwd_chunks.push_back(coll::alltoallv(col_comm_, w.D(), b.send_counts, b.send_displs, w.Cb(),
                                                 b.recv_counts, b.recv_displs, sizeof(C), col_t_.algorithm));
    }
  } else if (has_col() && exchange != 0) {
    const auto& f = col_.forward_counts();
    const auto& b = col_.backward_counts();
    w.col_fwd = coll::alltoallv(col_comm_, w.Cb(), f.send_counts, f.send_displs, w.D(),
                                f.recv_counts, f.recv_displs, sizeof(C), col_t_.algorithm);
    w.col_bwd = coll::alltoallv(col_comm_, w.D(), b.send_counts, b.send_displs, w.Cb(),
                                b.recv_counts, b.recv_displs, sizeof(C), col_t_.algorithm);
  }
}

template <typename T>
std::unique_ptr<Workspace<T>> Transform<T>::make_workspace() const {
  auto w = allocate();
  bind(*w);
  return w;
}

template <typename T>
void Transform<T>::scale(C* plane, std::int64_t rows, T s) const {
  for (std::int64_t r = 0; r < rows; ++r) {
    C* p = plane + r * ldy_;
    for (std::int64_t x = 0; x < nxi_; ++x) p[x] *= s;
  }
}

template <typename T>
void Transform<T>::exchange(const coll::Collective& c, double Timings::*phase, Timings* t) const {
  PhaseClock clk(t);
  coll::Request r = c.start();
  r.wait();
  clk.mark(phase);
}

template <typename T>
void Transform<T>::forward_x(const void* in, Workspace<T>& ws, std::int64_t z0, std::int64_t z1,
                             Timings* t) const {
  const std::size_t in_elem = kind_ == TransformKind::R2C ? sizeof(T) : sizeof(C);
  const char* src = static_cast<const char*>(in);
  C* P = ws.P();
  PhaseClock clk(t);
  for (std::int64_t z = z0; z < z1; ++z) {
    // PRESERVE_INPUT plans leave the input untouched, so dropping const is safe.
    fx_fwd_.execute(const_cast<char*>(src + z * nyi_ * nx_ * in_elem), P);
    clk.mark(&Timings::fft_x);
    if (fused_xy_) {
      fy_fwd_.execute(P, P);
      clk.mark(&Timings::fft_y);
      if (chunked_)
        chunks_.scatter_y(P, ldy_, z, ws.Cb(), ws.D());
      else
        col_.scatter_y(P, ldy_, z, ws.Cb(), ws.D());
    } else {
      row_.scatter_x(P, ldx_, z, ws.A(), ws.B());
    }
    clk.mark(&Timings::pack);
  }
}

template <typename T>
void Transform<T>::forward_y(Workspace<T>& ws, std::int64_t z0, std::int64_t z1, Timings* t) const {
  if (fused_xy_) return;  // done in forward_x
  C* P = ws.P();
  PhaseClock clk(t);
  for (std::int64_t z = z0; z < z1; ++z) {
    row_.gather_y(P, ldy_, z, ws.B());
    clk.mark(&Timings::unpack);
    fy_fwd_.execute(P, P);
    clk.mark(&Timings::fft_y);
    if (chunked_)
      chunks_.scatter_y(P, ldy_, z, ws.Cb(), ws.D());
    else
      col_.scatter_y(P, ldy_, z, ws.Cb(), ws.D());
    clk.mark(&Timings::pack);
  }
}

template <typename T>
void Transform<T>::forward_z(Workspace<T>& ws, void* out, std::int64_t y0, std::int64_t y1,
                             Timings* t) const {
  C* o = static_cast<C*>(out);
  PhaseClock clk(t);
  for (std::int64_t y = y0; y < y1; ++y) {
    C* plane = ws.P();
    if (chunked_)
      chunks_.gather_z(plane, ldy_, y, ws.D());
    else if (has_col())
      col_.gather_z(plane, ldy_, y, ws.D());
    else
      plane = ws.D() + y * nz_ * ldy_;  // D is the padded Z-pencil itself
    clk.mark(&Timings::unpack);
    if (fwd_scale_ != T(1)) scale(plane, nz_, fwd_scale_);
    fz_fwd_.execute(plane, plane);
    clk.mark(&Timings::fft_z);
    copy_rows(o + y * nz_ * nxi_, nxi_, plane, ldy_, nz_, nxi_);
    clk.mark(&Timings::unpack);
  }
}

template <typename T>
void Transform<T>::backward_z(const void* in, Workspace<T>& ws, std::int64_t y0, std::int64_t y1,
                              Timings* t) const {
  const C* i = static_cast<const C*>(in);
  PhaseClock clk(t);
  for (std::int64_t y = y0; y < y1; ++y) {
    C* plane = has_col() ? ws.P() : ws.D() + y * nz_ * ldy_;
    copy_rows(plane, ldy_, i + y * nz_ * nxi_, nxi_, nz_, nxi_);
    clk.mark(&Timings::pack);
    fz_bwd_.execute(plane, plane);
    if (bwd_scale_ != T(1)) scale(plane, nz_, bwd_scale_);
    clk.mark(&Timings::fft_z);
    if (chunked_) {
      chunks_.scatter_z(plane, ldy_, y, ws.D(), ws.Cb());
      clk.mark(&Timings::pack);
    } else if (has_col()) {
      col_.scatter_z(plane, ldy_, y, ws.D());
      clk.mark(&Timings::pack);
    }
  }
}

template <typename T>
void Transform<T>::backward_y(Workspace<T>& ws, void* out, std::int64_t z0, std::int64_t z1,
                              Timings* t) const {
  const std::size_t out_elem = kind_ == TransformKind::R2C ? sizeof(T) : sizeof(C);
  char* dst = static_cast<char*>(out);
  C* P = ws.P();
  PhaseClock clk(t);
  for (std::int64_t z = z0; z < z1; ++z) {
    if (chunked_)
      chunks_.gather_y(P, ldy_, z, ws.Cb());
    else
      col_.gather_y(P, ldy_, z, ws.Cb(), ws.D());
    clk.mark(&Timings::unpack);
    fy_bwd_.execute(P, P);
    clk.mark(&Timings::fft_y);
    if (fused_xy_) {
      fx_bwd_.execute(P, dst + z * nyi_ * nx_ * out_elem);
      clk.mark(&Timings::fft_x);
    } else {
      row_.scatter_y(P, ldy_, z, ws.B());
      clk.mark(&Timings::pack);
    }
  }
}

template <typename T>
void Transform<T>::backward_x(Workspace<T>& ws, void* out, std::int64_t z0, std::int64_t z1,
                              Timings* t) const {
  if (fused_xy_) return;  // done in backward_y
  const std::size_t out_elem = kind_ == TransformKind::R2C ? sizeof(T) : sizeof(C);
  char* dst = static_cast<char*>(out);
  C* P = ws.P();
  PhaseClock clk(t);
  for (std::int64_t z = z0; z < z1; ++z) {
    row_.gather_x(P, ldx_, z, ws.A(), ws.B());
    clk.mark(&Timings::unpack);
    fx_bwd_.execute(P, dst + z * nyi_ * nx_ * out_elem);
    clk.mark(&Timings::fft_x);
  }
}

template <typename T>
template <typename F>
void Transform<T>::stage(std::int64_t n0, std::int64_t n1, bool progress, F&& fn) const {
  if (!progress || n1 - n0 <= 1) {
    fn(n0, n1);
    return;
  }
  const std::int64_t step = std::max<std::int64_t>(1, (n1 - n0 + progress_chunks_ - 1) / progress_chunks_);
  for (std::int64_t a = n0; a < n1; a += step) {
    fn(a, std::min(a + step, n1));
    coll::progress_all();
  }
}

template <typename T>
void Transform<T>::col_exchange(Workspace<T>& ws, bool fwd, Timings* t) const {
  if (kernel_ == ColKernel::Allplanes) {
    if (fwd)
      ws.kernel->bulk(col_.forward_counts(), ws.Cb(), ws.D(), t);
    else
      ws.kernel->bulk(col_.backward_counts(), ws.D(), ws.Cb(), t);
  } else {
    exchange(fwd ? ws.col_fwd : ws.col_bwd, &Timings::col, t);
  }
}

template <typename T>
void Transform<T>::exchange_only(Workspace<T>& ws, int which, bool fwd, Timings* t) const {
  if (which == 0) {
    if (has_row()) exchange(fwd ? ws.row_fwd : ws.row_bwd, &Timings::row, t);
    return;
  }
  if (!has_col()) return;
  if (!chunked_) return col_exchange(ws, fwd, t);
  const std::int64_t K = fwd ? chunks_.forward_chunks() : chunks_.backward_chunks();
  std::vector<coll::Request> reqs;
  PhaseClock clk(t);
  for (std::int64_t k = 0; k < K; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    if (ws.kernel)
      ws.kernel->chunk(fwd ? 0 : 1, kk, fwd ? ws.Cb() : ws.D(), fwd ? ws.D() : ws.Cb(), nullptr);
    else
      reqs.push_back((fwd ? ws.col_fwd_chunks : ws.col_bwd_chunks)[kk].start());
  }
  for (auto& r : reqs) r.wait();
  if (ws.kernel) ws.kernel->finish(nullptr);
  clk.mark(&Timings::col);
}

template <typename T>
void Transform<T>::forward(const void* in, void* out, Workspace<T>& ws, Timings* t) const {
  if (chunked_) return forward_chunked(in, out, ws, t);
  PhaseClock total(t);
  forward_x(in, ws, 0, planes(), t);
  if (has_row()) exchange(ws.row_fwd, &Timings::row, t);
  forward_y(ws, 0, planes(), t);
  if (has_col()) col_exchange(ws, true, t);
  forward_z(ws, out, 0, rows(), t);
  total.mark(&Timings::total);
}

template <typename T>
void Transform<T>::backward(const void* in, void* out, Workspace<T>& ws, Timings* t) const {
  if (chunked_) return backward_chunked(in, out, ws, t);
  PhaseClock total(t);
  backward_z(in, ws, 0, rows(), t);
  if (has_col()) col_exchange(ws, false, t);
  backward_y(ws, out, 0, planes(), t);
  if (has_row()) exchange(ws.row_bwd, &Timings::row, t);
  backward_x(ws, out, 0, planes(), t);
  total.mark(&Timings::total);
}

// The plane pipeline (seed 001 §5) and the per-plane COL kernels (seed 002): the COL
// exchange of chunk k starts as soon as the planes of chunk k have been transformed.
// Every rank runs every chunk (late ones may be empty on ranks with fewer planes).
template <typename T>
void Transform<T>::forward_chunked(const void* in, void* out, Workspace<T>& ws, Timings* t) const {
  PhaseClock total(t);
  if (!fused_xy_) {
    forward_x(in, ws, 0, planes(), t);
    if (has_row()) exchange(ws.row_fwd, &Timings::row, t);
  }
  const std::int64_t K = chunks_.forward_chunks();
  std::vector<coll::Request> reqs;
  reqs.reserve(static_cast<std::size_t>(K));
  for (std::int64_t k = 0; k < K; ++k) {
    const std::int64_t z0 = chunks_.forward_begin(k), z1 = chunks_.forward_end(k);
    stage(z0, z1, !reqs.empty(), [&](std::int64_t a, std::int64_t b) {
      if (fused_xy_)
        forward_x(in, ws, a, b, t);
      else
        forward_y(ws, a, b, t);
    });
    if (ws.kernel) {
      ws.kernel->chunk(0, static_cast<std::size_t>(k), ws.Cb(), ws.D(), t);
    } else {
      PhaseClock clk(t);
      reqs.push_back(ws.col_fwd_chunks[static_cast<std::size_t>(k)].start());
      coll::progress_all();
      clk.mark(&Timings::col);
    }
  }
  {
    PhaseClock clk(t);
    for (auto& r : reqs) r.wait();
    clk.mark(&Timings::col);
  }
  if (ws.kernel) ws.kernel->finish(t);
  forward_z(ws, out, 0, rows(), t);
  total.mark(&Timings::total);
}

template <typename T>
void Transform<T>::backward_chunked(const void* in, void* out, Workspace<T>& ws, Timings* t) const {
  PhaseClock total(t);
  const std::int64_t K = chunks_.backward_chunks();
  std::vector<coll::Request> reqs;
  reqs.reserve(static_cast<std::size_t>(K));
  for (std::int64_t k = 0; k < K; ++k) {
    const std::int64_t y0 = chunks_.backward_begin(k), y1 = chunks_.backward_end(k);
    stage(y0, y1, !reqs.empty(), [&](std::int64_t a, std::int64_t b) { backward_z(in, ws, a, b, t); });
    if (ws.kernel) {
      ws.kernel->chunk(1, static_cast<std::size_t>(k), ws.D(), ws.Cb(), t);
    } else {
      PhaseClock clk(t);
      reqs.push_back(ws.col_bwd_chunks[static_cast<std::size_t>(k)].start());
      coll::progress_all();
      clk.mark(&Timings::col);
    }
  }
  {
    PhaseClock clk(t);
    for (auto& r : reqs) r.wait();
    clk.mark(&Timings::col);
  }
  if (ws.kernel) ws.kernel->finish(t);
  backward_y(ws, out, 0, planes(), t);
  if (has_row()) exchange(ws.row_bwd, &Timings::row, t);
  backward_x(ws, out, 0, planes(), t);
  total.mark(&Timings::total);
}

// Seed 000 Fig. 4: field j's x/y work (into workspace j % 2) overlaps the COL exchange of
// field j-1, and field j-1's z work the exchange of field j. The ROW exchange stays inside
// the x/y work, started and completed there (its wait also progresses host engines).
template <typename T>
void Transform<T>::forward_many(int nv, const void* const* in, void* const* out, Workspace<T>& w0,
                                Workspace<T>& w1, Timings* t) const {
  if (nv <= 0) return;
  if (!pipelines_fields() || nv == 1) {
    for (int j = 0; j < nv; ++j) forward(in[j], out[j], w0, t);
    return;
  }
  PhaseClock total(t);
  Workspace<T>* ws[2] = {&w0, &w1};
  coll::Request req[2];
  for (int j = 0; j < nv; ++j) {
    const int b = j & 1;
    Workspace<T>& w = *ws[b];
    const bool inflight = j > 0;
    stage(0, planes(), inflight, [&](std::int64_t a, std::int64_t e) { forward_x(in[j], w, a, e, t); });
    if (has_row()) exchange(w.row_fwd, &Timings::row, t);
    stage(0, planes(), inflight, [&](std::int64_t a, std::int64_t e) { forward_y(w, a, e, t); });
    {
      PhaseClock clk(t);
      req[b] = w.col_fwd.start();
      if (j > 0) req[1 - b].wait();
      clk.mark(&Timings::col);
    }
    if (j > 0)
      stage(0, rows(), true, [&](std::int64_t a, std::int64_t e) { forward_z(*ws[1 - b], out[j - 1], a, e, t); });
  }
  const int last = (nv - 1) & 1;
  {
    PhaseClock clk(t);
    req[last].wait();
    clk.mark(&Timings::col);
  }
  forward_z(*ws[last], out[nv - 1], 0, rows(), t);
  total.mark(&Timings::total);
}

// The mirror image: field j's z work overlaps the exchange of field j-1, field j-1's y/x
// work (with its ROW exchange) the exchange of field j.
template <typename T>
void Transform<T>::backward_many(int nv, const void* const* in, void* const* out, Workspace<T>& w0,
                                 Workspace<T>& w1, Timings* t) const {
  if (nv <= 0) return;
  if (!pipelines_fields() || nv == 1) {
    for (int j = 0; j < nv; ++j) backward(in[j], out[j], w0, t);
    return;
  }
  PhaseClock total(t);
  Workspace<T>* ws[2] = {&w0, &w1};
  coll::Request req[2];
  auto finish = [&](Workspace<T>& w, void* o, bool progress) {
    stage(0, planes(), progress, [&](std::int64_t a, std::int64_t e) { backward_y(w, o, a, e, t); });
    if (has_row()) exchange(w.row_bwd, &Timings::row, t);
    stage(0, planes(), progress, [&](std::int64_t a, std::int64_t e) { backward_x(w, o, a, e, t); });
  };
  for (int j = 0; j < nv; ++j) {
    const int b = j & 1;
    Workspace<T>& w = *ws[b];
    stage(0, rows(), j > 0, [&](std::int64_t a, std::int64_t e) { backward_z(in[j], w, a, e, t); });
    {
      PhaseClock clk(t);
      req[b] = w.col_bwd.start();
      if (j > 0) req[1 - b].wait();
      clk.mark(&Timings::col);
    }
    if (j > 0) finish(*ws[1 - b], out[j - 1], true);
  }
  const int last = (nv - 1) & 1;
  {
    PhaseClock clk(t);
    req[last].wait();
    clk.mark(&Timings::col);
  }
  finish(*ws[last], out[nv - 1], false);
  total.mark(&Timings::total);
}

template class Transform<double>;
template class Transform<float>;

}  // namespace nbfft::fft
