// nbfft-bench primitives: seed 003's collective primitives, host-progressed (caller) against
// offloaded (thread engine, the software stand-in for the ConnectX-2 task list).
//
//   multi-send       rank 0 sends the message to R receivers, each posts one receive
//   recv-replicate   rank 0 sends to rank 1, which receives and replicates it to R receivers
//   recv-reduce      R senders send `bytes` of doubles to rank 0, which receives and sums them
//   barrier          coll::barrier (dissemination over multi-sends) on the first G ranks,
//                    beside MPI_Barrier on the same ranks
//
// Per configuration: latency (start + wait, nothing else; median over iterations, max over
// ranks), then the overlap benchmark of nbfft-bench overlap: compute for `latency` with T
// test calls, overlap % = 100 · compute / total (seed 000/003's definition), and the same
// compute alone, interleaved, for the honest hidden % (DESIGN.md "Measures").
#include "bench/primitives/primitives.hpp"

#include "bench/common/compute.hpp"
#include "bench/common/json.hpp"
#include "bench/common/overlap_metrics.hpp"
#include "bench/common/stats.hpp"
#include "nbfft/coll/coll.hpp"
#include "nbfft/coll/trace.hpp"
#include "nbfft/coll/primitives.hpp"
#include "nbfft/coll/schedule.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>

namespace nbfft::bench {

const char* const kPrimitivesHelp = R"(nbfft-bench primitives [options]
  Seed 003's primitives: latency and overlap, caller (host-based) vs thread (offloaded),
  and coll::barrier against MPI_Barrier.
  --primitive LIST   multi-send, recv-replicate, recv-reduce, barrier (default all)
  --progress LIST    progress engines (default caller,thread)
  --sizes LIST       message bytes (default 8,1024,65536,1048576); barrier ignores it
  --receivers LIST   receiver counts R (default 2,4,6); needs R+1 ranks (R+2 for recv-replicate);
                     counts that do not fit are skipped with a note
  --groups LIST      barrier group sizes G (default 2,4,...,P)
  --tests N          test calls spread over the compute of the overlap run (default 10)
  --iters N          measured iterations (default 50), after 3 warm-up ones
  --compute KIND     cache or memory (default cache)
  --trace FILE       record a timeline of every rank (Chrome/Perfetto trace-event JSON)
  --json FILE        one record per configuration
)";

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Row {
  std::string primitive, progress;
  long bytes = 0, receivers = 0, group = 0;
  double latency = 0, mpi_barrier = 0, total = 0, overhead = 0, alone = 0, overlap = 0, hidden = 0, slowdown = 0;
};

// The schedule of one primitive on `comm` (ranks outside it get an empty schedule).
std::shared_ptr<const coll::Schedule> build(const coll::Comm& comm, const std::string& prim, long bytes, long R,
                                            std::vector<char>& buf, std::vector<std::vector<char>>& bufs) {
  coll::ScheduleBuilder b(comm);
  const int me = comm.rank();
  const std::size_t n = static_cast<std::size_t>(bytes);
  buf.assign(std::max<std::size_t>(n, 8), static_cast<char>(me + 1));
  std::vector<int> peers;
  if (prim == "multi-send") {
    for (int r = 1; r <= R; ++r) peers.push_back(r);
    if (me == 0)
      b.multi_send(buf.data(), n, peers);
    else if (me <= R)
      b.multi_recv({buf.data()}, n, {0});
  } else if (prim == "recv-replicate") {
    for (int r = 2; r < R + 2; ++r) peers.push_back(r);
    if (me == 0)
      b.send(1, buf.data(), n);
    else if (me == 1)
      b.recv_replicate(buf.data(), n, 0, peers);
    else if (me < R + 2)
      b.recv(1, buf.data(), n);
  } else {  // recv-reduce: sums of doubles
    const int count = static_cast<int>(std::max<long>(1, bytes / 8));
    buf.assign(static_cast<std::size_t>(count) * 8, 0);
    for (int r = 1; r <= R; ++r) peers.push_back(r);
    if (me == 0)
      b.recv_reduce(buf.data(), count, MPI_DOUBLE, MPI_SUM, peers);
    else if (me <= R)
      b.send(0, buf.data(), static_cast<std::size_t>(count) * 8);
  }
  (void)bufs;
  return b.build(prim);
}

