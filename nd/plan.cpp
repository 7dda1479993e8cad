// nbfft::nd::Plan: the schedule of nd/schedule.hpp run with local FFT plans (local/transform.hpp) over the whole
// axes and nbfft::fft::Pencils transposes over one grid dimension's ranks per exchange. This
// file makes the plan and checks the calls; nd/run.cpp runs the transforms.
#include "nbfft/nd/plan.hpp"
#include "nbfft/nd/tune.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/error.hpp"
#include "geometry/reshape.hpp"
#include "geometry/tiling.hpp"
#include "fft/axis_fft.hpp"
#include "nd/plan_impl.hpp"


#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>
#include <type_traits>

namespace nbfft::nd {


namespace {

using cplx = std::complex<double>;

template <typename T>
std::string join(const std::vector<T>& v, const char* sep) {
  std::ostringstream os;
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

std::string join_kinds(const std::vector<fft::AxisKind>& v) {
  std::ostringstream os;
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << fft::name(v[i]);
  return os.str();
}

// Strides (per axis) of a local block stored with its axes in `order`, slowest first.
std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& n, const std::vector<int>& order) {
  std::vector<std::int64_t> s(n.size(), 1);
  std::int64_t step = 1;
  for (std::size_t i = order.size(); i-- > 0;) {
    const auto a = static_cast<std::size_t>(order[i]);
    s[a] = step;
    step *= n[a];
  }
  return s;
}

std::int64_t product(const std::vector<std::int64_t>& n, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t a = from; a < to; ++a) p *= n[a];
  return p;
}

// Every size the plan makes on a rank (its blocks at every stage, the work arrays, the
// in-place array, the exchange and reshape buffers, a batch's fields) is at most the whole
// array's element count times 16 bytes (a complex double) times a few arrays. A shape past
// kMaxElements would wrap one of those products, or ask the allocator (ours or a backend's) for
// a size no rank can have, so it is refused before anything is allocated: the bound the 3-D
// plan puts on each rank's pencils (fft/decomposition.cpp), 8 arrays of 16-byte elements
// within PTRDIFF_MAX bytes, on the whole array.
constexpr std::int64_t kMaxElements = PTRDIFF_MAX / (16 * 8);

// "" or why the array `what` ("shape 8x8") of these extents (each >= 1) cannot be addressed.
std::string check_addressable(const std::vector<std::int64_t>& shape, const std::string& what) {
  std::int64_t count = 1;
  bool overflow = false;
  double log2 = 0;
  for (auto s : shape) {
    overflow = overflow || __builtin_mul_overflow(count, s, &count);
    log2 += std::log2(static_cast<double>(s));
  }
  if (!overflow && count <= kMaxElements) return "";
  std::ostringstream os;
  os << what << ": ";
  if (overflow)
    os << (log2 == std::floor(log2) ? "2^" : "about 2^") << std::floor(log2 * 10) / 10
       << " elements overflow a 64-bit count";
  else
    os << count << " elements are more than a plan can address";
  os << " (at most " << kMaxElements << " = 2^56 - 1 elements: 8 arrays of 16-byte elements within PTRDIFF_MAX bytes)";
  return os.str();
}

// Normalizes and checks the axes; "" or the problem.
std::string check_axes(const std::vector<std::int64_t>& shape, std::vector<int>& axes) {
  const int nd = static_cast<int>(shape.size());
  if (nd < 1) return "the shape is empty";
  for (int a = 0; a < nd; ++a)
    if (shape[a] < 1) return "shape[" + std::to_string(a) + "] is " + std::to_string(shape[a]) + " (must be >= 1)";
  if (axes.empty()) return "axes is empty (leave it out to transform every axis)";
  for (int& a : axes) {
    if (a < -nd || a >= nd)
      return "axis " + std::to_string(a) + " is out of range for a " + std::to_string(nd) + "-D array";
    if (a < 0) a += nd;
  }
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (axes[i] == axes[j]) return "axis " + std::to_string(axes[i]) + " is repeated in axes";
  return "";
}

// Checks the kinds against the axes (one per listed axis, each axis long enough for its
// kind); "" or the problem.
std::string check_kinds(const std::vector<std::int64_t>& shape, const std::vector<int>& axes,
                        const std::vector<fft::AxisKind>& kinds) {
  if (kinds.size() != axes.size())
    return "kinds has " + std::to_string(kinds.size()) + " entries for " + std::to_string(axes.size()) +
           " axes (one per listed axis)";
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (shape[axes[i]] < fft::min_points(kinds[i]))
      return std::string("axis ") + std::to_string(axes[i]) + " has " + std::to_string(shape[axes[i]]) +
             " points: " + fft::name(kinds[i]) + " needs at least " + std::to_string(fft::min_points(kinds[i]));
  return "";
}

// A padded plan's physical grid (Options::padding): each listed axis's floor(n * R) in
// `shape`, its ratio in `ratio` (per axis, 1: none). "" or the problem.
std::string padded_shape(const std::vector<double>& padding, const std::vector<int>& axes,
                         const std::vector<fft::AxisKind>& axis_kind, const std::vector<int>& names,
                         std::vector<std::int64_t>& shape, std::vector<double>& ratio) {
  ratio.assign(shape.size(), 1.0);
  if (padding.empty()) return "";
  if (padding.size() != 1 && padding.size() != axes.size())
    return "padding " + fft::padding_list_str(padding) + " has " + std::to_string(padding.size()) + " entries for " +
           std::to_string(axes.size()) + " axes (one ratio for every listed axis, or one per listed axis)";
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(axes[i]);
    const double r = padding[padding.size() == 1 ? 0 : i];
    const std::string axis = "axis " + std::to_string(names[a]);
    if (r != 1.0 && fft::is_r2r(axis_kind[a]))
      return "padding " + fft::padding_list_str(padding) + ": " + axis + " is " + fft::name(axis_kind[a]) +
             ", and padding (3/2-rule dealiasing) applies to periodic axes only; give it a padding of 1";
    try {
      shape[a] = fft::padded_points(shape[a], r, axis);
    } catch (const Error& e) {
      return e.message();
    }
    ratio[a] = r;
  }
  return "";
}

}  // namespace

using detail::Fft;
using detail::LocalPlan;

