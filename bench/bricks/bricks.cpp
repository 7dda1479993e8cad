// nbfft-bench-bricks: what user boxes cost. One interleaved run (round-robin over the
// layouts, so drift of the machine hits them alike) of forward+backward r2c transforms with
//   native      nbfft's own pencils (no reshape)
//   natural     output_order = natural (one local copy of the spectrum each way)
//   bricks      bricks in and out (px x py x pz bricks of the grid and of the spectrum,
//               x fastest): a reshape exchange before and after the transform
// Prints, per layout, the median over rounds of the max over ranks of the time per
// forward+backward, the reshape share (Timings pack/unpack beyond native's) and the round
// trip's error (each layout checked: backward(forward(u)) == u).
//
//   mpirun -n 2 nbfft-bench-bricks --grid 128 --rounds 7 --iters 5
#include "brick_layout.hpp"
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
using nbfft::bench::median;

struct Run {
  std::string name;
  std::unique_ptr<Plan> plan;
  std::vector<double> u, v;
  std::vector<std::complex<double>> U;
  std::vector<double> per_round;  // seconds per forward+backward, max over ranks
  Timings t;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  std::int64_t n = 128;
  int rounds = 7, iters = 5;
  std::string transport = "blocking", effort = "measure";
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--grid") n = std::atoll(v.c_str());
    else if (k == "--rounds") rounds = std::atoi(v.c_str());
    else if (k == "--iters") iters = std::atoi(v.c_str());
    else if (k == "--transport") transport = v;
    else if (k == "--effort") effort = v;
    else {
      if (rank == 0) std::fprintf(stderr, "nbfft-bench-bricks: unknown option %s (--grid --rounds --iters --transport --effort)\n", k.c_str());
      MPI_Finalize();
      return 2;
    }
  }
  const std::array<std::int64_t, 3> N{n, n, n}, S{n / 2 + 1, n, n};
  Options o;
  o.effort = parse_effort(effort);
  o.transport(transport);
  const auto bg = brick_grid(P);
  std::vector<Run> runs(3);
  try {
    runs[0].name = "native";
    runs[0].plan = std::make_unique<Plan>(MPI_COMM_WORLD, N, o);
    Options nat = o;
    nat.output_order = OutputOrder::Natural;
    runs[1].name = "natural";
    runs[1].plan = std::make_unique<Plan>(MPI_COMM_WORLD, N, nat);
    runs[2].name = "bricks " + std::to_string(bg[0]) + "x" + std::to_string(bg[1]) + "x" + std::to_string(bg[2]);
    runs[2].plan = std::make_unique<Plan>(MPI_COMM_WORLD, N, brick(N, bg, rank), brick(S, bg, rank), o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (Run& r : runs) {
    const Box3& b = r.plan->in_box();
    r.u.resize(static_cast<std::size_t>(b.count()));
    for (std::int64_t z = 0; z < b.n[2]; ++z)
      for (std::int64_t y = 0; y < b.n[1]; ++y)
        for (std::int64_t x = 0; x < b.n[0]; ++x)
          r.u[b.index(b.lo[0] + x, b.lo[1] + y, b.lo[2] + z)] =
              std::sin(2 * M_PI * (b.lo[0] + x) / n) * std::cos(4 * M_PI * (b.lo[1] + y) / n) + 0.01 * (b.lo[2] + z);
    r.v.resize(r.u.size());
    r.U.resize(static_cast<std::size_t>(r.plan->out_count()));
    r.plan->forward(r.u, r.U);  // warm-up
    r.plan->backward(r.U, r.v);
  }
  for (int round = 0; round < rounds; ++round)
    for (Run& r : runs) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        r.plan->forward(r.u, r.U, &r.t);
        r.plan->backward(r.U, r.v, &r.t);
      }
      double dt = (MPI_Wtime() - t0) / iters, mx = 0;
      MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      r.per_round.push_back(mx);
    }
  if (rank == 0)
    std::printf("grid %lld^3 r2c double on %d ranks, %s, %d rounds x %d iterations, interleaved\n"
                "layout              median ms   vs native   pack+unpack ms   max round-trip error\n",
                static_cast<long long>(n), P, transport.c_str(), rounds, iters);
  const double base = median(runs[0].per_round);
  int bad = 0;
  for (Run& r : runs) {
    double err = 0;
    for (std::size_t k = 0; k < r.u.size(); ++k) err = std::max(err, std::abs(r.u[k] - r.v[k]));
    double e = 0, pu = (r.t.pack + r.t.unpack) / (rounds * iters), mpu = 0;
    MPI_Allreduce(&err, &e, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&pu, &mpu, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (e > 1e-9) ++bad;
    if (rank == 0)
      std::printf("%-18s %10.2f %10.3fx %16.2f   %.1e\n", r.name.c_str(), 1e3 * median(r.per_round),
                  median(r.per_round) / base, 1e3 * mpu, e);
  }
  runs.clear();
  MPI_Finalize();
  return bad ? 1 : 0;
}
