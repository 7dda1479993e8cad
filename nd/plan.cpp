// nbfft::nd::Plan: the schedule of nd/schedule.hpp run with FFTW guru plans over the whole
// axes and nbfft::fft::Pencils transposes over one grid dimension's ranks per exchange.
#include "nbfft/nd/plan.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/transpose.hpp"
#include "fft/axis_fft.hpp"
#include "fft/fftw_api.hpp"
#include "nd/schedule.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>
#include <type_traits>

namespace nbfft::nd {

const char* name(Kind k) { return k == Kind::R2C ? "r2c" : "c2c"; }

std::int64_t Box::count() const {
  std::int64_t c = 1;
  for (auto v : n) c *= v;
  return c;
}

std::int64_t Box::index(const std::vector<std::int64_t>& g) const {
  std::int64_t at = 0;
  for (std::size_t a = 0; a < n.size(); ++a) at = at * n[a] + (g[a] - lo[a]);
  return at;
}

std::ostream& operator<<(std::ostream& os, const Box& b) {
  os << "[";
  for (std::size_t a = 0; a < b.n.size(); ++a) os << (a ? ", " : "") << b.lo[a] << ":" << b.lo[a] + b.n[a];
  return os << "]";
}

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

unsigned flags_of(fft::Effort e) {
  switch (e) {
    case fft::Effort::Estimate: return FFTW_ESTIMATE;
    case fft::Effort::Measure: return FFTW_MEASURE;
    case fft::Effort::Patient: return FFTW_PATIENT;
    case fft::Effort::Exhaustive: return FFTW_EXHAUSTIVE;
  }
  return FFTW_ESTIMATE;
}

// C-order strides of a local block.
std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& n) {
  std::vector<std::int64_t> s(n.size(), 1);
  for (std::size_t a = n.size(); a-- > 1;) s[a - 1] = s[a] * n[a];
  return s;
}

std::int64_t product(const std::vector<std::int64_t>& n, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t a = from; a < to; ++a) p *= n[a];
  return p;
}

// [A][S][B][R] -> [A][B][S][R] (R contiguous bytes): moves the axes between the two of an
// exchange out of the way of the pencil transpose.
void swap_blocks(unsigned char* dst, const unsigned char* src, std::int64_t A, std::int64_t S, std::int64_t B,
                 std::int64_t R) {
  const auto bytes = static_cast<std::size_t>(R);
  for (std::int64_t a = 0; a < A; ++a)
    for (std::int64_t s = 0; s < S; ++s)
      for (std::int64_t b = 0; b < B; ++b) std::memcpy(dst + ((a * B + b) * S + s) * R, src + ((a * S + s) * B + b) * R, bytes);
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

struct Free {
  void operator()(void* p) const { fftw_free(p); }
};
using Bytes = std::unique_ptr<unsigned char, Free>;

template <typename T>
struct Destroy {
  void operator()(typename fft::FftwApi<T>::plan p) const {
    if (p) fft::FftwApi<T>::destroy(p);
  }
};
template <typename T>
using FftwPlan = std::unique_ptr<std::remove_pointer_t<typename fft::FftwApi<T>::plan>, Destroy<T>>;

// The FFTW plans of one local step in one precision. real_r2r: the r2r axes of the r2c
// step, on the real input before the r2c; r2r: the r2r axes of any other step, on the work
// buffer (real elements, or complex ones part by part).
template <typename T>
struct Fft {
  FftwPlan<T> real_r2r_fwd, real_r2r_bwd, r2c, c2r, fwd, bwd, r2r_fwd, r2r_bwd;
};

}  // namespace

