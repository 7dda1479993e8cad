// Transform<T>: the stages of the slab/pencil 3D FFT, each on a range of planes or rows.
//
//   forward   X stage (per z plane):  x FFT user plane -> P, scatter row segments into A
//             ROW exchange A -> B                                       (only if M1 > 1)
//             Y stage (per z plane):  gather P from B, y FFT in P, scatter rows into C
//             COL exchange C -> D                                       (only if M2 > 1)
//             Z stage (per y plane):  gather P from D, scale, z FFT in P, copy to the user
//   backward  Z stage: copy the user plane to P, z FFT, scale, scatter into D; COL D -> C;
//             Y stage: gather P from C, y FFT, scatter into B; ROW B -> A;
//             X stage: gather P from A, x FFT P -> user plane.
//
// Every FFT runs on one plane in cache, P, whose rows are padded so that columns do not
// collide in the cache (the user's rows of nx_i points are often a power of two long: an
// FFT striding through them directly ran 2x slower); every copy moves rows or whole blocks
// (transpose.hpp). With M1 = 1 (slabs) the X and Y stages fuse
// on each plane: x FFT, y FFT, scatter, with no copy between. Each stage reads all its
// input before the next writes, so in-place transforms need no special path.
//
// Plans (FFTW) live in Transform and never change; the buffers and the collectives bound to
// them live in a Workspace, so a pipeline can run several fields through one Transform with
// one Workspace each. The stage functions take unit ranges [begin, end) so a pipeline can
// chunk them and make progress calls between chunks.
//
// Overlap (docs/fft.md "Overlap"):
//   forward_many / backward_many  several fields through two Workspaces, pipelined as in
//       seed 000 Fig. 4: the x/y work of field j overlaps the COL exchange of field j-1,
//       the z work of field j-1 the exchange of field j.
//   plane pipeline (col_chunk_planes > 0)  the COL exchange is cut into chunks of planes
//       (ColChunks) and each chunk's exchange starts as soon as its planes are transformed
//       (seed 001 §5).
//   COL kernels (col_kernel)  the five redistribution kernels of seed 002 §3 in plain MPI
//       (col_kernels.hpp) in place of the coll transport.
// While an exchange is in flight, stage loops are cut into progress_chunks pieces with
// coll::progress_all() between them, so the caller engine moves data during the FFTs.
#pragma once

