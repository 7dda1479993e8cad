#include "nbfft/fft/plan.hpp"

#include "nbfft/coll/comm.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/fft/tune.hpp"
#include "nbfft/error.hpp"
#include "fft/memory_stats.hpp"
#include "fft/threads.hpp"
#include "fft/transform.hpp"
#include "fft/user_boxes.hpp"
#include "fft/user_layout.hpp"
#include "gpu/transform.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <sstream>
#include <cstdint>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace nbfft::fft {

namespace detail {
struct PlanRequest;  // a split-phase transform in flight (Plan::Pending's operation)
}  // namespace detail

// The plan: what was asked and resolved, and one Transform of the plan's precision with
// the workspaces made at construction (one, or two when fields pipeline). Nothing here
// changes after construction but the workspaces' contents.
struct Plan::Impl {
  // E: the planes' element type (complex; T for real data with every axis r2r).
  template <typename T, typename E = std::complex<T>>
  struct Typed {
    std::unique_ptr<const Transform<T, E>> tr;
    std::vector<std::unique_ptr<fft::Workspace<T, E>>> ws;
    std::string note;  // why a lean workspace was asked for and not made
    std::vector<fft::Workspace<T, E>*> ptrs() const {
      std::vector<fft::Workspace<T, E>*> p;
      for (const auto& w : ws) p.push_back(w.get());
      return p;
    }
  };
  detail::PlanCount counted;  // memory_stats(): how many plans are alive
  Options opt;
  Decomposition d;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate for argument checks
  std::variant<Typed<double>, Typed<float>, Typed<double, double>, Typed<float, float>> typed;
  // Set while a transform runs: the workspaces are shared, so a second concurrent call
  // (another thread) is refused instead of corrupting both results.
  mutable std::atomic<bool> busy{false};
  // Split-phase transforms in flight on this plan. Destroying the plan completes them
  // first (they use its transform, workspaces and communicators), like destroying a
  // Pending does; their Pending is inactive afterwards and says why.
  mutable std::mutex pending_mutex;
  mutable std::vector<detail::PlanRequest*> pending;
  std::shared_ptr<const TuneReport> tune_report;  // Options::tune: what the tuner tried
  // User boxes or the natural output order (fft/user_layout.hpp); null: the internal pencils.
  std::unique_ptr<const UserLayout> layout;
  std::unique_ptr<UserLayout::Buffers> layout_bufs;  // the plan's own calls (under busy)
  // Options::device other than Host: the device plan (gpu/transform.hpp) runs every
  // transform; `typed` then holds nothing. dev_out: its output box (order per output_order).
  std::unique_ptr<const gpu::DeviceTransform> device;
  Box3 dev_out;
  // The device plan's transforms: nv fields of device arrays, checked on every rank together
  // (check_device), run on the plan's own workspaces or on `work` (one field).
  // (problem: this call's own InvalidArgument, checked first.)
  void check_device(const char* what, const std::string& refused, std::size_t nv, const void* const* in,
                    std::size_t in_b, void* const* out, std::size_t out_b, std::size_t in_need, std::size_t out_need,
                    const std::string& problem = "") const;
  void run_device(Direction dir, const char* what, const std::string& refused, std::size_t nv, const void* const* in,
                  std::size_t in_b, void* const* out, std::size_t out_b, std::size_t in_need, std::size_t out_need,
                  Timings* t, gpu::DeviceWork* work = nullptr) const;
  // A split-phase transform on the device, into pr (Plan::start_bytes).
  void start_device(Direction dir, const char* what, const std::string& refused, const void* in, std::size_t in_b,
                    void* out, std::size_t out_b, std::size_t in_need, std::size_t out_need, Workspace& ws,
                    const Timings* t, detail::PlanRequest& pr) const;
  // Workspaces for the starts that bring none (start_bytes without one), made as needed:
  // the same number on every rank, the k-th of each rank's serving one transform together.
  // Last, so that they go before the transform and communicators they use.
  mutable std::mutex pool_mutex;
  mutable std::vector<std::unique_ptr<Workspace>> pool;
  bool reshapes() const { return layout && !layout->passes(); }
  void complete_pending(const char* why) const;
  // Runs the next phase of every other split-phase transform in flight on this plan that
  // this thread started and that goes in phases (user boxes that exchange): called by the
  // plan's collective split-phase calls, where every rank has the same transforms at the
  // same phases.
  void pump(const detail::PlanRequest* except) const;
  ~Impl() {
    complete_pending("the plan was destroyed (or assigned over) while this transform was in flight; its "
                     "destructor completed the transform");
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm);
  }
  template <typename F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), typed);
  }
};

namespace {

// Everything that must be the same on every rank for the ranks to run the same exchanges.
ConfigFields agreed_fields(const std::array<std::int64_t, 3>& n, const Options& o) {
  auto str = [](auto v) { return std::to_string(v); };
  ConfigFields f = {{"grid", str(n[0]) + "x" + str(n[1]) + "x" + str(n[2])}};
  for (auto& kv : option_values(o, [](const OptionRow& r) { return r.agreed; })) f.push_back(std::move(kv));
  return f;
}

// Builds the transform (local; agreed on by the caller) and its workspaces: buffers, then
// collectives one exchange at a time with an agreement after each, so that a transport
// failing on one communicator (an RMA window the MPI cannot create) fails the plan on
// every rank instead of leaving the others in the next build.
template <typename T, typename E>
std::unique_ptr<Workspace<T, E>> add_workspace(const Transform<T, E>& tr, MPI_Comm comm) {
  std::unique_ptr<Workspace<T, E>> w;
  agree(comm, [&] { w = tr.allocate(); });
  for (ExchangeId e : {kRow, kCol}) agree(comm, [&] { tr.bind(*w, e); });
  return w;
}

// The backend each stage runs (Options::backends with Auto resolved, fft/axis_fft.hpp).
StageBackends resolve_backends(const Options& o) {
  StageBackends r = o.backends;
  for (int a = 0; a < 3; ++a) r[a] = public_backend(resolve_backend(o.backends[a], is_r2r(o.kinds[a])));
  return r;
}

// The local FFT backend and planning effort of each stage (backends resolved).
StageChoices stage_choices(const Options& o) {
  StageChoices c;
  for (int a = 0; a < 3; ++a) c[a] = {resolve_backend(o.backends[a], is_r2r(o.kinds[a])), local_effort(o.effort)};
  return c;
}

template <typename T, typename E>
void build(Plan::Impl::Typed<T, E>& p, MPI_Comm comm, const Decomposition& d, const Options& o, const StageChoices& local,
           const coll::Comm& row, const coll::Comm& col) {
  // The lean workspace's chunk: the largest of about 1/8 of the z planes, halved, that fits
  // every rank's array (the ranks of an exchange must cut it alike).
  std::int64_t lean_cp = 0;
  if (o.lean_workspace) {
    const std::int64_t planes = (d.n[2] + d.m2 - 1) / d.m2;
    std::int64_t cp = 1;
    while (cp * 8 < planes) cp *= 2;
    for (; cp >= 1 && lean_cp == 0; cp /= 2) {
      std::string why;
      agree(comm, [&] { why = Transform<T, E>::lean_fit(d, o, cp); });
      int fits = why.empty(), all = 0;
      check_mpi(MPI_Allreduce(&fits, &all, 1, MPI_INT, MPI_LAND, comm), "MPI_Allreduce");
      if (all) lean_cp = cp;
      else p.note = why.empty() ? "the lean layout does not fit another rank's array" : why;
    }
    if (lean_cp) p.note.clear();
  }
  agree(comm, [&] { p.tr = std::make_unique<const Transform<T, E>>(d, o, local, row, col, comm, lean_cp); });
  const int n = p.tr->fields_pipeline() ? o.fields_in_flight : 1;
  for (int k = 0; k < n; ++k) p.ws.push_back(add_workspace(*p.tr, comm));
}

// What the axes' kinds need (nbfft/fft/r2r_kinds.hpp); the same verdict on every rank
// (the kinds and the grid are agreed).
void check_kinds(const std::array<std::int64_t, 3>& n, const Options& o) {
  static const char* axis[3] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d)
    if (n[d] < min_points(o.kinds[d]))
      throw Error(std::string("kinds: ") + name(o.kinds[d]) + " (" + redft_name(o.kinds[d]) + ") on " + axis[d] +
                  " needs n" + axis[d] + " >= " + std::to_string(min_points(o.kinds[d])) + ", got " +
                  std::to_string(n[d]));
  if (o.transform == TransformKind::R2C && is_r2r(o.kinds[0]) && !all_r2r(o.kinds))
    throw Error("kinds " + kinds_str(o.kinds) + " with transform=r2c: real data with an r2r x axis needs every axis "
                "r2r (real in, real out); with a periodic y or z make x periodic (r2c) or use transform=c2c "
                "(complex data)");
  for (int d = 0; d < 3; ++d)
    if (is_r2r(o.kinds[d]) && o.padding[d] != 1.0)
      throw Error(std::string("padding ") + padding_str(o.padding) + " with kinds " + kinds_str(o.kinds) + ": " +
                  axis[d] + " is " + name(o.kinds[d]) + ", and padding (3/2-rule dealiasing) applies to periodic "
                  "axes only; give " + axis[d] + " a padding of 1");
}

}  // namespace

