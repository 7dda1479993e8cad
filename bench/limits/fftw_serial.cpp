// nbfft-fftw-serial: FFTW's own threaded serial 3D transform, the single-node limit.
//
// One process, T threads, the whole grid in its memory: no data moves between processes,
// so a distributed transform on the same cores can at best match it. docs/performance.md
// puts nbfft's time beside it. The work is nbfft-sine's iteration: forward r2c,
// normalization, backward c2r of an nx x ny x nz double grid (out of place), timed as
// min / median over --iters after one warm-up.
#include "bench/common/cli.hpp"
#include "bench/common/json.hpp"
#include "bench/common/stats.hpp"
#include "nbfft/error.hpp"

#include <fftw3.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

const char* kHelp = R"(nbfft-fftw-serial: FFTW's threaded serial r2c/c2r 3D transform (the single-node limit).

usage: nbfft-fftw-serial [--grid N | NX,NY,NZ] [--threads T] [--iters N] [--effort estimate|measure|patient]
                         [--json FILE]
)";

int run(int argc, char** argv) {
  using namespace nbfft::bench;
  Args args(argc, argv);
  args.allow_only({"grid", "threads", "iters", "effort", "json", "help"});
  if (args.has("help")) {
    std::printf("%s", kHelp);
    return 0;
  }
  const std::array<std::int64_t, 3> g = parse_grid(args, "128", 1L << 20);
  const int threads = static_cast<int>(args.get_long("threads", 1));
  const int iters = static_cast<int>(args.get_long("iters", 5));
  if (threads < 1 || threads > 1024) throw nbfft::Error("--threads must be in [1, 1024]");
  if (iters < 1 || iters > 100000) throw nbfft::Error("--iters must be in [1, 100000]");
  const std::string effort = args.get("effort", "measure");
  unsigned flags = FFTW_MEASURE;
  if (effort == "estimate") flags = FFTW_ESTIMATE;
  else if (effort == "patient") flags = FFTW_PATIENT;
  else if (effort != "measure") throw nbfft::Error("--effort: use estimate, measure or patient, not '" + effort + "'");

  const int nx = static_cast<int>(g[0]), ny = static_cast<int>(g[1]), nz = static_cast<int>(g[2]);
  const std::size_t n_real = static_cast<std::size_t>(nx) * ny * nz;
  const std::size_t n_cplx = static_cast<std::size_t>(nx / 2 + 1) * ny * nz;
  if (!fftw_init_threads()) throw nbfft::Error("FFTW could not start its threads", nbfft::ErrorCode::Unavailable);
  fftw_plan_with_nthreads(threads);
  double* f = fftw_alloc_real(n_real);
  fftw_complex* F = fftw_alloc_complex(n_cplx);
  if (!f || !F) throw nbfft::Error("out of memory for the grid", nbfft::ErrorCode::OutOfMemory);
  fftw_plan fwd = fftw_plan_dft_r2c_3d(nz, ny, nx, f, F, flags);
  fftw_plan bwd = fftw_plan_dft_c2r_3d(nz, ny, nx, F, f, flags | FFTW_DESTROY_INPUT);
  if (!fwd || !bwd) throw nbfft::Error("FFTW could not plan the transform");
  for (std::size_t k = 0; k < n_real; ++k) f[k] = std::sin(0.001 * static_cast<double>(k));
  const double scale = 1.0 / static_cast<double>(n_real);
  auto once = [&] {
    fftw_execute(fwd);
    for (std::size_t k = 0; k < n_cplx; ++k) {
      F[k][0] *= scale;
      F[k][1] *= scale;
    }
    fftw_execute(bwd);
  };
  once();
  std::vector<double> times;
  for (int it = 0; it < iters; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    once();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const Summary s = summarize(times);
  std::printf("fftw-serial grid %dx%dx%d threads %d: min %.3f ms  median %.3f ms  (forward+normalize+backward)\n", nx,
              ny, nz, threads, s.min * 1e3, s.median * 1e3);
  if (args.has("json")) {
    JsonRecord r;
    r.add("benchmark", "fftw-serial").add("nx", nx).add("ny", ny).add("nz", nz).add("threads", threads);
    r.add("iters", iters).add("effort", effort).add("min_s", s.min).add("median_s", s.median).add("max_s", s.max);
    write_json(args.get("json", ""), {r});
  }
  fftw_destroy_plan(fwd);
  fftw_destroy_plan(bwd);
  fftw_free(f);
  fftw_free(F);
  fftw_cleanup_threads();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbfft-fftw-serial: %s\n", e.what());
    return 2;
  }
}
