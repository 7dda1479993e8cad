// nbfft-bench overlap: how much of a non-blocking alltoall hides behind computation
// (seed 000 Fig. 5, measured as OSU's osu_ialltoall does; definitions in DESIGN.md).
//
//   base      start + wait of the K collectives with no compute (median over iterations,
//             max over ranks, so every rank computes for the same time)
//   total     start, compute for `base` with T test calls spread evenly, wait
//   overheads time inside start, the test calls and wait (start is counted too: for the
//             blocking algorithm it is the whole exchange)
//   compute   total - overheads;   overlap % = 100 · compute / total
//   alone     the same compute (same chunks) with nothing in flight, timed in the same
//             iterations, interleaved with the overlapped runs (so drift hits both alike)
//   slowdown  compute / alone: how much the communication slowed the compute down (engine
//             thread, kernel network work and memory traffic compete for the cores)
//   hidden %  100 · (base + alone - total) / min(base, alone): the share of the shorter
//             activity that really disappeared (IMB-NBC); seed 000's overlap % cannot see a
//             slowed-down compute, this can
//
// Every value is the median over iterations on a rank, then the mean over ranks; the
// engine agent's CPU time per iteration is reported beside it.
#include "bench/overlap/overlap.hpp"

#include "bench/common/compute.hpp"
#include "bench/common/clock.hpp"
#include "bench/common/json.hpp"
#include "bench/common/overlap_metrics.hpp"
#include "bench/common/stats.hpp"
#include "nbfft/coll/coll.hpp"
#include "nbfft/coll/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace nbfft::bench {

const char* const kOverlapHelp = R"(nbfft-bench overlap [options]
  Overlap of non-blocking alltoalls with computation (seed 000 Fig. 5, Table I, Fig. 10).
  Every list option runs each value; one table per message size.
  --algorithm LIST   alltoall algorithms (default pairwise); see `nbfft-bench algorithms`
  --window LIST      pairwise window W (default 4)
  --progress LIST    progress engines: caller, thread, native (default thread)
  --sizes LIST       bytes per peer (default 1024,65536,1048576)
  --tests LIST       test calls spread over the compute (default 10; a list is Table I's sweep)
  --concurrent K     K collectives outstanding at once (default 1; Fig. 10)
  --iters N          measured iterations (default 20), after 3 warm-up ones
  --compute KIND     cache (L1-resident loop) or memory (streams 64 MiB, like an FFT) (default memory)
  --trace FILE       record a timeline of every rank (Chrome/Perfetto trace-event JSON)
  --json FILE        write one record per configuration
  Columns: seed 000's overlap % (compute / total) and, beside it, the compute alone timed in
  the same run, the compute slowdown under communication and the hidden share
  100*(base + alone - total)/min(base, alone) (DESIGN.md "Measures").
)";

namespace {


struct Config {
  coll::AlgorithmSpec algo;
  coll::EngineKind engine;
  long bytes;
  long tests;
  long concurrent;
};

struct Result {
  double base, total, compute, overhead, overlap, engine_cpu, alone, slowdown, hidden;
};

class Setup {
 public:
  Setup(const coll::Comm& comm, const Config& c) {
    const std::size_t P = static_cast<std::size_t>(comm.size());
    for (long k = 0; k < c.concurrent; ++k) {
      send_.emplace_back(P * static_cast<std::size_t>(c.bytes), static_cast<char>(k + 1));
      recv_.emplace_back(P * static_cast<std::size_t>(c.bytes), 0);
      colls_.push_back(coll::alltoall(comm, send_.back().data(), recv_.back().data(), c.bytes, 1, c.algo));
    }
  }
  // Starts all K; returns seconds spent in the starts.
  double start(std::vector<coll::Request>& reqs) {
    double t = now_seconds();
    reqs.clear();
    for (auto& c : colls_) reqs.push_back(c.start());
    return now_seconds() - t;
  }

 private:
  std::vector<std::vector<char>> send_, recv_;
  std::vector<coll::Collective> colls_;
};

double wait_all(std::vector<coll::Request>& reqs) {
  double t = now_seconds();
  for (auto& r : reqs)
    if (r.active()) r.wait();
  return now_seconds() - t;
}

double test_all(std::vector<coll::Request>& reqs) {
  double t = now_seconds();
  for (auto& r : reqs)
    if (r.active()) r.test();
  return now_seconds() - t;
}

Result measure(const coll::Comm& comm, const Config& c, Compute& compute, double s_per_unit, long iters) {
  MPI_Comm mc = comm.mpi();
  Setup setup(comm, c);
  std::vector<coll::Request> reqs;
  for (int w = 0; w < 3; ++w) {
    setup.start(reqs);
    wait_all(reqs);
  }
  std::vector<double> base;
  for (long i = 0; i < iters; ++i) {
    MPI_Barrier(mc);
    double t = now_seconds();
    setup.start(reqs);
    wait_all(reqs);
    base.push_back(now_seconds() - t);
  }
  const double base_s = reduce_max(summarize(base).median, mc);
  const long units = std::max(1L, static_cast<long>(base_s / s_per_unit + 0.5));
  const long chunks = c.tests + 1;
  const auto engine = comm.engine();
  std::vector<double> total, overhead, cpu, alone;
  for (long i = 0; i < iters; ++i) {
    MPI_Barrier(mc);
    const double a0 = now_seconds();
    for (long k = 0; k < chunks; ++k) compute.run(units * (k + 1) / chunks - units * k / chunks);
    alone.push_back(now_seconds() - a0);
    MPI_Barrier(mc);
    const double cpu0 = engine->agent_cpu_seconds();
    const double t0 = now_seconds();
    double over = setup.start(reqs);
    for (long k = 0; k < chunks; ++k) {
      compute.run(units * (k + 1) / chunks - units * k / chunks);
      if (k + 1 < chunks) over += test_all(reqs);
    }
    over += wait_all(reqs);
    total.push_back(now_seconds() - t0);
    overhead.push_back(over);
    cpu.push_back(engine->agent_cpu_seconds() - cpu0);
  }
  Result r;
  r.base = reduce_mean(base_s, mc);
  r.total = reduce_mean(summarize(total).median, mc);
  r.overhead = reduce_mean(summarize(overhead).median, mc);
  r.engine_cpu = reduce_mean(summarize(cpu).median, mc);
  r.alone = reduce_mean(summarize(alone).median, mc);
  const OverlapMetrics m = overlap_metrics(r.base, r.total, r.overhead, r.alone);
  r.compute = m.compute;
  r.overlap = m.overlap_pct;
  r.slowdown = m.slowdown;
  r.hidden = m.hidden_pct;
  return r;
}

}  // namespace