// Step k's FFTs, whole or also in chunks along the slowest axis in memory that the step does
// not transform (of more than one point here), each chunk's start 16-byte aligned for the
// backends' SIMD (else whole): `chunks` of them for progress passes, or with threads four per
// thread, which the threads take in turn (nd/run.cpp Flight::in_chunks).
template <typename T>
void Plan::Impl::plan_fft(std::size_t k) {
  Fft<T> f = make_fft<T>(k, -1, 0);
  const detail::Step& st = sch.step[k];
  const Box& bin = box[k];
  const Box& bout = box[k + 1];
  if (pipe_planes[k] > 0) {  // a pipelined exchange's neighbour: in its chunks of planes of axis 0 (aligned)
    const std::int64_t c = pipe_planes[k], ext = bout.n[0];
    const auto step = static_cast<std::size_t>(strides_of(bout.n, bout.order)[0]) * esize(k) * static_cast<std::size_t>(c);
    f.count = ext / c;
    f.in_step = f.out_step = step;
    f.piece = std::make_unique<Fft<T>>(make_fft<T>(k, 0, c));
    if (ext % c) f.tail = std::make_unique<Fft<T>>(make_fft<T>(k, 0, ext % c));
    ffts<T>()[k] = std::move(f);
    return;
  }
  int cax = -1;
  for (int a : bout.order)
    if (cax < 0 && bout.n[a] > 1 && std::find(st.axes.begin(), st.axes.end(), a) == st.axes.end()) cax = a;
  const int pieces = chunks > 1 ? chunks : pool ? 4 * threads : 1;
  if (pieces > 1 && cax >= 0 && !st.swap) {
    const auto ext = bout.n[cax];
    const auto si = static_cast<std::size_t>(strides_of(bin.n, bin.order)[cax]) * esize(k);
    const auto so = static_cast<std::size_t>(strides_of(bout.n, bout.order)[cax]) * esize(k + 1);
    std::int64_t c = std::max<std::int64_t>(1, (ext + pieces - 1) / pieces);
    while (c < ext && ((static_cast<std::size_t>(c) * si) % 16 || (static_cast<std::size_t>(c) * so) % 16)) ++c;
    if (c < ext) {
      f.count = ext / c;
      f.in_step = static_cast<std::size_t>(c) * si;
      f.out_step = static_cast<std::size_t>(c) * so;
      f.piece = std::make_unique<Fft<T>>(make_fft<T>(k, cax, c));
      if (ext % c) f.tail = std::make_unique<Fft<T>>(make_fft<T>(k, cax, ext % c));
    }
  }
  ffts<T>()[k] = std::move(f);
}

template <typename T>
Fft<T> Plan::Impl::make_fft(std::size_t k, int cax, std::int64_t cext) {
  using local::Dim;
  const detail::Step& st = sch.step[k];
  const Box& bin = box[k];  // before: real on the r2c axis when st.r2c
  const Box& bout = box[k + 1];
  const auto ci = strides_of(bin.n, bin.order), co = strides_of(bout.n, bout.order);
  const local::Effort effort = fft::local_effort(opt.effort);
  // The loop over every axis not in `skip` (in the output's memory order, slowest first):
  // extents n, strides times `mult`.
  auto howmany = [&](const std::vector<int>& skip, const std::vector<std::int64_t>& n,
                     const std::vector<std::int64_t>& is, const std::vector<std::int64_t>& os, std::int64_t mult) {
    std::vector<Dim> h;
    for (int a : bout.order)
      if (std::find(skip.begin(), skip.end(), a) == skip.end())
        h.push_back({a == cax ? cext : n[a], is[a] * mult, os[a] * mult});
    return h;
  };
  auto plan = [&](local::Kind kind, std::vector<Dim> d, std::vector<Dim> h, void* in, void* out,
                  std::vector<local::R2r> r2r = {}) {
    local::Problem p;
    p.kind = kind;
    p.dims = std::move(d);
    p.loops = std::move(h);
    p.r2r = std::move(r2r);
    return LocalPlan<T>(backend_for(kind == local::Kind::R2R), p, in, out, effort);
  };
  // An r2r plan in place over `ax` on data of extents n (C order), in its forward kinds or
  // their inverses; complex elements: both parts (strides doubled, a loop of 2 over them).
  auto r2r = [&](const std::vector<int>& ax, const Box& b, T* data, bool complex_elems, bool forward) {
    const std::vector<std::int64_t>& n = b.n;
    const auto s = strides_of(n, b.order);
    const std::int64_t m = complex_elems ? 2 : 1;
    std::vector<Dim> d;
    std::vector<local::R2r> kd;
    for (int a : ax) {
      d.push_back({n[a], s[a] * m, s[a] * m});
      kd.push_back(fft::r2r_of(forward ? axis_kind[a] : fft::inverse(axis_kind[a])));
    }
    auto h = howmany(ax, n, s, s, m);
    if (complex_elems) h.push_back({2, 1, 1});
    return plan(local::Kind::R2R, d, h, data, data, kd);
  };
  std::vector<int> periodic, sines;
  for (std::size_t i = st.r2c ? 1 : 0; i < st.axes.size(); ++i)
    (fft::is_r2r(axis_kind[st.axes[i]]) ? sines : periodic).push_back(st.axes[i]);
  Fft<T> f;
  T* real_in = reinterpret_cast<T*>(lane.real.get());
  T* w = reinterpret_cast<T*>(lane.work[0].get());
  void* wc = lane.work[0].get();
  if (st.r2c) {
    if (!sines.empty()) {  // the r2r axes of this step on the real input: half the work of after
      f.real_r2r_fwd = r2r(sines, bin, real_in, false, true);
      f.real_r2r_bwd = r2r(sines, bin, real_in, false, false);
      sines.clear();
    }
    // One r2c over the halved axis and this step's periodic axes together (the halved one
    // last, as a multi-dimensional r2c takes it): FFTW's multi-dimensional r2c beats an r2c
    // followed by a strided c2c (docs/performance.md "N-D plans").
    std::vector<int> ax(periodic);
    ax.push_back(st.axes[0]);
    std::vector<Dim> d, b;
    for (int a : ax) {
      d.push_back({bin.n[a], ci[a], co[a]});
      b.push_back({bin.n[a], co[a], ci[a]});
    }
    f.r2c = plan(local::Kind::R2C, d, howmany(ax, bout.n, ci, co, 1), real_in, wc);
    f.c2r = plan(local::Kind::C2R, b, howmany(ax, bout.n, co, ci, 1), wc, real_in);
    periodic.clear();
  }
  if (!periodic.empty()) {
    std::vector<Dim> d;
    for (int a : periodic) d.push_back({bout.n[a], co[a], co[a]});
    auto h = howmany(periodic, bout.n, co, co, 1);
    f.fwd = plan(local::Kind::Forward, d, h, wc, wc);
    f.bwd = plan(local::Kind::Backward, d, h, wc, wc);
  }
  if (!sines.empty()) {
    const bool complex_elems = esize(k + 1) != real_size();
    f.r2r_fwd = r2r(sines, bout, w, complex_elems, true);
    f.r2r_bwd = r2r(sines, bout, w, complex_elems, false);
  }
  return f;
}