#include "nbfft/coll/comm.hpp"
#include "nbfft/coll/request.hpp"
#include "nbfft/coll/transport.hpp"
#include "fft/col_kernels.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "fft/local_fft.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/timings.hpp"
#include "fft/transpose.hpp"

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace nbfft::fft {

// Memory from fftw_malloc (SIMD-aligned), freed with fftw_free.
struct FftwBuffer {
  FftwBuffer() = default;
  explicit FftwBuffer(std::size_t bytes);
  void* get() const { return p_.get(); }
  std::size_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<void> p_;
  std::size_t bytes_ = 0;
};

template <typename T>
struct Workspace {
  using C = std::complex<T>;
  FftwBuffer plane, a, b, c, d;  // P (one plane) and the exchange buffers A..D (transpose.hpp)
  coll::Collective row_fwd, row_bwd, col_fwd, col_bwd;
  // Plane pipeline: one COL collective per chunk and direction; COL kernels: their state.
  std::vector<coll::Collective> col_fwd_chunks, col_bwd_chunks;
  std::unique_ptr<KernelExchange> kernel;
  C* P() const { return static_cast<C*>(plane.get()); }
  C* A() const { return static_cast<C*>(a.get()); }
  C* B() const { return static_cast<C*>(b.get()); }
  C* Cb() const { return static_cast<C*>(c.get()); }
  C* D() const { return static_cast<C*>(d.get()); }
  std::size_t bytes() const { return plane.bytes() + a.bytes() + b.bytes() + c.bytes() + d.bytes(); }
};

template <typename T>
class Transform {
 public:
  using C = std::complex<T>;

  // Plans every local FFT on a Workspace of its own, kept as the primary workspace(). Purely
  // local (it may throw on one rank only); call bind(workspace()) next, on every rank, to
  // build its collectives. row/col are the exchanges' communicators (unused when M1 / M2
  // is 1).
  // progress_chunks, col_chunk_planes and col_kernel are the Options fields of those names.
  Transform(const Decomposition& d, TransformKind kind, Norm norm, unsigned fftw_flags,
            coll::Comm row, coll::Comm col, coll::Transport row_t, coll::Transport col_t,
            int progress_chunks = 0, int col_chunk_planes = 0, ColKernel col_kernel = ColKernel::Transport);

  // Builds the workspace's collectives on its buffers: exchange 0 = ROW (collective over
  // row), 1 = COL (over col), -1 = both.
  void bind(Workspace<T>& w, int exchange = -1) const;
  // A fresh set of buffers with its collectives built (collective over row and col).
  std::unique_ptr<Workspace<T>> make_workspace() const;
  // Buffers only (purely local); bind() builds their collectives.
  std::unique_ptr<Workspace<T>> make_unbound_workspace() const { return allocate(); }
  Workspace<T>& workspace() const { return *ws_; }
  std::size_t workspace_bytes() const { return ws_->bytes(); }
  const Decomposition& decomposition() const { return d_; }

  // Whole transforms. in/out are the user's X- and Z-pencil arrays (the same pointer for
  // in-place); backward never modifies its input.
  void forward(const void* in, void* out, Workspace<T>& ws, Timings* t) const;
  void backward(const void* in, void* out, Workspace<T>& ws, Timings* t) const;
  // nv fields: in[k] -> out[k], pipelined through the two workspaces (seed 000 Fig. 4).
  // Without a COL exchange, or with the plane pipeline or a COL kernel, the fields run
  // one after the other through w0.
  void forward_many(int nv, const void* const* in, void* const* out, Workspace<T>& w0, Workspace<T>& w1,
                    Timings* t) const;
  void backward_many(int nv, const void* const* in, void* const* out, Workspace<T>& w0, Workspace<T>& w1,
                     Timings* t) const;
  // Only the exchanges of one direction (0 ROW, 1 COL), on the workspace's buffers, timed
  // into t->row / t->col: what an exchange costs with nothing else running.
  void exchange_only(Workspace<T>& ws, int exchange, bool forward, Timings* t) const;
  // Whether forward_many/backward_many use the second workspace.
  bool pipelines_fields() const { return has_col() && !chunked_ && kernel_ == ColKernel::Transport; }
  // The COL exchange runs in chunks of planes (plane pipeline or a per-plane kernel).
  bool chunked() const { return chunked_; }
  int progress_chunks() const { return progress_chunks_; }

  // Stages. Units: X and Y stages take local z planes [z0, z1) of the X/Y-pencil, Z stages
  // local y planes [y0, y1) of the Z-pencil. Between them, start() and wait() the
  // workspace's exchanges (row_fwd after forward_x, col_fwd after forward_y; col_bwd after
  // backward_z, row_bwd after backward_y) when has_row() / has_col().
  std::int64_t planes() const { return d_.x_pencil.n[2]; }
  std::int64_t rows() const { return d_.z_pencil.n[1]; }
  bool has_row() const { return d_.m1 > 1; }
  bool has_col() const { return d_.m2 > 1; }
  void forward_x(const void* in, Workspace<T>& ws, std::int64_t z0, std::int64_t z1, Timings* t) const;
  void forward_y(Workspace<T>& ws, std::int64_t z0, std::int64_t z1, Timings* t) const;
  void forward_z(Workspace<T>& ws, void* out, std::int64_t y0, std::int64_t y1, Timings* t) const;
  void backward_z(const void* in, Workspace<T>& ws, std::int64_t y0, std::int64_t y1, Timings* t) const;
  void backward_y(Workspace<T>& ws, void* out, std::int64_t z0, std::int64_t z1, Timings* t) const;
  void backward_x(Workspace<T>& ws, void* out, std::int64_t z0, std::int64_t z1, Timings* t) const;

 private:
  std::unique_ptr<Workspace<T>> allocate() const;
  void scale(C* plane, std::int64_t rows, T s) const;
  void exchange(const coll::Collective& c, double Timings::*phase, Timings* t) const;
  // The COL exchange of a plain (unchunked) transform: the transport or allplanes.
  void col_exchange(Workspace<T>& ws, bool fwd, Timings* t) const;
  // Runs fn(a, b) over [n0, n1) in progress_chunks pieces with coll::progress_all() between
  // them when `progress` (an exchange is in flight); in one piece otherwise.
  template <typename F>
  void stage(std::int64_t n0, std::int64_t n1, bool progress, F&& fn) const;
  void forward_chunked(const void* in, void* out, Workspace<T>& ws, Timings* t) const;
  void backward_chunked(const void* in, void* out, Workspace<T>& ws, Timings* t) const;

  Decomposition d_;
  TransformKind kind_;
  bool fused_xy_;  // M1 == 1: X and Y stages run together per plane
  T fwd_scale_ = 1, bwd_scale_ = 1;
  coll::Comm row_comm_, col_comm_;
  coll::Transport row_t_, col_t_;
  RowTranspose<T> row_;
  ColTranspose<T> col_;
  int progress_chunks_;
  ColKernel kernel_;
  bool chunked_;
  ColChunks<T> chunks_;
  LocalFft<T> fx_fwd_, fx_bwd_, fy_fwd_, fy_bwd_, fz_fwd_, fz_bwd_;
  std::unique_ptr<Workspace<T>> ws_;
  // Unit geometry (elements).
  std::int64_t nx_, xc_, nyi_, nzc_, ny_, nxi_, nyj_, nz_;
  std::int64_t ldx_, ldy_;  // padded row strides of P in the X stage and the Y/Z stages
};

extern template class Transform<double>;
extern template class Transform<float>;

}  // namespace nbfft::fft