int run_overlap(const Args& args, MPI_Comm world) {
  args.allow_only({"algorithm", "window", "progress", "sizes", "tests", "concurrent", "iters", "compute", "json", "trace", "help"});
  check_outputs(world, {{"--json", args.get("json", "")}, {"--trace", args.get("trace", "")}});
  int rank = 0, P = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &P);
  const auto algos = args.get_list("algorithm", "pairwise");
  // Ranges before use: a size is allocated P times per collective in flight, a window is
  // narrowed to int, and iterations and tests are loop counts.
  const auto windows = args.get_long_list("window", "4", 1, 1 << 20);
  const auto progress = args.get_list("progress", "thread");
  const auto sizes = args.get_long_list("sizes", "1024,65536,1048576", 0, 1L << 30);
  const auto tests = args.get_long_list("tests", "10", 0, 1 << 20);
  const long concurrent = args.get_long("concurrent", 1, 1, 64);
  const long iters = args.get_long("iters", 20, 1, 1000000);
  const std::string compute_name = args.get("compute", "memory");
  if (concurrent < 1 || concurrent > 64) throw Error("--concurrent must be in [1, 64]");
  if (iters < 1) throw Error("--iters must be >= 1");
  for (long t : tests)
    if (t < 0) throw Error("--tests: test call counts must be >= 0");
  for (long s : sizes)
    if (s < 0) throw Error("--sizes: sizes must be >= 0 bytes");

  Compute compute(parse_compute(compute_name));
  const double s_per_unit = compute.calibrate();
  if (args.has("trace")) trace::start(args.get("trace", ""));

  std::vector<Config> configs;
  for (const auto& a : algos)
    for (long w : windows)
      for (const auto& p : progress)
        for (long t : tests) {
          coll::AlgorithmSpec spec = coll::AlgorithmSpec::parse(a);
          spec.window = static_cast<int>(w);
          if (spec.window < 1) throw Error("--window must be >= 1, got " + std::to_string(w));
          configs.push_back({spec, coll::parse_engine(p), 0, t, concurrent});
          if (!coll::find_alltoall_algorithm(spec.name).takes_window && w != windows.front()) configs.pop_back();
        }

  std::vector<JsonRecord> records;
  for (long bytes : sizes) {
    if (rank == 0) {
      std::printf("\n# overlap: %ld B per peer, %d ranks, %ld concurrent, compute=%s, %ld iters (median; mean over ranks)\n",
                  bytes, P, concurrent, compute_name.c_str(), iters);
      std::printf("%-14s %-8s %6s %10s %10s %10s %10s %8s %10s %8s %8s %11s\n", "algorithm", "progress", "tests",
                  "base_ms", "total_ms", "compute_ms", "overhd_ms", "overlap%", "alone_ms", "slowdown", "hidden%",
                  "engine_cpu%");
    }
    for (Config c : configs) {
      c.bytes = bytes;
      coll::Comm comm(world, c.engine);
      Result r = measure(comm, c, compute, s_per_unit, iters);
      if (rank == 0) {
        std::printf("%-14s %-8s %6ld %10.3f %10.3f %10.3f %10.3f %8.1f %10.3f %8.2f %8.1f %11.1f\n",
                    c.algo.str().c_str(), coll::engine_name(c.engine), c.tests, 1e3 * r.base, 1e3 * r.total,
                    1e3 * r.compute, 1e3 * r.overhead, r.overlap, 1e3 * r.alone, r.slowdown, r.hidden,
                    r.total > 0 ? 100.0 * r.engine_cpu / r.total : 0.0);
        std::fflush(stdout);
      }
      JsonRecord rec;
      rec.add("algorithm", c.algo.name)
          .add("window", static_cast<long>(c.algo.window))
          .add("progress", coll::engine_name(c.engine))
          .add("bytes_per_peer", bytes)
          .add("ranks", P)
          .add("tests", c.tests)
          .add("concurrent", c.concurrent)
          .add("compute", compute_name)
          .add("iters", iters)
          .add("base_s", r.base)
          .add("total_s", r.total)
          .add("compute_s", r.compute)
          .add("overhead_s", r.overhead)
          .add("overlap_pct", r.overlap)
          .add("engine_cpu_s", r.engine_cpu)
          .add("compute_alone_s", r.alone)
          .add("slowdown", r.slowdown)
          .add("hidden_pct", r.hidden);
      records.push_back(rec);
    }
  }
  if (args.has("trace")) {
    const long n = trace::stop(world);
    if (rank == 0) std::printf("# trace: %ld events in %s\n", n, args.get("trace", "").c_str());
  }
  if (rank == 0 && args.has("json")) write_json(args.get("json", ""), records);
  if (rank == 0) std::printf("# checksum %.3g\n", compute.checksum());
  return 0;
}

}  // namespace nbfft::bench
