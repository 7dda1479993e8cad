// nbfft-bench nsloop: the time step of a pseudo-spectral Navier-Stokes-like code, blocking
// against split-phase transforms (docs/fft.md "Split-phase transforms", issue 12).
//
// One step: for each of F fields, compute its nonlinear term (a pointwise kernel over three
// velocity components: memory traffic plus a configurable number of flops per point), then
// transform it forward. Variants, run round-robin step by step so a busy machine slows all
// alike:
//   blocking       plan.forward() right after each term (the baseline; MPI_Alltoallv)
//   split@ENGINE   forward_start() after each term, the next term computed while the COL
//                  exchange travels, all waited at the end of the step; with the caller
//                  engine the term is cut into chunks with Pending::progress() between them,
//                  the thread engine needs no calls
// The pipeline bound is the best a split step could do given the blocking step's parts:
// compute terms c_k (sum C) and transforms t_k (sum T, of which X is the COL exchange, the
// only part a split transform hides; the local FFTs, packing and any ROW exchange, T - X,
// run on the caller's core):
//   bound = max(C + (T - X),                  the core does every term and every local stage
//               C + t_last,                   the last transform follows the last term
//               c_first + X + (T - X)/F)      the exchanges follow the first term, one after
//                                             another, plus one transform's local stages
// each from one rank's medians over steps, then the largest over ranks (the step is as
// slow as its slowest rank). It assumes a split transform costs what a blocking one does,
// and exchanges in flight together take no less than one after another: a split variant
// whose transport is faster than the blocking one, or whose concurrent exchanges fill the
// link better, can beat it (fraction > 1; --blocking-transport sets the same transport).
// Then
//   gain = T_blocking - T_split, possible = T_blocking - bound, fraction = gain / possible.
// Every variant's spectra are compared with the blocking variant's after the timed steps;
// a difference beyond rounding exits non-zero.
#include "bench/nsloop/nsloop.hpp"

#include "bench/common/clock.hpp"
#include "bench/common/json.hpp"
#include "bench/common/stats.hpp"
#include "bench/common/values.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/field.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace nbfft::bench {

const char* const kNsloopHelp = R"(nbfft-bench nsloop: a Navier-Stokes-like loop, blocking vs split-phase transforms

usage: mpirun -n P nbfft-bench nsloop [options]

  --grid N | NX,NY,NZ    global grid (default 128)
  --proc-grid M1xM2      process grid (default: the plan's choice)
  --fields F             fields per step, each a nonlinear term then its forward transform (default 3)
  --in-flight W          split transforms in flight = workspaces (default F); field k waits
                         for field k-W before it starts
  --transports LIST      transports of the split variants (default caller,thread): each runs as
                         split@LABEL; caller-engine ones call progress() inside the term
  --blocking-transport T the blocking variant's transport (default blocking = MPI_Alltoallv)
  --flops-per-point N|auto  flops of the term per point besides its 3 reads + 1 write (default
                         auto: calibrated so one term costs --compute-ratio times one blocking
                         transform, max over ranks)
  --compute-ratio X      for auto (default 1: the case with the most to gain)
  --progress-calls N     progress() calls inside each term of caller-engine variants (default 8)
  --steps N              timed steps per variant (default 10), after --warmup N (default 2)
  --effort E             FFTW planner effort (default measure)
  --json FILE            one record per variant

Columns: time per step (slowest rank; median and min over steps); compute = the terms and
nbfft calls = time inside nbfft calls (median over steps, max over ranks); gain = blocking -
variant; possible = blocking - pipeline bound; fraction = gain / possible; workspace =
bytes per rank the variant's plan and workspaces hold; max |diff| against the blocking
variant's spectra (exit 1 when one differs beyond rounding).
)";

