// nbfft-fftw-serial: FFTW's own threaded serial 3D transform, the single-node limit.
//
// One process, T threads, the whole grid in its memory: no data moves between processes,
// so a distributed transform on the same cores can at best match it. docs/performance.md
// puts nbfft's time beside it. The work is nbfft-sine's iteration: forward r2c (or c2c),
// normalization, backward c2r (c2c) of an nx x ny x nz double (or single) grid (out of
// place, into an array of its own), timed as
// min / median over --iters after one warm-up, on nbfft-sine's field (bench/common/
// sine_field.hpp; --field ramp: the sin(0.001 k) ramp this benchmark used before, whose
// spectrum has no subnormal noise), its round trip checked against the field.
#include "bench/common/cli.hpp"
#include "bench/common/json.hpp"
#include "bench/common/main.hpp"
#include "bench/common/sine_field.hpp"
#include "bench/common/stats.hpp"
#include "bench/common/subnormals.hpp"
#include "nbfft/atomic_file.hpp"
#include "nbfft/error.hpp"

#include <fftw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

const char* kHelp = R"(nbfft-fftw-serial: FFTW's threaded serial r2c/c2r (or c2c) 3D transform (the single-node limit).

usage: nbfft-fftw-serial [--grid N | NX,NY,NZ] [--threads T] [--iters N] [--effort estimate|measure|patient]
                         [--precision double|single] [--transform r2c|c2c] [--field sine|ramp]
                         [--flush-subnormals] [--json FILE]
)";

