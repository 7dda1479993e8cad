// Timing the tuner's candidates (fft/tune_detail.hpp).
//
// A trial builds the candidate's plan, runs one warm-up forward+backward and then
// `trial_iters` timed ones; its time is the median over iterations of the slowest rank.
// Memory: a tune() holds one trial's plan at a time and one set of arrays for all trials,
// allocated once (one in-place array per field on several ranks), so it needs at most what
// its largest candidate plan and one array per field need, never the sum over trials.
#include "fft/tune_detail.hpp"

#include "fft/memory_stats.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/error.hpp"

#include "local/memory.hpp"

#include <algorithm>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace nbfft::fft::detail {

namespace {

// Aligned as the plan's workspaces (local/memory.hpp), zeroed: the trials' transforms are
// linear, so the arrays stay zero and every timing sees the same data. A device plan's
// trials take device memory (zeroed by a copy from the host).
struct Buffer {
  Buffer(std::size_t bytes, const std::shared_ptr<gpu::Device>& device) : dev(device) {
    if (dev) {
      p = dev->alloc(std::max<std::size_t>(bytes, 1), "the tuner's trial arrays");
      const std::vector<unsigned char> zeros(bytes);
      const auto q = dev->make_queue();
      q->copy(p, zeros.data(), bytes);
      q->sync();
      return;
    }
    b = local::Bytes(bytes, "the tuner's trial arrays");
    p = b.get();
    note_trial_array();
    std::fill_n(b.get(), std::max<std::size_t>(bytes, 1), 0);
  }
  ~Buffer() {
    if (dev) dev->free(p);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::shared_ptr<gpu::Device> dev;
  local::Bytes b;
  void* p = nullptr;
};

// One field's trial arrays. In place (one array of the larger box) wherever that runs the
// same steps as out of place, so that the trials time what a caller's calls run and hold
// no second array: on more than one rank (one rank's out-of-place transform has a path of
// its own, transform.cpp make_local_path, so one rank times that) and whenever a lean
// workspace was asked for (its caller transforms in place, also where a candidate's lean
// layout does not fit and the plan is made without it).
struct FieldArrays {
  std::size_t in = 0, out = 0;  // bytes; out = 0 in place
  bool in_place = false;
};

FieldArrays field_arrays(const Plan& p, std::size_t in, std::size_t out) {
  if (p.options().lean_workspace || p.m1() * p.m2() > 1) return {std::max(in, out), 0, true};
  return {in, out, false};
}

// The largest arrays a trial on any of `grids` needs: each grid's boxes on this rank (the
// plan's boxes are its decomposition's pencils, or the caller's own boxes when given).
FieldArrays largest_arrays(const Plan& p, const std::vector<std::pair<int, int>>& grids, const TuneSettings& s) {
  const Decomposition& d = p.decomposition();
  const Plan::Shape shape = p.shape(Direction::Forward);
  std::size_t in = p.in_bytes(), out = p.out_bytes();
  for (const auto& [m1, m2] : grids) {
    const Decomposition g = Decomposition::make(d.n, d.r2c, m1, m2, m1 * m2, d.rank, true, d.m);
    if (!s.in_box) in = std::max(in, static_cast<std::size_t>(g.x_pencil.count()) * shape.in.bytes());
    if (!s.out_box) out = std::max(out, static_cast<std::size_t>(g.z_pencil.count()) * shape.out.bytes());
  }
  return field_arrays(p, in, out);
}

}  // namespace

// The user's arrays of the trials: one set for every trial of a tune(), allocated at the
// first trial for the largest boxes any candidate grid has, so that no later trial
// allocates arrays (growing stays as a fallback, freeing the old set first). With at most
// one plan alive, a tune() holds one workspace and this one set at a time.
class Arrays {
 public:
  explicit Arrays(std::shared_ptr<gpu::Device> device) : dev_(std::move(device)) {}
  // nv fields of at least `need` each.
  void fit(int nv, FieldArrays need) {
    const bool grow = static_cast<int>(in_.size()) < nv || need.in > size_.in || need.out > size_.out ||
                      (!need.in_place && static_cast<int>(out_.size()) < nv);
    if (grow) {
      in_.clear();  // free before allocating: never two sets at once
      out_.clear();
      size_.in = std::max(size_.in, need.in);
      size_.out = std::max(size_.out, need.out);
      for (int k = 0; k < nv; ++k) in_.push_back(std::make_unique<Buffer>(size_.in, dev_));
      if (size_.out > 0)
        for (int k = 0; k < nv; ++k) out_.push_back(std::make_unique<Buffer>(size_.out, dev_));
    }
    ip.clear();
    op.clear();
    for (int k = 0; k < nv; ++k) {
      ip.push_back(in_[k]->p);
      op.push_back(need.in_place ? in_[k]->p : out_[k]->p);
    }
  }
  std::vector<void*> ip, op;