void Plan::Impl::plan_exchange(std::size_t k) {
  const detail::Step& st = sch.step[k];
  const auto g = static_cast<std::size_t>(st.g);
  // The ranks that differ only in grid dimension g, ordered by their coordinate in it.
  int stride = 1;
  for (std::size_t h = g + 1; h < sch.ranks.size(); ++h) stride *= sch.ranks[h];
  MPI_Comm sub = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm, rank - coords[g] * stride, coords[g], &sub), "MPI_Comm_split");
  const int s = std::min(st.from, st.to), f = std::max(st.from, st.to);
  const detail::Stage& before = sch.stage[k];
  const Box& b0 = box[k];
  const Box& b1 = box[k + 1];
  const auto e = static_cast<std::int64_t>(esize(k));
  detail::Xchg x;
  x.A = product(b0.n, 0, static_cast<std::size_t>(s));
  x.B = product(b0.n, static_cast<std::size_t>(s) + 1, static_cast<std::size_t>(f));
  const std::int64_t C = product(b0.n, static_cast<std::size_t>(f) + 1, b0.n.size());
  x.S[0] = b0.n[s];
  x.S[1] = b1.n[s];
  x.F[0] = b0.n[f];
  x.F[1] = b1.n[f];
  x.R[0] = x.F[0] * C * e;
  x.R[1] = x.F[1] * C * e;
  x.elem = static_cast<std::size_t>(C * e);
  x.swap = st.swap;
  // Pencils' X-pencil (x whole, y split) is "the slower axis s split"; its Y-pencil "f split".
  x.side_before = st.from == s ? fft::Pencil::X : fft::Pencil::Y;
  x.side_after = st.from == s ? fft::Pencil::Y : fft::Pencil::X;
  fft::PencilOptions po;
  po.m1 = sch.ranks[g];
  po.m2 = 1;
  std::exception_ptr failure;
  try {
    po.transport(exchange_transport(opt, exchange_index(k)));
    x.pen = std::make_unique<fft::Pencils>(sub, std::array<std::int64_t, 3>{before.ext[f], before.ext[s], x.A * x.B},
                                           po);
    if (pipe_planes[k] > 0) {  // the plane pipeline: pencils of a chunk's planes, and of the last one's
      const std::int64_t n0 = b0.n[0], a1 = x.A / n0;  // axis 0 is the slowest of A
      x.planes = pipe_planes[k];
      x.chunks = (n0 + x.planes - 1) / x.planes;
      x.tail = n0 % x.planes;
      x.plane_a = a1;
      x.plane_bytes[0] = static_cast<std::size_t>(a1 * x.S[0] * x.B * x.R[0]);
      x.plane_bytes[1] = static_cast<std::size_t>(a1 * x.S[1] * x.B * x.R[1]);
      x.depth = opt.col_depth;
      const auto pencils = [&](std::int64_t planes) {
        return std::make_unique<fft::Pencils>(
            sub, std::array<std::int64_t, 3>{before.ext[f], before.ext[s], a1 * planes * x.B}, po);
      };
      x.piece_pen = pencils(x.planes);
      if (x.tail) x.tail_pen = pencils(x.tail);
    }
    // The plan's threads pack and unpack the exchanges too (the 3-D plan's threads do its own).
    for (auto* pen : {x.pen.get(), x.piece_pen.get(), x.tail_pen.get()})
      if (pen && pool) pen->share_copies(pool.get());
  } catch (...) {
    failure = std::current_exception();
  }
  MPI_Comm_free(&sub);
  if (failure) std::rethrow_exception(failure);
  xs[k] = std::move(x);
}

// Exchange k is pipelined when it is one after the first (col_transport's), not a swapping
// one, axis 0 (the slowest of every stage around it: natural order) is neither of its axes,
// and the steps on either side are local FFTs that leave axis 0 alone: they run in its
// chunks. The planes per chunk: col_chunk_planes rounded up so that every chunk starts
// 16-byte aligned whatever the other extents (so the same on every rank of the exchange).
std::int64_t Plan::Impl::pipeline_planes(std::size_t k) const {
  const detail::Step& st = sch.step[k];
  if (opt.col_chunk_planes <= 0 || st.fft || st.swap || exchange_index(k) < 1) return 0;
  if (std::min(st.from, st.to) == 0 || k == 0 || k + 1 >= sch.step.size()) return 0;
  for (std::size_t j : {k - 1, k + 1}) {
    const detail::Step& f = sch.step[j];
    if (!f.ffts() || f.r2c || std::find(f.axes.begin(), f.axes.end(), 0) != f.axes.end()) return 0;
  }
  for (std::size_t b = k - 1; b <= k + 2; ++b)
    if (!box[b].natural()) return 0;
  const std::int64_t align = 16 / static_cast<std::int64_t>(std::min<std::size_t>(16, esize(k)));
  const std::int64_t c = (opt.col_chunk_planes + align - 1) / align * align;
  return c < box[k].n[0] ? c : 0;  // one chunk: the bulk exchange
}

namespace {

// The 3-D plan's box of an nd box of a 3-D array: axis a of nd is dimension 2 - a of the
// 3-D plan (its x is nd's last axis), and the memory order runs the other way (nd lists
// axes slowest first, Box3::order dimensions fastest first).
fft::Box3 box3_of(const Box& b) {
  fft::Box3 r;
  for (int d = 0; d < 3; ++d) {
    r.lo[static_cast<std::size_t>(d)] = b.lo[static_cast<std::size_t>(2 - d)];
    r.n[static_cast<std::size_t>(d)] = b.n[static_cast<std::size_t>(2 - d)];
  }
  for (int i = 0; i < 3; ++i)
    r.order[static_cast<std::size_t>(i)] = b.order.empty() ? i : 2 - b.order[static_cast<std::size_t>(2 - i)];
  return r;
}

bool same_range(const fft::Box3& a, const fft::Box3& b) { return a.lo == b.lo && a.n == b.n; }

}  // namespace

// o: default options, filled in here.
bool Plan::Impl::options_3d(fft::Options& o, std::string& why) const {
  if (!opt.use_3d_plan) return why = "use_3d_plan is false", false;
  if (batch_axis >= 0) return why = "a batch axis", false;
  if (shape.size() != 3 || axes.size() != 3) return why = "not a 3-D array over all its axes", false;
  // The 3-D plan halves its x (nd's axis 2) only; real data with an r2r x needs every axis r2r.
  if (halving() && half_axis != 2) return why = "the r2c axis is not the last", false;
  if (grid[2] != 1) return why = "the last axis is split at the input", false;
  o.precision = opt.precision;
  o.transform = opt.kind == Kind::R2C ? fft::TransformKind::R2C : fft::TransformKind::C2C;
  o.kinds = {axis_kind[2], axis_kind[1], axis_kind[0]};
  o.norm = opt.norm;
  o.padding = {ratio[2], ratio[1], ratio[0]};
  o.effort = opt.effort;
  o.backends = {opt.backend, opt.backend, opt.backend};
  o.m1 = grid[1];  // the 3-D plan's M1 splits y (nd's axis 1), M2 z (axis 0)
  o.m2 = grid[0];
  o.transport(opt.transport);
  if (!opt.row_transport.empty()) o.row_transport = coll::Transport::parse(opt.row_transport);
  if (!opt.col_transport.empty()) o.col_transport = coll::Transport::parse(opt.col_transport);
  o.allow_empty = true;  // nd's schedule has already refused empty ranks
  o.fields_in_flight = depth;
  o.col_chunk_planes = opt.col_chunk_planes;
  o.col_depth = opt.col_depth;
  o.threads = opt.threads;  // the 3-D plan resolves them as this plan did
  o.engine_own_core = opt.engine_own_core;
  o.output_order = opt.output_order;
  // Every rank's boxes must be the 3-D plan's pencils (the same ranks, the same split).
  const std::array<std::int64_t, 3> n{spectrum[2], spectrum[1], spectrum[0]}, phys{shape[2], shape[1], shape[0]};
  for (int r = 0; r < size; ++r) {
    const auto c = detail::coords_of(sch.ranks, r);
    fft::Decomposition d;
    try {
      d = fft::Decomposition::make(n, halving(), o.m1, o.m2, size, r, true, phys);
    } catch (const std::exception&) {
      return why = "the 3-D plan cannot make grid " + std::to_string(o.m1) + "x" + std::to_string(o.m2), false;
    }
    if (!same_range(box3_of(detail::box_at(sch.stage.front(), sch.ranks, c)), d.x_pencil) ||
        !same_range(box3_of(detail::box_at(sch.stage.back(), sch.ranks, c)), d.z_pencil))
      return why = "the boxes are not the 3-D plan's pencils", false;
  }
  return true;
}