// The fftw_* / fftwf_* calls of one precision.
template <typename T>
struct Fftw;
template <>
struct Fftw<double> {
  using plan = fftw_plan;
  using cplx = fftw_complex;
  static void* alloc(std::size_t b) { return fftw_malloc(b); }
  static void release(void* p) { fftw_free(p); }
  static int init() { return fftw_init_threads(); }
  static void threads(int t) { fftw_plan_with_nthreads(t); }
  static void cleanup() { fftw_cleanup_threads(); }
  static plan r2c(int z, int y, int x, double* i, cplx* o, unsigned f) { return fftw_plan_dft_r2c_3d(z, y, x, i, o, f); }
  static plan c2r(int z, int y, int x, cplx* i, double* o, unsigned f) { return fftw_plan_dft_c2r_3d(z, y, x, i, o, f); }
  static plan dft(int z, int y, int x, cplx* i, cplx* o, int s, unsigned f) { return fftw_plan_dft_3d(z, y, x, i, o, s, f); }
  static void execute(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  using cplx = fftwf_complex;
  static void* alloc(std::size_t b) { return fftwf_malloc(b); }
  static void release(void* p) { fftwf_free(p); }
  static int init() { return fftwf_init_threads(); }
  static void threads(int t) { fftwf_plan_with_nthreads(t); }
  static void cleanup() { fftwf_cleanup_threads(); }
  static plan r2c(int z, int y, int x, float* i, cplx* o, unsigned f) { return fftwf_plan_dft_r2c_3d(z, y, x, i, o, f); }
  static plan c2r(int z, int y, int x, cplx* i, float* o, unsigned f) { return fftwf_plan_dft_c2r_3d(z, y, x, i, o, f); }
  static plan dft(int z, int y, int x, cplx* i, cplx* o, int s, unsigned f) { return fftwf_plan_dft_3d(z, y, x, i, o, s, f); }
  static void execute(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

// Forward, normalization, backward of one grid, timed; r2c: real field, else complex.
template <typename T>
nbfft::bench::Summary time_transform(int nx, int ny, int nz, bool r2c, bool ramp, int threads, int iters,
                                     unsigned flags, double* error) {
  using F = Fftw<T>;
  const std::size_t n_real = static_cast<std::size_t>(nx) * ny * nz;
  const std::size_t n_cplx = r2c ? static_cast<std::size_t>(nx / 2 + 1) * ny * nz : n_real;
  if (!F::init()) throw nbfft::Error("FFTW could not start its threads", nbfft::ErrorCode::Unavailable);
  F::threads(threads);
  // f -> S -> g: the backward writes an array of its own, so every iteration transforms the
  // same field, as nbfft-sine's does (a round trip back into f would feed its rounding
  // noise to the next iteration, and that noise makes the spectrum's zero modes larger
  // than the field's own, out of the subnormal range).
  const std::size_t field_bytes = r2c ? sizeof(T) * n_real : sizeof(typename F::cplx) * n_real;
  void* f = F::alloc(field_bytes);
  void* g = F::alloc(field_bytes);
  auto* S = static_cast<typename F::cplx*>(F::alloc(sizeof(typename F::cplx) * n_cplx));
  if (!f || !g || !S) throw nbfft::Error("out of memory for the grid", nbfft::ErrorCode::OutOfMemory);
  typename F::plan fwd, bwd;
  if (r2c) {
    fwd = F::r2c(nz, ny, nx, static_cast<T*>(f), S, flags | FFTW_PRESERVE_INPUT);
    bwd = F::c2r(nz, ny, nx, S, static_cast<T*>(g), flags | FFTW_DESTROY_INPUT);
  } else {
    fwd = F::dft(nz, ny, nx, static_cast<typename F::cplx*>(f), S, FFTW_FORWARD, flags | FFTW_PRESERVE_INPUT);
    bwd = F::dft(nz, ny, nx, S, static_cast<typename F::cplx*>(g), FFTW_BACKWARD, flags | FFTW_DESTROY_INPUT);
  }
  if (!fwd || !bwd) throw nbfft::Error("FFTW could not plan the transform");
  // The field, after planning (which may overwrite the arrays); value(at, part) in double.
  T* v = static_cast<T*>(f);
  const int parts = r2c ? 1 : 2;
  const nbfft::bench::SineField field({nx, ny, nz});
  auto value = [&](std::size_t at, int part) {
    if (ramp) return std::sin(0.001 * static_cast<double>(parts * at + part));
    const std::int64_t x = static_cast<std::int64_t>(at % nx), y = static_cast<std::int64_t>(at / nx % ny),
                       z = static_cast<std::int64_t>(at / nx / ny);
    return part == 0 ? field.re(x, y, z) : field.im(x, y, z);
  };
  for (std::size_t k = 0; k < n_real; ++k)
    for (int p = 0; p < parts; ++p) v[parts * k + p] = static_cast<T>(value(k, p));
  const T scale = static_cast<T>(1.0 / static_cast<double>(n_real));
  auto once = [&] {
    F::execute(fwd);
    for (std::size_t k = 0; k < n_cplx; ++k) {
      S[k][0] *= scale;
      S[k][1] *= scale;
    }
    F::execute(bwd);
  };
  // Each iteration's round trip is checked against the field, untimed, as nbfft-sine checks
  // its own: the check reads the whole result, so each timed iteration starts with the
  // caches as nbfft's do (back to back, without it, 128^3 r2c double took 10% less).
  *error = 0;
  const T* back = static_cast<const T*>(g);
  auto check = [&] {
    for (std::size_t k = 0; k < n_real; ++k)
      for (int p = 0; p < parts; ++p) *error = std::max(*error, std::abs(back[parts * k + p] - value(k, p)));
  };
  once();
  check();
  std::vector<double> times;
  for (int it = 0; it < iters; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    once();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    check();
  }
  F::destroy(fwd);
  F::destroy(bwd);
  F::release(f);
  F::release(g);
  F::release(S);
  F::cleanup();
  return nbfft::bench::summarize(times);
}

int run(int argc, char** argv) {
  using namespace nbfft::bench;
  Args args(argc, argv, {"help", "flush-subnormals"});
  args.allow_only({"grid", "threads", "iters", "effort", "precision", "transform", "field", "flush-subnormals", "json",
                   "help"});
  if (args.has("flush-subnormals")) flush_subnormals();  // before FFTW starts its threads
  if (args.has("help")) {
    std::printf("%s", kHelp);
    return 0;
  }
  const std::array<std::int64_t, 3> g = parse_grid(args, "128", 1L << 20);
  const int threads = static_cast<int>(args.get_long("threads", 1));
  const int iters = static_cast<int>(args.get_long("iters", 5));
  if (threads < 1 || threads > 1024) throw nbfft::Error("--threads must be in [1, 1024]");
  if (iters < 1 || iters > 100000) throw nbfft::Error("--iters must be in [1, 100000]");
  if (args.has("json")) {  // written at the end: its folder is checked now
    try {
      nbfft::check_writable(args.get("json", ""));
    } catch (const nbfft::Error& e) {
      throw nbfft::Error("--json: " + e.message(), e.code());
    }
  }
  const std::string effort = args.get("effort", "measure");
  unsigned flags = FFTW_MEASURE;
  if (effort == "estimate") flags = FFTW_ESTIMATE;
  else if (effort == "patient") flags = FFTW_PATIENT;
  else if (effort != "measure") throw nbfft::Error("--effort: use estimate, measure or patient, not '" + effort + "'");
  const std::string precision = args.get("precision", "double"), transform = args.get("transform", "r2c");
  if (precision != "double" && precision != "single")
    throw nbfft::Error("--precision: use double or single, not '" + precision + "'");
  if (transform != "r2c" && transform != "c2c") throw nbfft::Error("--transform: use r2c or c2c, not '" + transform + "'");
  const bool r2c = transform == "r2c";
  const std::string fieldname = args.get("field", "sine");
  if (fieldname != "sine" && fieldname != "ramp") throw nbfft::Error("--field: use sine or ramp, not '" + fieldname + "'");
  const bool ramp = fieldname == "ramp";

  const int nx = static_cast<int>(g[0]), ny = static_cast<int>(g[1]), nz = static_cast<int>(g[2]);
  double error = 0;
  const Summary s = precision == "double" ? time_transform<double>(nx, ny, nz, r2c, ramp, threads, iters, flags, &error)
                                          : time_transform<float>(nx, ny, nz, r2c, ramp, threads, iters, flags, &error);
  std::printf("fftw-serial grid %dx%dx%d %s %s threads %d field %s: min %.3f ms  median %.3f ms  max %.3f ms  "
              "(forward+normalize+backward)%s, max error %.2e\n",
              nx, ny, nz, precision.c_str(), transform.c_str(), threads, fieldname.c_str(), s.min * 1e3, s.median * 1e3,
              s.max * 1e3, args.has("flush-subnormals") ? ", subnormals flushed" : "", error);
  if (!(error < (precision == "double" ? 1e-8 : 1e-3)))
    throw nbfft::Error("the round trip did not return the field (max error " + std::to_string(error) + ")");
  if (args.has("json")) {
    JsonRecord r;
    r.add("benchmark", "fftw-serial").add("nx", nx).add("ny", ny).add("nz", nz).add("threads", threads);
    r.add("precision", precision).add("transform", transform).add("field", fieldname).add("max_error", error);
    r.add_raw("flush_subnormals", args.has("flush-subnormals") ? "true" : "false");
    r.add("iters", iters).add("effort", effort).add("min_s", s.min).add("median_s", s.median).add("max_s", s.max);
    write_json(args.get("json", ""), {r});
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nbfft::bench::run_serial_main("nbfft-fftw-serial", [&] { return run(argc, argv); });
}