Plan::Plan(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& options) {
  make(comm, n, options, nullptr, nullptr);
}

Plan::Plan(MPI_Comm comm, std::array<std::int64_t, 3> n, const std::optional<Box3>& in_box,
           const std::optional<Box3>& out_box, const Options& options) {
  make(comm, n, options, &in_box, &out_box);
}

namespace {

// The device plan of Options::device (gpu/transform.hpp), on every rank or none: what it
// cannot do, a missing GPU or a failed allocation on one rank is the same error on all.
void make_device_plan(Plan::Impl& impl, MPI_Comm comm, const Decomposition& d, const Options& o,
                      const coll::Comm& row, const coll::Comm& col) {
  const std::string limits = gpu::device_limits(d, o);  // from agreed options: the same on every rank
  if (!limits.empty()) throw Error(std::string("device=") + name(o.device) + ": " + limits, ErrorCode::Unavailable);
  agree(comm, [&] { impl.device = gpu::make_device_transform(gpu::open_device(o, comm), d, o, row, col); });
  // Collective (device_exchange=ipc opens the peers' buffers); a failure on one rank is
  // every rank's error.
  agree(comm, [&] { const_cast<gpu::DeviceTransform&>(*impl.device).connect(); });
  impl.dev_out = d.z_pencil;
  if (o.output_order == OutputOrder::Natural) impl.dev_out.order = {0, 1, 2};
}

}  // namespace

void Plan::make(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& options, const std::optional<Box3>* in_box,
                const std::optional<Box3>* out_box) {
  check_mpi_running("Plan");
  if (comm == MPI_COMM_NULL) throw Error("Plan: the communicator is MPI_COMM_NULL", ErrorCode::InvalidArgument);
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  const bool r2c = options.transform == TransformKind::R2C;

  // Every rank must describe the same transform; a mismatch would hang an exchange.
  // Whether user boxes come: ranks that differ would meet different collectives.
  const bool in_given = in_box && in_box->has_value(), out_given = out_box && out_box->has_value();
  ConfigFields fields = agreed_fields(n, options);
  fields.push_back({"user boxes", in_given && out_given ? "in and out" : in_given ? "in" : out_given ? "out" : "none"});
  check_same(comm, "plan", fields);
  if (options.device != Device::Host && (in_given || out_given))
    throw Error(std::string("device=") + name(options.device) + ": user boxes are not on device plans yet (docs/gpu.md)",
                ErrorCode::Unavailable);
  if (options.tune != TuneEffort::None) {  // plan-time tuning: the plan of the tuner's choice
    auto report = std::make_shared<TuneReport>();
    TuneSettings ts = tune_settings(options);
    if (in_given) ts.in_box = **in_box;  // the trials reshape as this plan will
    if (out_given) ts.out_box = **out_box;
    impl_ = std::move(tuned_plan(comm, n, options, ts, report.get()).impl_);
    impl_->opt = with_tuner_settings(impl_->opt, options);
    impl_->tune_report = std::move(report);
    if (in_given || out_given) attach_layout(in_given ? &**in_box : nullptr, out_given ? &**out_box : nullptr);
    return;
  }
  if (options.col_chunk_planes < 0)
    throw Error("col_chunk_planes = " + std::to_string(options.col_chunk_planes) +
                " must be >= 0 (0: one bulk COL exchange)");
  if (options.col_depth < 0)
    throw Error("col_depth = " + std::to_string(options.col_depth) + " must be >= 0 (0: every chunk in flight)");
  if (options.fields_in_flight < 1 || options.fields_in_flight > 64)
    throw Error("fields_in_flight = " + std::to_string(options.fields_in_flight) +
                " must be in [1, 64] (1: fields one after the other; 2: seed 000's two-field pipeline)");
  if (options.progress_chunks < 0)
    throw Error("progress_chunks = " + std::to_string(options.progress_chunks) + " must be >= 0 (0: the default, " +
                std::to_string(kDefaultProgressChunks) + ")");
  // x keeps nx points unless it is periodic r2c (nx/2+1).
  Decomposition d = Decomposition::make(n, r2c && !is_r2r(options.kinds[0]), options.m1, options.m2, size, rank,
                                        options.allow_empty, padded_size(n, options.padding));
  check_kinds(n, options);  // after the sizes are known positive
  Options opt = options;
  opt.m1 = d.m1;
  opt.m2 = d.m2;
  // The stages' backends: resolved from the build and the environment (ranks may differ).
  opt.backends = agree(comm, [&] { return resolve_backends(options); });
  // Threads per rank (fft/threads.hpp): resolved from the environment when 0, and the MPI
  // thread level they need checked, on every rank together (ranks may differ).
  opt.threads = agree(comm, [&] {
    return compute_threads(checked_threads(options.threads), uses_engine_thread(options), options.engine_own_core);
  });

  MPI_Comm dup = MPI_COMM_NULL, row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
  check_mpi(MPI_Comm_split(comm, d.j, d.i, &row), "MPI_Comm_split");
  check_mpi(MPI_Comm_split(comm, d.i, d.j, &col), "MPI_Comm_split");
  coll::Comm row_comm, col_comm;
  std::exception_ptr comm_error;
  try {
    // coll::Comm keeps its own duplicates.
    if (d.m1 > 1) row_comm = coll::Comm(row, opt.row_transport.engine);
    if (d.m2 > 1) col_comm = coll::Comm(col, opt.col_transport.engine);
  } catch (...) {
    comm_error = std::current_exception();
  }
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  auto impl = std::make_unique<Impl>();
  try {
    agree_outcome(dup, comm_error);
    const StageChoices local = stage_choices(opt);
    const bool real = real_spectrum(opt);  // real all the way
    if (opt.device != Device::Host) {
      make_device_plan(*impl, dup, d, opt, row_comm, col_comm);
    } else if (opt.precision == Precision::Double && real)
      build(impl->typed.emplace<Impl::Typed<double, double>>(), dup, d, opt, local, row_comm, col_comm);
    else if (opt.precision == Precision::Double)
      build(impl->typed.emplace<Impl::Typed<double>>(), dup, d, opt, local, row_comm, col_comm);
    else if (real)
      build(impl->typed.emplace<Impl::Typed<float, float>>(), dup, d, opt, local, row_comm, col_comm);
    else
      build(impl->typed.emplace<Impl::Typed<float>>(), dup, d, opt, local, row_comm, col_comm);
  } catch (...) {
    MPI_Comm_free(&dup);
    throw;
  }
  impl->opt = opt;
  impl->d = d;
  impl->comm = dup;
  impl_ = std::move(impl);
  if (impl_->device) return;  // it writes the output order itself
  if (in_given || out_given || opt.output_order == OutputOrder::Natural)
    attach_layout(in_given ? &**in_box : nullptr, out_given ? &**out_box : nullptr);
}