namespace {

// Makes the 3-D plan the transforms run on (collective) and checks that it holds every
// rank's boxes as this plan reports them (an internal error otherwise, on every rank: each
// rank checks every rank's boxes).
void make_3d(Plan::Impl& m, const fft::Options& o) {
  const std::array<std::int64_t, 3> n{m.spectrum[2], m.spectrum[1], m.spectrum[0]};  // the 3-D plan's x first
  m.p3 = std::make_unique<fft::Plan>(m.comm, n, o);
  for (int r = 0; r < m.size; ++r) {
    const auto c = detail::coords_of(m.sch.ranks, r);
    const Box bi = detail::box_at(m.sch.stage.front(), m.sch.ranks, c);
    const Box bo = detail::box_at(m.sch.stage.back(), m.sch.ranks, c);
    if (!(box3_of(bi) == m.p3->in_box_of(r)) || !(box3_of(bo) == m.p3->out_box_of(r)))
      throw Error("nd plan: the 3-D plan's boxes of rank " + std::to_string(r) + " differ from the nd plan's",
                  ErrorCode::Internal);
  }
}

}  // namespace

Plan::Plan(MPI_Comm comm, std::vector<std::int64_t> shape) : Plan(comm, shape, [&] {
  std::vector<int> all(shape.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}()) {}

namespace {

// Takes the batch axis out of the user's shape, axes and grid (axes already non-negative):
// the field's. "" or the problem.
std::string split_batch(const std::vector<std::int64_t>& shape, const std::vector<int>& axes,
                        const std::vector<int>& grid, int& b, std::vector<std::int64_t>& fshape,
                        std::vector<int>& faxes, std::vector<int>& fgrid) {
  const int nd = static_cast<int>(shape.size());
  if (b < -nd || b >= nd)
    return "batch_axis " + std::to_string(b) + " is out of range for a " + std::to_string(nd) + "-D array";
  if (b < 0) b += nd;
  if (nd < 2) return "a batch axis needs an array of at least 2 axes (the batch and a field's)";
  if (std::find(axes.begin(), axes.end(), b) != axes.end())
    return "axis " + std::to_string(b) + " is the batch axis and cannot be transformed";
  if (!grid.empty() && static_cast<int>(grid.size()) == nd && grid[b] != 1)
    return "grid " + join(grid, "x") + " splits the batch axis " + std::to_string(b) +
           " (every rank holds every field: its entry must be 1)";
  fshape = shape;
  fshape.erase(fshape.begin() + b);
  faxes.clear();
  for (int a : axes) faxes.push_back(a > b ? a - 1 : a);
  fgrid = grid;
  if (static_cast<int>(fgrid.size()) == nd) fgrid.erase(fgrid.begin() + b);
  return "";
}

}  // namespace

Plan::Plan(MPI_Comm comm, std::vector<std::int64_t> shape, std::vector<int> axes, const Options& options)
    : Plan(comm, std::move(shape), std::move(axes), std::nullopt, std::nullopt, options) {}

Plan::Plan(MPI_Comm comm, std::vector<std::int64_t> user_shape, std::vector<int> user_axes, std::optional<Box> in_box,
           std::optional<Box> out_box, const Options& asked)
    : impl_(std::make_unique<Impl>()) {
  check_mpi_running("nd::Plan");
  Impl& m = *impl_;
  // Tuning first (nbfft/nd/tune.hpp): the plan is then made with the tuner's choice. The
  // ranks agree on whether to tune before any of them starts.
  check_same(comm, "nd plan",
             {{"tune", fft::name(asked.tune)}, {"in_box given", in_box ? "yes" : "no"},
              {"out_box given", out_box ? "yes" : "no"}});
  if (asked.tune != fft::TuneEffort::None)
    m.report = std::make_shared<const TuneReport>(tune(comm, user_shape, user_axes, asked, in_box, out_box));
  const Options& options = m.report ? m.report->chosen : asked;
  check_mpi(MPI_Comm_dup(comm, &m.comm), "MPI_Comm_dup");
  MPI_Comm_rank(m.comm, &m.rank);
  MPI_Comm_size(m.comm, &m.size);
  m.opt = options;
  check_same(m.comm, "nd plan",
             {{"shape", join(user_shape, "x")},
              {"axes", join(user_axes, ",")},
              {"kind", name(options.kind)},
              {"precision", fft::name(options.precision)},
              {"kinds", join_kinds(options.kinds)},
              {"padding", fft::padding_list_str(options.padding)},
              {"norm", std::to_string(static_cast<int>(options.norm))},
              {"effort", std::to_string(static_cast<int>(options.effort))},
              {"backend", fft::name(options.backend)},
              {"grid", join(options.grid, "x")},
              {"transport", options.transport},
              {"row_transport", options.row_transport},
              {"col_transport", options.col_transport},
              {"batch_axis", options.batch_axis ? std::to_string(*options.batch_axis) : "none"},
              {"fields_in_flight", std::to_string(options.fields_in_flight)},
              {"output_order", fft::name(options.output_order)},
              {"use_3d_plan", options.use_3d_plan ? "true" : "false"},
              {"allow_empty", options.allow_empty ? "true" : "false"},
              {"lean_workspace", options.lean_workspace ? "true" : "false"},
              {"progress_chunks", std::to_string(options.progress_chunks)},
              {"col_chunk_planes", std::to_string(options.col_chunk_planes)},
              {"col_depth", std::to_string(options.col_depth)},
              {"engine_own_core", options.engine_own_core ? "true" : "false"}});
  // Threads per rank, as the 3-D plan resolves them (ranks may differ: the environment).
  m.threads = agree(m.comm, [&] {
    const fft::OptionRow& row = fft::option_row("threads");  // the table's range, the 3-D plan's too
    if (options.threads < row.lo || options.threads > row.hi)
      throw Error("threads = " + std::to_string(options.threads) + " must be in [" + std::to_string(row.lo) + ", " +
                      std::to_string(row.hi) + "] (0: NBFFT_THREADS, else OMP_NUM_THREADS, else 1)",
                  ErrorCode::InvalidArgument);
    bool engine_thread = false;
    try {
      for (int i = 0; i < 2; ++i)
        engine_thread = engine_thread ||
                        coll::Transport::parse(exchange_transport(options, i)).engine == coll::EngineKind::Thread;
    } catch (const Error&) {
      // a bad transport is reported below, with the plan's other checks
    }
    return fft::compute_threads(fft::checked_threads(options.threads), engine_thread, options.engine_own_core);
  });
  // Every check below depends only on what the ranks just agreed on: the same on every rank.
  std::string err = check_axes(user_shape, user_axes);
  // The field: the user's array without the batch axis.
  std::vector<std::int64_t> shape = user_shape;
  std::vector<int> axes = user_axes, fgrid = options.grid;
  if (err.empty() && options.batch_axis) {
    m.batch_axis = *options.batch_axis;
    err = split_batch(user_shape, user_axes, options.grid, m.batch_axis, shape, axes, fgrid);
  }
  if (err.empty() && (options.fields_in_flight < 1 || options.fields_in_flight > 64))
    err = "fields_in_flight = " + std::to_string(options.fields_in_flight) + " must be in [1, 64]";
  if (err.empty() && options.progress_chunks < 0)
    err = "progress_chunks = " + std::to_string(options.progress_chunks) + " must be >= 0 (0: the default, " +
          std::to_string(fft::kDefaultProgressChunks) + ")";
  if (err.empty() && options.col_chunk_planes < 0)
    err = "col_chunk_planes = " + std::to_string(options.col_chunk_planes) + " must be >= 0 (0: one bulk exchange)";
  if (err.empty() && options.col_depth < 0)
    err = "col_depth = " + std::to_string(options.col_depth) + " must be >= 0 (0: every chunk in flight)";
  const std::string what = "shape " + join(user_shape, "x") +
                           (m.batch_axis >= 0 ? " (batch axis " + std::to_string(m.batch_axis) + ")" : "");
  std::vector<std::int64_t> spectrum;  // a padded plan's spectral grid (empty: none)
  std::vector<int> sched_axes = axes;  // the halved axis last, as the schedule takes it
  std::vector<int> user_names;         // the field's axes by the user's numbers (a batch axis taken out)
  for (int a = 0; a < static_cast<int>(shape.size()); ++a)
    user_names.push_back(m.batch_axis >= 0 && a >= m.batch_axis ? a + 1 : a);
  if (err.empty()) err = check_addressable(user_shape, what);
  if (err.empty()) {
    m.kinds = options.kinds.empty() ? std::vector<fft::AxisKind>(axes.size(), fft::AxisKind::Periodic) : options.kinds;
    err = check_kinds(user_shape, user_axes, m.kinds);
  }
  if (err.empty()) {
    m.axis_kind.assign(shape.size(), fft::AxisKind::Periodic);
    for (std::size_t i = 0; i < axes.size(); ++i) m.axis_kind[axes[i]] = m.kinds[i];
    if (options.kind == Kind::R2C)
      for (std::size_t i = axes.size(); i-- > 0;)
        if (!fft::is_r2r(m.kinds[i])) {
          m.half_axis = axes[i];
          break;
        }
    std::vector<std::int64_t> phys = shape;
    err = padded_shape(options.padding, axes, m.axis_kind, user_names, phys, m.ratio);
    if (err.empty() && phys != shape) {
      spectrum = shape;
      shape = phys;  // the schedule's stages start on the physical grid
      const auto nb = user_shape[static_cast<std::size_t>(std::max(0, m.batch_axis))];  // (unused without a batch axis)
      const std::vector<std::int64_t> user_phys = m.with_batch(phys, nb);
      err = check_addressable(user_phys, what + " padded to " + join(user_phys, "x"));
    }
  }
  if (err.empty()) {
    if (m.halving()) {
      sched_axes.erase(std::find(sched_axes.begin(), sched_axes.end(), m.half_axis));
      sched_axes.push_back(m.half_axis);
    }
    if (options.grid.empty()) {
      std::string why;
      m.grid = detail::choose_grid(shape, sched_axes, m.halving(), m.size, why, options.allow_empty, user_names,
                                   spectrum);
      if (m.grid.empty())
        err = "cannot decompose " + what + " over " + std::to_string(m.size) + " ranks with axes (" +
              join(user_axes, ", ") + "): " + why;
    } else if (options.grid.size() != user_shape.size()) {
      err = "grid has " + std::to_string(options.grid.size()) + " entries for a " +
            std::to_string(user_shape.size()) + "-D array";
    } else {
      long long p = 1;
      for (int g : options.grid) {
        if (g < 1) err = "grid " + join(options.grid, "x") + " has an entry < 1";
        p *= g;
      }
      if (err.empty() && p != m.size)
        err = "grid " + join(options.grid, "x") + " has " + std::to_string(p) + " ranks, the communicator " +
              std::to_string(m.size);
      m.grid = fgrid;
    }
  }
  if (err.empty()) {
    const std::string e =
        detail::build_schedule(shape, sched_axes, m.halving(), m.grid, m.sch, options.allow_empty, user_names,
                               spectrum);
    if (!e.empty()) err = "cannot decompose " + what + " over grid " + join(m.with_batch(m.grid, 1), "x") + ": " + e;
  }
  if (err.empty() && options.output_order == fft::OutputOrder::Transposed && axes.size() >= 2) {
    std::vector<int> slowest = axes;  // the two slowest transformed axes trade places
    std::sort(slowest.begin(), slowest.end());
    detail::transpose_output(m.sch, slowest[0], slowest[1]);
    m.swapped[0] = slowest[0];
    m.swapped[1] = slowest[1];
  }
  // The same steps on every rank: split when any rank runs threads.
  int most_threads = m.threads;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &most_threads, 1, MPI_INT, MPI_MAX, m.comm), "MPI_Allreduce");
  if (err.empty() && most_threads > 1) detail::split_for_lanes(m.sch);
  agree_message(m.comm, err);
  m.shape = shape;
  m.spectrum = spectrum.empty() ? shape : spectrum;
  m.axes = axes;
  m.given_shape = user_shape;
  m.nbatch = m.batch_axis >= 0 ? user_shape[static_cast<std::size_t>(m.batch_axis)] : 1;
  m.user_shape = m.padded() ? m.with_batch(shape, m.nbatch) : user_shape;
  m.user_axes = user_axes;
  m.out_grid = m.sch.grid(m.sch.stage.size() - 1);
  m.user_grid = m.with_batch(m.grid, 1);
  m.made = options;
  m.made.grid = m.user_grid;
  m.made.threads = m.threads;
  // The backend the periodic steps run, as the 3-D plan reports it (agreed: the environment
  // may differ between ranks).
  m.made.backend = agree(m.comm, [&] { return fft::public_backend(fft::resolve_backend(options.backend, false)); });
  m.user_out_grid = m.with_batch(m.out_grid, 1);
  m.in_flight = options.fields_in_flight;
  m.coords = detail::coords_of(m.sch.ranks, m.rank);
  for (const auto& st : m.sch.stage) m.box.push_back(detail::box_at(st, m.sch.ranks, m.coords));
  m.user_in = m.user_box(m.box.front());
  m.user_out = m.user_box(m.box.back());
  // The products of the logical sizes (n for periodic axes) of the spectrum's grid (N) and the
  // physical one (M, N unless padded). The spectrum is the N grid's under the norm: forward's
  // sums over M points are scaled by N/M (the 3-D plan's rule, fft/transform.cpp).
  double n = 1, mm = 1;
  for (int a : axes) {
    n *= fft::logical_size(m.axis_kind[a], m.spectrum[a]);
    mm *= fft::logical_size(m.axis_kind[a], shape[a]);
  }
  switch (options.norm) {
    case fft::Norm::None: break;
    case fft::Norm::Backward:
      m.scale_bwd = 1 / n;
      if (m.padded()) m.scale_fwd = n / mm;
      break;
    case fft::Norm::Forward: m.scale_fwd = 1 / mm; break;
    case fft::Norm::Ortho:
      m.scale_fwd = m.scale_bwd = 1 / std::sqrt(n);
      if (m.padded()) m.scale_fwd = std::sqrt(n) / mm;
      break;
  }
  m.fd.resize(m.sch.step.size());
  m.ff.resize(m.sch.step.size());
  m.xs.resize(m.sch.step.size());
  bool delegate = false;
  fft::Options o3;
  agree(m.comm, [&] {
    // A blocking transport completes each exchange where it starts: nothing to overlap, and
    // one field at a time keeps each field's stages in cache (8 x 128^3 at 2 ranks: two in
    // flight took 100 ms, one 93). The thread engine moves exchanges by itself; a caller or
    // native one only in progress passes, which the steps of the other fields in flight give
    // between their chunks.
    bool overlaps = false, needs_passes = false;
    for (int i = 0; i < 2; ++i) {
      fft::PencilOptions().transport(exchange_transport(m.opt, i));  // a bad name fails here, exchanges or not
      const coll::Transport tr = coll::Transport::parse(exchange_transport(m.opt, i));
      if (i >= m.sch.exchanges() && m.sch.exchanges() > 0) continue;  // no such exchange
      overlaps = overlaps || tr.algorithm.name != "blocking";
      needs_passes = needs_passes || (tr.algorithm.name != "blocking" && tr.engine != coll::EngineKind::Thread);
    }
    m.depth = overlaps ? m.in_flight : 1;
    if (m.depth > 1 && needs_passes && m.sch.exchanges() > 0)
      m.chunks = m.opt.progress_chunks > 0 ? m.opt.progress_chunks : fft::kDefaultProgressChunks;
    std::size_t w = 16;
    for (std::size_t k = m.halving() ? 1 : 0; k < m.box.size(); ++k)
      w = std::max(w, m.stage_bytes(k));
    m.work_bytes = w;
    m.real_bytes = std::max<std::size_t>(16, static_cast<std::size_t>(m.box.front().count()) * m.real_size());
    std::string why;
    delegate = m.options_3d(o3, why);  // the same verdict on every rank: it depends on agreed values only
    if (delegate) return;
    if (m.threads > 1) m.pool = std::make_unique<fft::LanePool>(m.threads);
    m.pipe_planes.assign(m.sch.step.size(), 0);
    for (std::size_t k = 0; k < m.sch.step.size(); ++k)
      if (const std::int64_t c = m.pipeline_planes(k)) m.pipe_planes[k - 1] = m.pipe_planes[k] = m.pipe_planes[k + 1] = c;
    m.allocate_lane();
    for (std::size_t k = 0; k < m.sch.step.size(); ++k)
      if (m.sch.step[k].fft && m.sch.step[k].resize.empty()) {  // a resize has no FFT
        if (m.single())
          m.plan_fft<float>(k);
        else
          m.plan_fft<double>(k);
      }
  });
  if (delegate) {
    o3.lean_workspace = options.lean_workspace;  // the 3-D plan decides and says why not
    o3.progress_chunks = options.progress_chunks;
    make_3d(m, o3);
  } else {
    // Exchanges: collective over each grid dimension's ranks (every rank makes every one).
    for (std::size_t k = 0; k < m.sch.step.size(); ++k)
      if (!m.sch.step[k].fft) m.plan_exchange(k);
  }
  m.set_user_boxes(in_box, out_box);
  m.inplace_bytes = std::max(m.stage_bytes(0), m.stage_bytes(m.box.size() - 1));
  if (m.boxes.any())  // the caller's blocks (one array holds either; the plan's never see it in place)
    m.inplace_bytes = std::max(in_count() * m.esize(0), out_count() * m.esize(m.box.size() - 1));
  else if (m.p3)
    m.inplace_bytes = std::max(m.inplace_bytes, m.p3->inplace_bytes());
  else
    m.inplace_bytes *= static_cast<std::size_t>(m.nbatch);
  if (options.lean_workspace && !delegate) {
    // Decided from agreed values only (a batch axis), so every rank is lean or none is, and a
    // call that is not in place fails everywhere alike. A batch's fields lie next to each
    // other, each field's input and spectrum at other offsets: one field's stages would run
    // over its neighbours'. The local FFT plans were made on work[0] and the real array (same
    // alignment); the real array goes.
    m.lean_note = m.batch_axis >= 0 ? "a batch axis (its fields share the in-place array)" : "";
    m.lean = m.lean_note.empty();
    if (m.lean) {
      m.lane.real.reset();
      std::size_t stages = 0;  // every stage lives in the in-place array in turn
      for (std::size_t k = 0; k < m.box.size(); ++k) stages = std::max(stages, m.stage_bytes(k));
      // With user boxes that array is the plan's own, one per field of a call, which the
      // reshapes fill and empty; the caller's array holds only the caller's blocks.
      if (!m.boxes.any()) m.inplace_bytes = std::max(m.inplace_bytes, stages);
      m.lean_array_bytes = m.boxes.any() ? stages : m.inplace_bytes;
    }
    agree(m.comm, [&] {  // not lean: the default plan's second array after all (a failure fails every rank)
      if (!m.lean) m.lane.work[1] = detail::allocate_or_throw(m.work_bytes);
    });
  }
  if (m.p3 && m.p3->lean_workspace() && m.boxes.any()) m.lean_array_bytes = m.p3->inplace_bytes();
}