namespace {

using Grid = std::array<std::int64_t, 3>;
using Cplx = std::complex<double>;
using Fields = std::vector<std::vector<double>>;

// Field k's nonlinear term on points [begin, end): u_k u_{k+1} - u_{k+2}/2 (three reads and
// a write per point, like a product of velocity components), then flops/2 dependent
// multiply-adds per point that relax it towards u_k. Blocks of 256 points stay in L1 and
// vectorize, so the flops cost what flops cost.
void term(const Fields& u, std::size_t k, long flops, double* out, std::size_t begin, std::size_t end) {
  const std::size_t F = u.size();
  const double* a = u[k].data();
  const double* b = u[(k + 1) % F].data();
  const double* c = u[(k + 2) % F].data();
  constexpr std::size_t B = 256;
  double x[B], y[B];
  for (std::size_t i0 = begin; i0 < end; i0 += B) {
    const std::size_t n = std::min(B, end - i0);
    for (std::size_t j = 0; j < n; ++j) {
      x[j] = a[i0 + j] * b[i0 + j] - 0.5 * c[i0 + j];
      y[j] = 1e-3 * a[i0 + j];
    }
    for (long r = 0; r < flops / 2; ++r)
      for (std::size_t j = 0; j < n; ++j) x[j] = 0.999 * x[j] + y[j];
    for (std::size_t j = 0; j < n; ++j) out[i0 + j] = x[j];
  }
}

struct Variant {
  std::string name;
  coll::Transport transport;
  bool split = false;
  bool progress = false;  // progress() calls inside the terms (not on the thread engine)
  std::unique_ptr<fft::Plan> plan;
  std::vector<fft::Plan::Workspace> ws;
  std::vector<std::vector<Cplx>> spec;
  std::vector<double> step;              // per step, max over ranks
  std::vector<double> compute, calls;    // per step, this rank
  std::size_t workspace_bytes = 0;
  double max_diff = 0, rel_diff = 0;
};

// The blocking step's parts on this rank, per step.
struct Parts {
  std::vector<double> compute, transform, col, first_compute, last_transform;
};

void run_step(Variant& v, const Fields& u, Fields& terms, long flops, long progress_calls, int in_flight,
              Parts* parts) {
  const std::size_t F = u.size();
  const fft::Plan& plan = *v.plan;
  const std::size_t nin = static_cast<std::size_t>(plan.in_count()), nout = static_cast<std::size_t>(plan.out_count());
  double compute = 0, calls = 0;
  if (!v.split) {
    double tr = 0, col = 0, first = 0, last = 0;
    for (std::size_t k = 0; k < F; ++k) {
      const double t0 = now_seconds();
      term(u, k, flops, terms[k].data(), 0, nin);
      const double t1 = now_seconds();
      fft::Timings tm;
      plan.forward(terms[k].data(), nin, v.spec[k].data(), nout, &tm);
      const double t2 = now_seconds();
      compute += t1 - t0;
      tr += t2 - t1;
      col += tm.col;
      if (k == 0) first = t1 - t0;
      if (k + 1 == F) last = t2 - t1;
    }
    calls = tr;
    if (parts) {
      parts->compute.push_back(compute);
      parts->transform.push_back(tr);
      parts->col.push_back(col);
      parts->first_compute.push_back(first);
      parts->last_transform.push_back(last);
    }
  } else {
    std::vector<fft::Plan::Pending> p(F);
    const long chunks = v.progress ? progress_calls + 1 : 1;
    for (std::size_t k = 0; k < F; ++k) {
      if (k >= static_cast<std::size_t>(in_flight)) {
        const double t = now_seconds();
        p[k - in_flight].wait();
        calls += now_seconds() - t;
      }
      // The newest transform in flight: progress() drives every nbfft exchange, one call does.
      fft::Plan::Pending* active = nullptr;
      for (std::size_t j = k; j-- > 0;)
        if (p[j].active()) {
          active = &p[j];
          break;
        }
      for (long c = 0; c < chunks; ++c) {
        const double t0 = now_seconds();
        term(u, k, flops, terms[k].data(), nin * c / chunks, nin * (c + 1) / chunks);
        const double t1 = now_seconds();
        compute += t1 - t0;
        if (active && c + 1 < chunks) {
          active->progress();
          calls += now_seconds() - t1;
        }
      }
      const double t = now_seconds();
      p[k] = plan.forward_start(terms[k].data(), nin, v.spec[k].data(), nout, v.ws[k % in_flight]);
      calls += now_seconds() - t;
    }
    const double t = now_seconds();
    for (auto& q : p)
      if (q.active()) q.wait();
    calls += now_seconds() - t;
  }
  v.compute.push_back(compute);
  v.calls.push_back(calls);
}

// max |a - b| and max |b| over every field and rank.
std::array<double, 2> diff(const std::vector<std::vector<Cplx>>& a, const std::vector<std::vector<Cplx>>& b,
                           MPI_Comm comm) {
  double d = 0, r = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    for (std::size_t i = 0; i < a[k].size(); ++i) {
      const double e = std::abs(a[k][i] - b[k][i]);
      d = std::isnan(e) ? INFINITY : std::max(d, e);
      r = std::max(r, std::abs(b[k][i]));
    }
  double in[2] = {d, r}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, comm);
  return {out[0], out[1]};
}

