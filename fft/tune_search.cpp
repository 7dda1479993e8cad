// Which candidates the tuner times, and in what order (fft/tune_detail.hpp; the steps are
// drawn in include/nbfft/fft/tune.hpp).
#include "fft/tune_detail.hpp"
#include "fft/threads.hpp"
#include "fft/axis_fft.hpp"
#include "gpu/transform.hpp"

#include "nbfft/coll/engine.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/decomposition.hpp"

#include <algorithm>

namespace nbfft::fft::detail {

namespace {

std::vector<std::pair<int, int>> grids(std::array<std::int64_t, 3> n, const Options& base, int P) {
  const bool r2c = base.transform == TransformKind::R2C;
  if (base.m1 > 0 || base.m2 > 0) {  // the caller fixed the grid: validate it, tune the rest
    const Decomposition d = Decomposition::make(n, r2c, base.m1, base.m2, P, 0, base.allow_empty);
    return {{d.m1, d.m2}};
  }
  std::vector<std::pair<int, int>> g;
  for (int m1 = 1; m1 <= P; ++m1)
    if (P % m1 == 0 && Decomposition::empty_reason(n, r2c, m1, P / m1).empty()) g.emplace_back(m1, P / m1);
  if (g.empty()) g.push_back(Decomposition::choose_grid(n, r2c, P));
  return g;
}

std::vector<std::string> transports(TuneEffort e, int peers, bool thread_ok) {
  return coll::tuning_transports(e != TuneEffort::Quick, peers, thread_ok);
}

std::vector<int> progress_chunk_values(TuneEffort e) {
  return e == TuneEffort::Quick ? std::vector<int>{16, 256} : std::vector<int>{8, 16, 32, 128, 256};
}
std::vector<int> chunk_plane_values(TuneEffort e) {
  return e == TuneEffort::Quick ? std::vector<int>{2, 8} : std::vector<int>{1, 2, 4, 8, 16};
}

// Threads per rank to try: powers of two below the CPUs, and the CPUs themselves.
std::vector<int> thread_values(int most) {
  std::vector<int> t;
  for (int k = 1; k < most; k *= 2) t.push_back(k);
  t.push_back(most);
  return t;
}

bool overlaps(const Options& o) { return o.col_transport.algorithm.name != "blocking"; }


std::size_t grids_kept(TuneEffort e) { return e == TuneEffort::Quick ? 2 : 3; }

// A candidate on grid g; several fields start with seed 000's two-field pipeline.
Options with(const Options& base, std::pair<int, int> g, int fields) {
  Options o = base;
  o.m1 = g.first;
  o.m2 = g.second;
  if (fields > 1 && o.fields_in_flight == 1) o.fields_in_flight = 2;
  return o;
}

// Every candidate of the exhaustive search, in the order timed.
std::vector<Options> exhaustive_candidates(const SearchSpace& sp) {
  std::vector<Options> out;
  const int fields = sp.s.fields;
  for (auto g : grids(sp.n, sp.base, sp.ranks))
    for (const auto& name : transports(TuneEffort::Thorough, std::max(g.first, g.second), sp.thread_ok)) {
      Options o = with(sp.base, g, fields);
      o.transport(name);
      std::vector<int> cps = {0};
      if (o.m1 == 1 && o.m2 > 1 && overlaps(o))
        for (int cp : chunk_plane_values(TuneEffort::Thorough)) cps.push_back(cp);
      for (int cp : cps) {
        std::vector<int> pcs = {0};
        if (o.col_transport.engine == coll::EngineKind::Caller && overlaps(o) && (fields > 1 || cp > 0))
          for (int pc : progress_chunk_values(TuneEffort::Thorough)) pcs.push_back(pc);
        std::vector<int> inflight = {o.fields_in_flight};
        if (fields > 1) inflight = {1, 2, 3};
        for (int pc : pcs)
          for (int k : inflight)
            for (bool row : {false, true}) {
              if (row && !(o.m1 > 1 && o.m2 > 1 && k > 1)) continue;
              Options c = o;
              c.col_chunk_planes = cp;
              c.progress_chunks = pc;
              c.fields_in_flight = k;
              c.pipeline_row = row;
              for (int th : thread_values(sp.max_threads)) {
                c.threads = th;
                out.push_back(c);
              }
              if (sp.max_threads > 1 && uses_engine_thread(c)) {  // the engine on a core of its own
                c.engine_own_core = true;
                out.push_back(c);
                c.engine_own_core = false;
              }
            }
      }
    }
  return out;
}

// The backends a stage may run: every built one with the stage's kind natively (r2r on a
// backend without it, through its DFT, is never the faster); none to search when the
// caller chose the stage's backend or only one qualifies.
std::vector<local::Backend> stage_backends(const Options& base, int a) {
  std::vector<local::Backend> v;
  if (base.backends[a] != Backend::Auto || base.device != Device::Host) return v;  // (cuFFT on the device)
  for (local::Backend b : local::built_backends())
    if (!is_r2r(base.kinds[a]) || local::supports_r2r(b)) v.push_back(b);
  return v.size() > 1 ? v : std::vector<local::Backend>{};
}

int backend_trials(const Options& base) {
  int n = 0;
  for (int a = 0; a < 3; ++a) n += std::max<int>(0, static_cast<int>(stage_backends(base, a).size()) - 1);
  return n;
}

}  // namespace

void search_overlap(Trials& trials, const SearchSpace& sp);
void search_device_exchanges(Trials& trials, const SearchSpace& sp);

// 7. The local FFT backend of each stage in turn, on the best so far (the others held): a
// stage's FFTs cost the same whatever the exchange, so one pass finds the mix.
void search_backends(Trials& trials, const SearchSpace& sp) {
  for (int a = 0; a < 3; ++a) {
    const std::vector<local::Backend> choices = stage_backends(sp.base, a);
    if (choices.empty() || !trials.best()) continue;
    // Trials record the backends their plans ran (Trials::run), never Auto: a candidate
    // differs from the best in this stage alone.
    const Options now = trials.best()->options;
    for (local::Backend b : choices) {
      if (public_backend(b) == now.backends[a]) continue;
      Options o = now;
      o.backends[a] = public_backend(b);
      trials.run(o, "backend");
      if (trials.out_of_time()) return;
    }
  }
}

std::vector<std::pair<int, int>> candidate_grids(const SearchSpace& sp) { return grids(sp.n, sp.base, sp.ranks); }

int planned_trials(const SearchSpace& sp, int runoff) {
  const int extra = 1 + runoff + 1;  // the untuned trial, the runoff (it may add the untuned)
  if (sp.s.effort == TuneEffort::Exhaustive)
    return static_cast<int>(exhaustive_candidates(sp).size()) + extra + backend_trials(sp.base);
  const auto g = grids(sp.n, sp.base, sp.ranks);
  int per_grid = 0;
  for (std::size_t k = 0; k < std::min(g.size(), grids_kept(sp.s.effort)); ++k) {
    const bool pencils = g[k].first > 1 && g[k].second > 1;
    const int t = static_cast<int>(transports(sp.s.effort, std::max(g[k].first, g[k].second), sp.thread_ok).size());
    per_grid += sp.s.effort != TuneEffort::Quick && pencils ? 2 * t : t;
  }
  int chunks = static_cast<int>(chunk_plane_values(sp.s.effort).size() + progress_chunk_values(sp.s.effort).size());
  int fields = sp.s.fields > 1 ? std::min(3, sp.s.fields) + 1 : 0;
  const int threads = sp.max_threads > 1 ? static_cast<int>(thread_values(sp.max_threads).size()) + 1 : 0;
  return static_cast<int>(g.size()) + per_grid + chunks + fields + threads + extra + backend_trials(sp.base);
}

void search_greedy(Trials& trials, const SearchSpace& sp) {
  const TuneSettings& s = sp.s;
  // 1. grids, blocking.
  std::vector<std::pair<double, std::pair<int, int>>> by_time;
  for (auto g : grids(sp.n, sp.base, sp.ranks)) {
    Options o = with(sp.base, g, s.fields);
    o.transport("blocking");
    const double t = trials.run(o, "grid");
    if (t >= 0) by_time.push_back({t, g});
  }
  if (by_time.empty()) return;
  std::sort(by_time.begin(), by_time.end());
  std::vector<std::pair<int, int>> kept;
  for (const auto& [t, g] : by_time)
    if (kept.size() < grids_kept(s.effort) && t <= by_time.front().first * s.keep_within) kept.push_back(g);

  // 2. transports on the kept grids (both exchanges alike, and Thorough: ROW blocking).
  for (auto g : kept) {
    const int peers = std::max(g.first, g.second);
    for (const auto& name : transports(s.effort, peers, sp.thread_ok)) {
      Options o = with(sp.base, g, s.fields);
      o.transport(name);
      trials.run(o, "transport");
      if (s.effort != TuneEffort::Quick && g.first > 1 && g.second > 1) {
        o.row_transport = coll::Transport::parse("blocking");
        trials.run(o, "transport");
      }
    }
  }

  // 2b. a device plan's exchanges (Options::device_exchange) on the best so far: those the
  // machine cannot run (ipc off a GPU, mpi on an MPI without GPU memory, nccl without NCCL
  // or with ranks sharing a GPU) are refused by the plan and skipped.
  search_device_exchanges(trials, sp);
  // 3. chunking on the best so far, 4. fields in flight; 5. threads per rank on the best.
  search_overlap(trials, sp);
  if (sp.max_threads > 1 && trials.best()) {
    const Options now = trials.best()->options;
    for (int th : thread_values(sp.max_threads)) {
      Options o = now;
      o.threads = th;
      trials.run(o, "threads");
    }
    // 6. the thread engine's core: shared with the compute threads or one of its own
    // (Options::engine_own_core; the plan then runs at most CPUs - 1 compute threads), on
    // the fastest trial with the thread engine: its own core may make it the fastest.
    if (const TuneTrial* t = trials.best_of(uses_engine_thread)) {
      Options o = t->options;
      o.engine_own_core = !o.engine_own_core;
      o.threads = sp.max_threads;
      trials.run(o, "engine_core");
    }
  }
  search_backends(trials, sp);
}

void search_device_exchanges(Trials& trials, const SearchSpace& sp) {
  if (sp.base.device == Device::Host || !trials.best()) return;
  const Options now = trials.best()->options;
  for (DeviceExchange e : {DeviceExchange::Staged, DeviceExchange::Ipc, DeviceExchange::Mpi, DeviceExchange::Nccl}) {
    Options o = now;
    o.device_exchange = e;
    // (mpi hands the buffers to MPI: only the algorithms that do not copy on the host)
    if (e == DeviceExchange::Mpi &&
        !(gpu::hands_buffers_to_mpi(o.row_transport) && gpu::hands_buffers_to_mpi(o.col_transport)))
      o.transport("native");
    trials.run(o, "device_exchange");
  }
}

void search_overlap(Trials& trials, const SearchSpace& sp) {
  const TuneSettings& s = sp.s;
  const TuneTrial* b = trials.best();
  if (!b || !overlaps(b->options)) return;
  const Options best = b->options;
  const bool caller = best.col_transport.engine == coll::EngineKind::Caller;
  if (best.m1 == 1 && best.m2 > 1)
    for (int cp : chunk_plane_values(s.effort)) {
      Options o = best;
      o.col_chunk_planes = cp;
      trials.run(o, "chunks");
    }
  if (caller && (s.fields > 1 || trials.best()->options.col_chunk_planes > 0)) {
    const Options now = trials.best()->options;
    for (int pc : progress_chunk_values(s.effort)) {
      Options o = now;
      o.progress_chunks = pc;
      trials.run(o, "chunks");
    }
  }
  // Fields in flight (each costs a workspace): in turn, two, three.
  if (s.fields > 1) {
    const Options now = trials.best()->options;
    for (int k = 1; k <= std::min(3, s.fields); ++k) {
      Options o = now;
      o.fields_in_flight = k;
      trials.run(o, "fields");
    }
    // Pencils: the ROW exchange pipelined across fields too.
    Options o = trials.best()->options;
    if (o.m1 > 1 && o.m2 > 1 && o.fields_in_flight > 1) {
      o.pipeline_row = true;
      trials.run(o, "fields");
    }
  }
}

void search_exhaustive(Trials& trials, const SearchSpace& sp) {
  for (const Options& c : exhaustive_candidates(sp)) {
    trials.run(c, "exhaustive");
    if (trials.out_of_time()) return;
  }
  search_backends(trials, sp);
}

}  // namespace nbfft::fft::detail