 private:
  std::shared_ptr<gpu::Device> dev_;
  std::vector<std::unique_ptr<Buffer>> in_, out_;
  FieldArrays size_;
};

namespace {

// A plan on the shared arrays, timed one forward+backward at a time.
struct Timed {
  Timed(Plan p, int fields, Arrays& arrays) : plan(std::move(p)), nv(std::max(1, fields)) {
    const FieldArrays need = field_arrays(plan, plan.in_bytes(), plan.out_bytes());
    ib = need.in;
    ob = need.in_place ? need.in : need.out;
    arrays.fit(nv, need);
    ip = arrays.ip;
    op = arrays.op;
    run();  // warm-up: first-touch, engine start, MPI connections
  }
  void run() {
    if (nv == 1) {
      plan.forward_bytes(ip[0], ib, op[0], ob);
      plan.backward_bytes(op[0], ob, ip[0], ib);
    } else {
      plan.forward_many_bytes(static_cast<std::size_t>(nv), ip.data(), ib, op.data(), ob);
      plan.backward_many_bytes(static_cast<std::size_t>(nv), op.data(), ob, ip.data(), ib);
    }
  }
  // Seconds of the slowest rank.
  double once(MPI_Comm comm) {
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    run();
    double mine = MPI_Wtime() - t0, slowest = 0;
    check_mpi(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    return slowest;
  }
  Plan plan;
  int nv;
  std::size_t ib = 0, ob = 0;
  std::vector<void*> ip, op;
};

// After a trial's plan is freed: glibc keeps freed blocks below its mmap threshold (which
// rises to the largest block freed, up to 32 MiB) resident for later allocations, and the
// next trial's buffers, sized otherwise, often do not fit the holes. Measured at 128^3 on 4
// ranks: 8-11 MiB per rank (more than one 7.2 MiB workspace) still resident after tune()
// without this, and a peak 4 MiB higher for a caller whose own arrays were already there.
void give_back_freed_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

bool in_runoff(const TuneTrial& t) { return t.step.find("runoff") != std::string::npos; }

}  // namespace

Trials::Trials(MPI_Comm comm, std::array<std::int64_t, 3> n, const TuneSettings& s, TuneReport& r, TuneLogger& log,
               double t0, std::vector<std::pair<int, int>> grids, std::shared_ptr<gpu::Device> device)
    : comm_(comm), n_(n), s_(s), r_(r), log_(log), start_(t0), grids_(std::move(grids)),
      arrays_(std::make_unique<Arrays>(std::move(device))) {}

Trials::~Trials() {
  arrays_.reset();
  give_back_freed_memory();  // the arrays too: freed last, after the last trial's plan
}

bool Trials::out_of_time() {
  double elapsed = MPI_Wtime() - start_, most = 0;
  check_mpi(MPI_Allreduce(&elapsed, &most, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  if (most > s_.budget_seconds) r_.budget_exhausted = true;
  return r_.budget_exhausted;
}

double Trials::run(const Options& o, const char* step, bool always) {
  for (const auto& t : r_.trials)
    if (same(t.options, o)) return t.seconds;
  if (out_of_time() && !always) return -1;
  double seconds = -1;
  Options planned = o;
  try {
    Plan plan = make(o);
    // A process grid left to the plan (0 x 0) is recorded as the plan chose it, so the
    // choice rebuilds the same plan and a later trial of that grid is known as this one.
    // So are its threads: with the engine on a core of its own the plan runs fewer compute
    // threads than asked (fft/threads.hpp compute_threads), and the report must say so.
    // Likewise the local FFT backends that `auto` resolved to.
    planned.m1 = plan.m1();
    planned.m2 = plan.m2();
    planned.threads = plan.options().threads;
    planned.backends = plan.options().backends;
    seconds = time(std::move(plan));
  } catch (const Error& e) {
    // Unavailable transports, grids the plan refuses: not a candidate here.
    if (e.code() == ErrorCode::Mpi || e.code() == ErrorCode::Internal) throw;
    if (always && !untuned_refusal_) untuned_refusal_ = std::current_exception();
    TuneTrial skipped;
    skipped.options = o;
    skipped.seconds = -1;
    skipped.step = step;
    log_.trial(skipped, false);
    return -1;
  }
  TuneTrial t;
  t.options = planned;
  t.seconds = seconds;
  t.search_seconds = seconds;
  t.step = step;
  r_.trials.push_back(t);
  log_.trial(t, true);
  return seconds;
}

const TuneTrial* Trials::best(bool runoff_only) const {
  const bool any = std::any_of(r_.trials.begin(), r_.trials.end(), in_runoff);
  const TuneTrial* b = nullptr;
  for (const auto& t : r_.trials) {
    if (runoff_only && any && !in_runoff(t)) continue;
    if (!b || t.seconds < b->seconds) b = &t;
  }
  return b;
}

const TuneTrial* Trials::best_of(bool (*keep)(const Options&)) const {
  const TuneTrial* b = nullptr;
  for (const auto& t : r_.trials)
    if (t.seconds >= 0 && keep(t.options) && (!b || t.seconds < b->seconds)) b = &t;
  return b;
}

bool Trials::same(const Options& a, const Options& b) {
  return option_values(a, tuned_row) == option_values(b, tuned_row);
}

// A single short trial of each candidate (the search) can mistake the noise of a shared
// machine for a difference of 30% and more; the runoff visits the few fastest in turn, so
// that a noisy moment hits all of them alike. Each visit builds the plan again (FFTW
// remembers its plans' wisdom, so that is quick) and frees it before the next: the runoff
// holds one plan's workspace at a time, like every other trial. The untuned trial (the plan
// the caller gets without tuning) always takes part when it was timed: a choice must beat
// it side by side, not only its one noisy search trial.
void Trials::runoff(int most) {
  std::vector<std::size_t> order(r_.trials.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return r_.trials[a].seconds < r_.trials[b].seconds; });
  const auto keep = static_cast<std::size_t>(most);
  if (order.size() > keep) {
    auto at = std::find_if(order.begin() + most, order.end(),
                           [&](std::size_t k) { return r_.trials[k].step.rfind(kUntuned, 0) == 0; });
    const bool add = at != order.end();
    if (add) std::iter_swap(order.begin() + most, at);
    order.resize(keep + (add ? 1 : 0));
  }
  if (order.size() < 2) return;
  constexpr int kRounds = 2;
  const int per_visit = std::max(2, (s_.trial_iters + 1) / 2);
  std::vector<std::vector<double>> times(order.size());
  for (int round = 0; round < kRounds; ++round)
    for (std::size_t c = 0; c < order.size(); ++c)
      for (double t : timed(make(r_.trials[order[c]].options), per_visit)) times[c].push_back(t);
  for (std::size_t c = 0; c < order.size(); ++c) {
    std::sort(times[c].begin(), times[c].end());
    TuneTrial& t = r_.trials[order[c]];
    t.seconds = times[c][times[c].size() / 2];
    t.step += ", runoff";
    TuneTrial seen = t;
    seen.step = "runoff";
    log_.trial(seen, true);
  }
}

Plan Trials::make(const Options& o) const {
  if (s_.in_box || s_.out_box) return Plan(comm_, n_, s_.in_box, s_.out_box, o);
  return Plan(comm_, n_, o);
}

std::vector<double> Trials::timed(Plan plan, int iters) {
  std::vector<double> times;
  {
    arrays_->fit(std::max(1, s_.fields), largest_arrays(plan, grids_, s_));  // allocates at the first trial only
    Timed t(std::move(plan), s_.fields, *arrays_);
    for (int it = 0; it < iters; ++it) times.push_back(t.once(comm_));
  }
  give_back_freed_memory();
  return times;
}

double Trials::time(Plan plan) {
  std::vector<double> times = timed(std::move(plan), std::max(1, s_.trial_iters));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace nbfft::fft::detail
