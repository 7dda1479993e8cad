// nbfft::nd::Plan: the schedule of nd/schedule.hpp run with FFTW guru plans over the whole
// axes and nbfft::fft::Pencils transposes over one grid dimension's ranks per exchange.
#include "nbfft/nd/plan.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/transpose.hpp"
#include "nd/schedule.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>

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

// [A][S][B][R] -> [A][B][S][R] (R contiguous elements): moves the axes between the two of
// an exchange out of the way of the pencil transpose.
void swap_blocks(cplx* dst, const cplx* src, std::int64_t A, std::int64_t S, std::int64_t B, std::int64_t R) {
  const std::size_t bytes = sizeof(cplx) * static_cast<std::size_t>(R);
  for (std::int64_t a = 0; a < A; ++a)
    for (std::int64_t s = 0; s < S; ++s)
      for (std::int64_t b = 0; b < B; ++b)
        std::memcpy(dst + ((a * B + b) * S + s) * R, src + ((a * S + s) * B + b) * R, bytes);
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

struct Destroy {
  void operator()(fftw_plan p) const {
    if (p) fftw_destroy_plan(p);
  }
};
using FftwPlan = std::unique_ptr<std::remove_pointer_t<fftw_plan>, Destroy>;
struct Free {
  void operator()(void* p) const { fftw_free(p); }
};

}  // namespace

struct Plan::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  std::vector<std::int64_t> shape;
  std::vector<int> axes, grid, out_grid;
  Options opt;
  detail::Schedule sch;
  std::vector<int> coords;
  std::vector<Box> box;  // this rank's box at each stage
  double scale_fwd = 1, scale_bwd = 1;

  struct Fft {
    FftwPlan r2c, c2r, fwd, bwd;
  };
  struct Xchg {
    std::unique_ptr<fft::Pencils> pen;
    fft::Pencil side_before{}, side_after{};
    std::int64_t A = 1, B = 1, S[2] = {0, 0}, R[2] = {0, 0};  // [0]: before, [1]: after
    std::size_t elem = 0;
  };
  std::vector<Fft> ffts;
  std::vector<Xchg> xs;
  std::unique_ptr<double, Free> real;
  std::unique_ptr<cplx, Free> work[2];
  std::size_t work_elems = 0, real_elems = 0;

  ~Impl() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  bool r2c() const { return opt.kind == Kind::R2C; }

  void plan_fft(std::size_t k);
  void plan_exchange(std::size_t k);
  void exchange(std::size_t k, bool forward, int& cur) const;
  void run_forward(const void* in, cplx* out) const;
  void run_backward(const cplx* in, void* out) const;
};

void Plan::Impl::plan_fft(std::size_t k) {
  const detail::Step& st = sch.step[k];
  const Box& bin = box[k];  // before: real on the r2c axis when st.r2c
  const Box& bout = box[k + 1];
  const auto ci = strides_of(bin.n), co = strides_of(bout.n);
  const unsigned flags = flags_of(opt.effort);
  const int nd = static_cast<int>(shape.size());
  auto howmany = [&](const std::vector<int>& skip, const std::vector<std::int64_t>& is,
                     const std::vector<std::int64_t>& os) {
    std::vector<fftw_iodim64> h;
    for (int a = 0; a < nd; ++a)
      if (std::find(skip.begin(), skip.end(), a) == skip.end()) h.push_back({bout.n[a], is[a], os[a]});
    return h;
  };
  Fft f;
  std::vector<int> c2c(st.axes.begin() + (st.r2c ? 1 : 0), st.axes.end());
  if (st.r2c) {
    const int a = st.axes[0];
    fftw_iodim64 d{bin.n[a], ci[a], co[a]};
    auto h = howmany({a}, ci, co);
    f.r2c.reset(fftw_plan_guru64_dft_r2c(1, &d, static_cast<int>(h.size()), h.data(), real.get(),
                                         reinterpret_cast<fftw_complex*>(work[0].get()), flags));
    fftw_iodim64 b{bin.n[a], co[a], ci[a]};
    auto hb = howmany({a}, co, ci);
    f.c2r.reset(fftw_plan_guru64_dft_c2r(1, &b, static_cast<int>(hb.size()), hb.data(),
                                         reinterpret_cast<fftw_complex*>(work[0].get()), real.get(), flags));
    if (!f.r2c || !f.c2r) throw Error("nd plan: FFTW could not plan the r2c transform of axis " + std::to_string(a),
                                      ErrorCode::Internal);
  }
  if (!c2c.empty()) {
    std::vector<fftw_iodim64> d;
    for (int a : c2c) d.push_back({bout.n[a], co[a], co[a]});
    auto h = howmany(c2c, co, co);
    auto* w = reinterpret_cast<fftw_complex*>(work[0].get());
    f.fwd.reset(fftw_plan_guru64_dft(static_cast<int>(d.size()), d.data(), static_cast<int>(h.size()), h.data(), w,
                                     w, FFTW_FORWARD, flags));
    f.bwd.reset(fftw_plan_guru64_dft(static_cast<int>(d.size()), d.data(), static_cast<int>(h.size()), h.data(), w,
                                     w, FFTW_BACKWARD, flags));
    if (!f.fwd || !f.bwd) throw Error("nd plan: FFTW could not plan the c2c transform of axes " + join(c2c, ", "),
                                      ErrorCode::Internal);
  }
  ffts[k] = std::move(f);
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
  Xchg x;
  x.A = product(b0.n, 0, static_cast<std::size_t>(s));
  x.B = product(b0.n, static_cast<std::size_t>(s) + 1, static_cast<std::size_t>(f));
  const std::int64_t C = product(b0.n, static_cast<std::size_t>(f) + 1, b0.n.size());
  x.S[0] = b0.n[s];
  x.S[1] = b1.n[s];
  x.R[0] = b0.n[f] * C;
  x.R[1] = b1.n[f] * C;
  x.elem = sizeof(cplx) * static_cast<std::size_t>(C);
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
  const std::size_t bytes = work_elems * sizeof(cplx);
  cplx* a = work[cur].get();
  cplx* b = work[1 - cur].get();
  if (x.B > 1) {
    swap_blocks(b, a, x.A, x.S[from], x.B, x.R[from]);
    x.pen->transpose_bytes(p_from, p_to, b, bytes, a, bytes, x.elem);
    swap_blocks(b, a, x.A, x.B, x.S[to], x.R[to]);
  } else {
    x.pen->transpose_bytes(p_from, p_to, a, bytes, b, bytes, x.elem);
  }
  cur = 1 - cur;
}