// Latency, then overlap with compute, of one collective (the same measurement as
// nbfft-bench overlap, for a single request).
void measure(const coll::Collective& c, MPI_Comm mc, Compute& compute, double s_per_unit, long tests, long iters,
             Row& row) {
  for (int w = 0; w < 3; ++w) c.start().wait();
  std::vector<double> lat;
  for (long i = 0; i < iters; ++i) {
    MPI_Barrier(mc);
    const double t = now();
    c.start().wait();
    lat.push_back(now() - t);
  }
  row.latency = reduce_max(summarize(lat).median, mc);
  const long units = std::max(1L, static_cast<long>(row.latency / s_per_unit + 0.5));
  const long chunks = tests + 1;
  std::vector<double> total, over, alone;
  for (long i = 0; i < iters; ++i) {
    MPI_Barrier(mc);
    double t = now();
    for (long k = 0; k < chunks; ++k) compute.run(units * (k + 1) / chunks - units * k / chunks);
    alone.push_back(now() - t);
    MPI_Barrier(mc);
    t = now();
    double o = now();
    coll::Request r = c.start();
    double ov = now() - o;
    for (long k = 0; k < chunks; ++k) {
      compute.run(units * (k + 1) / chunks - units * k / chunks);
      if (k + 1 < chunks && r.active()) {
        o = now();
        r.test();
        ov += now() - o;
      }
    }
    o = now();
    if (r.active()) r.wait();
    ov += now() - o;
    total.push_back(now() - t);
    over.push_back(ov);
  }
  // The slowest rank sets the time of a collective step.
  row.total = reduce_max(summarize(total).median, mc);
  row.overhead = reduce_max(summarize(over).median, mc);
  row.alone = reduce_max(summarize(alone).median, mc);
  const OverlapMetrics m = overlap_metrics(row.latency, row.total, row.overhead, row.alone);
  row.overlap = m.overlap_pct;
  row.slowdown = m.slowdown;
  row.hidden = m.hidden_pct;
}

double mpi_barrier_latency(MPI_Comm mc, long iters) {
  for (int w = 0; w < 3; ++w) MPI_Barrier(mc);
  std::vector<double> v;
  for (long i = 0; i < iters; ++i) {
    MPI_Barrier(mc);
    const double t = now();
    MPI_Barrier(mc);
    v.push_back(now() - t);
  }
  return reduce_max(summarize(v).median, mc);
}

}  // namespace