struct Plan::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  std::vector<std::int64_t> shape;
  std::vector<int> axes, grid, out_grid;
  std::vector<fft::AxisKind> kinds;     // per entry of axes
  std::vector<fft::AxisKind> axis_kind;  // per axis of the array (periodic when not listed)
  int half_axis = -1;                    // the r2c axis; -1: none (c2c, or a real spectrum)
  Options opt;
  detail::Schedule sch;
  std::vector<int> coords;
  std::vector<Box> box;  // this rank's box at each stage
  double scale_fwd = 1, scale_bwd = 1;

  struct Xchg {
    std::unique_ptr<fft::Pencils> pen;
    fft::Pencil side_before{}, side_after{};
    std::int64_t A = 1, B = 1, S[2] = {0, 0}, R[2] = {0, 0};  // [0]: before, [1]: after; R in bytes
    std::size_t elem = 0;
  };
  std::vector<Fft<double>> fd;
  std::vector<Fft<float>> ff;
  std::vector<Xchg> xs;
  Bytes real;     // the real input of a halving plan (stage 0)
  Bytes work[2];  // every other stage
  std::size_t work_bytes = 0, real_bytes = 0;

  ~Impl() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  bool single() const { return opt.precision == fft::Precision::Single; }
  bool halving() const { return half_axis >= 0; }
  bool real_spectrum() const { return opt.kind == Kind::R2C && half_axis < 0; }
  std::size_t real_size() const { return single() ? sizeof(float) : sizeof(double); }
  // Bytes per element at stage k: complex except the real input of a halving plan and
  // every stage of a real spectrum.
  std::size_t esize(std::size_t k) const {
    const bool complex_elems = opt.kind == Kind::C2C || (halving() && k > 0);
    return real_size() * (complex_elems ? 2 : 1);
  }
  template <typename T>
  std::vector<Fft<T>>& ffts() {
    if constexpr (std::is_same_v<T, float>)
      return ff;
    else
      return fd;
  }
  template <typename T>
  const std::vector<Fft<T>>& ffts() const {
    return const_cast<Impl*>(this)->ffts<T>();
  }

  template <typename T>
  void plan_fft(std::size_t k);
  void plan_exchange(std::size_t k);
  void exchange(std::size_t k, bool forward, int& cur) const;
  template <typename T>
  void run_forward(const void* in, void* out) const;
  template <typename T>
  void run_backward(const void* in, void* out) const;
};