// Every rank's box of both sides (the caller's when given, checked to tile the array), so
// that each call can reshape between the caller's blocks and the plan's.
// (The constructor has agreed on whether each box is given, before tuning.)
void Plan::Impl::set_user_boxes(const std::optional<Box>& in, const std::optional<Box>& out) {
  if (!in && !out) return;
  const std::size_t d = user_shape.size();
  std::string err;
  for (const auto* b : {&in, &out})
    if (err.empty() && *b && (!(*b)->natural() || ((*b)->order.size() != 0 && (*b)->order.size() != d)))
      err = std::string(b == &in ? "in_box" : "out_box") + " of rank " + std::to_string(rank) +
            " has a memory order other than C order (user boxes are C order; out_box() of a transposed plan is the "
            "plan's own, leave it out)";
  agree_message(comm, err);
  // Every rank's lo and n, d of each (a box of the wrong rank is padded here and named below).
  auto gather = [&](const std::optional<Box>& b, bool input) {
    std::vector<std::int64_t> mine(2 * d + 2, 0), all(static_cast<std::size_t>(size) * (2 * d + 2));
    mine[0] = static_cast<std::int64_t>(b->lo.size());
    mine[1] = static_cast<std::int64_t>(b->n.size());
    for (std::size_t a = 0; a < d; ++a) {
      mine[2 + a] = a < b->lo.size() ? b->lo[a] : 0;
      mine[2 + d + a] = a < b->n.size() ? b->n[a] : 0;
    }
    check_mpi(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_INT64_T, all.data(),
                            static_cast<int>(mine.size()), MPI_INT64_T, comm),
              "MPI_Allgather");
    std::vector<Box> boxes(static_cast<std::size_t>(size));
    for (std::size_t r = 0; r < boxes.size(); ++r) {
      const std::int64_t* at = all.data() + r * (2 * d + 2);
      boxes[r].lo.assign(at + 2, at + 2 + std::min<std::int64_t>(at[0], static_cast<std::int64_t>(d)));
      boxes[r].n.assign(at + 2 + d, at + 2 + d + std::min<std::int64_t>(at[1], static_cast<std::int64_t>(d)));
      if (at[0] > static_cast<std::int64_t>(d)) boxes[r].lo.resize(static_cast<std::size_t>(at[0]), 0);
      if (at[1] > static_cast<std::int64_t>(d)) boxes[r].n.resize(static_cast<std::size_t>(at[1]), 0);
    }
    // The same gathered values on every rank: the same verdict.
    const std::vector<std::int64_t> array = input ? user_shape : with_batch(sch.stage.back().ext, nbatch);
    geometry::TilingWords words;
    words.what = input ? "in_box" : "out_box";
    words.array = std::string(input ? "the input " : "the spectrum ") + join(array, "x");
    const std::string e = geometry::tiling_problem(boxes, array, words);
    if (!e.empty()) throw Error("nd plan: " + e, ErrorCode::InvalidArgument);
    for (auto& bx : boxes) {  // C order, spelled out as the plan's own boxes are
      bx.order.resize(d);
      std::iota(bx.order.begin(), bx.order.end(), 0);
    }
    return boxes;
  };
  auto own = [&](bool input) {
    std::vector<Box> boxes;
    for (int r = 0; r < size; ++r)
      boxes.push_back(user_box(detail::box_at(input ? sch.stage.front() : sch.stage.back(), sch.ranks,
                                              detail::coords_of(sch.ranks, r))));
    return boxes;
  };
  boxes.plan_in = own(true);
  boxes.plan_out = own(false);
  boxes.in_set = in.has_value();
  boxes.out_set = out.has_value();
  boxes.caller_in = in ? gather(in, true) : boxes.plan_in;
  boxes.caller_out = out ? gather(out, false) : boxes.plan_out;
  // A side whose blocks are the plan's own on every rank needs no reshape (the same verdict
  // everywhere: every rank compares every rank's boxes).
  auto same = [](const std::vector<Box>& a, const std::vector<Box>& b) {
    for (std::size_t r = 0; r < a.size(); ++r)
      if (a[r].lo != b[r].lo || a[r].n != b[r].n || !b[r].natural()) return false;
    return true;
  };
  if (boxes.in_set && same(boxes.caller_in, boxes.plan_in)) boxes.in_set = false;
  if (boxes.out_set && same(boxes.caller_out, boxes.plan_out)) boxes.out_set = false;
  // The reshapes, both ways for each side set: made once here (from the same gathered boxes
  // on every rank: the same kinds everywhere), on the plan's transport, as the 3-D plan's.
  const std::size_t S = box.size() - 1;
  using geometry::Reshape;
  if (boxes.in_set) {
    boxes.in_to_plan = std::make_unique<Reshape>(boxes.caller_in, boxes.plan_in, rank, esize(0));
    boxes.plan_to_in = std::make_unique<Reshape>(boxes.plan_in, boxes.caller_in, rank, esize(0));
  }
  if (boxes.out_set) {
    boxes.out_to_plan = std::make_unique<Reshape>(boxes.caller_out, boxes.plan_out, rank, esize(S));
    boxes.plan_to_out = std::make_unique<Reshape>(boxes.plan_out, boxes.caller_out, rank, esize(S));
  }
  // The plan's threads share their copies (a plan on the 3-D plan has none of its own here).
  for (auto* r : {boxes.in_to_plan.get(), boxes.plan_to_in.get(), boxes.out_to_plan.get(), boxes.plan_to_out.get()})
    if (r) r->share_copies(fft::copy_share(pool.get()));
  boxes.transport = coll::Transport::parse(opt.transport);
  bool exchanges = false;
  for (const auto* r : {boxes.in_to_plan.get(), boxes.out_to_plan.get()})
    exchanges = exchanges || (r && r->kind() == Reshape::Exchange);
  if (exchanges) boxes.comm = coll::Comm(comm, boxes.transport.engine);
}