double median_max(const std::vector<double>& v, MPI_Comm comm) { return reduce_max(summarize(v).median, comm); }

// Flops per point so that one term costs `ratio` times one blocking transform (max over
// ranks; every rank computes the same number from the same reduced times).
long calibrate_flops(const Fields& u, Fields& terms, Variant& blocking, double ratio, MPI_Comm comm) {
  const std::size_t nin = terms[0].size();
  auto time_term = [&](long flops) {
    std::vector<double> t;
    for (int r = 0; r < 3; ++r) {
      const double t0 = now_seconds();
      term(u, 0, flops, terms[0].data(), 0, nin);
      t.push_back(now_seconds() - t0);
    }
    return reduce_max(summarize(t).median, comm);
  };
  std::vector<double> tt;
  for (int r = 0; r < 3; ++r) {
    MPI_Barrier(comm);
    const double t0 = now_seconds();
    blocking.plan->forward(terms[0].data(), nin, blocking.spec[0].data(), blocking.spec[0].size());
    tt.push_back(now_seconds() - t0);
  }
  const double transform = reduce_max(summarize(tt).median, comm);
  constexpr long kProbe = 200;
  const double c0 = time_term(0), c1 = time_term(kProbe);
  const double per_flop = (c1 - c0) / kProbe;
  if (!(per_flop > 0)) return kProbe;
  const double want = std::min((ratio * transform - c0) / per_flop, 1e6);
  return std::clamp(2 * static_cast<long>(want / 2 + 0.5), 0L, 1000000L);
}

// The loop's settings, from the command line.
struct Setup {
  Grid n{};
  long F = 3, steps = 10, warmup = 2, progress_calls = 8, flops = 0;
  int in_flight = 3;
  double ratio = 1.0;
  bool auto_flops = true;
  fft::Options base;
};

Setup parse_setup(const Args& args) {
  args.allow_only({"grid", "proc-grid", "fields", "in-flight", "transports", "blocking-transport", "flops-per-point",
                   "compute-ratio", "progress-calls", "steps", "warmup", "effort", "json", "help"});
  Setup s;
  s.n = parse_grid(args, "128", 1L << 20);
  s.F = args.get_long("fields", 3, 1, 64);
  const long W = args.get_long("in-flight", s.F, 1, 64);
  s.steps = args.get_long("steps", 10, 1, 1000000);
  s.warmup = args.get_long("warmup", 2, 0, 1000000);
  s.progress_calls = args.get_long("progress-calls", 8, 0, 1L << 20);
  s.ratio = args.get_double("compute-ratio", 1.0, 0.0, 1e6);
  const std::string flops_arg = args.get("flops-per-point", "auto");
  s.auto_flops = flops_arg == "auto";
  s.flops = s.auto_flops ? 0 : parse_long("flops-per-point", flops_arg, 0, 1000000);
  if (!s.auto_flops && args.has("compute-ratio"))
    throw Error("--compute-ratio applies only to --flops-per-point auto", ErrorCode::InvalidArgument);
  s.in_flight = static_cast<int>(std::min(W, s.F));
  s.base.effort = fft::parse_effort(args.get("effort", "measure"));
  if (args.has("proc-grid")) std::tie(s.base.m1, s.base.m2) = fft::parse_proc_grid(args.get("proc-grid", ""));
  return s;
}