int run_primitives(const Args& args, MPI_Comm world) {
  args.allow_only({"primitive", "progress", "sizes", "receivers", "groups", "tests", "iters", "compute", "json", "trace", "help"});
  check_outputs(world, {{"--json", args.get("json", "")}, {"--trace", args.get("trace", "")}});
  int rank = 0, P = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &P);
  std::string all_groups;
  for (int g = 2; g <= P; g *= 2) all_groups += (all_groups.empty() ? "" : ",") + std::to_string(g);
  if (P > 1 && (P & (P - 1))) all_groups += "," + std::to_string(P);
  const auto prims = args.get_list("primitive", "multi-send,recv-replicate,recv-reduce,barrier");
  const auto progress = args.get_list("progress", "caller,thread");
  const auto sizes = args.get_long_list("sizes", "8,1024,65536,1048576", 0, 1L << 30);
  const auto receivers = args.get_long_list("receivers", "2,4,6", 1, 1 << 20);
  const auto groups = args.get_long_list("groups", all_groups.empty() ? "1" : all_groups);
  const long tests = args.get_long("tests", 10, 0, 1 << 20);
  const long iters = args.get_long("iters", 50, 1, 1000000);
  const std::string compute_name = args.get("compute", "cache");
  if (iters < 1) throw Error("--iters must be >= 1");
  if (tests < 0) throw Error("--tests must be >= 0");
  for (const auto& p : prims)
    if (p != "multi-send" && p != "recv-replicate" && p != "recv-reduce" && p != "barrier")
      throw Error("--primitive: unknown primitive '" + p + "' (known: multi-send, recv-replicate, recv-reduce, barrier)");
  for (long s : sizes)
    if (s < 0) throw Error("--sizes: sizes must be >= 0 bytes");
  for (long r : receivers)
    if (r < 1) throw Error("--receivers: counts must be >= 1");
  for (long g : groups)
    if (g < 1 || g > P) throw Error("--groups: group sizes must be in [1, " + std::to_string(P) + "]");
  for (const auto& p : progress) coll::parse_engine(p);

  Compute compute(parse_compute(compute_name));
  const double s_per_unit = compute.calibrate();
  if (args.has("trace")) trace::start(args.get("trace", ""));
  std::vector<JsonRecord> records;
  auto emit = [&](const Row& r) {
    if (rank == 0) {
      std::printf("%-15s %-7s %9ld %5ld %5ld %11.2f %11.2f %10.2f %8.1f %10.2f %8.2f %8.1f\n", r.primitive.c_str(),
                  r.progress.c_str(), r.bytes, r.receivers, r.group, 1e6 * r.latency, 1e6 * r.mpi_barrier,
                  1e6 * r.total, r.overlap, 1e6 * r.alone, r.slowdown, r.hidden);
      std::fflush(stdout);
    }
    JsonRecord rec;
    rec.add("primitive", r.primitive)
        .add("progress", r.progress)
        .add("bytes", r.bytes)
        .add("receivers", r.receivers)
        .add("group", r.group)
        .add("ranks", P)
        .add("tests", tests)
        .add("iters", iters)
        .add("latency_s", r.latency)
        .add("mpi_barrier_s", r.mpi_barrier)
        .add("total_s", r.total)
        .add("overhead_s", r.overhead)
        .add("overlap_pct", r.overlap)
        .add("compute_alone_s", r.alone)
        .add("slowdown", r.slowdown)
        .add("hidden_pct", r.hidden);
    records.push_back(rec);
  };
  if (rank == 0) {
    std::printf("# primitives: %d ranks, %ld test calls, compute=%s, %ld iters (median; max over ranks)\n", P, tests,
                compute_name.c_str(), iters);
    std::printf("%-15s %-7s %9s %5s %5s %11s %11s %10s %8s %10s %8s %8s\n", "primitive", "progress", "bytes", "recv",
                "group", "latency_us", "mpi_barr_us", "total_us", "overlap%", "alone_us", "slowdown", "hidden%");
  }
  for (const auto& prim : prims) {
    for (const auto& prog : progress) {
      const coll::EngineKind kind = coll::parse_engine(prog);
      if (prim == "barrier") {
        for (long g : groups) {
          MPI_Comm sub = MPI_COMM_NULL;
          MPI_Comm_split(world, rank < g ? 0 : 1, rank, &sub);
          Row row{prim, prog, 0, 0, g};
          {
            coll::Comm comm(sub, kind);
            coll::Collective c = coll::barrier(comm);
            measure(c, sub, compute, s_per_unit, tests, iters, row);
            row.mpi_barrier = mpi_barrier_latency(sub, iters);
          }
          MPI_Comm_free(&sub);
          // Only the first G ranks' numbers describe a barrier of G.
          double vals[7] = {row.latency, row.mpi_barrier, row.total, row.overlap, row.alone, row.slowdown, row.hidden};
          MPI_Bcast(vals, 7, MPI_DOUBLE, 0, world);
          row.latency = vals[0], row.mpi_barrier = vals[1], row.total = vals[2], row.overlap = vals[3];
          row.alone = vals[4], row.slowdown = vals[5], row.hidden = vals[6];
          emit(row);
        }
        continue;
      }
      for (long R : receivers) {
        const long need = R + (prim == "recv-replicate" ? 2 : 1);
        if (need > P) {
          if (rank == 0) std::printf("# %s with %ld receivers needs %ld ranks, have %d: skipped\n", prim.c_str(), R, need, P);
          continue;
        }
        for (long bytes : sizes) {
          coll::Comm comm(world, kind);
          std::vector<char> buf;
          std::vector<std::vector<char>> bufs;
          coll::Collective c(comm, build(comm, prim, bytes, R, buf, bufs));
          Row row{prim, prog, bytes, R, 0};
          measure(c, world, compute, s_per_unit, tests, iters, row);
          emit(row);
        }
      }
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