detail::Bytes detail::allocate_or_throw(std::size_t bytes) {
  Bytes b = Bytes::try_allocate(bytes);
  if (!b) throw Error("nd plan: cannot allocate " + std::to_string(bytes) + " bytes", ErrorCode::OutOfMemory);
  return b;
}

std::vector<local::Backend> Plan::Impl::backends_used() const {
  std::vector<local::Backend> v{backend_for(false)};
  if (std::any_of(axis_kind.begin(), axis_kind.end(), fft::is_r2r) && backend_for(true) != v[0])
    v.push_back(backend_for(true));
  return v;
}

void Plan::Impl::allocate_lane() {
  // A lean plan's one work array also holds the real input's stage; its second is the
  // caller's array (the local FFT plans are made on work[0] and, for r2c, the real array, which
  // goes once they are made: the lean plan's peak at construction).
  if (opt.lean_workspace) work_bytes = std::max(work_bytes, real_bytes);
  lane.work[0] = detail::allocate_or_throw(work_bytes);
  if (!opt.lean_workspace) lane.work[1] = detail::allocate_or_throw(work_bytes);
  if (halving()) lane.real = detail::allocate_or_throw(real_bytes);
}

Box Plan::Impl::user_box(const Box& b) const {
  std::vector<int> order;  // the field's order, its axes renumbered round the batch axis, which keeps its place
  for (int a : b.order) order.push_back(batch_axis >= 0 && a >= batch_axis ? a + 1 : a);
  return Box{with_batch(b.lo, std::int64_t{0}), with_batch(b.n, nbatch), with_batch(order, batch_axis)};
}