// The user's boxes (agreed over every rank) or the natural output order around the
// internal pencils; nothing is allocated when every side passes through.
void Plan::attach_layout(const Box3* in_box, const Box3* out_box) {
  Impl& p = *impl_;
  const Decomposition& d = p.d;
  auto str = [](const std::array<std::int64_t, 3>& g) {
    return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
  };
  // The natural order is the Z stage's own (no copy) unless the lean layout forbids it.
  const bool z_natural = p.visit([](const auto& t) { return t.tr->natural_out(); });
  const std::array<int, 3> z_order = z_natural ? std::array<int, 3>{0, 1, 2} : d.z_pencil.order;
  std::vector<Box3> ins, outs;
  for (int r = 0; r < d.m1 * d.m2; ++r) {
    const Decomposition o = d.of_rank(r);
    ins.push_back(o.x_pencil);
    outs.push_back(o.z_pencil);
    if (p.opt.output_order == OutputOrder::Natural) outs.back().order = {0, 1, 2};
  }
  if (in_box)
    ins = agree_boxes(p.comm, *in_box, d.m, "in_box",
                      std::string(d.padded() ? "the physical (padded) input grid " : "the input grid ") + str(d.m));
  if (out_box) {
    const std::array<std::int64_t, 3> g{d.xc, d.n[1], d.n[2]};
    outs = agree_boxes(p.comm, *out_box, g, "out_box", "the spectrum's grid " + str(g) + " (x: " + std::to_string(d.xc) +
                       (d.xc != d.n[0] ? " = nx/2+1 complex points)" : " points)"));
  }
  const std::size_t in_elem = shape(Direction::Forward).in.bytes(), out_elem = shape(Direction::Forward).out.bytes();
  agree(p.comm, [&] {
    p.layout = std::make_unique<const UserLayout>(d, ins, outs, in_elem, out_elem, p.comm, p.opt.col_transport,
                                                  lean_workspace(), z_order,
                                                  p.visit([](const auto& t) { return t.tr->lanes(); }));
  });
  if (p.layout->passes()) return;
  agree(p.comm, [&] { p.layout_bufs = p.layout->make_buffers(1); });
}

Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

const Plan::Impl& Plan::impl() const {
  if (!impl_) throw Error("Plan: used after it was moved from (a moved-from Plan holds nothing)", ErrorCode::InvalidState);
  return *impl_;
}

namespace {

// Claims a busy flag (the plan's own workspace, or a Workspace) for one call. Two callers
// can hold it:
//   - a call running now: only another thread can meet it, and the refusal stays on that
//     thread (agreeing on it would be a second collective on the plan's communicator at
//     once), so it throws here;
//   - a split-phase transform between its start and its wait (`started` names its start):
//     ranks may differ there (forward waits are local), so the refusal is returned, and
//     the caller agrees on it before its collective; every rank fails with it.
// Returns "" when claimed.
std::string claim(std::atomic<bool>& busy, const std::atomic<const char*>* started, const char* what) {
  if (!busy.exchange(true, std::memory_order_acq_rel)) return "";
  if (const char* start = started ? started->load(std::memory_order_acquire) : nullptr)
    return std::string(what) + ": the workspace still belongs to a " + start + " that was not waited for (a second " +
           "call on a workspace before its transform's wait: call wait() on that Pending first, or make one "
           "workspace per transform in flight)";
  throw Error(std::string(what) + ": another thread is running a transform on the same workspace (the plan's own, or "
              "the Workspace passed: one call at a time on each; give each thread a Workspace of its own, or serialize "
              "the calls)",
              ErrorCode::InvalidState);
}

// Holds a claim for the length of one transform call.
class BusyGuard {
 public:
  BusyGuard(std::atomic<bool>& flag, const std::atomic<const char*>* started, const char* what)
      : flag_(flag), refused_(claim(flag, started, what)) {}
  ~BusyGuard() {
    if (refused_.empty()) flag_.store(false, std::memory_order_release);
  }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;
  const std::string& refused() const { return refused_; }

 private:
  std::atomic<bool>& flag_;
  std::string refused_;
};

}  // namespace

