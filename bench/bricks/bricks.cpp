// nbfft-bench-bricks: what user boxes cost. One interleaved run (round-robin over the
// layouts and transports, so drift of the machine hits them alike) of forward+backward r2c
// transforms with
//   native      nbfft's own pencils (no reshape)
//   natural     output_order = natural (one local copy of the spectrum each way)
//   bricks      bricks in and out (px x py x pz bricks of the grid and of the spectrum,
//               x fastest): a reshape exchange before and after the transform
// each on every transport of --transport, over --fields F fields (F > 1: forward_many and
// backward_many with fields_in_flight = 2, as nbfft-sine sets). Prints, per run, the median
// and [min, max] over rounds of the max over ranks of the time per forward+backward of all
// F fields, the reshape share (Timings pack/unpack) and the round trip's error (each run
// checked: backward(forward(u)) == u, every field).
//
// --split adds, for the bricks layout on each transport, the split-phase forward overlapping
// a compute (bench/common/compute.hpp, about the split transform's own time): F transforms
// started one after another, each on its own workspace, the compute cut into --slices
// pieces with progress() on every transform in flight between them, then every wait. Per
// round: base (start + wait, nothing between), compute alone and both, and from them seed
// 000's overlap % and the hidden % (bench/common/overlap_metrics.hpp, DESIGN.md "Measures").
//
//   mpirun -n 4 nbfft-bench-bricks --grid 128 --rounds 7 --iters 5 --fields 4
//          --transport blocking,caller,thread --layouts native,bricks --split 1
#include "brick_layout.hpp"
#include "bench/common/cli.hpp"
#include "bench/common/compute.hpp"
#include "bench/common/main.hpp"
#include "bench/common/overlap_metrics.hpp"
#include "bench/common/stats.hpp"
#include "nbfft/fft/fft.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace nbfft::fft;
using nbfft::bench::brick;
using nbfft::bench::brick_grid;
using nbfft::bench::Summary;
using nbfft::bench::summarize;
using C = std::complex<double>;

struct Run {
  std::string name, layout, transport;
  std::unique_ptr<Plan> plan;
  std::vector<std::vector<double>> u, v;  // per field
  std::vector<std::vector<C>> U;
  std::vector<double> per_round;  // seconds per forward+backward of all fields, max over ranks
  Timings t;
  // --split (bricks only): per round, max over ranks
  std::vector<Plan::Workspace> ws;
  std::vector<double> base, alone, both, overhead;
};

double slowest(double t) { return nbfft::bench::reduce_max(t, MPI_COMM_WORLD); }

std::string str(const Summary& s, double scale = 1e3) {
  char b[96];
  std::snprintf(b, sizeof b, "%8.2f [%.2f, %.2f]", scale * s.median, scale * s.min, scale * s.max);
  return b;
}

void forward_all(Run& r, Timings* t) {
  const int F = static_cast<int>(r.u.size());
  if (F == 1) return r.plan->forward(r.u[0], r.U[0], t);
  r.plan->forward_many(r.u, r.U, t);
}

void backward_all(Run& r, Timings* t) {
  const int F = static_cast<int>(r.u.size());
  if (F == 1) return r.plan->backward(r.U[0], r.v[0], t);
  r.plan->backward_many(r.U, r.v, t);
}

// F split-phase forwards started one after the other; between the starts (and after the
// last) `units` of compute in `slices` pieces with progress() on every transform in flight.
// Returns the seconds inside nbfft calls (start, progress, wait).
double split_forward(Run& r, nbfft::bench::Compute& compute, long units, int slices) {
  const int F = static_cast<int>(r.u.size());
  std::vector<Plan::Pending> p;
  double in_calls = 0;
  const long per = units / F;
  for (int k = 0; k < F; ++k) {
    double a = MPI_Wtime();
    p.push_back(r.plan->forward_start(r.u[k].data(), r.u[k].size(), r.U[k].data(), r.U[k].size(),
                                      r.ws[static_cast<std::size_t>(k)]));
    in_calls += MPI_Wtime() - a;
    for (int s = 0; units > 0 && s < slices; ++s) {
      compute.run(per / slices + (s < per % slices ? 1 : 0));
      a = MPI_Wtime();
      for (auto& q : p) q.progress();
      in_calls += MPI_Wtime() - a;
    }
  }
  const double a = MPI_Wtime();
  for (auto& q : p) q.wait();
  return in_calls + MPI_Wtime() - a;
}