// The blocking variant first (the others are measured against it), then one split variant
// per transport, each with its plan, workspaces and spectra.
std::vector<Variant> make_variants(const Args& args, const Setup& s, MPI_Comm world) {
  std::vector<Variant> vs;
  {
    Variant b;
    b.transport = coll::Transport::parse(args.get("blocking-transport", "blocking"));
    b.name = "blocking";
    vs.push_back(std::move(b));
  }
  for (const auto& t : coll::parse_transports(args.get("transports", "caller,thread"))) {
    Variant v;
    v.transport = t;
    v.name = "split@" + (t.label.empty() ? t.str() : t.label);
    v.split = true;
    v.progress = t.engine != coll::EngineKind::Thread;
    vs.push_back(std::move(v));
  }
  for (auto& v : vs) {
    fft::Options o = s.base;
    o.row_transport = o.col_transport = v.transport;
    v.plan = std::make_unique<fft::Plan>(world, s.n, o);
    v.workspace_bytes = v.plan->workspace_bytes();
    if (v.split)
      for (int k = 0; k < s.in_flight; ++k) {
        v.ws.push_back(v.plan->make_workspace());
        v.workspace_bytes += v.ws.back().bytes();
      }
    v.spec.assign(s.F, std::vector<Cplx>(static_cast<std::size_t>(v.plan->out_count())));
  }
  return vs;
}

// Velocity components: reproducible random fields from global indices.
Fields velocity(const fft::Plan& ref, const Grid& n, long F) {
  Fields u(F, std::vector<double>(static_cast<std::size_t>(ref.in_count())));
  for (long k = 0; k < F; ++k)
    fft::for_each_point(ref.in_box(), [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
      u[k][at] = reproducible_value(static_cast<std::uint64_t>(k) * 0x100000000ull +
                                    static_cast<std::uint64_t>(x + n[0] * (y + n[1] * z)));
    });
  return u;
}

// Warm-up and timed steps, round-robin over the variants; the blocking steps' parts.
Parts run_steps(std::vector<Variant>& vs, const Fields& u, Fields& terms, const Setup& s, MPI_Comm world) {
  Parts parts;
  for (long it = 0; it < s.warmup + s.steps; ++it)
    for (auto& v : vs) {
      const bool timed = it >= s.warmup;
      MPI_Barrier(world);
      const double t0 = now_seconds();
      run_step(v, u, terms, s.flops, s.progress_calls, s.in_flight, timed && !v.split ? &parts : nullptr);
      const double t = reduce_max(now_seconds() - t0, world);
      if (timed) {
        v.step.push_back(t);
      } else {
        v.compute.pop_back();
        v.calls.pop_back();
      }
    }
  return parts;
}

constexpr double kTolerance = 1e-12;

// Every variant's spectra of the last step against the blocking variant's.
bool validate(std::vector<Variant>& vs, MPI_Comm world) {
  bool ok = true;
  for (auto& v : vs) {
    const auto d = diff(v.spec, vs[0].spec, world);
    v.max_diff = d[0];
    v.rel_diff = d[1] > 0 ? d[0] / d[1] : d[0];
    ok = ok && v.rel_diff <= kTolerance;
  }
  return ok;
}