const Options& Plan::options() const { return impl().opt; }
const Decomposition& Plan::decomposition() const { return impl().d; }
std::array<std::int64_t, 3> Plan::global_size() const { return impl().d.n; }
int Plan::m1() const { return impl().d.m1; }
int Plan::m2() const { return impl().d.m2; }
const Box3& Plan::in_box() const { return impl().layout ? impl().layout->in_box() : impl().d.x_pencil; }
const Box3& Plan::out_box() const {
  if (impl().device) return impl().dev_out;
  return impl().layout ? impl().layout->out_box() : impl().d.z_pencil;
}
bool Plan::reshapes() const { return impl().reshapes(); }
Box3 Plan::in_box_of(int rank) const {
  const Impl& p = impl();
  if (rank < 0 || rank >= p.d.m1 * p.d.m2)
    throw Error("in_box_of: rank " + std::to_string(rank) + " is not in the plan's communicator (0.." +
                std::to_string(p.d.m1 * p.d.m2 - 1) + ")");
  return p.layout ? p.layout->in_box(rank) : p.d.of_rank(rank).x_pencil;
}
Box3 Plan::out_box_of(int rank) const {
  const Impl& p = impl();
  if (rank < 0 || rank >= p.d.m1 * p.d.m2)
    throw Error("out_box_of: rank " + std::to_string(rank) + " is not in the plan's communicator (0.." +
                std::to_string(p.d.m1 * p.d.m2 - 1) + ")");
  if (p.device) {
    Box3 b = p.d.of_rank(rank).z_pencil;
    b.order = p.dev_out.order;
    return b;
  }
  return p.layout ? p.layout->out_box(rank) : p.d.of_rank(rank).z_pencil;
}
std::array<std::int64_t, 3> Plan::physical_size() const { return impl().d.m; }

std::size_t Plan::in_bytes() const {
  return static_cast<std::size_t>(in_count()) * shape(Direction::Forward).in.bytes();
}
std::size_t Plan::out_bytes() const {
  return static_cast<std::size_t>(out_count()) * shape(Direction::Forward).out.bytes();
}
std::size_t Plan::inplace_bytes() const { return std::max(in_bytes(), out_bytes()); }
std::size_t Plan::workspace_bytes() const {
  if (impl().device) return impl().device->workspace_bytes();
  return impl().visit([](const auto& p) {
    std::size_t b = 0;
    for (const auto& w : p.ws) b += w->bytes();
    return b;
  }) + (impl().layout_bufs ? impl().layout_bufs->bytes() : 0);
}

const TuneReport* Plan::tune_report() const { return impl().tune_report.get(); }

void Plan::agree_check(const std::string& local_error, ErrorCode code) const {
  agree_message(impl().comm, local_error, code);
}

bool Plan::lean_workspace() const {
  if (impl().device) return false;
  return impl().visit([](const auto& t) { return t.tr->lean(); });
}

// The one rule of call shapes: r2c, c2c, and real to real when every axis of real data is r2r.
Plan::Shape Plan::shape(Direction d) const {
  const Options& o = impl().opt;
  const bool r2c = o.transform == TransformKind::R2C;
  const Element real{o.precision, true}, complex{o.precision, false};
  if (!r2c) return {complex, complex};
  if (real_spectrum(o)) return {real, real};  // every axis r2r on real data: real both ways
  return d == Direction::Forward ? Shape{real, complex} : Shape{complex, real};
}

void Plan::check_shape(Direction d, const char* call, Element in, Element out) const {
  const Shape want = shape(d);
  if (in == want.in && out == want.out) return;
  const Options& o = impl().opt;
  auto kind = [](Element e) { return e.real ? "real" : "complex"; };
  throw Error(std::string(call) + ": the plan is " + name(o.precision) + " precision " + name(o.transform) +
              (any_r2r(o.kinds) ? " kinds " + kinds_str(o.kinds) : std::string()) + " (" + kind(want.in) + " in, " +
              kind(want.out) + " out) but was called with " + name(in.precision) + " precision " + kind(in) + " in, " +
              kind(out) + " out");
}

namespace {

// What is wrong with the user's buffers on this rank ("" if nothing).
std::string buffer_error(const char* what, const void* in, std::size_t in_have, std::size_t in_need,
                         const void* out, std::size_t out_have, std::size_t out_need,
                         std::size_t inplace_need, bool in_place_only) {
  std::string err;
  const char* i = static_cast<const char*>(in);
  const char* o = static_cast<const char*>(out);
  auto missing = [](const void* p, std::size_t need) { return p == nullptr && need > 0; };
  if (missing(in, in_need) || missing(out, out_need)) {
    err = std::string(what) + ": null buffer for a non-empty box";
  } else if (in_place_only && i != o) {
    err = std::string(what) + ": the plan has a lean workspace (Options::lean_workspace), which uses the "
          "caller's array as exchange buffer, so it transforms in place only: pass the same array as input and output";
  } else if (i == o && in_need + out_need > 0) {
    const std::size_t have = std::min(in_have, out_have);
    if (have < inplace_need)
      err = std::string(what) + ": in-place buffer has " + std::to_string(have) +
            " bytes but the plan needs " + std::to_string(inplace_need) +
            " (the larger of the input and output boxes)";
  } else if (in_have < in_need) {
    err = std::string(what) + ": input buffer has " + std::to_string(in_have) +
          " bytes but this rank's input box needs " + std::to_string(in_need);
  } else if (out_have < out_need) {
    err = std::string(what) + ": output buffer has " + std::to_string(out_have) +
          " bytes but this rank's output box needs " + std::to_string(out_need);
  } else if (i && o && i < o + out_need && o < i + in_need) {
    err = std::string(what) + ": input and output overlap without being the same buffer";
  }
  return err;
}

// Different fields must not share memory: the pipeline writes one field's output while it
// still reads the next one's input. "" when none do.
std::string shared_fields_error(const char* what, std::size_t nv, const void* const* in, std::size_t need_in,
                                void* const* out, std::size_t need_out) {
  for (std::size_t j = 0; j < nv; ++j)
    for (std::size_t k = j + 1; k < nv; ++k) {
      const char* ja[2] = {static_cast<const char*>(in[j]), static_cast<const char*>(out[j])};
      const char* ka[2] = {static_cast<const char*>(in[k]), static_cast<const char*>(out[k])};
      const std::size_t len[2] = {need_in, need_out};
      for (int x = 0; x < 2; ++x)
        for (int y = 0; y < 2; ++y)
          if (len[x] && len[y] && ja[x] < ka[y] + len[y] && ka[y] < ja[x] + len[x])
            return std::string(what) + ": fields " + std::to_string(j) + " and " + std::to_string(k) +
                   " share memory (each field needs buffers of its own)";
    }
  return "";
}

// Checks sizes and aliasing of the user's buffers on every rank together, and that the
// workspace was free on every rank (`refused`: this rank's claim, "" = claimed).
// The call's name takes part in the agreement: ranks in different calls of the plan (a
// backward_start on one, a backward wait on another) fail together instead of hanging.
// The same allreduce tells whether any rank's lean binding moves (`rebinds`, this rank's
// Transform::rebinds, asked only where the claim held); returns that.
bool check_buffers(MPI_Comm comm, const char* what, const std::string& refused, const void* in, std::size_t in_have,
                   std::size_t in_need, const void* out, std::size_t out_have,
                   std::size_t out_need, std::size_t inplace_need, bool in_place_only,
                   const std::function<bool()>& rebinds) {
  const bool claimed = refused.empty();
  return agree_call_any(
      comm, "plan", {{"the collective call", what}},
      claimed ? buffer_error(what, in, in_have, in_need, out, out_have, out_need, inplace_need, in_place_only) : refused,
      claimed && rebinds(), claimed ? ErrorCode::InvalidArgument : ErrorCode::InvalidState);
}

}  // namespace