template <typename T>
void Plan::Impl::plan_fft(std::size_t k) {
  using Api = fft::FftwApi<T>;
  using iodim = typename Api::iodim;
  const detail::Step& st = sch.step[k];
  const Box& bin = box[k];  // before: real on the r2c axis when st.r2c
  const Box& bout = box[k + 1];
  const auto ci = strides_of(bin.n), co = strides_of(bout.n);
  const unsigned flags = flags_of(opt.effort);
  const int nd = static_cast<int>(shape.size());
  // The loop over every axis not in `skip`: extents n, strides times `mult`.
  auto howmany = [&](const std::vector<int>& skip, const std::vector<std::int64_t>& n,
                     const std::vector<std::int64_t>& is, const std::vector<std::int64_t>& os, std::int64_t mult) {
    std::vector<iodim> h;
    for (int a = 0; a < nd; ++a)
      if (std::find(skip.begin(), skip.end(), a) == skip.end()) h.push_back({n[a], is[a] * mult, os[a] * mult});
    return h;
  };
  auto fail = [](const std::string& what, const std::vector<int>& ax) {
    throw Error("nd plan: FFTW could not plan the " + what + " of axes " + join(ax, ", "), ErrorCode::Internal);
  };
  // An r2r plan in place over `ax` on data of extents n (C order), in its forward kinds or
  // their inverses; complex elements: both parts (strides doubled, a loop of 2 over them).
  auto r2r = [&](const std::vector<int>& ax, const std::vector<std::int64_t>& n, T* data, bool complex_elems,
                 bool forward) {
    const auto s = strides_of(n);
    const std::int64_t m = complex_elems ? 2 : 1;
    std::vector<iodim> d;
    std::vector<fftw_r2r_kind> kd;
    for (int a : ax) {
      d.push_back({n[a], s[a] * m, s[a] * m});
      const fft::AxisKind kk = forward ? axis_kind[a] : fft::inverse(axis_kind[a]);
      kd.push_back(static_cast<fftw_r2r_kind>(fft::fftw_r2r_kind_of(kk)));
    }
    auto h = howmany(ax, n, s, s, m);
    if (complex_elems) h.push_back({2, 1, 1});
    FftwPlan<T> p(Api::r2r(static_cast<int>(d.size()), d.data(), static_cast<int>(h.size()), h.data(), data, data,
                           kd.data(), flags));
    if (!p) fail("r2r transform", ax);
    return p;
  };
  std::vector<int> periodic, sines;
  for (std::size_t i = st.r2c ? 1 : 0; i < st.axes.size(); ++i)
    (fft::is_r2r(axis_kind[st.axes[i]]) ? sines : periodic).push_back(st.axes[i]);
  Fft<T> f;
  T* real_in = reinterpret_cast<T*>(real.get());
  T* w = reinterpret_cast<T*>(work[0].get());
  auto* wc = reinterpret_cast<typename Api::cplx*>(work[0].get());
  if (st.r2c) {
    if (!sines.empty()) {  // the r2r axes of this step on the real input: half the work of after
      f.real_r2r_fwd = r2r(sines, bin.n, real_in, false, true);
      f.real_r2r_bwd = r2r(sines, bin.n, real_in, false, false);
      sines.clear();
    }
    // One FFTW r2c over the halved axis and this step's periodic axes together (the halved
    // one last, as FFTW's r2c takes it): FFTW's multi-dimensional r2c beats an r2c followed
    // by a strided c2c (docs/performance.md "N-D plans").
    std::vector<int> ax(periodic);
    ax.push_back(st.axes[0]);
    std::vector<iodim> d, b;
    for (int a : ax) {
      d.push_back({bin.n[a], ci[a], co[a]});
      b.push_back({bin.n[a], co[a], ci[a]});
    }
    auto h = howmany(ax, bout.n, ci, co, 1);
    f.r2c.reset(Api::r2c(static_cast<int>(d.size()), d.data(), static_cast<int>(h.size()), h.data(), real_in, wc, flags));
    auto hb = howmany(ax, bout.n, co, ci, 1);
    f.c2r.reset(Api::c2r(static_cast<int>(b.size()), b.data(), static_cast<int>(hb.size()), hb.data(), wc, real_in, flags));
    if (!f.r2c || !f.c2r) fail("r2c transform", ax);
    periodic.clear();
  }
  if (!periodic.empty()) {
    std::vector<iodim> d;
    for (int a : periodic) d.push_back({bout.n[a], co[a], co[a]});
    auto h = howmany(periodic, bout.n, co, co, 1);
    f.fwd.reset(Api::dft(static_cast<int>(d.size()), d.data(), static_cast<int>(h.size()), h.data(), wc, wc,
                         FFTW_FORWARD, flags));
    f.bwd.reset(Api::dft(static_cast<int>(d.size()), d.data(), static_cast<int>(h.size()), h.data(), wc, wc,
                         FFTW_BACKWARD, flags));
    if (!f.fwd || !f.bwd) fail("c2c transform", periodic);
  }
  if (!sines.empty()) {
    const bool complex_elems = esize(k + 1) != real_size();
    f.r2r_fwd = r2r(sines, bout.n, w, complex_elems, true);
    f.r2r_bwd = r2r(sines, bout.n, w, complex_elems, false);
  }
  ffts<T>()[k] = std::move(f);
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
  Xchg x;
  x.A = product(b0.n, 0, static_cast<std::size_t>(s));
  x.B = product(b0.n, static_cast<std::size_t>(s) + 1, static_cast<std::size_t>(f));
  const std::int64_t C = product(b0.n, static_cast<std::size_t>(f) + 1, b0.n.size());
  x.S[0] = b0.n[s];
  x.S[1] = b1.n[s];
  x.R[0] = b0.n[f] * C * e;
  x.R[1] = b1.n[f] * C * e;
  x.elem = static_cast<std::size_t>(C * e);
  // Pencils' X-pencil (x whole, y split) is "the slower axis s split"; its Y-pencil "f split".
  x.side_before = st.from == s ? fft::Pencil::X : fft::Pencil::Y;
  x.side_after = st.from == s ? fft::Pencil::Y : fft::Pencil::X;
  fft::PencilOptions po;
  po.m1 = sch.ranks[g];
  po.m2 = 1;
  std::exception_ptr failure;
  try {
    po.transport(opt.transport);
    x.pen = std::make_unique<fft::Pencils>(sub, std::array<std::int64_t, 3>{before.ext[f], before.ext[s], x.A * x.B},
                                           po);
  } catch (...) {
    failure = std::current_exception();
  }
  MPI_Comm_free(&sub);
  if (failure) std::rethrow_exception(failure);
  xs[k] = std::move(x);
}