// The blocking step's parts (medians, slowest rank) and the pipeline bound (header comment).
struct Bound {
  double C = 0, T = 0, X = 0, c_first = 0, t_last = 0, bound = 0;
};

Bound pipeline_bound(const Parts& parts, long F, MPI_Comm world) {
  Bound b;
  b.C = median_max(parts.compute, world);
  b.T = median_max(parts.transform, world);
  b.X = median_max(parts.col, world);
  b.c_first = median_max(parts.first_compute, world);
  b.t_last = median_max(parts.last_transform, world);
  const double c = summarize(parts.compute).median, t = summarize(parts.transform).median,
               x = summarize(parts.col).median, cf = summarize(parts.first_compute).median,
               tl = summarize(parts.last_transform).median;
  b.bound = reduce_max(std::max({c + (t - x), c + tl, cf + x + (t - x) / static_cast<double>(F)}), world);
  return b;
}

// Per variant, the slowest rank's medians of compute and nbfft calls, and the largest
// workspace over ranks (what decides whether a grid fits). Collective.
struct Reduced {
  std::vector<double> compute_s, calls_s;
};

Reduced reduce_variants(std::vector<Variant>& vs, MPI_Comm world) {
  Reduced r;
  for (auto& v : vs) {
    r.compute_s.push_back(median_max(v.compute, world));
    r.calls_s.push_back(median_max(v.calls, world));
  }
  for (auto& v : vs) {
    unsigned long long mine = v.workspace_bytes, mx = 0;
    MPI_Allreduce(&mine, &mx, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, world);
    v.workspace_bytes = static_cast<std::size_t>(mx);
  }
  return r;
}

