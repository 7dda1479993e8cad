#include "fft/transform.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"
#include "fft/axis_fft.hpp"
#include "fft/padding.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <utility>

namespace nbfft::fft {

template <typename T, typename El>
Transform<T, El>::Transform(const Decomposition& d, const Options& o, std::int64_t lean_cp)
    : d_(d),
      in_elem_(o.transform == TransformKind::R2C ? sizeof(T) : sizeof(C)),
      progress_chunks_(o.progress_chunks > 0 ? o.progress_chunks : kDefaultProgressChunks) {
  const bool r2c = halves_x(o);  // x halved: r2c on a periodic x (an r2r x keeps its n reals)
  nx_ = d.m[0];
  nyi_ = d.x_pencil.n[1];
  nzc_ = d.x_pencil.n[2];
  nxi_ = d.y_pencil.n[0];
  nyj_ = d.z_pencil.n[1];
  my_ = d.m[1];
  nz_ = d.m[2];
  nzo_ = d.n[2];
  pad_[0] = {d.n[0], d.m[0], r2c};
  pad_[1] = {d.n[1], d.m[1], false};
  pad_[2] = {d.n[2], d.m[2], false};
  // P holds the x FFT's whole output (mx/2+1 or mx points a row); slabs run the y FFT on
  // the same plane, so their rows keep that stride.
  ldx_ = padded_ld<C>(r2c ? nx_ / 2 + 1 : nx_);
  ldy_ = d.m1 == 1 ? ldx_ : padded_ld<C>(nxi_);
  lean_ = lean_cp > 0;
  if (lean_) make_exchanges(d, o, coll::Comm(), coll::Comm(), true, lean_cp);
}

template <typename T, typename El>
std::string Transform<T, El>::lean_fit(const Decomposition& d, const Options& o, std::int64_t cp) {
  if (d.m1 * d.m2 == 1) return "one rank: there is no exchange to save memory on";
  if (d.padded())
    return "padded transforms (the padding option) change a plane's size between the caller's array and the "
           "exchange blocks, which the in-place layout needs to match";
  return Transform(d, o, cp).lean_problem();
}

template <typename T, typename El>
Transform<T, El>::Transform(const Decomposition& d, const Options& o, const StageChoices& local, coll::Comm row, coll::Comm col,
                        MPI_Comm agree, std::int64_t lean_cp)
    : Transform(d, o, 0) {
  agree_ = agree;
  pipeline_row_ = o.pipeline_row;
  lanes_ = std::make_shared<LanePool>(lean_cp > 0 ? 1 : resolve_threads(o.threads));
  // N counts the spectrum's grid, M the physical one (M = N unless padded), each the product
  // of the axes' logical sizes (nbfft/fft/r2r_kinds.hpp: n periodic, 2n or 2(n -+ 1) for the
  // r2r kinds; padding applies to periodic axes only). The spectrum is the n grid's under the
  // norm; physical values are those of the same band-limited field on either grid, so
  // forward's sums over M points are scaled by N/M (docs/fft.md "Padding").
  double N = 1, M = 1;
  for (int a = 0; a < 3; ++a) {
    N *= logical_size(o.kinds[a], d.n[a]);
    M *= logical_size(o.kinds[a], d.m[a]);
  }
  if (o.norm == Norm::Forward) fwd_scale_ = static_cast<T>(1.0 / M);
  if (o.norm == Norm::Backward) {
    bwd_scale_ = static_cast<T>(1.0 / N);
    fwd_scale_ = static_cast<T>(N / M);
  }
  if (o.norm == Norm::Ortho) {
    bwd_scale_ = static_cast<T>(1.0 / std::sqrt(N));
    fwd_scale_ = static_cast<T>(std::sqrt(N) / M);
  }

  // Lean with the chunk the plan agreed on (lean_fit, the same layout, said it fits on every rank).
  lean_ = lean_cp > 0;
  make_exchanges(d, o, row, col, lean_, lean_cp);
  natural_ = o.output_order == OutputOrder::Natural && !(lean_ && d.m1 > 1 && d.m2 == 1);
  zoff_ = natural_ ? nxi_ : nzo_ * nxi_;
  zld_ = natural_ ? nyj_ * nxi_ : nxi_;

  // The path of each direction; slabs fuse the X and Y stages (M1 = 1: xc = nx_i, ldx = ldy).
  using T_ = Transform<T, El>;
  const bool lean_y = lean_ && d.m2 > 1;  // the pencils' backward Y stage writes A behind its reads
  if (d.m1 > 1) {
    path_[kForward] = {{&T_::template forward_x<kRow>, kRow, false, 0, false},
                       {&T_::template middle_y<kForward>, kCol, false, 0, false},
                       {&T_::forward_z, kCol, true, nyj_, false}};
    path_[kBackward] = {{&T_::backward_z, kCol, false, 0, false},
                        {&T_::template middle_y<kBackward>, kRow, false, 0, lean_y},
                        {&T_::template backward_x<kRow>, kRow, true, nzc_, lean_}};
    split_[kForward] = 1;
  } else {
    path_[kForward] = {{&T_::template forward_x<kCol>, kCol, false, 0, false},
                       {&T_::forward_z, kCol, true, nyj_, false}};
    path_[kBackward] = {{&T_::backward_z, kCol, false, 0, false},
                        {&T_::template backward_x<kCol>, kCol, true, nzc_, lean_}};
  }

  // Planned on buffers of the workspace's alignment (local/memory.hpp); a measuring planner
  // overwrites them. The user's plane is a stand-in of the X-pencil.
  // Real input: r2c on x when x is periodic; an r2r x (then every axis is r2r, E = T)
  // reads the reals as they are.
  const bool r2c = o.transform == TransformKind::R2C;
  plane_elems_ = std::max({nyi_ * ldx_, my_ * ldy_, nz_ * ldy_});
  local::Buffer plane(sizeof(C) * plane_elems_);
  local::Buffer user(nyi_ * nx_ * (r2c ? sizeof(T) : sizeof(C)));
  void* U = user.get();
  void* P = plane.get();
  // x: rows of the X-pencil plane; y, z: columns of a plane with x contiguous. Each axis's
  // FFT is its kind's (fft/axis_fft.hpp): the stages are the same for every kind.
  constexpr bool cplx = !std::is_same_v<El, T>;
  const AxisKind* k = o.kinds.data();
  using local::Kind;
  fx_fwd_ = axis_fft<T>(local[0], k[0], true, r2c ? Kind::R2C : Kind::Forward, cplx, {nx_, 1, 1}, {{nyi_, nx_, ldx_}},
                        U, P, local::Input::Preserve);  // input is the user's array
  fx_bwd_ = axis_fft<T>(local[0], k[0], false, r2c ? Kind::C2R : Kind::Backward, cplx, {nx_, 1, 1},
                        {{nyi_, ldx_, nx_}}, P, U, local::Input::Destroy);
  fy_fwd_ = axis_fft<T>(local[1], k[1], true, Kind::Forward, cplx, {my_, ldy_, ldy_}, {{nxi_, 1, 1}}, P, P);
  fy_bwd_ = axis_fft<T>(local[1], k[1], false, Kind::Backward, cplx, {my_, ldy_, ldy_}, {{nxi_, 1, 1}}, P, P);
  // z runs in place on a padded plane; the user's plane (rows of nx_i, a power of two in
  // common cases) is only copied to or from it row by row.
  fz_fwd_ = axis_fft<T>(local[2], k[2], true, Kind::Forward, cplx, {nz_, ldy_, ldy_}, {{nxi_, 1, 1}}, P, P);
  fz_bwd_ = axis_fft<T>(local[2], k[2], false, Kind::Backward, cplx, {nz_, ldy_, ldy_}, {{nxi_, 1, 1}}, P, P);
  // One rank, forward out of place: the path with one copy to memory (below), for every
  // kind of transform whose z axis is not padded.
  if (d.m1 * d.m2 == 1 && !d.padded())
    make_local_path(o, local[2], P);
}

// ---- The one-rank path ------------------------------------------------------------------
//
// With one rank the exchange moves nothing, yet the pencil path still copies every point
// twice forward (the slab stage packs each plane into the Z-pencil buffer, the z stage
// copies its result out). Here the slab stage copies its plane straight into the caller's
// spectrum, and the z stage runs each z group's FFT out of place from the spectrum into the
// lane's plane P (padded rows) and copies it back scaled, a copy that stays in cache. The z
// FFT in place on the spectrum (this path before) met rows a power of two apart (c2c), the
// cache-set conflicts padded_ld avoids, or rows that are not whole SIMD vectors (r2c's
// nx/2 + 1): on one thread, 128^3 c2c double forward, 14.6 ms in place, 13.3 out of place,
// 17.2 on the pencil path. Measured as a whole (docs/performance.md "Threads inside each
// rank"): 1 rank x 2 threads, c2c double 20.6-24.2 -> 18.1-18.6 ms. (Letting the y FFT
// write the spectrum's layout itself, its output strides doing the transpose, was 3.3x
// slower than FFT then copy.)
//
// Backward out of place copies each group of y slabs of the spectrum into P (padded rows,
// scaled on the way), runs the z FFT there and writes the result into the caller's output
// array itself, z plane by z plane where the x stage of that plane reads it back (local_
// backward_z): the pencil path wrote the whole Z-pencil into the workspace's buffer and
// read it back, one more spectrum-sized array through memory, which the caches could not
// hold beside the caller's arrays (128^3 r2c double, 1 rank x 2 threads: 9.05-9.68 ->
// 8.28-8.50 ms a round trip, the x stage's c2r writing planes already in cache). The z FFT
// reading the spectrum directly (no copy) was slower, as in place on it above.
//
// In place (in == out) keeps the pencil path both ways: forward, the y FFT's planes would
// overwrite input planes not yet read; backward, the z stage's planes would overwrite the
// spectrum. Each unit goes through the same local plan whatever the lane, so any thread
// count gives the one-thread result.
template <typename T, typename El>
void Transform<T, El>::make_local_path(const Options& o, const LocalChoice& z, void* plane) {
  using T_ = Transform<T, El>;
  // z groups: a transposed spectrum [ky][kz][kx] holds each y slab contiguous (rows nxi
  // apart); a natural one [kz][ky][kx] has z rows ny nxi apart, so groups of columns of
  // the flattened (y, x) rows, 512 bytes wide (whole cache lines, aligned like the first).
  if (natural_) {
    zcols_ = std::max<std::int64_t>(1, 512 / static_cast<std::int64_t>(sizeof(C)));
    const std::int64_t cols = nyj_ * nxi_;
    zgroups_ = (cols + zcols_ - 1) / zcols_;
    zstep_ = zcols_;
    zlast_ = cols - (zgroups_ - 1) * zcols_;
  } else {
    zcols_ = zlast_ = nxi_;
    zgroups_ = nyj_;
    zstep_ = zoff_;
  }
  zld_p_ = padded_ld<C>(zcols_);
  plane_elems_ = std::max(plane_elems_, nz_ * zld_p_);  // P holds a group's nz rows
  // The measuring planner writes all over its arrays: a scratch as long as a z group
  // reaches (a y slab, or the whole spectrum when natural), then P's. Estimating touches
  // no array and needs none: it sees only the pointers (their alignment, and that in and out
  // differ), so S stands 64 bytes past the plane buffer.
  const std::int64_t reach = (nz_ - 1) * zld_ + zcols_, lag = 64 / static_cast<std::int64_t>(sizeof(C));
  const std::int64_t at_p = (reach + lag - 1) / lag * lag;  // P in the scratch: whole cache lines in
  const bool estimate = z.effort == local::Effort::Estimate;
  local::Buffer scratch(estimate ? 0 : sizeof(C) * static_cast<std::size_t>(at_p + nz_ * zld_p_));
  C* S = estimate ? static_cast<C*>(plane) + lag : static_cast<C*>(scratch.get());
  C* Pz = estimate ? static_cast<C*>(plane) : S + at_p;
  constexpr bool cplx = !std::is_same_v<El, T>;
  const AxisKind* k = o.kinds.data();
  for (int g = 0; g < 2; ++g) {
    const std::int64_t w = g == 0 ? zcols_ : zlast_;
    if (g == 1 && zlast_ == zcols_) break;
    // PRESERVE_INPUT: the planner may not use the caller's spectrum as scratch (it would
    // be free to, as it is overwritten next; the plans it then picked were not faster).
    lz_fwd_[g] = axis_fft<T>(z, k[2], true, local::Kind::Forward, cplx, {nz_, zld_, zld_p_}, {{w, 1, 1}}, S, Pz,
                             local::Input::Preserve);
  }
  // z planes per unit: with the transposed order each y row of a plane goes to its own y
  // slab, so G planes write runs of G rows; as many as make about 4 KiB (the backward z
  // stage's groups below), no more than 1 MiB of planes in cache per lane.
  const std::int64_t xy_bytes = static_cast<std::int64_t>(sizeof(C)) * std::max<std::int64_t>(1, nyi_ * ldx_);
  const std::int64_t run_bytes = static_cast<std::int64_t>(sizeof(C)) * std::max<std::int64_t>(1, nxi_);
  fw_group_ = natural_ ? 1
                       : std::clamp<std::int64_t>(std::min((4096 + run_bytes - 1) / run_bytes, (std::int64_t{1} << 20) / xy_bytes),
                                                  1, std::max<std::int64_t>(1, nzc_));
  plane_elems_ = std::max(plane_elems_, fw_group_ * nyi_ * ldx_);
  local_ = true;
  local_path_[kForward] = {{&T_::local_forward_xy, kCol, true, (nzc_ + fw_group_ - 1) / fw_group_, false},
                           {&T_::local_forward_z, kCol, true, zgroups_, false}};
  // Backward: a plane of the caller's array holds nx reals, room for nx/2 of the nx/2 + 1
  // complex points of each r2c row (all of them for c2c and r2r).
  bw_main_ = std::min<std::int64_t>(nxi_, nx_ * static_cast<std::int64_t>(in_elem_) / static_cast<std::int64_t>(sizeof(C)));
  bw_side_ = nxi_ - bw_main_;
  // y slabs per unit: enough that each z plane receives about 4 KiB in one run, no more
  // than 1 MiB of planes in cache per lane. (128^3 r2c double, 1 rank x 2 threads, against
  // the pencil path in one A/B each: 1 slab a unit, rows of 1 KiB into planes 128 KiB
  // apart, 0.93x its time; 4 slabs 0.89x, 8 slabs 0.89x, 16 slabs 0.97x.)
  const std::int64_t row_bytes = static_cast<std::int64_t>(sizeof(C)) * std::max<std::int64_t>(1, bw_main_);
  const std::int64_t slab_bytes = static_cast<std::int64_t>(sizeof(C)) * nz_ * ldy_;
  bw_group_ = std::clamp<std::int64_t>(std::min((4096 + row_bytes - 1) / row_bytes, (std::int64_t{1} << 20) / slab_bytes),
                                       1, std::max<std::int64_t>(1, nyj_));
  plane_elems_ = std::max(plane_elems_, bw_group_ * nz_ * ldy_);
  local_path_[kBackward] = {{&T_::local_backward_z, kCol, true, (nyj_ + bw_group_ - 1) / bw_group_, false},
                            {&T_::local_backward_xy, kCol, true, nzc_, false}};
}

// x and y FFTs of groups of user planes in P, copied into their planes of the spectrum.
template <typename T, typename El>
void Transform<T, El>::local_forward_xy(const void* in, void* out, Workspace<T, El>& ws, std::int64_t g0,
                                        std::int64_t g1, int lane, Timings* t) const {
  const char* src = static_cast<const char*>(in);
  C* o = static_cast<C*>(out);
  C* P = ws.P(lane);
  const std::int64_t plane = nyi_ * ldx_;
  PhaseClock clk(t);
  for (std::int64_t g = g0; g < g1; ++g) {
    const std::int64_t za = g * fw_group_, zb = std::min(za + fw_group_, nzc_);
    for (std::int64_t z = za; z < zb; ++z) {
      C* Q = P + (z - za) * plane;
      fx_fwd_.execute(const_cast<char*>(src + z * nyi_ * nx_ * in_elem_), Q);  // PRESERVE_INPUT
      clk.mark(&Timings::fft_x);
      fy_fwd_.execute(Q, Q);
      clk.mark(&Timings::fft_y);
    }
    // Row y of the group's planes, one after the other (adjacent in the transposed order).
    for (std::int64_t y = 0; y < nyj_; ++y)
      for (std::int64_t z = za; z < zb; ++z) copy_rows(o + z * zld_ + y * zoff_, zld_, P + (z - za) * plane + y * ldy_, ldy_, 1, nxi_);
    clk.mark(&Timings::pack);
  }
}

// z FFT of each group of the spectrum into P, copied back scaled.
template <typename T, typename El>
void Transform<T, El>::local_forward_z(const void*, void* out, Workspace<T, El>& ws, std::int64_t g0, std::int64_t g1,
                                       int lane, Timings* t) const {
  C* o = static_cast<C*>(out);
  C* P = ws.P(lane);
  PhaseClock clk(t);
  for (std::int64_t g = g0; g < g1; ++g) {
    const bool last = g == zgroups_ - 1 && !lz_fwd_[1].empty();
    C* c = o + g * zstep_;
    (last ? lz_fwd_[1] : lz_fwd_[0]).execute(c, P);  // PRESERVE_INPUT
    clk.mark(&Timings::fft_z);
    local::copy_rows_scaled(c, zld_, P, zld_p_, nzo_, last ? zlast_ : zcols_, fwd_scale_);
    clk.mark(&Timings::unpack);
  }
}

// Backward, z stage: each y slab of the spectrum copied scaled into P, its z FFT there, and
// its row z written to row y of plane z of the caller's array (the part that does not fit,
// r2c's last point, to the side buffer). The pencil path instead wrote the whole Z-pencil
// into the workspace and read it back: one more array as large as the spectrum through
// memory on every backward transform, which at 128^3 no longer fits the caches beside the
// caller's arrays.
template <typename T, typename El>
void Transform<T, El>::local_backward_z(const void* in, void* out, Workspace<T, El>& ws, std::int64_t g0,
                                        std::int64_t g1, int lane, Timings* t) const {
  const C* i = static_cast<const C*>(in);
  char* o = static_cast<char*>(out);
  C* P = ws.P(lane);
  C* side = ws.side[kCol][1];
  const std::int64_t plane_bytes = nyi_ * nx_ * static_cast<std::int64_t>(in_elem_);
  const std::size_t row_bytes = sizeof(C) * static_cast<std::size_t>(bw_main_);
  PhaseClock clk(t);
  const std::int64_t slab = nz_ * ldy_;
  for (std::int64_t g = g0; g < g1; ++g) {
    const std::int64_t ya = g * bw_group_, yb = std::min(ya + bw_group_, nyj_);
    for (std::int64_t y = ya; y < yb; ++y) {
      C* Q = P + (y - ya) * slab;
      local::copy_rows_scaled(Q, ldy_, i + y * zoff_, zld_, nzo_, nxi_, bwd_scale_);
      clk.mark(&Timings::pack);
      fz_bwd_.execute(Q, Q);
      clk.mark(&Timings::fft_z);
    }
    // memcpy: the caller's real array need not be aligned for C.
    for (std::int64_t z = 0; z < nz_; ++z) {
      char* dst = o + z * plane_bytes + ya * static_cast<std::int64_t>(row_bytes);
      for (std::int64_t y = ya; y < yb; ++y) {
        const C* q = P + (y - ya) * slab + z * ldy_;
        local::copy_bytes(dst + (y - ya) * static_cast<std::int64_t>(row_bytes), q, row_bytes);
        for (std::int64_t k = 0; k < bw_side_; ++k) side[(z * nyj_ + y) * bw_side_ + k] = q[bw_main_ + k];
      }
    }
    clk.mark(&Timings::pack);
  }
}

// Backward, x stage: plane z's rows gathered from the caller's plane z (and the side
// buffer) into P, y FFT, x FFT into that same plane of the caller's array.
template <typename T, typename El>
void Transform<T, El>::local_backward_xy(const void*, void* out, Workspace<T, El>& ws, std::int64_t z0,
                                         std::int64_t z1, int lane, Timings* t) const {
  char* o = static_cast<char*>(out);
  C* P = ws.P(lane);
  const C* side = ws.side[kCol][1];
  const std::int64_t plane_bytes = nyi_ * nx_ * static_cast<std::int64_t>(in_elem_);
  const std::size_t row_bytes = sizeof(C) * static_cast<std::size_t>(bw_main_);
  PhaseClock clk(t);
  for (std::int64_t z = z0; z < z1; ++z) {
    char* plane = o + z * plane_bytes;
    for (std::int64_t y = 0; y < nyj_; ++y) {
      local::copy_bytes(P + y * ldx_, plane + y * static_cast<std::int64_t>(row_bytes), row_bytes);
      for (std::int64_t k = 0; k < bw_side_; ++k) P[y * ldx_ + bw_main_ + k] = side[(z * nyj_ + y) * bw_side_ + k];
    }
    clk.mark(&Timings::unpack);
    fy_bwd_.execute(P, P);
    clk.mark(&Timings::fft_y);
    fx_bwd_.execute(P, plane);
    clk.mark(&Timings::fft_x);
  }
}

// Lean: the first exchange in chunks of first_cp of side 0's planes, both ways; on pencils
// the COL exchange bulk with its own block first, z slowest, and on M2 = 1 the COL own
// block tight (it is the output's layout, in U).
template <typename T, typename El>
void Transform<T, El>::make_exchanges(const Decomposition& d, const Options& o, const coll::Comm& row,
                                  const coll::Comm& col, bool lean, std::int64_t first_cp) {
  const bool slabs = d.m1 == 1;
  row_ = d.m1 > 1 ? make_row_exchange(d, row, o.row_transport, lean ? first_cp : 0, 0, {lean, false}) : Exchange();
  std::int64_t cp = d.m2 > 1 ? o.col_chunk_planes : 0;
  if (lean) cp = slabs ? first_cp : 0;
  col_ = make_col_exchange(d, col, o.col_transport, cp, o.col_depth, lean ? 0 : ldy_,
                           {lean && slabs, lean && !slabs && d.m2 > 1});
}

template <typename T, typename El>
std::size_t Transform<T, El>::inplace_bytes() const {
  return std::max<std::size_t>(static_cast<std::size_t>(nx_ * nyi_ * nzc_) * in_elem_,
                               sizeof(C) * static_cast<std::size_t>(nxi_ * nyj_ * nzo_));
}

// Whether the lean layout fits this rank's in-place array: the first exchange's blocks'
// parts of side-0 plane u must end below the end of the user's plane u (a complex plane
// after the x FFT is about twice a real one: with M ranks the peers' part is (M-1)/M of
// it), and all that lives in U must fit in it.
template <typename T, typename El>
std::string Transform<T, El>::lean_problem() const {
  const Exchange& first = d_.m1 > 1 ? row_ : col_;
  const std::size_t plane = static_cast<std::size_t>(nx_ * nyi_) * in_elem_;
  for (Dir dir : {kForward, kBackward})
    for (std::int64_t u = 0; u < first.planes(0); ++u)
      if (sizeof(C) * static_cast<std::size_t>(first.side0_plane_end(dir, u)) > plane * static_cast<std::size_t>(u + 1))
        return "x is too short for the lean layout on this many ranks (a plane's blocks for the other ranks "
               "outgrow the plane they replace)";
  for (ExchangeId e : {kRow, kCol})
    for (int s = 0; s < 2; ++s)
      if (in_user(e, s) && sizeof(C) * static_cast<std::size_t>(exchange(e).buffer_elems(s)) > inplace_bytes())
        return "an exchange buffer outgrows the in-place array on this uneven grid";
  return "";
}

template <typename T, typename El>
std::unique_ptr<Workspace<T, El>> Transform<T, El>::allocate() const {
  auto w = std::make_unique<Workspace<T, El>>();
  for (int k = 0; k < lanes_->lanes(); ++k)
    w->planes.emplace_back(sizeof(C) * plane_elems_);
  if (lean_) {
    std::int64_t a = 0;
    for (ExchangeId e : {kRow, kCol})
      for (int s = 0; s < 2; ++s)
        if (!in_user(e, s)) a = std::max(a, exchange(e).buffer_elems(s));
    w->shared = local::Buffer(sizeof(C) * a);
    w->stand_in = local::Buffer(64);
    for (ExchangeId e : {kRow, kCol})
      for (int s = 0; s < 2; ++s) w->side[e][s] = static_cast<C*>(in_user(e, s) ? w->stand_in.get() : w->shared.get());
    w->user = nullptr;  // bound at the first transform, on the caller's array (attach)
    return w;
  }
  for (ExchangeId e : {kRow, kCol})
    for (int s = 0; s < 2; ++s) {
      w->buf[e][s] = local::Buffer(sizeof(C) * exchange(e).buffer_elems(s));
      w->side[e][s] = static_cast<C*>(w->buf[e][s].get());
    }
  return w;
}

template <typename T, typename El>
bool Transform<T, El>::rebinds(Dir d, int nv, void* const* out, Workspace<T, El>* const* ws, int nws) const {
  if (!lean_ || nv <= 0) return false;
  const int K = workspaces_used(d, nv, nws);
  // Without a rebinding no binding changes, so each field meets its workspace's current one.
  for (int j = 0; j < nv; ++j)
    if (bound_array(*ws[j % K], out[j]) != ws[j % K]->user) return true;
  return false;
}

template <typename T, typename El>
void Transform<T, El>::attach(Workspace<T, El>& w, const void* user) const {
  if (!lean_ || !w.may_rebind) return;  // agreed: no rank's array moved in this call
  const void* u = bound_array(w, user);
  int moved = u != w.user, any = 0;
  check_mpi(MPI_Allreduce(&moved, &any, 1, MPI_INT, MPI_LOR, agree_), "MPI_Allreduce");
  if (!any) return;
  // The old collectives go first: a rank whose array did not move binds the same memory
  // again, and an rma exchange may not attach it to its window twice (MPI_Win_attach).
  for (auto& by_dir : w.coll)
    for (auto& c : by_dir) c.clear();
  for (ExchangeId e : {kRow, kCol})
    for (int s = 0; s < 2; ++s)
      if (in_user(e, s)) w.side[e][s] = static_cast<C*>(const_cast<void*>(u));
  w.user = u;
  try {
    for (ExchangeId e : {kRow, kCol}) agree(agree_, [&] { bind(w, e); });
  } catch (...) {
    w.user = nullptr;  // half bound: bind again next time
    throw;
  }
}

template <typename T, typename El>
void Transform<T, El>::bind(Workspace<T, El>& w, ExchangeId e) const {
  if (lean_ && !w.user) return;  // lean: no caller's array yet (attach binds)
  for (Dir d : {kForward, kBackward}) w.coll[e][d] = exchange(e).bind(d, w.side[e][0], w.side[e][1], sizeof(C));
}

// ---- Stages ---------------------------------------------------------------------------

// The X stage, forward: x FFT of user plane z into P, scatter into exchange E. On slabs
// (E = COL, no ROW exchange) the y FFT runs on the same plane first (then ldx = ldy).
template <typename T, typename El>
template <ExchangeId E>
void Transform<T, El>::forward_x(const void* in, void*, Workspace<T, El>& ws, std::int64_t z0, std::int64_t z1, int lane,
                             Timings* t) const {
  const char* src = static_cast<const char*>(in);
  C* P = ws.P(lane);
  PhaseClock clk(t);
  for (std::int64_t z = z0; z < z1; ++z) {
    // PRESERVE_INPUT plans leave the input untouched, so dropping const is safe.
    fx_fwd_.execute(const_cast<char*>(src + z * nyi_ * nx_ * in_elem_), P);
    for (std::int64_t r = 0; r < nyi_ && pad_[0].active(); ++r) truncate_slots(P + r * ldx_, 1, 1, pad_[0]);
    clk.mark(&Timings::fft_x);
    if constexpr (E == kCol) {
      fy_fwd_.execute(P, P);
      truncate_slots(P, ldy_, nxi_, pad_[1]);
      clk.mark(&Timings::fft_y);
    }
    exchange(E).scatter(kForward, P, ldx_, z, ws.side[E]);
    clk.mark(&Timings::pack);
  }
}

// The Y stage of either direction: gather a z plane from the exchange before it, y FFT,
// scatter into the exchange after it (forward ROW -> COL, backward COL -> ROW).
template <typename T, typename El>
template <Dir d>
void Transform<T, El>::middle_y(const void*, void*, Workspace<T, El>& ws, std::int64_t z0, std::int64_t z1, int lane, Timings* t) const {
  constexpr ExchangeId from = d == kForward ? kRow : kCol, to = d == kForward ? kCol : kRow;
  const local::Transform<T>& fft = d == kForward ? fy_fwd_ : fy_bwd_;
  C* P = ws.P(lane);
  PhaseClock clk(t);
  for (std::int64_t z = z0; z < z1; ++z) {
    exchange(from).gather(d, P, ldy_, z, ws.side[from]);
    clk.mark(&Timings::unpack);
    if constexpr (d == kBackward) pad_slots(P, ldy_, nxi_, pad_[1]);
    fft.execute(P, P);
    if constexpr (d == kForward) truncate_slots(P, ldy_, nxi_, pad_[1]);
    clk.mark(&Timings::fft_y);
    exchange(to).scatter(d, P, ldy_, z, ws.side[to]);
    clk.mark(&Timings::pack);
  }
}

template <typename T, typename El>
void Transform<T, El>::forward_z(const void*, void* out, Workspace<T, El>& ws, std::int64_t y0, std::int64_t y1, int lane,
                             Timings* t) const {
  C* o = static_cast<C*>(out);
  PhaseClock clk(t);
  for (std::int64_t y = y0; y < y1; ++y) {
    C* plane = col_.view(y, ldy_, ws.side[kCol]);
    if (!plane) col_.gather(kForward, plane = ws.P(lane), ldy_, y, ws.side[kCol]);
    clk.mark(&Timings::unpack);
    fz_fwd_.execute(plane, plane);
    truncate_slots(plane, ldy_, nxi_, pad_[2]);
    local::scale_rows(plane, nzo_, ldy_, nxi_, fwd_scale_);
    clk.mark(&Timings::fft_z);
    copy_rows(o + y * zoff_, zld_, plane, ldy_, nzo_, nxi_);
    clk.mark(&Timings::unpack);
  }
}

template <typename T, typename El>
void Transform<T, El>::backward_z(const void* in, void*, Workspace<T, El>& ws, std::int64_t y0, std::int64_t y1, int lane,
                              Timings* t) const {
  const C* i = static_cast<const C*>(in);
  PhaseClock clk(t);
  for (std::int64_t y = y0; y < y1; ++y) {
    C* view = col_.view(y, ldy_, ws.side[kCol]);
    C* plane = view ? view : ws.P(lane);
    copy_rows(plane, ldy_, i + y * zoff_, zld_, nzo_, nxi_);
    clk.mark(&Timings::pack);
    local::scale_rows(plane, nzo_, ldy_, nxi_, bwd_scale_);
    pad_slots(plane, ldy_, nxi_, pad_[2]);
    fz_bwd_.execute(plane, plane);
    clk.mark(&Timings::fft_z);
    if (!view) col_.scatter(kBackward, plane, ldy_, y, ws.side[kCol]);
    clk.mark(&Timings::pack);
  }
}

// The X stage, backward: gather z plane from exchange E, (on slabs: y FFT), x FFT into
// the user's plane.
template <typename T, typename El>
template <ExchangeId E>
void Transform<T, El>::backward_x(const void*, void* out, Workspace<T, El>& ws, std::int64_t z0, std::int64_t z1, int lane,
                              Timings* t) const {
  char* dst = static_cast<char*>(out);
  C* P = ws.P(lane);
  PhaseClock clk(t);
  for (std::int64_t z = z0; z < z1; ++z) {
    exchange(E).gather(kBackward, P, ldx_, z, ws.side[E]);
    clk.mark(&Timings::unpack);
    if constexpr (E == kCol) {
      pad_slots(P, ldy_, nxi_, pad_[1]);
      fy_bwd_.execute(P, P);
      clk.mark(&Timings::fft_y);
    }
    for (std::int64_t r = 0; r < nyi_ && pad_[0].active(); ++r) pad_slots(P + r * ldx_, 1, 1, pad_[0]);
    fx_bwd_.execute(P, dst + z * nyi_ * nx_ * in_elem_);
    clk.mark(&Timings::fft_x);
  }
}

// ---- The driver -----------------------------------------------------------------------

template <typename T, typename El>
void Transform<T, El>::run_stage(Stage s, const Field& f, std::int64_t u0, std::int64_t u1, bool progress, bool reverse,
                             Timings* t) const {
  const std::int64_t step = std::max<std::int64_t>(1, (u1 - u0 + progress_chunks_ - 1) / progress_chunks_);
  if (reverse) {  // plane by plane, last first (lean: one lane)
    for (std::int64_t u = u1 - 1; u >= u0; --u) {
      (this->*s)(f.in, f.out, *f.ws, u, u + 1, 0, t);
      if (progress && (u1 - u) % step == 0) coll::progress_all();
    }
    return;
  }
  const int L = lanes_->lanes();
  if (L == 1) {
    if (!progress || u1 - u0 <= 1) return (this->*s)(f.in, f.out, *f.ws, u0, u1, 0, t);
    for (std::int64_t a = u0; a < u1; a += step) {
      (this->*s)(f.in, f.out, *f.ws, a, std::min(a + step, u1), 0, t);
      coll::progress_all();
    }
    return;
  }
  // Lanes take planes one at a time; only lane 0 (this thread) calls MPI: a progress pass
  // after each of its `every` planes, about progress_chunks passes per stage in all.
  // Timings are lane 0's (its phases span the stage's wall time); the others keep none.
  const std::int64_t every = std::max<std::int64_t>(1, step / L);
  std::int64_t done0 = 0;
  lanes_->for_units(u0, u1, 1, [&](int lane, std::int64_t a, std::int64_t b) {
    (this->*s)(f.in, f.out, *f.ws, a, b, lane, lane == 0 ? t : nullptr);
    if (lane == 0 && progress && ++done0 % every == 0) coll::progress_all();
  });
}

template <typename T, typename El>
void Transform<T, El>::finish(InFlight& q, double Timings::*ph, Timings* t) {
  if (q.empty()) return;
  PhaseClock clk(t);
  for (auto& r : q) r.wait();
  q.clear();
  clk.mark(ph);
}

// Steps [i0, i1) of direction d for one field. Each stage runs chunk by chunk of the
// exchange after it and starts the chunk's collective when its planes are done, keeping
// at most depth chunks in flight. The COL exchange (the split step) is left in flight in
// `mine` for the caller; the others complete before the next stage. `others`: exchanges of
// other fields are in flight (they need progress calls too).
template <typename T, typename El>
void Transform<T, El>::steps(Dir d, std::size_t i0, std::size_t i1, const Field& f, InFlight& mine, bool others,
                         std::size_t keep, Timings* t) const {
  for (std::size_t i = i0; i < i1; ++i) {
    const Step& s = path(d, f.in, f.out)[i];
    if (s.last) {
      run_stage(s.stage, f, 0, s.units, !mine.empty() || others, s.reverse, t);
      continue;
    }
    const Exchange& ex = exchange(s.ex);
    const auto& colls = f.ws->coll[s.ex][d];
    const std::size_t depth = ex.depth() > 0 ? static_cast<std::size_t>(ex.depth()) : colls.size();
    auto launch = [&](int k) {
      if (colls.empty()) return;
      PhaseClock clk(t);
      mine.push_back(colls[static_cast<std::size_t>(k)].start());
      coll::progress_all();
      if (mine.size() > depth) {
        mine.front().wait();
        mine.erase(mine.begin());
      }
      clk.mark(phase(s.ex));
    };
    // Chunks that need every plane of the stage (or a stage run last plane first) start
    // after the whole stage.
    if (s.reverse || !ex.chunks_follow_sender(d)) {
      run_stage(s.stage, f, 0, ex.send_planes(d), !mine.empty() || others, s.reverse, t);
      for (int k = 0; k < ex.chunks(d); ++k) launch(k);
    } else {
      for (int k = 0; k < ex.chunks(d); ++k) {
        run_stage(s.stage, f, ex.chunk_begin(d, k), ex.chunk_end(d, k), !mine.empty() || others, false, t);
        launch(k);
      }
    }
    if (i != keep) finish(mine, phase(s.ex), t);
  }
}

template <typename T, typename El>
void Transform<T, El>::start(Dir d, const void* in, void* out, Workspace<T, El>& ws, InFlight& col, bool progress,
                         Timings* t) const {
  attach(ws, out);
  steps(d, 0, split_[d] + 1, {in, out, &ws}, col, progress, split_[d], t);
}

template <typename T, typename El>
void Transform<T, El>::complete(Dir d, const void* in, void* out, Workspace<T, El>& ws, InFlight& col, bool progress,
                            Timings* t) const {
  finish(col, &Timings::col, t);
  steps(d, split_[d] + 1, path_[d].size(), {in, out, &ws}, col, progress, kNone, t);
}

// Field j starts in workspace j % K and field j-K+1 completes while the exchanges of the
// K-1 fields after it travel: K = 2 is seed 000 Fig. 4 (field j's work up to its COL
// exchange overlaps the exchange of field j-1, field j-1's work after it the exchange of
// field j); K = 1 runs the fields one after the other.
template <typename T, typename El>
void Transform<T, El>::run(Dir d, int nv, const void* const* in, void* const* out, Workspace<T, El>* const* ws, int nws,
                       Timings* t, const FieldHooks* hooks) const {
  if (nv <= 0) return;
  PhaseClock total(t);
  const int K = workspaces_used(d, nv, nws);
  if (K > 1 && pipeline_row_ && path_[d].size() == 3) {
    run_pencils(d, nv, in, out, ws, t, hooks);
    total.mark(&Timings::total);
    return;
  }
  std::vector<InFlight> col(static_cast<std::size_t>(K));
  for (int j = 0; j < nv + K - 1; ++j) {
    if (j < nv) {
      if (hooks) hooks->before(j);
      start(d, in[j], out[j], *ws[j % K], col[static_cast<std::size_t>(j % K)], (j >= K - 1 && K > 1) || hooks, t);
    }
    const int c = j - (K - 1);
    if (c >= 0) {
      complete(d, in[c], out[c], *ws[c % K], col[static_cast<std::size_t>(c % K)], (c + 1 < nv && K > 1) || hooks, t);
      if (hooks) hooks->after(c);
    }
  }
  total.mark(&Timings::total);
}

template <typename T, typename El>
int Transform<T, El>::workspaces_used(Dir d, int nv, int nws) const {
  const int K = fields_pipeline() ? std::max(1, std::min(nws, nv)) : 1;
  return K > 1 && pipeline_row_ && path_[d].size() == 3 ? 2 : K;  // run_pencils: two in flight
}

// Pencils, two fields in flight: both exchanges pipelined across fields. Each field runs in
// three phases, A: first stage, its exchange left in flight; B: the middle stage, the
// second exchange left in flight; C: the last stage. The order A(j), C(j-1), B(j) hides
// field j's first exchange behind field j-1's last stage and field j's second exchange
// behind field j+1's first stage (seed 000 pipelined only COL, behind the whole of the
// next field's work up to it, with the ROW exchange blocking).
template <typename T, typename El>
void Transform<T, El>::run_pencils(Dir d, int nv, const void* const* in, void* const* out, Workspace<T, El>* const* ws,
                               Timings* t, const FieldHooks* hooks) const {
  const auto& p = path_[d];
  InFlight first[2], second[2];
  auto field = [&](int j) { return Field{in[j], out[j], ws[j % 2]}; };
  auto A = [&](int j, bool others) {
    if (hooks) hooks->before(j);
    attach(*ws[j % 2], out[j]);
    steps(d, 0, 1, field(j), first[j % 2], others || hooks, 0, t);
  };
  auto B = [&](int j) {
    finish(first[j % 2], phase(p[0].ex), t);
    steps(d, 1, 2, field(j), second[j % 2], hooks != nullptr, 1, t);
  };
  auto C = [&](int j, bool others) {
    finish(second[j % 2], phase(p[1].ex), t);
    steps(d, 2, 3, field(j), second[j % 2], others || hooks, kNone, t);
    if (hooks) hooks->after(j);
  };
  for (int j = 0; j < nv; ++j) {
    A(j, j > 0);
    if (j > 0) C(j - 1, true);
    B(j);
  }
  C(nv - 1, false);
}

template <typename T, typename El>
void Transform<T, El>::exchange_only(Workspace<T, El>& ws, ExchangeId e, Dir d, Timings* t) const {
  local::Buffer stand_in;  // lean: an array in the user's place for the exchange alone
  if (lean_) {
    stand_in = local::Buffer(inplace_bytes());
    ws.may_rebind = true;  // no call agreement before this: attach agrees itself
    attach(ws, stand_in.get());
  }
  struct Unbind {
    Workspace<T, El>& w;
    bool lean;
    ~Unbind() {
      if (lean) w.user = nullptr;  // rebind at the next transform: the stand-in goes
    }
  } unbind{ws, lean_};
  const auto& colls = ws.coll[e][d];
  const std::size_t depth = exchange(e).depth() > 0 ? static_cast<std::size_t>(exchange(e).depth()) : colls.size();
  InFlight q;
  PhaseClock clk(t);
  for (const auto& c : colls) {
    q.push_back(c.start());
    if (q.size() > depth) {
      q.front().wait();
      q.erase(q.begin());
    }
  }
  for (auto& r : q) r.wait();
  clk.mark(phase(e));
}

template class Transform<double>;
template class Transform<float>;
template class Transform<double, double>;
template class Transform<float, float>;

}  // namespace nbfft::fft