const char* const kHelp = R"(nbfft-bench-bricks: what user boxes cost (native pencils, natural output order,
bricks in and out), interleaved; the comment atop bench/bricks/bricks.cpp says more.

usage: mpirun -n P nbfft-bench-bricks [options]

  --grid N            an N^3 r2c grid (default 128)
  --rounds R          rounds (default 7) of --iters I forward+backward pairs (default 5)
  --iters I
  --fields F          fields per transform call (default 1)
  --transport LIST    transports (default blocking)
  --effort E          FFTW effort (default measure)
  --layouts LIST      native, natural, bricks (default all three)
  --split 0|1         also the split-phase forward of the bricks overlapping a compute
  --slices S          pieces of that compute, progress() between them (default 16)
)";

int run(int argc, char** argv, MPI_Comm world) {
  const nbfft::bench::Args args = nbfft::bench::parse_agreed(world, "nbfft-bench-bricks", argc, argv);
  args.allow_only({"grid", "rounds", "iters", "transport", "effort", "fields", "layouts", "split", "slices", "help"});
  int rank = 0, P = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &P);
  if (nbfft::bench::print_help(world, args, kHelp)) return 0;
  const std::int64_t n = args.get_long("grid", 128, 1, 1 << 20);
  const int rounds = static_cast<int>(args.get_long("rounds", 7, 1, 1000000));
  const int iters = static_cast<int>(args.get_long("iters", 5, 1, 1000000));
  const int fields = static_cast<int>(args.get_long("fields", 1, 1, 64));
  const bool split = args.get_long("split", 0, 0, 1) != 0;
  const int slices = static_cast<int>(args.get_long("slices", 16, 1, 1 << 20));
  const std::vector<std::string> transports = args.get_list("transport", "blocking");
  const std::vector<std::string> layouts = args.get_list("layouts", "native,natural,bricks");
  for (const std::string& lay : layouts)
    if (lay != "native" && lay != "natural" && lay != "bricks")
      throw nbfft::Error("--layouts: unknown layout '" + lay + "' (native, natural, bricks)");
  const Effort effort = parse_effort(args.get("effort", "measure"));
  const std::array<std::int64_t, 3> N{n, n, n}, S{n / 2 + 1, n, n};
  const auto bg = brick_grid(P);
  const std::string bricks_name = "bricks " + std::to_string(bg[0]) + "x" + std::to_string(bg[1]) + "x" +
                                  std::to_string(bg[2]);
  std::vector<Run> runs;
  for (const std::string& tr : transports)
    for (const std::string& lay : layouts) {
      Options o;
      o.effort = effort;
      o.transport(tr);
      o.fields_in_flight = fields > 1 ? 2 : 1;
      Run r;
      r.layout = lay;
      r.transport = tr;
      if (lay == "natural") o.output_order = OutputOrder::Natural;
      if (lay == "bricks") {
        r.layout = bricks_name;
        r.plan = std::make_unique<Plan>(MPI_COMM_WORLD, N, brick(N, bg, rank), brick(S, bg, rank), o);
      } else {
        r.plan = std::make_unique<Plan>(MPI_COMM_WORLD, N, o);
      }
      r.name = r.layout + " " + tr;
      runs.push_back(std::move(r));
    }
  nbfft::bench::Compute compute(nbfft::bench::ComputeKind::Cache);
  for (Run& r : runs) {
    const Box3& b = r.plan->in_box();
    r.u.assign(static_cast<std::size_t>(fields), std::vector<double>(static_cast<std::size_t>(b.count())));
    for (int f = 0; f < fields; ++f)
      for (std::int64_t z = 0; z < b.n[2]; ++z)
        for (std::int64_t y = 0; y < b.n[1]; ++y)
          for (std::int64_t x = 0; x < b.n[0]; ++x)
            r.u[f][b.index(b.lo[0] + x, b.lo[1] + y, b.lo[2] + z)] =
                std::sin(2 * M_PI * (b.lo[0] + x) / n + f) * std::cos(4 * M_PI * (b.lo[1] + y) / n) +
                0.01 * (b.lo[2] + z) * (f + 1);
    r.v.assign(r.u.size(), std::vector<double>(r.u[0].size()));
    r.U.assign(r.u.size(), std::vector<C>(static_cast<std::size_t>(r.plan->out_count())));
    forward_all(r, nullptr);  // warm-up
    backward_all(r, nullptr);
    if (split && r.plan->reshapes()) {
      for (int k = 0; k < fields; ++k) r.ws.push_back(r.plan->make_workspace());
      split_forward(r, compute, 0, 1);  // warm-up: the workspaces' first touch
    }
  }
  // The compute of the split measure: about one split forward of all fields on the first
  // bricks run, the fastest of three; rank 0's
  // calibration, broadcast: every rank computes alike.
  long units = 0;
  if (split) {
    const double unit = compute.calibrate();
    double t_split = 0;
    for (Run& r : runs)
      if (!r.ws.empty()) {
        for (int k = 0; k < 3; ++k) {
          MPI_Barrier(MPI_COMM_WORLD);
          const double t0 = MPI_Wtime();
          split_forward(r, compute, 0, 1);
          const double t = slowest(MPI_Wtime() - t0);
          t_split = k == 0 ? t : std::min(t_split, t);
        }
        break;
      }
    units = std::max<long>(1, static_cast<long>(t_split / unit));
    MPI_Bcast(&units, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  }
  for (int round = 0; round < rounds; ++round)
    for (Run& r : runs) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        forward_all(r, &r.t);
        backward_all(r, &r.t);
      }
      r.per_round.push_back(slowest((MPI_Wtime() - t0) / iters));
      if (r.ws.empty()) continue;
      MPI_Barrier(MPI_COMM_WORLD);
      double t1 = MPI_Wtime();
      split_forward(r, compute, 0, 1);
      r.base.push_back(slowest(MPI_Wtime() - t1));
      MPI_Barrier(MPI_COMM_WORLD);
      t1 = MPI_Wtime();
      compute.run(units);
      r.alone.push_back(slowest(MPI_Wtime() - t1));
      MPI_Barrier(MPI_COMM_WORLD);
      t1 = MPI_Wtime();
      const double in_calls = split_forward(r, compute, units, slices);
      r.both.push_back(slowest(MPI_Wtime() - t1));
      r.overhead.push_back(slowest(in_calls));
    }
  if (rank == 0)
    std::printf("grid %lld^3 r2c double on %d ranks, %d field(s), %d rounds x %d iterations, interleaved\n"
                "%-30s %-26s %-10s %-15s %s\n",
                static_cast<long long>(n), P, fields, rounds, iters, "run", "median [min, max] ms", "vs first",
                "pack+unpack ms", "max round-trip error");
  const double first = summarize(runs.front().per_round).median;
  int bad = 0;
  for (Run& r : runs) {
    double err = 0;
    for (std::size_t f = 0; f < r.u.size(); ++f)
      for (std::size_t k = 0; k < r.u[f].size(); ++k) err = std::max(err, std::abs(r.u[f][k] - r.v[f][k]));
    const double e = slowest(err), mpu = slowest((r.t.pack + r.t.unpack) / (rounds * iters));
    if (e > 1e-9) ++bad;
    const Summary s = summarize(r.per_round);
    if (rank == 0)
      std::printf("%-30s %-26s %8.3fx %12.2f   %.1e\n", r.name.c_str(), str(s).c_str(), s.median / first, 1e3 * mpu, e);
  }
  if (split && rank == 0) {
    std::printf("split-phase forward of %d field(s) overlapping a compute (%ld units, %d slices with progress()):\n",
                fields, units, slices);
    for (Run& r : runs) {
      if (r.base.empty()) continue;
      std::vector<double> ov, hid;
      for (std::size_t k = 0; k < r.base.size(); ++k) {
        const auto m = nbfft::bench::overlap_metrics(r.base[k], r.both[k], r.overhead[k], r.alone[k]);
        ov.push_back(m.overlap_pct);
        hid.push_back(m.hidden_pct);
      }
      const Summary o = summarize(ov), h = summarize(hid);
      std::printf("  %-28s split alone %s  compute %s  both %s ms  overlap %5.1f%% [%5.1f, %5.1f]  hidden %6.1f%% "
                  "[%6.1f, %6.1f]\n",
                  r.name.c_str(), str(summarize(r.base)).c_str(), str(summarize(r.alone)).c_str(),
                  str(summarize(r.both)).c_str(), o.median, o.min, o.max, h.median, h.min, h.max);
    }
  }
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nbfft::bench::run_main("nbfft-bench-bricks", argc, argv, MPI_THREAD_MULTIPLE,
                                [&](MPI_Comm world) { return run(argc, argv, world); });
}