void Plan::Impl::exchange(std::size_t k, bool forward, int& cur) const {
  const Xchg& x = xs[k];
  const int from = forward ? 0 : 1, to = 1 - from;
  const fft::Pencil p_from = forward ? x.side_before : x.side_after;
  const fft::Pencil p_to = forward ? x.side_after : x.side_before;
  unsigned char* a = work[cur].get();
  unsigned char* b = work[1 - cur].get();
  if (x.B > 1) {
    swap_blocks(b, a, x.A, x.S[from], x.B, x.R[from]);
    x.pen->transpose_bytes(p_from, p_to, b, work_bytes, a, work_bytes, x.elem);
    swap_blocks(b, a, x.A, x.B, x.S[to], x.R[to]);
  } else {
    x.pen->transpose_bytes(p_from, p_to, a, work_bytes, b, work_bytes, x.elem);
  }
  cur = 1 - cur;
}

// The output copy: scaled, or a plain copy when the scale is 1.
template <typename T>
void scale_copy(T* o, const T* src, std::size_t n, double scale) {
  if (scale == 1) {
    if (o != src) std::memcpy(o, src, n * sizeof(T));
    return;
  }
  const auto s = static_cast<T>(scale);
  for (std::size_t i = 0; i < n; ++i) o[i] = src[i] * s;
}

template <typename T>
void Plan::Impl::run_forward(const void* in, void* out) const {
  using Api = fft::FftwApi<T>;
  int cur = 0;
  T* r = reinterpret_cast<T*>(real.get());
  // The r2c reads the caller's array itself when nothing runs before it in place (FFTW's
  // r2c preserves its input) and FFTW's alignment allows: one copy of the input saved.
  T* user = const_cast<T*>(static_cast<const T*>(in));
  const bool direct = halving() && !ffts<T>()[0].real_r2r_fwd && Api::alignment_of(user) == Api::alignment_of(r);
  const auto n0 = static_cast<std::size_t>(box.front().count());
  if (!direct) std::memcpy(halving() ? real.get() : work[0].get(), in, n0 * esize(0));
  for (std::size_t k = 0; k < sch.step.size(); ++k) {
    if (!sch.step[k].fft) {
      exchange(k, true, cur);
      continue;
    }
    const Fft<T>& f = ffts<T>()[k];
    T* w = reinterpret_cast<T*>(work[cur].get());
    auto* wc = reinterpret_cast<typename Api::cplx*>(w);
    if (f.real_r2r_fwd) Api::exec_r2r(f.real_r2r_fwd.get(), r, r);
    if (f.r2c) Api::exec_r2c(f.r2c.get(), direct && k == 0 ? user : r, wc);
    if (f.fwd) Api::exec_dft(f.fwd.get(), wc, wc);
    if (f.r2r_fwd) Api::exec_r2r(f.r2r_fwd.get(), w, w);
  }
  const std::size_t n = static_cast<std::size_t>(box.back().count()) * (esize(box.size() - 1) / sizeof(T));
  scale_copy(static_cast<T*>(out), reinterpret_cast<const T*>(work[cur].get()), n, scale_fwd);
}

template <typename T>
void Plan::Impl::run_backward(const void* in, void* out) const {
  using Api = fft::FftwApi<T>;
  int cur = 0;
  std::memcpy(work[0].get(), in, static_cast<std::size_t>(box.back().count()) * esize(box.size() - 1));
  T* r = reinterpret_cast<T*>(real.get());
  // Unscaled, the c2r writes the caller's array itself (one copy of the output saved).
  T* user = static_cast<T*>(out);
  const bool direct = halving() && scale_bwd == 1 && !ffts<T>()[0].real_r2r_bwd &&
                      Api::alignment_of(user) == Api::alignment_of(r);
  for (std::size_t k = sch.step.size(); k-- > 0;) {
    if (!sch.step[k].fft) {
      exchange(k, false, cur);
      continue;
    }
    const Fft<T>& f = ffts<T>()[k];
    T* w = reinterpret_cast<T*>(work[cur].get());
    auto* wc = reinterpret_cast<typename Api::cplx*>(w);
    if (f.r2r_bwd) Api::exec_r2r(f.r2r_bwd.get(), w, w);
    if (f.bwd) Api::exec_dft(f.bwd.get(), wc, wc);
    if (f.c2r) Api::exec_c2r(f.c2r.get(), wc, direct ? user : r);
    if (f.real_r2r_bwd) Api::exec_r2r(f.real_r2r_bwd.get(), r, r);
  }
  if (direct) return;
  const T* src = halving() ? r : reinterpret_cast<const T*>(work[cur].get());
  const std::size_t n = static_cast<std::size_t>(box.front().count()) * (esize(0) / sizeof(T));
  scale_copy(user, src, n, scale_bwd);
}