detail::View Plan::Impl::view(const void* base, std::size_t k, std::int64_t j) const {
  const Box& b = box[k];
  const std::size_t e = esize(k);
  detail::View v;
  const auto at = static_cast<std::size_t>(batch_axis < 0 ? 0 : batch_axis);
  std::int64_t outer = 1, inner = 1;  // the field's axes before the batch axis in memory, and after it
  for (std::size_t i = 0; i < b.n.size(); ++i) (i < at ? outer : inner) *= b.n[static_cast<std::size_t>(b.order[i])];
  v.chunks = outer;
  v.chunk = static_cast<std::size_t>(inner) * e;
  v.stride = v.chunk * static_cast<std::size_t>(nbatch);
  v.base = static_cast<unsigned char*>(const_cast<void*>(base)) + static_cast<std::size_t>(j) * v.chunk;
  if (outer == 1) v.stride = v.chunk;
  return v;
}

Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

// Every public member reaches the plan's state through here: a moved-from plan has none.
const Plan::Impl& Plan::impl() const {
  if (!impl_) throw Error("nd plan: used after being moved from (it holds no plan any more)", ErrorCode::InvalidState);
  return *impl_;
}

const std::vector<std::int64_t>& Plan::shape() const { return impl().user_shape; }
std::vector<std::int64_t> Plan::out_shape() const {
  const Impl& m = impl();
  return m.with_batch(m.sch.stage.back().ext, m.nbatch);
}
const std::vector<int>& Plan::axes() const { return impl().user_axes; }
Kind Plan::kind() const { return impl().opt.kind; }
fft::Precision Plan::precision() const { return impl().opt.precision; }
const std::vector<fft::AxisKind>& Plan::kinds() const { return impl().kinds; }
bool Plan::real_spectrum() const { return impl().real_spectrum(); }
const std::vector<int>& Plan::grid() const { return impl().user_grid; }
const std::vector<int>& Plan::out_grid() const { return impl().user_out_grid; }
fft::OutputOrder Plan::output_order() const { return impl().opt.output_order; }
const std::vector<int>& Plan::out_order() const { return out_box().order; }
int Plan::exchanges() const { return impl().sch.exchanges(); }
int Plan::size() const { return impl().size; }
int Plan::rank() const { return impl().rank; }
const Box& Plan::in_box() const {
  const Impl& m = impl();
  return m.boxes.in_set ? m.boxes.caller_in[static_cast<std::size_t>(m.rank)] : m.user_in;
}
const Box& Plan::out_box() const {
  const Impl& m = impl();
  return m.boxes.out_set ? m.boxes.caller_out[static_cast<std::size_t>(m.rank)] : m.user_out;
}
bool Plan::user_boxes() const { return impl().boxes.any(); }
Box Plan::in_box_of_rank(int r) const {
  const Impl& m = impl();
  if (r < 0 || r >= m.size) throw Error("nd plan: rank " + std::to_string(r) + " is out of range");
  if (m.boxes.in_set) return m.boxes.caller_in[static_cast<std::size_t>(r)];
  return m.user_box(detail::box_at(m.sch.stage.front(), m.sch.ranks, detail::coords_of(m.sch.ranks, r)));
}
Box Plan::out_box_of_rank(int r) const {
  const Impl& m = impl();
  if (r < 0 || r >= m.size) throw Error("nd plan: rank " + std::to_string(r) + " is out of range");
  if (m.boxes.out_set) return m.boxes.caller_out[static_cast<std::size_t>(r)];
  return m.user_box(detail::box_at(m.sch.stage.back(), m.sch.ranks, detail::coords_of(m.sch.ranks, r)));
}
std::size_t Plan::in_count() const { return static_cast<std::size_t>(in_box().count()); }
std::size_t Plan::out_count() const { return static_cast<std::size_t>(out_box().count()); }
std::optional<int> Plan::batch_axis() const {
  const int b = impl().batch_axis;
  return b >= 0 ? std::optional<int>(b) : std::nullopt;
}
std::int64_t Plan::batch() const { return impl().nbatch; }
int Plan::fields_in_flight() const { return impl().in_flight; }
std::size_t Plan::workspace_bytes() const {
  const Impl& m = impl();
  if (m.p3) return m.p3->workspace_bytes();
  if (m.lean) return m.work_bytes;
  return 2 * m.work_bytes + (m.halving() ? m.real_bytes : 0);
}
std::size_t Plan::inplace_bytes() const { return impl().inplace_bytes; }
bool Plan::lean_workspace() const { return impl().lean_plan(); }
bool Plan::uses_3d_plan() const { return static_cast<bool>(impl().p3); }
const Options& Plan::options() const { return impl().made; }
const TuneReport* Plan::tune_report() const { return impl().report.get(); }