struct Plan::Workspace::Impl {
  const Plan::Impl* owner = nullptr;
  std::variant<std::unique_ptr<fft::Workspace<double>>, std::unique_ptr<fft::Workspace<float>>,
               std::unique_ptr<fft::Workspace<double, double>>, std::unique_ptr<fft::Workspace<float, float>>>
      ws;
  std::atomic<bool> busy{false};
  // While a split-phase transform holds it between start and wait: its start's name
  // ("forward_start"), for the message of a second use (claim()).
  std::atomic<const char*> started{nullptr};
  detail::PlanRequest* user = nullptr;  // the split-phase transform using it, if any
  std::unique_ptr<UserLayout::Buffers> layout_bufs;  // the plan's user boxes (when they reshape)
  std::unique_ptr<gpu::DeviceWork> dev;  // a device plan's (then `ws` holds nothing)
  ~Impl();
};

void Plan::transform_bytes(Direction dir, const void* in, std::size_t in_b, void* out, std::size_t out_b,
                           Call c) const {
  const char* what = name(dir);
  const bool forward = dir == Direction::Forward;
  Workspace* ws = c.workspace;
  Timings* t = c.timings;
  if (ws && (!ws->impl_ || ws->impl_->owner != &impl()))
    throw Error(std::string(what) + ": the workspace was not made by this plan (Plan::make_workspace)");
  if (impl().device) {
    BusyGuard busy(ws ? ws->impl_->busy : impl().busy, ws ? &ws->impl_->started : nullptr, what);
    impl().run_device(dir, what, busy.refused(), 1, &in, in_b, &out, out_b, forward ? in_bytes() : out_bytes(),
                      forward ? out_bytes() : in_bytes(), t, ws ? ws->impl_->dev.get() : nullptr);
    return;
  }
  BusyGuard busy(ws ? ws->impl_->busy : impl().busy, ws ? &ws->impl_->started : nullptr, what);
  const Dir d = dir_of(dir);
  impl().visit([&](const auto& p) {
    using W = typename std::decay_t<decltype(p.ws)>::value_type::element_type;
    W* w = ws ? std::get<std::unique_ptr<W>>(ws->impl_->ws).get() : p.ws[0].get();
    const UserLayout* L = impl().reshapes() ? impl().layout.get() : nullptr;
    UserLayout::Buffers* lb = L ? (ws ? ws->impl_->layout_bufs.get() : impl().layout_bufs.get()) : nullptr;
    void* bound = L ? L->internal(*lb, 0) : out;  // the array a lean transform binds
    p.tr->agreed(&w, 1,
                 check_buffers(impl().comm, what, busy.refused(), in, in_b, forward ? in_bytes() : out_bytes(), out,
                               out_b, forward ? out_bytes() : in_bytes(), inplace_bytes(), lean_workspace() && !L,
                               [&] { return p.tr->rebinds(d, 1, &bound, &w, 1); }));
    if (!L) {
      p.tr->run(d, 1, &in, &out, &w, 1, t);
      return;
    }
    const void* tin = nullptr;
    void* tout = nullptr;
    L->before(d, in, out, *lb, 0, &tin, &tout, t);
    p.tr->run(d, 1, &tin, &tout, &w, 1, t);
    L->after(d, out, *lb, 0, t);
  });
}

void Plan::Impl::check_device(const char* what, const std::string& refused, std::size_t nv, const void* const* in,
                              std::size_t in_b, void* const* out, std::size_t out_b, std::size_t in_need,
                              std::size_t out_need, const std::string& problem) const {
  std::string err = refused.empty() ? problem : refused;
  if (err.empty() && nv > 0 && (in == nullptr || out == nullptr))
    err = std::string(what) + ": null array of field pointers";
  const gpu::Device& dev = device->device();
  for (std::size_t k = 0; err.empty() && k < nv; ++k) {
    err = buffer_error(what, in[k], in_b, in_need, out[k], out_b, out_need, std::max(in_need, out_need), false);
    for (int side = 0; err.empty() && side < 2; ++side) {
      const void* p = side == 0 ? in[k] : out[k];
      if ((side == 0 ? in_need : out_need) > 0 && !dev.is_device_pointer(p))
        err = std::string(what) + ": the " + (side == 0 ? "input" : "output") + " array is not device memory (a " +
              name(opt.device) + " plan takes device pointers: cudaMalloc, CuPy, PyTorch; docs/gpu.md)";
    }
    if (!err.empty() && nv > 1) err += " (field " + std::to_string(k) + ")";
  }
  if (err.empty()) err = shared_fields_error(what, nv, in, in_need, out, out_need);
  agree_call_any(comm, what, {{"the collective call", what}, {"the number of fields", std::to_string(nv)}}, err,
                 false, refused.empty() ? ErrorCode::InvalidArgument : ErrorCode::InvalidState);
}