// Rank 0: the header, the table and the JSON records.
void report(const Args& args, const Setup& s, const std::vector<Variant>& vs, const Bound& b, const Reduced& r,
            int size) {
  const fft::Plan& ref = *vs[0].plan;
  const Grid& n = s.n;
  const long F = s.F;
  const Summary tb = summarize(vs[0].step);
  // The loop's own arrays per rank: velocity, terms and spectra of every field.
  const std::size_t data_bytes = static_cast<std::size_t>(F) * (2 * ref.in_bytes() + ref.out_bytes());
  const std::string grid = std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
  const std::string pgrid = std::to_string(ref.m1()) + "x" + std::to_string(ref.m2());
  char how[64] = "";
  if (s.auto_flops) std::snprintf(how, sizeof how, " (auto: a term ~ %g x a transform)", s.ratio);
  std::printf("nbfft-bench nsloop: grid %s on %s (%d ranks), %ld fields, %d in flight, %ld flops/point%s, "
              "%ld steps (+%ld warm-up), %ld progress calls per term\n",
              grid.c_str(), pgrid.c_str(), size, F, s.in_flight, s.flops, how, s.steps, s.warmup, s.progress_calls);
  std::printf("blocking step parts (median, slowest rank): terms %.2f ms (first %.2f), transforms %.2f ms "
              "(COL exchange %.2f, last transform %.2f)\n",
              1e3 * b.C, 1e3 * b.c_first, 1e3 * b.T, 1e3 * b.X, 1e3 * b.t_last);
  std::printf("pipeline bound max(C + T - X, C + t_last, c_first + X + (T - X)/F) (per rank, slowest) = %.2f ms; "
              "blocking step %.2f ms\n\n", 1e3 * b.bound,
              1e3 * tb.median);
  std::printf("%-24s %-20s %9s %8s %10s %10s %8s %8s %8s %10s %10s\n", "variant", "transport", "median ms", "min ms",
              "compute ms", "nbfft ms", "gain ms", "possible", "fraction", "ws MiB", "max |diff|");
  std::vector<JsonRecord> records;
  for (std::size_t i = 0; i < vs.size(); ++i) {
    const Variant& v = vs[i];
    const Summary st = summarize(v.step);
    const double gain = tb.median - st.median, possible = tb.median - b.bound;
    const double fraction = possible > 0 ? gain / possible : NAN;
    std::printf("%-24s %-20s %9.2f %8.2f %10.2f %10.2f %8.2f %8.2f %8.2f %10.2f %10.1e%s\n", v.name.c_str(),
                v.transport.str().c_str(), 1e3 * st.median, 1e3 * st.min, 1e3 * r.compute_s[i], 1e3 * r.calls_s[i],
                1e3 * gain, 1e3 * possible, fraction, v.workspace_bytes / 1048576.0, v.max_diff,
                v.rel_diff <= kTolerance ? "" : "  MISMATCH");
    std::ostringstream plan;
    plan << *v.plan;
    JsonRecord rec;
    rec.add("bench", "nsloop")
        .add("variant", v.name)
        .add("transport", v.transport.str())
        .add("split", v.split ? 1L : 0L)
        .add("progress_calls", v.progress ? s.progress_calls : 0L)
        .add_raw("grid", "[" + std::to_string(n[0]) + ", " + std::to_string(n[1]) + ", " + std::to_string(n[2]) + "]")
        .add("proc_grid", pgrid)
        .add("ranks", size)
        .add("fields", F)
        .add("in_flight", static_cast<long>(v.split ? s.in_flight : 1))
        .add("flops_per_point", s.flops)
        .add("flops_auto", s.auto_flops ? 1L : 0L)
        .add("compute_ratio", s.auto_flops ? s.ratio : NAN)
        .add("effort", fft::name(s.base.effort))
        .add("steps", s.steps)
        .add("warmup", s.warmup)
        .add("time_s", st.median)
        .add("time_min_s", st.min)
        .add("time_max_s", st.max)
        .add("compute_s", r.compute_s[i])
        .add("nbfft_calls_s", r.calls_s[i])
        .add("blocking_time_s", tb.median)
        .add("blocking_compute_s", b.C)
        .add("blocking_transform_s", b.T)
        .add("blocking_col_s", b.X)
        .add("first_compute_s", b.c_first)
        .add("last_transform_s", b.t_last)
        .add("bound_s", b.bound)
        .add("gain_s", gain)
        .add("possible_s", possible)
        .add("fraction", fraction)
        .add("workspace_bytes", static_cast<long>(v.workspace_bytes))
        .add("data_bytes", static_cast<long>(data_bytes))
        .add("max_abs_diff", v.max_diff)
        .add("rel_diff", v.rel_diff)
        .add("valid", v.rel_diff <= kTolerance ? 1L : 0L)
        .add("plan", plan.str());
    records.push_back(rec);
  }
  std::fflush(stdout);
  if (args.has("json")) write_json(args.get("json", ""), records);
}

}  // namespace

int run_nsloop(const Args& args, MPI_Comm world) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  Setup s = parse_setup(args);
  check_outputs(world, {{"--json", args.get("json", "")}});
  std::vector<Variant> vs = make_variants(args, s, world);
  const Fields u = velocity(*vs[0].plan, s.n, s.F);
  Fields terms(u.size(), std::vector<double>(u[0].size()));  // each term's output (zeros until computed)
  if (s.auto_flops) s.flops = calibrate_flops(u, terms, vs[0], s.ratio, world);
  const Parts parts = run_steps(vs, u, terms, s, world);
  const bool ok = validate(vs, world);
  const Bound bound = pipeline_bound(parts, s.F, world);
  const Reduced reduced = reduce_variants(vs, world);
  if (rank != 0) return ok ? 0 : 1;
  report(args, s, vs, bound, reduced, size);
  if (!ok) std::fprintf(stderr, "nbfft-bench nsloop: a split variant's spectra differ from the blocking variant's\n");
  return ok ? 0 : 1;
}

}  // namespace nbfft::bench
