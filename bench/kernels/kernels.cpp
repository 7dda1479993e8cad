// nbfft-bench kernels: seed 002 §3's five ways to redistribute a slab FFT, timed apart.
//
// Every kernel is a Plan with Options::col_kernel(name) applied (fft::col_kernels(): an
// alltoall algorithm of coll/, chunks of planes, depth 1): the same local FFTs and
// packing, only the COL exchange differs. The staging copies of `replace` now count as
// communication (they run inside the collective). Each iteration is one forward and
// one backward transform of a random field (seed 002 times 10 such steps). Communication
// is the time inside MPI calls (Timings::col, plus Timings::row on pencil grids), the rest
// of the iteration is computation; both are averaged over ranks, as in seed 002 Fig. 2
// ("time spent by each processor in communication activities"), while the iteration time
// is the slowest rank's (Fig. 1). Before timing, each kernel's forward and backward output
// is compared with the plain transform (bulk MPI_Alltoallv through coll/).
#include "bench/kernels/kernels.hpp"

#include "bench/common/json.hpp"
#include "bench/common/stats.hpp"
#include "bench/common/values.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/field.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace nbfft::bench {

const char* const kKernelsHelp = R"(nbfft-bench kernels: seed 002's redistribution kernels as slab transposes

usage: mpirun -n P nbfft-bench kernels [options]

  --grid N | NX,NY,NZ    global grid (default 128)
  --proc-grid M1xM2      process grid (default 1xP: slabs, as in seed 002; on a pencil
                         grid the kernels run the COL exchange, the ROW one stays MPI_Alltoallv)
  --kernels LIST         any of replace,standard,overlap,oneplane,allplanes (default all)
  --chunk-planes N       planes per exchange of the per-plane kernels (default 1)
  --precision double|single   (default double)
  --iters N              timed iterations, each forward + backward (default 10)
  --warmup N             untimed iterations first (default 2)
  --json FILE            one JSON record per kernel

Kernels (seed 002 §3): replace = MPI_Sendrecv_replace per plane and peer; standard =
blocking MPI_Send/MPI_Recv per plane and peer; overlap = MPI_Isend/MPI_Irecv per plane,
completed while the next plane is transformed; oneplane = MPI_Alltoallv per plane;
allplanes = one MPI_Alltoallv. Columns: iteration time (slowest rank; median, min over
iterations), communication (time inside MPI calls) and computation (the rest), each
averaged over ranks (median over iterations), the slowest rank's communication, MPI calls
per iteration, and the largest relative difference from the plain transform.
)";

namespace {

using Grid = std::array<std::int64_t, 3>;

struct Kernel {
  const fft::ColKernel* kind;
  std::unique_ptr<fft::Plan> plan;
  std::vector<double> total, comm, comp, comm_max;  // per iteration (reduced over ranks)
  double rel_diff = 0;
  long calls = 0;
};

template <typename T>
double rel_diff(const std::vector<T>& a, const std::vector<T>& b, MPI_Comm comm) {
  double d = 0, r = 0;
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    d = std::max(d, static_cast<double>(std::abs(a[k] - b[k])));
    r = std::max(r, static_cast<double>(std::abs(b[k])));
  }
  double in[2] = {d, r}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, comm);
  return out[1] > 0 ? out[0] / out[1] : out[0];
}

// MPI calls per iteration (forward + backward) of a kernel over `planes` chunks.
long mpi_calls(const fft::ColKernel& k, int P, long planes) {
  const std::string a = k.algorithm;
  if (!k.per_plane) return 2;                                   // one MPI_Alltoallv each way
  if (a == "replace") return (P - 1) * planes;                  // MPI_Sendrecv_replace per peer
  if (a == "standard") return 2L * (P - 1) * planes;            // MPI_Send + MPI_Recv per peer
  if (a == "linear") return 2L * (P - 1) * planes + planes;     // + one completion a plane
  return planes;                                                // one collective a plane
}

