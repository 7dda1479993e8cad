#include "bench/sine/measure.hpp"

#include "bench/sine/device_runner.hpp"
#include "bench/sine/memory.hpp"
#include "bench/sine/nbfft_runner.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/tune.hpp"
#include "fft/threads.hpp"

#include <mpi.h>

#include <algorithm>
#include <functional>
#include <iostream>

namespace nbfft::sine {

namespace {

// Element k of every rank's `local`, maxed over ranks.
std::vector<double> max_over_ranks(const std::vector<double>& local) {
  std::vector<double> global(local.size());
  MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return global;
}

// Median over i < n of v[i * stride + at].
double median_of(const std::vector<double>& v, int n, int stride, int at, double scale = 1.0) {
  std::vector<double> x(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) x[i] = v[static_cast<std::size_t>(i * stride + at)] * scale;
  return bench::summarize(x).median;
}

// Per direction, nv exchanges back to back with nothing else running (so the network stays
// as busy as in a pipeline), after a barrier; slowest rank, median over repetitions.
bool exchanges_alone(const SineArgs& a, const std::function<bool(int, fft::Direction, fft::Timings&)>& ex, double row[2],
                     double col[2]) {
  const int reps = std::max(3, std::min(a.iters, 5));
  std::vector<double> loc(static_cast<std::size_t>(reps) * 4);
  bool ok = true;
  for (int i = 0; i < reps && ok; ++i)
    for (int d = 0; d < 2 && ok; ++d)
      for (int x = 0; x < 2 && ok; ++x) {
        fft::Timings t;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int v = 0; v < a.fields && ok; ++v) ok = ex(x, d == 0 ? fft::Direction::Forward : fft::Direction::Backward, t);
        loc[4 * i + 2 * d + x] = (x == 0 ? t.row : t.col) / a.fields;
      }
  if (!ok) return false;
  const auto glob = max_over_ranks(loc);
  for (int d = 0; d < 2; ++d) {
    row[d] = median_of(glob, reps, 4, 2 * d);
    col[d] = median_of(glob, reps, 4, 2 * d + 1);
  }
  return true;
}

}  // namespace

BlockingRun Result::as_blocking() const {
  BlockingRun b;
  b.time_s = total_s();
  for (int d = 0; d < 2; ++d) {
    b.work[d] = work[d];
    b.compute[d] = compute[d];
    b.exchange[d] = exch[d];
  }
  return b;
}

namespace {

// Seed 000's process grid for P ranks: the most square M1 x M2 (2x2 on 4 ranks).
std::pair<int, int> seed_grid(int P) {
  int m1 = 1;
  for (int k = 1; k * k <= P; ++k)
    if (P % k == 0) m1 = k;
  return {m1, P / m1};
}

// Makes r's runner through `make` and runs its first iteration (untimed) inside the peak
// RSS probe, so that the run's peak covers its planning (the tuner's trials included) and
// every buffer it touches.
template <typename Make>
void make_measured(PeakRss& rss, Result& r, Make&& make) {
  rss.begin();
  make();
  fft::Timings t;
  r.runner->iterate(t);
  unsigned long long mine = rss.end(), most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  r.peak_rss = static_cast<std::size_t>(most);
}

// The plan options given as --KEY VALUE alone (every run's; the defaults elsewhere).
fft::Options given_options(const SineArgs& a) {
  fft::Options given;
  for (const auto& [k, v] : a.plan_extra) fft::set_option(given, k, v);
  return given;
}

}  // namespace

