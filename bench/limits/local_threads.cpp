// nbfft-local-threads: how to use T threads for one local stage of nbfft's transform
// (fft/threads.hpp chose by this measurement; docs/performance.md "Threads inside each rank").
//
// The stage: the y FFT of every z plane of an n x n x n complex grid, each plane copied
// into a plane in cache with padded rows (ld = n + 8), transformed along y (stride ld,
// n columns) and copied back, as nbfft's stages run. Three ways on T threads, interleaved:
//   planes   the planes shared among T std::threads, each with its own cached plane and
//            FFTW's one-thread plan (what nbfft does: copies threaded too);
//   fftw     one thread walking the planes, each plane's FFT an FFTW plan made with
//            fftw_plan_with_nthreads(T) (copies on one thread);
//   whole    no plane in cache: one FFTW plan with T threads over all planes in place
//            (the y FFT with a second loop over z; no copies at all).
#include "bench/common/cli.hpp"
#include "bench/common/main.hpp"
#include "bench/common/stats.hpp"
#include "nbfft/error.hpp"

#include <fftw3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

const char* kHelp = R"(nbfft-local-threads: one local stage on T threads three ways (planes shared among
threads, FFTW's threaded per-plane plans, one threaded FFTW plan over all planes).

usage: nbfft-local-threads [--grid N] [--threads T] [--iters N]
)";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(int argc, char** argv) {
  using namespace nbfft::bench;
  Args args(argc, argv);
  args.allow_only({"grid", "threads", "iters", "help"});
  if (args.has("help")) {
    std::printf("%s", kHelp);
    return 0;
  }
  const int n = static_cast<int>(args.get_long("grid", 128));
  const int T = static_cast<int>(args.get_long("threads", 2));
  const int iters = static_cast<int>(args.get_long("iters", 10));
  if (n < 8 || n > 1024) throw nbfft::Error("--grid must be in [8, 1024]");
  if (T < 1 || T > 64) throw nbfft::Error("--threads must be in [1, 64]");
  if (iters < 1 || iters > 10000) throw nbfft::Error("--iters must be in [1, 10000]");
  if (!fftw_init_threads()) throw nbfft::Error("FFTW could not start its threads", nbfft::ErrorCode::Unavailable);
  const int ld = n + 8;
  const std::size_t plane = static_cast<std::size_t>(n) * n, cplane = static_cast<std::size_t>(n) * ld;
  fftw_complex* grid = fftw_alloc_complex(plane * n);
  std::vector<fftw_complex*> P(static_cast<std::size_t>(T));
  for (auto& p : P) p = fftw_alloc_complex(cplane);
  for (std::size_t k = 0; k < plane * n; ++k) grid[k][0] = std::sin(0.001 * k), grid[k][1] = 0;
  // Column FFT of one cached plane: length n stride ld, n columns stride 1.
  fftw_iodim64 dim{n, ld, ld}, col{n, 1, 1};
  fftw_plan_with_nthreads(1);
  fftw_plan one = fftw_plan_guru64_dft(1, &dim, 1, &col, P[0], P[0], FFTW_FORWARD, FFTW_MEASURE);
  fftw_plan_with_nthreads(T);
  fftw_plan threaded = fftw_plan_guru64_dft(1, &dim, 1, &col, P[0], P[0], FFTW_FORWARD, FFTW_MEASURE);
  // The whole stage in place on the grid: y stride n, x loop stride 1, z loop stride n*n.
  fftw_iodim64 wdim{n, n, n}, wl[2] = {{n, 1, 1}, {n, static_cast<std::ptrdiff_t>(plane), static_cast<std::ptrdiff_t>(plane)}};
  std::vector<fftw_complex> save(plane * n);
  std::memcpy(save.data(), grid, sizeof(fftw_complex) * plane * n);
  fftw_plan whole = fftw_plan_guru64_dft(1, &wdim, 2, wl, grid, grid, FFTW_FORWARD, FFTW_MEASURE);
  std::memcpy(grid, save.data(), sizeof(fftw_complex) * plane * n);
  if (!one || !threaded || !whole) throw nbfft::Error("FFTW could not plan");

  auto do_plane = [&](fftw_complex* p, fftw_plan pl, int z) {
    fftw_complex* g = grid + plane * z;
    for (int y = 0; y < n; ++y) std::memcpy(p + y * ld, g + y * n, sizeof(fftw_complex) * n);
    fftw_execute_dft(pl, p, p);
    for (int y = 0; y < n; ++y) std::memcpy(g + y * n, p + y * ld, sizeof(fftw_complex) * n);
  };
  auto planes = [&] {
    std::atomic<int> next{0};
    auto lane = [&](int k) {
      for (int z; (z = next.fetch_add(1)) < n;) do_plane(P[static_cast<std::size_t>(k)], one, z);
    };
    std::vector<std::thread> th;
    for (int k = 1; k < T; ++k) th.emplace_back(lane, k);
    lane(0);
    for (auto& t : th) t.join();
  };
  auto fftw = [&] {
    for (int z = 0; z < n; ++z) do_plane(P[0], threaded, z);
  };
  auto all = [&] { fftw_execute_dft(whole, grid, grid); };
  std::vector<double> t[3];
  for (int it = 0; it <= iters; ++it) {  // round 0 warms up
    int k = 0;
    const auto t0 = std::chrono::steady_clock::now();
    planes();
    const double a = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    fftw();
    const double b = seconds_since(t1);
    const auto t2 = std::chrono::steady_clock::now();
    all();
    const double c = seconds_since(t2);
    if (it > 0) t[k++].push_back(a), t[k++].push_back(b), t[k++].push_back(c);
  }
  const char* names[3] = {"planes (nbfft)", "fftw per-plane threads", "fftw whole stage"};
  std::printf("local y stage, %d^3 complex double, %d threads, %d interleaved rounds (ms):\n", n, T, iters);
  for (int k = 0; k < 3; ++k) {
    const Summary s = summarize(t[k]);
    std::printf("  %-24s min %8.3f  median %8.3f  max %8.3f\n", names[k], s.min * 1e3, s.median * 1e3, s.max * 1e3);
  }
  fftw_destroy_plan(one);
  fftw_destroy_plan(threaded);
  fftw_destroy_plan(whole);
  for (auto& p : P) fftw_free(p);
  fftw_free(grid);
  fftw_cleanup_threads();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nbfft::bench::run_serial_main("nbfft-local-threads", [&] { return run(argc, argv); });
}