template <typename T>
int run_typed(const Args& args, MPI_Comm world, const Grid& n, int m1, int m2, int chunk_planes,
              const std::vector<const fft::ColKernel*>& kinds) {
  using C = std::complex<T>;
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const long iters = args.get_long("iters", 10, 1, 1000000), warmup = args.get_long("warmup", 2, 0, 1000000);
  if (iters < 1 || warmup < 0) throw Error("--iters must be >= 1 and --warmup >= 0");

  fft::Options base;
  base.precision = std::is_same<T, double>::value ? fft::Precision::Double : fft::Precision::Single;
  base.m1 = m1;
  base.m2 = m2;
  base.effort = fft::Effort::Measure;
  const fft::Plan ref(world, n, base);

  std::vector<T> field(static_cast<std::size_t>(ref.in_count())), back(field.size()), back_ref(field.size());
  fft::for_each_point(ref.in_box(), [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
    field[at] = static_cast<T>(reproducible_value(static_cast<std::uint64_t>(x + n[0] * (y + n[1] * z))));
  });
  std::vector<C> spec(static_cast<std::size_t>(ref.out_count())), spec_ref(spec.size());
  ref.forward(field, spec_ref);
  ref.backward(spec_ref, back_ref);

  // MPI calls per iteration (forward + backward), from the chunk counts of seed 002 §3.
  const int P = m2;
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const int cp = std::max(chunk_planes, 1);
  const long planes = static_cast<long>(ceil_div(ceil_div(n[2], P), cp) + ceil_div(ceil_div(n[1], P), cp));

  std::vector<Kernel> ks;
  for (const fft::ColKernel* kind : kinds) {
    fft::Options o = base;
    o.col_chunk_planes = chunk_planes;
    o.col_kernel(kind->name);
    Kernel k;
    k.kind = kind;
    k.plan = std::make_unique<fft::Plan>(world, n, o);
    // Verify against the plain transform before timing.
    k.plan->forward(field, spec);
    k.plan->backward(spec_ref, back);
    k.rel_diff = std::max(rel_diff(spec, spec_ref, world), rel_diff(back, back_ref, world));
    k.calls = P == 1 ? 0 : mpi_calls(*kind, P, planes);
    ks.push_back(std::move(k));
  }

  // Iterations round-robin over the kernels, so a busy machine slows them alike.
  for (long it = 0; it < warmup + iters; ++it)
    for (auto& k : ks) {
      fft::Timings t;
      MPI_Barrier(world);
      k.plan->forward(field, spec, &t);
      k.plan->backward(spec, back, &t);
      if (it < warmup) continue;
      const double comm = t.col + t.row, comp = t.total - comm;
      double in[4] = {t.total, comm, comp, comm}, mx[4], sum[4];
      MPI_Allreduce(in, mx, 4, MPI_DOUBLE, MPI_MAX, world);
      MPI_Allreduce(in, sum, 4, MPI_DOUBLE, MPI_SUM, world);
      k.total.push_back(mx[0]);
      k.comm.push_back(sum[1] / size);
      k.comp.push_back(sum[2] / size);
      k.comm_max.push_back(mx[3]);
    }

  const double tol = std::is_same<T, double>::value ? 1e-12 : 1e-5;
  bool ok = true;
  for (const auto& k : ks) ok = ok && k.rel_diff <= tol;
  if (rank != 0) return ok ? 0 : 1;

  std::printf("nbfft-bench kernels: grid %lldx%lldx%lld on %dx%d (%d ranks), %s, %d plane%s per exchange, "
              "%ld iterations (+%ld warm-up) of forward + backward\n\n",
              static_cast<long long>(n[0]), static_cast<long long>(n[1]), static_cast<long long>(n[2]), m1, m2, size,
              fft::name(base.precision), cp, cp == 1 ? "" : "s", iters, warmup);
  std::printf("%-10s %10s %9s %10s %10s %9s %11s %9s %10s\n", "kernel", "median ms", "min ms", "comm ms", "comp ms",
              "comm %", "comm max ms", "MPI calls", "rel diff");
  std::vector<JsonRecord> records;
  for (const auto& k : ks) {
    const Summary tot = summarize(k.total), com = summarize(k.comm), cmp = summarize(k.comp),
                  cmx = summarize(k.comm_max);
    std::printf("%-10s %10.2f %9.2f %10.2f %10.2f %9.1f %11.2f %9ld %10.1e%s\n", k.kind->name, 1e3 * tot.median,
                1e3 * tot.min, 1e3 * com.median, 1e3 * cmp.median, 100.0 * com.median / (com.median + cmp.median),
                1e3 * cmx.median, k.calls, k.rel_diff, k.rel_diff <= tol ? "" : "  MISMATCH");
    JsonRecord r;
    std::ostringstream plan;
    plan << *k.plan;
    r.add("kernel", k.kind->name)
        .add("plan", plan.str())
        .add_raw("grid", "[" + std::to_string(n[0]) + ", " + std::to_string(n[1]) + ", " + std::to_string(n[2]) + "]")
        .add("proc_grid", std::to_string(m1) + "x" + std::to_string(m2))
        .add("ranks", size)
        .add("precision", fft::name(base.precision))
        .add("chunk_planes", static_cast<long>(cp))
        .add("iters", iters)
        .add("time_s", tot.median)
        .add("time_min_s", tot.min)
        .add("time_max_s", tot.max)
        .add("comm_s", com.median)
        .add("comp_s", cmp.median)
        .add("comm_max_s", cmx.median)
        .add("mpi_calls", k.calls)
        .add("rel_diff", k.rel_diff);
    records.push_back(r);
  }
  std::fflush(stdout);
  if (args.has("json")) write_json(args.get("json", ""), records);
  if (!ok) std::fprintf(stderr, "nbfft-bench kernels: a kernel differs from the plain transform\n");
  return ok ? 0 : 1;
}

}  // namespace

int run_kernels(const Args& args, MPI_Comm world) {
  args.allow_only({"grid", "proc-grid", "kernels", "chunk-planes", "precision", "iters", "warmup", "json", "help"});
  check_outputs(world, {{"--json", args.get("json", "")}});
  int size = 1;
  MPI_Comm_size(world, &size);
  const Grid n = parse_grid(args);
  int m1 = 1, m2 = size;
  if (args.has("proc-grid")) std::tie(m1, m2) = fft::parse_proc_grid(args.get("proc-grid", ""));
  const long cp = args.get_long("chunk-planes", 1, 1, INT_MAX);
  if (cp < 1) throw Error("--chunk-planes must be >= 1");
  std::vector<const fft::ColKernel*> kinds;
  for (const auto& k : args.get_list("kernels", "replace,standard,overlap,oneplane,allplanes"))
    kinds.push_back(&fft::find_col_kernel(k));
  const fft::Precision p = fft::parse_precision(args.get("precision", "double"));
  if (p == fft::Precision::Double) return run_typed<double>(args, world, n, m1, m2, static_cast<int>(cp), kinds);
  return run_typed<float>(args, world, n, m1, m2, static_cast<int>(cp), kinds);
}

}  // namespace nbfft::bench