std::vector<Result> plan_runs(const SineArgs& a, std::vector<std::string>& skipped) {
  std::vector<Result> results;
  PeakRss rss;
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (const auto& g : a.grids)
    for (std::size_t k = 0; k < a.transports.size(); ++k)
      for (int pc : a.progress_chunks)
        for (int cp : a.chunk_planes)
          for (bool lean : a.lean) {
            Result r;
            std::string label = a.transport_names[k];
            if (a.progress_chunks.size() > 1) label += "/k" + std::to_string(pc);
            if (a.chunk_planes.size() > 1) label += "/p" + std::to_string(cp);
            if (lean) label += "/lean";
            // A transport this MPI cannot run here (the plan fails on every rank alike, e.g.
            // rma over TCP under MPI_THREAD_MULTIPLE in Open MPI 4.1) is skipped, not fatal.
            try {
              fft::Options o = plan_options(a, g.first, g.second, a.transports[k], pc, cp);
              o.lean_workspace = lean;
              make_measured(rss, r, [&] { r.runner = make_nbfft(MPI_COMM_WORLD, a, o, label); });
            } catch (const Error& e) {
              skipped.push_back(label + " on " + std::to_string(g.first) + "x" + std::to_string(g.second) + ": " + e.what());
              continue;
            }
            r.blocking = !lean && a.transports[k].algorithm.name == "blocking" &&
                         (a.row_transport.empty() ||
                          coll::Transport::parse(a.row_transport).algorithm.name == "blocking");
            const coll::Transport plain{};  // what a Plan uses when nobody says otherwise
            if (g == std::make_pair(0, 0) && a.transports[k].str() == plain.str() && pc == 0 && cp == 0 && !lean &&
                a.row_transport.empty() && a.fields == 1 && a.plan_extra.empty())
              r.role = "default";
            results.push_back(std::move(r));
          }
  for (const auto& effort : a.tune) {
    // The tuner's choice for this grid, ranks and field count, as one more run. It times
    // its candidates with the same options nbfft-sine uses (normalized forward).
    fft::Options base = plan_options(a, 0, 0, coll::Transport::parse("blocking"), 0, 0);
    base.tune = fft::parse_tune_effort(effort);  // the option table's tuning rows
    base.tune_budget = a.tune_budget;
    base.tune_fields = a.fields;
    base.tune_wisdom = a.tune_wisdom;
    base.tune_log = a.tune_log;
    const fft::TuneSettings s = fft::tune_settings(base);
    if (a.grids.size() == 1 && a.grids[0].first > 0) {  // one fixed grid: tune the rest
      base.m1 = a.grids[0].first;
      base.m2 = a.grids[0].second;
    }
    fft::forget_tuning();  // each effort searches for itself (a wisdom file still answers)
    Result r;
    r.role = "tuned";
    make_measured(rss, r, [&] {
      const fft::TuneReport report = fft::tune(MPI_COMM_WORLD, a.n, base, s);
      unsigned long long grown = rss.grown(), most = 0;  // what a caller whose arrays exist already adds
      MPI_Allreduce(&grown, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
      r.tuning_rss = static_cast<std::size_t>(most);
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) std::cout << "[" << effort << "] " << report << std::flush;
      r.runner = make_nbfft(MPI_COMM_WORLD, a, report.chosen, "tuned-" + effort);
      const fft::Options& c = report.chosen;
      r.chosen = c.col_transport.str();
      if (c.row_transport.str() != c.col_transport.str() && c.m1 > 1)
        r.chosen = "ROW " + c.row_transport.str() + ", COL " + r.chosen;
      if (c.col_chunk_planes > 0) r.chosen += ", COL in chunks of " + std::to_string(c.col_chunk_planes) + " planes";
      if (c.fields_in_flight > 1) r.chosen += ", " + std::to_string(c.fields_in_flight) + " fields in flight";
    });
    results.push_back(std::move(r));
  }
  if (a.seed_run) {
    // Seed 000's configuration: the most square pencils, the ROW exchange blocking and the
    // COL exchange non-blocking, progressed inside the compute (pairwise:4@caller), with
    // --fields > 1 two fields in flight (its Fig. 4 pipeline).
    const auto g = seed_grid(P);
    const std::string label = "seed-" + std::to_string(g.first) + "x" + std::to_string(g.second);
    Result r;
    r.role = "seed";
    try {
      fft::Options o = plan_options(a, g.first, g.second, coll::Transport::parse("caller"), 0, 0);
      o.row_transport = coll::Transport::parse("blocking");
      make_measured(rss, r, [&] { r.runner = make_nbfft(MPI_COMM_WORLD, a, o, label); });
      results.push_back(std::move(r));
    } catch (const Error& e) {
      skipped.push_back(label + ": " + e.what());
    }
  }
  if (results.empty()) {
    std::string why;
    for (const auto& w : skipped) why += "\n  " + w;
    throw Error("no run could be planned:" + why);
  }
  // FFTW-MPI's baseline runs the periodic transform or, for real data with every axis r2r
  // (--kinds), its r2r transform; other kinds would time another transform, so an explicit
  // request fails and auto leaves it out.
  const fft::Options given = given_options(a);
  const bool comparable = !fft::any_r2r(given.kinds) ||
                          (fft::all_r2r(given.kinds) && a.transform == fft::TransformKind::R2C);
  if (!comparable && a.baseline == "fftw-mpi")
    throw Error("--baseline fftw-mpi runs FFTW-MPI's periodic or all-r2r real transform, not kinds " +
                fft::kinds_str(given.kinds) + " (" + fft::name(a.transform) + "); leave out --baseline (or use auto)");
  if (a.baseline == "cufft") {  // cuFFT's own single-GPU transform, on the runs' device
    Result r;
    r.baseline = true;
    make_measured(rss, r, [&] { r.runner = make_cufft(MPI_COMM_WORLD, a, given); });
    results.push_back(std::move(r));
    return results;
  }
  if (comparable && (a.baseline == "fftw-mpi" || (a.baseline == "auto" && fftw_mpi_available()))) {
    Result r;
    r.baseline = true;
    make_measured(rss, r, [&] {
      r.runner = make_fftw_mpi({MPI_COMM_WORLD, a.n, a.precision, a.transform, a.effort, a.fields, given.kinds,
                                fft::resolve_threads(given.threads)});
    });
    results.push_back(std::move(r));
  }
  return results;
}