void Plan::Impl::run_device(Direction dir, const char* what, const std::string& refused, std::size_t nv,
                            const void* const* in, std::size_t in_b, void* const* out, std::size_t out_b,
                            std::size_t in_need, std::size_t out_need, Timings* t, gpu::DeviceWork* work) const {
  const auto t0 = std::chrono::steady_clock::now();
  check_device(what, refused, nv, in, in_b, out, out_b, in_need, out_need);
  if (nv == 0) return;
  if (work && !t)  // (timed runs step on the plan's own workspace, so each phase is its own)
    device->start(dir, in[0], out[0], *work)->finish();
  else
    device->run(dir, static_cast<int>(nv), in, out, t);
  if (t) t->total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Plan::Workspace::Workspace() = default;
Plan::Workspace::~Workspace() = default;
Plan::Workspace::Workspace(Workspace&&) noexcept = default;
Plan::Workspace& Plan::Workspace::operator=(Workspace&&) noexcept = default;
std::size_t Plan::Workspace::bytes() const {
  if (!impl_) return 0;
  if (impl_->dev) return impl_->dev->bytes();
  return std::visit([](const auto& w) { return w->bytes(); }, impl_->ws) +
         (impl_->layout_bufs ? impl_->layout_bufs->bytes() : 0);
}

Plan::Workspace Plan::make_workspace() const {
  Workspace w;
  w.impl_ = std::make_unique<Workspace::Impl>();
  w.impl_->owner = &impl();
  if (impl().device) {  // device memory on every rank or none, then (ipc) the peers' handles
    agree(impl().comm, [&] { w.impl_->dev = impl().device->make_work(); });
    agree(impl().comm, [&] { impl().device->connect(*w.impl_->dev); });
    return w;
  }
  impl().visit([&](const auto& p) { w.impl_->ws = add_workspace(*p.tr, impl().comm); });
  if (impl().reshapes()) agree(impl().comm, [&] { w.impl_->layout_bufs = impl().layout->make_buffers(1); });
  return w;
}

// ---- Split phase ----------------------------------------------------------------------

namespace detail {

struct PlanRequest final : Request::Impl {
  std::atomic<bool>* busy = nullptr;  // the workspace's, held from start to wait
  std::vector<coll::Request> col;     // the COL exchange in flight
  std::function<void(std::vector<coll::Request>&)> complete;  // the rest of the transform
  // A transform in phases (user boxes that exchange; start_bytes): step() runs the next
  // phase, collective, true once the transform is done; poll() (local) unpacks a reshape
  // that has arrived and says whether nothing is in flight. Empty otherwise.
  std::function<bool()> step;
  std::function<bool()> poll;
  std::thread::id thread = std::this_thread::get_id();  // only this thread's calls pump it
  const Plan::Impl* plan = nullptr;   // registered there while active
  Plan::Workspace::Impl* ws = nullptr;
  bool collective_wait = false;       // backward: wait() runs the ROW exchange (or a reshape)
  const char* wait_name = "backward wait";
  std::string orphaned;               // why it was completed by someone else
  ~PlanRequest() override { release(); }  // never left registered with a plan or workspace
  void release() {
    if (plan) {
      std::lock_guard<std::mutex> lock(plan->pending_mutex);
      auto& v = plan->pending;
      v.erase(std::remove(v.begin(), v.end(), this), v.end());
    }
    if (ws) {
      ws->started.store(nullptr, std::memory_order_release);
      ws->user = nullptr;
    }
    if (busy) busy->store(false, std::memory_order_release);
    busy = nullptr;
    plan = nullptr;
    ws = nullptr;
    // What the closures hold (a device plan's run) goes now, while its plan is alive.
    complete = nullptr;
    step = nullptr;
    poll = nullptr;
  }
  // Registers a started transform with its plan (which completes it if destroyed first) and
  // its workspace; collective: whether its wait is.
  void attach(const Plan::Impl& p, Plan::Workspace::Impl& w, bool forward, bool collective);
  // Completes the transform because its plan or workspace is going away.
  void orphan(const char* why) {
    try {
      complete(col);
    } catch (...) {
      // Destruction cannot report it; the next collective call on a live object will.
    }
    release();
    orphaned = why;
  }
  bool active() const override { return busy != nullptr; }
  // InvalidState unless active, saying why (never started or waited, or orphaned).
  void need_active(const char* call) const;
  void progress() override;
  bool test() override;
  void wait() override;
};

}  // namespace detail

void Plan::Impl::complete_pending(const char* why) const {
  for (;;) {
    detail::PlanRequest* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(pending_mutex);
      if (pending.empty()) return;
      p = pending.front();
    }
    p->orphan(why);  // release() removes it
  }
}

void Plan::Impl::pump(const detail::PlanRequest* except) const {
  std::vector<detail::PlanRequest*> v;
  {
    std::lock_guard<std::mutex> lock(pending_mutex);
    v = pending;  // in start order, the same on every rank
  }
  for (detail::PlanRequest* p : v)
    if (p != except && p->step && p->thread == std::this_thread::get_id()) p->step();
}

Plan::Workspace::Impl::~Impl() {
  if (user)
    user->orphan("the workspace was destroyed while this transform was in flight; its destructor completed the "
                 "transform");
}

void detail::PlanRequest::attach(const Plan::Impl& p, Plan::Workspace::Impl& w, bool forward, bool collective) {
  collective_wait = collective;
  wait_name = forward ? "forward wait" : "backward wait";
  ws = &w;
  w.user = this;
  plan = &p;
  std::lock_guard<std::mutex> lock(p.pending_mutex);
  p.pending.push_back(this);
}

void detail::PlanRequest::need_active(const char* call) const {
  if (active()) return;
  throw Error(std::string("Pending::") + call + ": " +
                  (orphaned.empty() ? "the transform is not active (never started, or already waited for)" : orphaned),
              ErrorCode::InvalidState);
}

void detail::PlanRequest::progress() {
  need_active("progress");
  coll::progress_all();
  if (poll) poll();
}

bool detail::PlanRequest::test() {
  progress();
  if (poll) return poll();
  auto& q = col;
  q.erase(std::remove_if(q.begin(), q.end(), [](coll::Request& r) { return r.test(); }), q.end());
  return q.empty();
}

void detail::PlanRequest::wait() {
  need_active("wait");
  // A backward wait runs the ROW exchange, a collective: every rank must be here, not in
  // another call of the plan. On a mismatch the transform stays active (wait again, in
  // the same order on every rank).
  if (collective_wait) agree_call(plan->comm, "split-phase", wait_name, "");
  // From here the wait runs: the workspace is held by a running call, no longer by a start.
  if (ws) ws->started.store(nullptr, std::memory_order_release);
  struct Release {
    PlanRequest& p;
    ~Release() { p.release(); }
  } release{*this};
  if (step) plan->pump(this);  // the others' next phases travel while this one ends
  complete(col);
}

// A start without a workspace takes the first of the plan's pool that is free on every rank
// (a forward transform's wait is local, so a rank may have finished one the others still
// run), or makes one more (collective) when none is. The call is agreed first, with the
// same agreement as every other call of the plan (so ranks out of step fail together
// instead of reducing different things), then which workspaces are free: one bit each.
Plan::Pending Plan::start_bytes(Direction dir, const void* in, std::size_t in_b, void* out, std::size_t out_b,
                                Timings* t) const {
  constexpr std::size_t kMaxPooled = 64;  // one bit each in the agreed mask
  const char* what = dir == Direction::Forward ? "forward_start" : "backward_start";
  const Impl& m = impl();
  Workspace* ws = nullptr;
  {
    std::lock_guard<std::mutex> lock(m.pool_mutex);
    std::uint64_t free = 0;
    for (std::size_t k = 0; k < m.pool.size(); ++k) {
      const Workspace::Impl& w = *m.pool[k]->impl_;
      if (!w.busy.load(std::memory_order_acquire) && !w.started.load(std::memory_order_acquire))
        free |= std::uint64_t(1) << k;
    }
    agree_call(m.comm, "split-phase", what, "", ErrorCode::InvalidState);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &free, 1, MPI_UINT64_T, MPI_BAND, m.comm), "MPI_Allreduce");
    if (free != 0) {
      std::size_t k = 0;
      while (!(free >> k & 1)) ++k;
      ws = m.pool[k].get();
    } else if (m.pool.size() == kMaxPooled) {  // the same verdict on every rank: the mask is agreed
      throw Error(std::string(what) + ": " + std::to_string(kMaxPooled) +
                      " transforms of this plan started without a workspace are in flight on some rank; wait "
                      "for one first, or start with a workspace of make_workspace()",
                  ErrorCode::InvalidState);
    } else {
      m.pool.push_back(std::make_unique<Workspace>(make_workspace()));
      ws = m.pool.back().get();
    }
  }
  return start_bytes(dir, in, in_b, out, out_b, *ws, t);
}