std::string Plan::describe() const {
  const Impl& m = impl();
  std::ostringstream os;
  os << "nd " << name(m.opt.kind) << (m.single() ? " single" : "") << " (" << join(m.given_shape, ", ") << ") axes ("
     << join(m.user_axes, ", ") << ")";
  if (std::any_of(m.kinds.begin(), m.kinds.end(), [](fft::AxisKind k) { return fft::is_r2r(k); }))
    os << " kinds (" << join_kinds(m.kinds) << ")";
  if (m.padded()) os << " padded to (" << join(m.user_shape, ", ") << ")";
  if (m.batch_axis >= 0) os << " batch axis " << m.batch_axis << " (" << m.nbatch << " fields)";
  os << " grid " << join(m.user_grid, "x") << " -> " << join(m.user_out_grid, "x");
  if (!m.user_out.natural()) os << " out order (" << join(m.user_out.order, ", ") << ")";
  os << ", " << exchanges() << " exchanges: ";
  if (m.p3) {
    os << "the 3-D plan (nbfft::fft::Plan " << m.p3->m1() << "x" << m.p3->m2() << ", "
       << exchange_transport(m.opt, 0);
    if (exchange_transport(m.opt, 1) != exchange_transport(m.opt, 0)) os << " then " << exchange_transport(m.opt, 1);
    os << ")";
    if (m.opt.lean_workspace) os << (m.p3->lean_workspace() ? "; lean workspace (in place only)" : "; not lean (the 3-D plan's layout)");
    return os.str();
  }
  const auto user_axis = [&](int a) { return m.batch_axis >= 0 && a >= m.batch_axis ? a + 1 : a; };
  for (std::size_t k = 0; k < m.sch.step.size(); ++k) {
    const auto& s = m.sch.step[k];
    os << (k ? ", " : "");
    if (!s.resize.empty()) {
      std::vector<int> ax;
      for (int a : s.resize) ax.push_back(user_axis(a));
      os << "resize(" << join(ax, ",") << ")";  // forward truncates, backward zero-pads
    } else if (s.fft && s.axes.empty()) {
      os << "swap(" << user_axis(m.swapped[0]) << "," << user_axis(m.swapped[1]) << ")";  // a local copy
    } else if (s.fft) {
      std::vector<int> ax;
      for (int a : s.axes) ax.push_back(user_axis(a));
      os << (s.r2c ? "r2c+fft(" : "fft(") << join(ax, ",") << ")";  // r2r axes among them
    } else {
      os << "exchange " << user_axis(s.from) << "->" << user_axis(s.to) << (s.swap ? " swapping them" : "") << " over "
         << m.sch.ranks[static_cast<std::size_t>(s.g)] << " ranks (" << exchange_transport(m.opt, m.exchange_index(k))
         << ")";
      const detail::Xchg& x = m.xs[k];
      if (x.chunks > 0)
        os << " in " << x.chunks << " chunks of " << x.planes << " planes of axis " << user_axis(0) << " ("
           << (x.depth > 0 ? std::to_string(x.depth) : std::string("all")) << " in flight)";
    }
  }
  if (m.sch.exchanges() > 0) os << "; " << m.depth << " field" << (m.depth > 1 ? "s" : "") << " in flight";
  if (m.chunks > 1) os << ", each FFT step in up to " << m.chunks << " chunks with progress passes";
  if (m.pool) os << "; " << m.threads << " threads";
  if (m.boxes.any())
    os << "; user boxes: " << (m.boxes.in_set ? "in" : "") << (m.boxes.in_set && m.boxes.out_set ? " and " : "")
       << (m.boxes.out_set ? "out" : "") << " (one all-to-all each way)";
  if (m.lean) os << "; lean workspace (in place only)";
  if (!m.lean_note.empty()) os << "; not lean: " << m.lean_note;
  return os.str();
}

}  // namespace nbfft::nd