void iterate_runs(const SineArgs& a, std::vector<Result>& results) {
  auto one = [&](Result& r, bool timed) {
    fft::Timings t;
    MPI_Barrier(MPI_COMM_WORLD);
    r.runner->iterate(t);
    double e = r.runner->local_error(), emax = 0;
    MPI_Allreduce(&e, &emax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    r.max_error = std::max(r.max_error, emax);
    if (!timed) return;
    r.iters.push_back(t);
    fft::Timings f, b;
    if (r.runner->directions(f, b)) {
      r.fwd.push_back(f);
      r.bwd.push_back(b);
    }
  };
  // Round-robin over runs, so slow phases of a shared machine hit all alike.
  if (a.sequential) {
    for (auto& r : results) {
      for (int i = 0; i < a.warmup; ++i) one(r, false);
      for (int i = 0; i < a.iters; ++i) one(r, true);
    }
    return;
  }
  for (int i = 0; i < a.warmup; ++i)
    for (auto& r : results) one(r, false);
  for (int i = 0; i < a.iters; ++i)
    for (auto& r : results) one(r, true);
}

std::vector<Reference> measure_alone(const SineArgs& a, std::vector<Result>& results) {
  for (auto& r : results) {
    if (r.baseline) continue;
    r.has_alone = exchanges_alone(
        a, [&](int x, fft::Direction f, fft::Timings& t) { return r.runner->exchange_only(x, f, t); }, r.row_alone, r.col_alone);
  }
  // A fixed set of reference transports on each process grid, so that the bound does not
  // depend on which transports --transport lists.
  std::vector<Reference> refs;
  // (device plans have no exchange-alone mode: no references for them)
  if (a.fields <= 1 || given_options(a).device != fft::Device::Host) return refs;
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  std::vector<std::string> names = {"blocking", "native", "caller"};
  if (level == MPI_THREAD_MULTIPLE) names.push_back("thread");
  for (const auto& g : a.grids)
    for (const auto& name : names) {
      fft::Options o = plan_options(a, g.first, g.second, coll::Transport::parse(name), 0, 0);
      o.effort = fft::Effort::Estimate;  // only the exchanges run
      const fft::Plan plan(MPI_COMM_WORLD, a.n, o);
      Reference ref;
      ref.label = name;
      ref.proc_grid = std::to_string(plan.m1()) + "x" + std::to_string(plan.m2());
      exchanges_alone(
          a, [&](int x, fft::Direction f, fft::Timings& t) { plan.exchange_only(x, f, &t); return true; }, ref.row, ref.col);
      refs.push_back(ref);
    }
  return refs;
}

void reduce_runs(const SineArgs& a, std::vector<Result>& results) {
  const int P = fft::Timings::kPhases, n = a.iters;
  for (auto& r : results) {
    std::vector<double> local(static_cast<std::size_t>(n) * P);
    for (int i = 0; i < n; ++i)
      for (int p = 0; p < P; ++p) local[i * P + p] = r.iters[i].phase(p);
    const auto global = max_over_ranks(local);
    for (int p = 0; p < P; ++p) {
      std::vector<double> v(n);
      for (int i = 0; i < n; ++i) v[i] = global[i * P + p];
      r.phase[p] = bench::summarize(v);
      if (p == P - 1) r.round_s = v;
    }
    if (r.fwd.size() != static_cast<std::size_t>(n)) continue;
    // Per direction: compute (all but the COL exchange), total and local work.
    std::vector<double> loc(6 * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const fft::Timings* dt[2] = {&r.fwd[i], &r.bwd[i]};
      for (int d = 0; d < 2; ++d) {
        loc[6 * i + 3 * d] = dt[d]->total - dt[d]->col;
        loc[6 * i + 3 * d + 1] = dt[d]->total;
        loc[6 * i + 3 * d + 2] = dt[d]->fft_x + dt[d]->fft_y + dt[d]->fft_z + dt[d]->pack + dt[d]->unpack;
      }
    }
    const auto glob = max_over_ranks(loc);
    const double per_field = 1.0 / a.fields;
    for (int d = 0; d < 2; ++d) {
      std::vector<double> e(n);
      for (int i = 0; i < n; ++i)
        e[i] = std::max(0.0, (glob[6 * i + 3 * d + 1] - glob[6 * i + 3 * d]) * per_field);
      r.compute[d] = median_of(glob, n, 6, 3 * d, per_field);
      r.exch[d] = bench::summarize(e).median;
      r.work[d] = median_of(glob, n, 6, 3 * d + 2, per_field);
    }
    r.has_dirs = true;
  }
}

}  // namespace nbfft::sine