Plan::Pending Plan::start_bytes(Direction dir, const void* in, std::size_t in_b, void* out, std::size_t out_b,
                                Workspace& ws, Timings* t) const {
  const bool forward = dir == Direction::Forward;
  const char* what = forward ? "forward_start" : "backward_start";
  if (!ws.impl_ || ws.impl_->owner != &impl())
    throw Error(std::string(what) + ": the workspace was not made by this plan (Plan::make_workspace)");
  std::atomic<bool>& busy = ws.impl_->busy;
  const std::string refused = claim(busy, &ws.impl_->started, what);
  auto pr = std::make_shared<detail::PlanRequest>();
  Pending p(pr);
  if (refused.empty()) pr->busy = &busy;  // held from here to the wait
  if (impl().device) {
    try {
      impl().start_device(dir, what, refused, in, in_b, out, out_b, forward ? in_bytes() : out_bytes(),
                          forward ? out_bytes() : in_bytes(), ws, t, *pr);
    } catch (...) {
      pr->release();
      throw;
    }
    return p;
  }
  try {
    const Dir d = dir_of(dir);
    const UserLayout* L = impl().reshapes() ? impl().layout.get() : nullptr;
    UserLayout::Buffers* lb = L ? ws.impl_->layout_bufs.get() : nullptr;
    impl().visit([&](const auto& typed) {
      using W = typename std::decay_t<decltype(typed.ws)>::value_type::element_type;
      W* w = std::get<std::unique_ptr<W>>(ws.impl_->ws).get();
      void* bound = L ? L->internal(*lb, 0) : out;
      typed.tr->agreed(&w, 1,
                       check_buffers(impl().comm, what, refused, in, in_b, forward ? in_bytes() : out_bytes(), out,
                                     out_b, forward ? out_bytes() : in_bytes(), inplace_bytes(),
                                     lean_workspace() && !L, [&] { return typed.tr->rebinds(d, 1, &bound, &w, 1); }));
    });
    // Backward waits run the ROW exchange; with user boxes that exchange, waits run the
    // phases left (and pump the other transforms in flight): collective both ways.
    const bool phased = L && L->exchanges();
    pr->attach(impl(), *ws.impl_, forward, !forward || phased);
    impl().visit([&](const auto& typed) {
      using W = typename std::decay_t<decltype(typed.ws)>::value_type::element_type;
      W* w = std::get<std::unique_ptr<W>>(ws.impl_->ws).get();
      const auto* tr = typed.tr.get();
      if (!L) {
        tr->start(d, in, out, *w, pr->col, true, t);
        pr->complete = [tr, d, in, out, w, t](std::vector<coll::Request>& col) {
          tr->complete(d, in, out, *w, col, true, t);
        };
        return;
      }
      const void* tin = nullptr;
      void* tout = nullptr;
      if (!phased) {  // local copies only: as without boxes
        L->before(d, in, out, *lb, 0, &tin, &tout, t);
        tr->start(d, tin, tout, *w, pr->col, true, t);
        pr->complete = [tr, d, tin, tout, out, w, t, L, lb](std::vector<coll::Request>& col) {
          tr->complete(d, tin, tout, *w, col, true, t);
          L->after(d, out, *lb, 0, t);
        };
        return;
      }
      // In phases: 0 the input reshape travels (posted here, so the caller's compute until
      // wait hides it), 1 the stages up to the COL exchange ran and it travels, 2 the rest
      // ran and the output reshape travels, 3 done. wait() runs the phases left; the plan's
      // later starts and waits run one phase of this one each, so with several transforms
      // in flight every exchange has work to hide behind.
      L->arrays(d, in, out, *lb, 0, &tin, &tout);
      auto phase = std::make_shared<int>(0);
      detail::PlanRequest* pi = pr.get();
      pr->step = [tr, d, in, tin, tout, out, w, t, L, lb, phase, pi]() {
        switch (*phase) {
          case 0:
            L->finish_in(d, *lb, t);
            tr->start(d, tin, tout, *w, pi->col, true, t);
            break;
          case 1:
            tr->complete(d, tin, tout, *w, pi->col, true, t);
            L->post_out(d, out, *lb, 0, t);
            break;
          case 2:
            L->finish_out(d, *lb, t);
            break;
          default:
            return true;
        }
        return ++*phase == 3;
      };
      pr->poll = [L, d, lb, pi]() {
        const bool reshaped = L->arrived(d, *lb);
        auto& q = pi->col;
        q.erase(std::remove_if(q.begin(), q.end(), [](coll::Request& r) { return r.test(); }), q.end());
        return reshaped && q.empty();
      };
      pr->complete = [pi](std::vector<coll::Request>&) {
        while (!pi->step()) {
        }
      };
      L->post_in(d, in, *lb, 0, t);
      if (!L->first_exchanges(d)) pi->step();  // a local copy: on to the COL exchange now
      impl().pump(pi);
    });
    ws.impl_->started.store(what, std::memory_order_release);
  } catch (...) {
    pr->release();
    throw;
  }
  return p;
}

// On a device plan every wait is collective: a transform's exchanges start once the device
// has run the stages before them, which a wait may be the first to see.
void Plan::Impl::start_device(Direction dir, const char* what, const std::string& refused, const void* in,
                              std::size_t in_b, void* out, std::size_t out_b, std::size_t in_need,
                              std::size_t out_need, Workspace& ws, const Timings* t, detail::PlanRequest& pr) const {
  check_device(what, refused, 1, &in, in_b, &out, out_b, in_need, out_need,
               t ? std::string(what) + ": split-phase transforms on device plans keep no Timings (time a plain call)"
                 : std::string());
  pr.attach(*this, *ws.impl_, dir == Direction::Forward, true);
  std::shared_ptr<gpu::DeviceRun> run = device->start(dir, in, out, *ws.impl_->dev);
  pr.poll = [run] { return run->advance(); };
  pr.complete = [run](std::vector<coll::Request>&) { run->finish(); };
  ws.impl_->started.store(what, std::memory_order_release);
}