void Plan::Impl::run_forward(const void* in, cplx* out) const {
  int cur = 0;
  if (r2c())
    std::memcpy(real.get(), in, sizeof(double) * static_cast<std::size_t>(box.front().count()));
  else
    std::memcpy(work[0].get(), in, sizeof(cplx) * static_cast<std::size_t>(box.front().count()));
  for (std::size_t k = 0; k < sch.step.size(); ++k) {
    if (!sch.step[k].fft) {
      exchange(k, true, cur);
      continue;
    }
    auto* w = reinterpret_cast<fftw_complex*>(work[cur].get());
    if (ffts[k].r2c) fftw_execute_dft_r2c(ffts[k].r2c.get(), real.get(), w);
    if (ffts[k].fwd) fftw_execute_dft(ffts[k].fwd.get(), w, w);
  }
  const cplx* w = work[cur].get();
  const std::int64_t n = box.back().count();
  for (std::int64_t i = 0; i < n; ++i) out[i] = w[i] * scale_fwd;
}

void Plan::Impl::run_backward(const cplx* in, void* out) const {
  int cur = 0;
  std::memcpy(work[0].get(), in, sizeof(cplx) * static_cast<std::size_t>(box.back().count()));
  for (std::size_t k = sch.step.size(); k-- > 0;) {
    if (!sch.step[k].fft) {
      exchange(k, false, cur);
      continue;
    }
    auto* w = reinterpret_cast<fftw_complex*>(work[cur].get());
    if (ffts[k].bwd) fftw_execute_dft(ffts[k].bwd.get(), w, w);
    if (ffts[k].c2r) fftw_execute_dft_c2r(ffts[k].c2r.get(), w, real.get());
  }
  const std::int64_t n = box.front().count();
  if (r2c()) {
    auto* o = static_cast<double*>(out);
    for (std::int64_t i = 0; i < n; ++i) o[i] = real.get()[i] * scale_bwd;
  } else {
    auto* o = static_cast<cplx*>(out);
    const cplx* w = work[cur].get();
    for (std::int64_t i = 0; i < n; ++i) o[i] = w[i] * scale_bwd;
  }
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
              {"norm", std::to_string(static_cast<int>(options.norm))},
              {"effort", std::to_string(static_cast<int>(options.effort))},
              {"grid", join(options.grid, "x")},
              {"transport", options.transport}});
  // Every check below depends only on what the ranks just agreed on: the same on every rank.
  std::string err = check_axes(shape, axes);
  const int nd = static_cast<int>(shape.size());
  if (err.empty()) {
    if (options.grid.empty()) {
      std::string why;
      m.grid = detail::choose_grid(shape, axes, options.kind == Kind::R2C, m.size, why);
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
    const std::string e = detail::build_schedule(shape, axes, options.kind == Kind::R2C, m.grid, m.sch);
    if (!e.empty()) err = "cannot decompose shape " + join(shape, "x") + " over grid " + join(m.grid, "x") + ": " + e;
  }
  agree_message(m.comm, err);
  m.shape = shape;
  m.axes = axes;
  m.out_grid = m.sch.grid(m.sch.stage.size() - 1);
  m.coords = detail::coords_of(m.sch.ranks, m.rank);
  for (const auto& st : m.sch.stage) m.box.push_back(detail::box_at(st, m.sch.ranks, m.coords));
  double n = 1;
  for (int a : axes) n *= static_cast<double>(shape[a]);
  switch (options.norm) {
    case fft::Norm::None: break;
    case fft::Norm::Backward: m.scale_bwd = 1 / n; break;
    case fft::Norm::Forward: m.scale_fwd = 1 / n; break;
    case fft::Norm::Ortho: m.scale_fwd = m.scale_bwd = 1 / std::sqrt(n); break;
  }
  m.ffts.resize(m.sch.step.size());
  m.xs.resize(m.sch.step.size());
  agree(m.comm, [&] {
    fft::PencilOptions().transport(m.opt.transport);  // a bad name fails here, exchanges or not
    std::int64_t w = 1;
    for (std::size_t k = 0; k < m.box.size(); ++k)
      if (k > 0 || !m.r2c()) w = std::max(w, m.box[k].count());
    m.work_elems = static_cast<std::size_t>(w);
    m.real_elems = static_cast<std::size_t>(std::max<std::int64_t>(1, m.box.front().count()));
    for (auto& b : m.work) {
      b.reset(static_cast<cplx*>(fftw_malloc(sizeof(cplx) * m.work_elems)));
      if (!b) throw Error("nd plan: cannot allocate " + std::to_string(m.work_elems) + " complex", ErrorCode::OutOfMemory);
    }
    m.real.reset(static_cast<double*>(fftw_malloc(sizeof(double) * m.real_elems)));
    if (!m.real) throw Error("nd plan: cannot allocate the real buffer", ErrorCode::OutOfMemory);
    for (std::size_t k = 0; k < m.sch.step.size(); ++k)
      if (m.sch.step[k].fft) m.plan_fft(k);
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

void need_kind(const Plan& p, Kind k, const char* call) {
  if (p.kind() != k)
    throw Error(std::string("nd plan: ") + call + " with " + name(k) + " arrays on a " + name(p.kind()) + " plan");
}

}  // namespace

void Plan::forward(const double* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  need_kind(*this, Kind::R2C, "forward");
  std::string e = short_array("input", in_n, in_count());
  if (e.empty()) e = short_array("output", out_n, out_count());
  agree_call(impl_->comm, "nd plan", "forward", e);
  impl_->run_forward(in, out);
}

void Plan::forward(const cplx* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  need_kind(*this, Kind::C2C, "forward");
  std::string e = short_array("input", in_n, in_count());
  if (e.empty()) e = short_array("output", out_n, out_count());
  agree_call(impl_->comm, "nd plan", "forward", e);
  impl_->run_forward(in, out);
}

void Plan::backward(const cplx* in, std::size_t in_n, double* out, std::size_t out_n) const {
  need_kind(*this, Kind::R2C, "backward");
  std::string e = short_array("input", in_n, out_count());
  if (e.empty()) e = short_array("output", out_n, in_count());
  agree_call(impl_->comm, "nd plan", "backward", e);
  impl_->run_backward(in, out);
}

void Plan::backward(const cplx* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  need_kind(*this, Kind::C2C, "backward");
  std::string e = short_array("input", in_n, out_count());
  if (e.empty()) e = short_array("output", out_n, in_count());
  agree_call(impl_->comm, "nd plan", "backward", e);
  impl_->run_backward(in, out);
}

std::string Plan::describe() const {
  const Impl& m = *impl_;
  std::ostringstream os;
  os << "nd " << name(m.opt.kind) << " (" << join(m.shape, ", ") << ") axes (" << join(m.axes, ", ") << ") grid "
     << join(m.grid, "x") << " -> " << join(m.out_grid, "x") << ", " << exchanges() << " exchanges: ";
  for (std::size_t k = 0; k < m.sch.step.size(); ++k) {
    const auto& s = m.sch.step[k];
    os << (k ? ", " : "");
    if (s.fft)
      os << (s.r2c ? "r2c+fft(" : "fft(") << join(s.axes, ",") << ")";
    else
      os << "exchange " << s.from << "->" << s.to << " over " << m.sch.ranks[static_cast<std::size_t>(s.g)]
         << " ranks (" << m.opt.transport << ")";
  }
  return os.str();
}

}  // namespace nbfft::nd