Plan::Plan(MPI_Comm comm, std::vector<std::int64_t> shape) : Plan(comm, shape, [&] {
  std::vector<int> all(shape.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}()) {}

Plan::Plan(MPI_Comm comm, std::vector<std::int64_t> shape, std::vector<int> axes, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  check_mpi_running("nd::Plan");
  Impl& m = *impl_;
  check_mpi(MPI_Comm_dup(comm, &m.comm), "MPI_Comm_dup");
  MPI_Comm_rank(m.comm, &m.rank);
  MPI_Comm_size(m.comm, &m.size);
  m.opt = options;
  check_same(m.comm, "nd plan",
             {{"shape", join(shape, "x")},
              {"axes", join(axes, ",")},
              {"kind", name(options.kind)},
              {"precision", fft::name(options.precision)},
              {"kinds", join_kinds(options.kinds)},
              {"norm", std::to_string(static_cast<int>(options.norm))},
              {"effort", std::to_string(static_cast<int>(options.effort))},
              {"grid", join(options.grid, "x")},
              {"transport", options.transport}});
  // Every check below depends only on what the ranks just agreed on: the same on every rank.
  std::string err = check_axes(shape, axes);
  const int nd = static_cast<int>(shape.size());
  std::vector<int> sched_axes = axes;  // the halved axis last, as the schedule takes it
  if (err.empty()) {
    m.kinds = options.kinds.empty() ? std::vector<fft::AxisKind>(axes.size(), fft::AxisKind::Periodic) : options.kinds;
    err = check_kinds(shape, axes, m.kinds);
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
    if (m.halving()) {
      sched_axes.erase(std::find(sched_axes.begin(), sched_axes.end(), m.half_axis));
      sched_axes.push_back(m.half_axis);
    }
    if (options.grid.empty()) {
      std::string why;
      m.grid = detail::choose_grid(shape, sched_axes, m.halving(), m.size, why);
      if (m.grid.empty())
        err = "cannot decompose shape " + join(shape, "x") + " over " + std::to_string(m.size) +
              " ranks with axes (" + join(axes, ", ") + "): " + why;
    } else if (static_cast<int>(options.grid.size()) != nd) {
      err = "grid has " + std::to_string(options.grid.size()) + " entries for a " + std::to_string(nd) + "-D array";
    } else {
      long long p = 1;
      for (int g : options.grid) {
        if (g < 1) err = "grid " + join(options.grid, "x") + " has an entry < 1";
        p *= g;
      }
      if (err.empty() && p != m.size)
        err = "grid " + join(options.grid, "x") + " has " + std::to_string(p) + " ranks, the communicator " +
              std::to_string(m.size);
      m.grid = options.grid;
    }
  }
  if (err.empty()) {
    const std::string e = detail::build_schedule(shape, sched_axes, m.halving(), m.grid, m.sch);
    if (!e.empty()) err = "cannot decompose shape " + join(shape, "x") + " over grid " + join(m.grid, "x") + ": " + e;
  }
  agree_message(m.comm, err);
  m.shape = shape;
  m.axes = axes;
  m.out_grid = m.sch.grid(m.sch.stage.size() - 1);
  m.coords = detail::coords_of(m.sch.ranks, m.rank);
  for (const auto& st : m.sch.stage) m.box.push_back(detail::box_at(st, m.sch.ranks, m.coords));
  double n = 1;  // the product of the logical sizes (n for periodic axes)
  for (int a : axes) n *= fft::logical_size(m.axis_kind[a], shape[a]);
  switch (options.norm) {
    case fft::Norm::None: break;
    case fft::Norm::Backward: m.scale_bwd = 1 / n; break;
    case fft::Norm::Forward: m.scale_fwd = 1 / n; break;
    case fft::Norm::Ortho: m.scale_fwd = m.scale_bwd = 1 / std::sqrt(n); break;
  }
  m.fd.resize(m.sch.step.size());
  m.ff.resize(m.sch.step.size());
  m.xs.resize(m.sch.step.size());
  agree(m.comm, [&] {
    fft::PencilOptions().transport(m.opt.transport);  // a bad name fails here, exchanges or not
    std::size_t w = 16;
    for (std::size_t k = m.halving() ? 1 : 0; k < m.box.size(); ++k)
      w = std::max(w, static_cast<std::size_t>(m.box[k].count()) * m.esize(k));
    m.work_bytes = w;
    m.real_bytes = std::max<std::size_t>(16, static_cast<std::size_t>(m.box.front().count()) * m.real_size());
    for (auto& b : m.work) {
      b.reset(static_cast<unsigned char*>(fftw_malloc(m.work_bytes)));
      if (!b) throw Error("nd plan: cannot allocate " + std::to_string(m.work_bytes) + " bytes", ErrorCode::OutOfMemory);
    }
    if (m.halving()) {
      m.real.reset(static_cast<unsigned char*>(fftw_malloc(m.real_bytes)));
      if (!m.real) throw Error("nd plan: cannot allocate the real buffer", ErrorCode::OutOfMemory);
    }
    for (std::size_t k = 0; k < m.sch.step.size(); ++k)
      if (m.sch.step[k].fft) {
        if (m.single())
          m.plan_fft<float>(k);
        else
          m.plan_fft<double>(k);
      }
  });
  // Exchanges: collective over each grid dimension's ranks (every rank makes every one).
  for (std::size_t k = 0; k < m.sch.step.size(); ++k)
    if (!m.sch.step[k].fft) m.plan_exchange(k);
}

Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

const std::vector<std::int64_t>& Plan::shape() const { return impl_->shape; }
std::vector<std::int64_t> Plan::out_shape() const { return impl_->sch.stage.back().ext; }
const std::vector<int>& Plan::axes() const { return impl_->axes; }
Kind Plan::kind() const { return impl_->opt.kind; }
fft::Precision Plan::precision() const { return impl_->opt.precision; }
const std::vector<fft::AxisKind>& Plan::kinds() const { return impl_->kinds; }
bool Plan::real_spectrum() const { return impl_->real_spectrum(); }
const std::vector<int>& Plan::grid() const { return impl_->grid; }
const std::vector<int>& Plan::out_grid() const { return impl_->out_grid; }
int Plan::exchanges() const { return impl_->sch.exchanges(); }
int Plan::size() const { return impl_->size; }
int Plan::rank() const { return impl_->rank; }
const Box& Plan::in_box() const { return impl_->box.front(); }
const Box& Plan::out_box() const { return impl_->box.back(); }
Box Plan::in_box_of_rank(int r) const {
  if (r < 0 || r >= impl_->size) throw Error("nd plan: rank " + std::to_string(r) + " is out of range");
  return detail::box_at(impl_->sch.stage.front(), impl_->sch.ranks, detail::coords_of(impl_->sch.ranks, r));
}
Box Plan::out_box_of_rank(int r) const {
  if (r < 0 || r >= impl_->size) throw Error("nd plan: rank " + std::to_string(r) + " is out of range");
  return detail::box_at(impl_->sch.stage.back(), impl_->sch.ranks, detail::coords_of(impl_->sch.ranks, r));
}
std::size_t Plan::in_count() const { return static_cast<std::size_t>(in_box().count()); }
std::size_t Plan::out_count() const { return static_cast<std::size_t>(out_box().count()); }

namespace {

std::string short_array(const char* which, std::size_t have, std::size_t need) {
  if (have >= need) return "";
  return std::string("nd plan: the ") + which + " array has " + std::to_string(have) + " elements, this rank's box needs " +
         std::to_string(need);
}

// The call's element types against the plan's: kind (r2c/c2c), precision, and whether the
// spectrum is real; throws on every rank alike (all depend only on the plan and the call).
void need_types(const Plan& p, Kind k, fft::Precision prec, bool real_out, const char* call) {
  std::string what;
  if (p.kind() != k) what = std::string(name(k)) + " arrays on a " + name(p.kind()) + " plan";
  else if (p.precision() != prec)
    what = std::string(fft::name(prec)) + " arrays on a " + fft::name(p.precision()) + " precision plan";
  else if (p.real_spectrum() != real_out)
    what = p.real_spectrum() ? std::string("a complex spectrum on a plan whose spectrum is real (every axis r2r)")
                             : std::string("a real spectrum on a plan whose spectrum is complex");
  if (!what.empty()) throw Error(std::string("nd plan: ") + call + " with " + what);
}

}  // namespace

// One body for the twelve typed calls: check the types and the counts on every rank, then run.
void Plan::call(bool fwd, Kind k, bool single, bool real_out, const void* in, std::size_t in_n, void* out,
                std::size_t out_n) const {
  const fft::Precision prec = single ? fft::Precision::Single : fft::Precision::Double;
  need_types(*this, k, prec, real_out, fwd ? "forward" : "backward");
  std::string e = short_array("input", in_n, fwd ? in_count() : out_count());
  if (e.empty()) e = short_array("output", out_n, fwd ? out_count() : in_count());
  agree_call(impl_->comm, "nd plan", fwd ? "forward" : "backward", e);
  if (single)
    fwd ? impl_->run_forward<float>(in, out) : impl_->run_backward<float>(in, out);
  else
    fwd ? impl_->run_forward<double>(in, out) : impl_->run_backward<double>(in, out);
}

using cplxf = std::complex<float>;

void Plan::forward(const double* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  call(true, Kind::R2C, false, false, in, in_n, out, out_n);
}
void Plan::forward(const cplx* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  call(true, Kind::C2C, false, false, in, in_n, out, out_n);
}
void Plan::backward(const cplx* in, std::size_t in_n, double* out, std::size_t out_n) const {
  call(false, Kind::R2C, false, false, in, in_n, out, out_n);
}
void Plan::backward(const cplx* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  call(false, Kind::C2C, false, false, in, in_n, out, out_n);
}
void Plan::forward(const double* in, std::size_t in_n, double* out, std::size_t out_n) const {
  call(true, Kind::R2C, false, true, in, in_n, out, out_n);
}
void Plan::backward(const double* in, std::size_t in_n, double* out, std::size_t out_n) const {
  call(false, Kind::R2C, false, true, in, in_n, out, out_n);
}
void Plan::forward(const float* in, std::size_t in_n, cplxf* out, std::size_t out_n) const {
  call(true, Kind::R2C, true, false, in, in_n, out, out_n);
}
void Plan::forward(const cplxf* in, std::size_t in_n, cplxf* out, std::size_t out_n) const {
  call(true, Kind::C2C, true, false, in, in_n, out, out_n);
}
void Plan::backward(const cplxf* in, std::size_t in_n, float* out, std::size_t out_n) const {
  call(false, Kind::R2C, true, false, in, in_n, out, out_n);
}
void Plan::backward(const cplxf* in, std::size_t in_n, cplxf* out, std::size_t out_n) const {
  call(false, Kind::C2C, true, false, in, in_n, out, out_n);
}
void Plan::forward(const float* in, std::size_t in_n, float* out, std::size_t out_n) const {
  call(true, Kind::R2C, true, true, in, in_n, out, out_n);
}
void Plan::backward(const float* in, std::size_t in_n, float* out, std::size_t out_n) const {
  call(false, Kind::R2C, true, true, in, in_n, out, out_n);
}

std::string Plan::describe() const {
  const Impl& m = *impl_;
  std::ostringstream os;
  os << "nd " << name(m.opt.kind) << (m.single() ? " single" : "") << " (" << join(m.shape, ", ") << ") axes ("
     << join(m.axes, ", ") << ")";
  if (std::any_of(m.kinds.begin(), m.kinds.end(), [](fft::AxisKind k) { return fft::is_r2r(k); }))
    os << " kinds (" << join_kinds(m.kinds) << ")";
  os << " grid "
     << join(m.grid, "x") << " -> " << join(m.out_grid, "x") << ", " << exchanges() << " exchanges: ";
  for (std::size_t k = 0; k < m.sch.step.size(); ++k) {
    const auto& s = m.sch.step[k];
    os << (k ? ", " : "");
    if (s.fft)
      os << (s.r2c ? "r2c+fft(" : "fft(") << join(s.axes, ",") << ")";  // r2r axes among them
    else
      os << "exchange " << s.from << "->" << s.to << " over " << m.sch.ranks[static_cast<std::size_t>(s.g)]
         << " ranks (" << m.opt.transport << ")";
  }
  return os.str();
}

}  // namespace nbfft::nd