void Plan::many_bytes(Direction dir, std::size_t nv_in, const void* const* in, std::size_t in_b,
                      std::size_t nv_out, void* const* out, std::size_t out_b, Timings* t) const {
  const bool forward = dir == Direction::Forward;
  const char* what = many_name(dir);
  BusyGuard busy(impl().busy, nullptr, what);
  const std::size_t need_in = forward ? in_bytes() : out_bytes();
  const std::size_t need_out = forward ? out_bytes() : in_bytes();
  if (impl().device) {
    if (nv_in != nv_out)
      throw Error(std::string(what) + ": " + std::to_string(nv_in) + " input fields but " + std::to_string(nv_out) +
                  " output fields");
    impl().run_device(dir, what, busy.refused(), nv_in, in, in_b, out, out_b, need_in, need_out, t);
    return;
  }
  std::string err;
  if (nv_in != nv_out)
    err = std::string(what) + ": " + std::to_string(nv_in) + " input fields but " + std::to_string(nv_out) +
          " output fields";
  else if (nv_in > 0 && (in == nullptr || out == nullptr))
    err = std::string(what) + ": null array of field pointers";
  for (std::size_t k = 0; err.empty() && k < nv_in; ++k) {
    err = buffer_error(what, in[k], in_b, need_in, out[k], out_b, need_out, inplace_bytes(),
                       lean_workspace() && !impl().reshapes());
    if (!err.empty()) err += " (field " + std::to_string(k) + ")";
  }
  if (err.empty()) err = shared_fields_error(what, nv_in, in, need_in, out, need_out);
  // User boxes: each field runs in a B of its own, made on the first call with this many
  // fields (local; the failure of one rank is agreed below); a lean transform binds those.
  const UserLayout* L = impl().reshapes() ? impl().layout.get() : nullptr;
  std::vector<void*> bound(out, out + (err.empty() ? nv_in : 0));
  if (L && err.empty()) {
    try {
      L->ensure_fields(*impl().layout_bufs, static_cast<int>(nv_in));
      for (std::size_t k = 0; k < nv_in; ++k) bound[k] = L->internal(*impl().layout_bufs, static_cast<int>(k));
    } catch (const std::exception& e) {
      err = std::string(what) + ": " + e.what();
    }
  }
  // The field count takes part in the call's name: ranks with different counts would run
  // different exchanges.
  impl().visit([&](const auto& p) {
    const auto ws = p.ptrs();
    const int nws = static_cast<int>(ws.size());
    const Dir d = dir_of(dir);
    // The pointers are valid only where this rank found no error: only then ask rebinds().
    const bool rebinds = err.empty() && p.tr->rebinds(d, static_cast<int>(nv_in), bound.data(), ws.data(), nws);
    p.tr->agreed(ws.data(), nws,
                 agree_call_any(impl().comm, what,
                                {{"the collective call", what}, {"the number of fields", std::to_string(nv_in)}}, err,
                                rebinds));
  });
  if (nv_in == 0) return;
  const Dir d = dir_of(dir);
  const int nv = static_cast<int>(nv_in);
  std::vector<const void*> tin(in, in + nv_in);
  std::vector<void*> tout(out, out + nv_in);
  // User boxes: the reshapes ride the fields' pipeline (Transform::FieldHooks). Field j+1's
  // input reshape travels while field j is transformed, field j's output reshape while
  // field j+1 completes; each is finished just before its staging is needed again.
  // A blocking transport moves nothing while the fields compute: there the reshapes run
  // one after another around the transform, without the progress calls the hooks turn on.
  FieldHooks hooks;
  const bool ride = L && impl().opt.col_transport.algorithm.name != "blocking";
  if (L && !ride) {
    UserLayout::Buffers& lb = *impl().layout_bufs;
    for (int k = 0; k < nv; ++k) L->before(d, in[k], out[k], lb, k, &tin[k], &tout[k], t);
  } else if (L) {
    UserLayout::Buffers& lb = *impl().layout_bufs;
    for (int k = 0; k < nv; ++k) L->arrays(d, in[k], out[k], lb, k, &tin[k], &tout[k]);
    hooks.before = [&, L](int j) {
      if (j == 0) L->post_in(d, in[0], lb, 0, t, false);
      L->finish_in(d, lb, t, false);
      if (j + 1 < nv) L->post_in(d, in[j + 1], lb, j + 1, t, false);
    };
    hooks.after = [&, L](int j) {
      L->finish_out(d, lb, t, false);
      L->post_out(d, out[j], lb, j, t, false);
    };
  }
  impl().visit([&](const auto& p) {
    const auto ws = p.ptrs();
    p.tr->run(d, nv, tin.data(), tout.data(), ws.data(), static_cast<int>(ws.size()), t, ride ? &hooks : nullptr);
  });
  if (ride) L->finish_out(d, *impl().layout_bufs, t);  // the last field's, after run's own total
  else if (L)
    for (int k = 0; k < nv; ++k) L->after(d, out[k], *impl().layout_bufs, k, t);
}

void Plan::exchange_only(int exchange, Direction dir, Timings* t) const {
  if (exchange != 0 && exchange != 1)
    throw Error("exchange_only: exchange must be 0 (ROW) or 1 (COL), got " + std::to_string(exchange));
  if (impl().device)
    throw Error("exchange_only: not on device plans (docs/gpu.md)", ErrorCode::Unavailable);
  BusyGuard busy(impl().busy, nullptr, "exchange_only");
  impl().visit([&](const auto& p) {
    p.tr->exchange_only(*p.ws[0], exchange == 0 ? kRow : kCol, dir_of(dir), t);
  });
}

std::ostream& operator<<(std::ostream& os, const Plan& plan) {
  const Plan::Impl& p = plan.impl();
  const Decomposition& d = p.d;
  os << "plan " << d.n[0] << "x" << d.n[1] << "x" << d.n[2];
  if (d.padded()) os << " (padded: physical " << d.m[0] << "x" << d.m[1] << "x" << d.m[2] << ")";
  os << " " << name(p.opt.transform) << " "
     << name(p.opt.precision) << " on " << d.m1 << "x" << d.m2 << " (rank " << d.rank << ": row " << d.i << ", col "
     << d.j << ")\n  options: " << p.opt << "\n  in box " << d.x_pencil << ", out box " << plan.out_box() << "\n";
  if (p.layout) {
    os << "  ";
    p.layout->describe(os);
    os << "\n";
  }
  if (p.device) {  // its stages, exchanges and device, one per line
    std::istringstream lines(p.device->describe());
    for (std::string l; std::getline(lines, l);) os << "  " << l << "\n";
    return os;
  }
  p.visit([&](const auto& t) {
    for (ExchangeId e : {kRow, kCol}) {
      const Exchange& ex = t.tr->exchange(e);
      if (ex.ranks() == 0) continue;  // slabs: no ROW exchange
      os << "  ";
      ex.describe(os);
      os << "\n";
      for (Dir dir : {kForward, kBackward}) {
        const auto& c = t.ws[0]->coll[e][dir];
        if (!c.empty())
          os << "    " << (dir == kForward ? "forward" : "backward") << ": " << c.size() << " x "
             << c.front().description() << "\n";
      }
    }
    os << "  workspaces: " << t.ws.size() << " (one per field in flight), " << plan.workspace_bytes() << " bytes";
    if (t.tr->lean()) os << ", lean (in place only)";
    if (!t.note.empty()) os << ", not lean: " << t.note;
  });
  if (const int cpus = rank_cpus(); p.opt.threads > cpus)
    os << "\n  threads: " << p.opt.threads << " on " << cpus << " CPU(s) of this rank's affinity: they take turns "
       << "(bind each rank to as many cores: mpirun --map-by slot:PE=" << p.opt.threads << ", docs/fft.md)";
  if (uses_engine_thread(p.opt))
    os << "\n  thread engine: its agent thread " << (p.opt.engine_own_core ? "has a CPU of its own beside " : "shares ")
       << (p.opt.engine_own_core ? "" : "the CPUs with ") << p.opt.threads << " compute thread(s), " << rank_cpus()
       << " CPU(s) (engine_own_core=" << (p.opt.engine_own_core ? "true" : "false") << ")";
  return os;
}

}  // namespace nbfft::fft
