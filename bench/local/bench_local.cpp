// nbfft-bench-local: the local FFT backends (local/transform.hpp) on the batched 1-D
// transforms a 3-D plan's stages run, one rank's share at N^3 on one rank:
//   x r2c   N-point rows, N rows of a plane (rows padded to 2(N/2+1) reals), out of place
//   x c2c   N-point rows, N rows, out of place
//   y c2c   N-point columns at stride nxi = N/2+1, nxi of them (one plane), in place
//   z c2c   N-point columns at stride nxi*N, nxi of them (one y row of the slab), in place
// in double and single. Each round times every backend in turn (the order alternating
// between rounds), so that a noisy machine hits both alike; prints per backend the median
// time of one execute over the rounds and the spread (min..max of the rounds), and the
// ratio of the medians mkl/fftw.
//
//   nbfft-bench-local [--grids 128,256] [--rounds 7] [--effort measure|estimate] [--min-ms 20]
#include "local/transform.hpp"
#include "nbfft/error.hpp"

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace nbfft::local;

struct Stage {
  const char* name;
  Problem problem;
  std::int64_t in_elems, out_elems;  // complex elements each array needs (in place: in only)
  bool in_place;
};

std::vector<Stage> stages(std::int64_t n) {
  const std::int64_t h = n / 2 + 1;
  std::vector<Stage> s;
  s.push_back({"x r2c", Problem{Kind::R2C, {{n, 1, 1}}, {{n, 2 * h, h}}, {}, Input::Any}, n * h, n * h, false});
  s.push_back({"x c2c", Problem{Kind::Forward, {{n, 1, 1}}, {{n, n, n}}, {}, Input::Any}, n * n, n * n, false});
  s.push_back({"y c2c", Problem{Kind::Forward, {{n, h, h}}, {{h, 1, 1}}, {}, Input::Any}, n * h, 0, true});
  s.push_back({"z c2c", Problem{Kind::Forward, {{n, h * n, h * n}}, {{h, 1, 1}}, {}, Input::Any}, n * h * n, 0, true});
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <typename T>
void run(std::int64_t n, int rounds, Effort effort, double min_ms) {
  const std::vector<Backend> backends = built_backends();
  for (const Stage& st : stages(n)) {
    std::vector<std::complex<T>> in(st.in_elems), out(std::max<std::int64_t>(st.out_elems, 1));
    void* out_ptr = st.in_place ? static_cast<void*>(in.data()) : static_cast<void*>(out.data());
    std::vector<Transform<T>> plans;
    for (Backend b : backends) plans.emplace_back(b, st.problem, in.data(), out_ptr, effort);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::complex<T>(T(std::sin(0.1 * i)), T(0.5));
    // Repetitions per timing: enough for min_ms on the first backend.
    int reps = 1;
    for (;;) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps; ++r) plans[0].execute(in.data(), out_ptr);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (ms >= min_ms || reps >= (1 << 20)) break;
      reps *= 2;
    }
    std::vector<std::vector<double>> us(backends.size());
    for (int round = 0; round < rounds; ++round)
      for (std::size_t k = 0; k < backends.size(); ++k) {
        const std::size_t i = round % 2 ? backends.size() - 1 - k : k;
        plans[i].execute(in.data(), out_ptr);  // warm this backend's tables before timing it
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r) plans[i].execute(in.data(), out_ptr);
        us[i].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps);
      }
    std::printf("%4lld^3 %-6s %-5s", static_cast<long long>(n), sizeof(T) == 8 ? "double" : "single", st.name);
    double fftw = 0, mkl = 0;
    for (std::size_t i = 0; i < backends.size(); ++i) {
      const double med = median(us[i]);
      const auto [lo, hi] = std::minmax_element(us[i].begin(), us[i].end());
      std::printf("  %s %9.1f us [%.1f..%.1f]", name(backends[i]), med, *lo, *hi);
      if (backends[i] == Backend::Fftw) fftw = med;
      if (backends[i] == Backend::Mkl) mkl = med;
    }
    if (fftw > 0 && mkl > 0) std::printf("  mkl/fftw %.2f", mkl / fftw);
    std::printf("\n");
    std::fflush(stdout);
  }
}

std::vector<std::int64_t> parse_list(const char* s) {
  std::vector<std::int64_t> v;
  for (const char* p = s; *p;) {
    char* end = nullptr;
    const long long x = std::strtoll(p, &end, 10);
    if (end == p || x < 2) throw nbfft::Error(std::string("--grids: '") + s + "' is not a list of sizes >= 2");
    v.push_back(x);
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') throw nbfft::Error(std::string("--grids: '") + s + "' is not a list of sizes >= 2");
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::int64_t> grids{128, 256};
    int rounds = 7;
    double min_ms = 20;
    Effort effort = Effort::Measure;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (i + 1 >= argc) throw nbfft::Error("option " + a + " needs a value");
      const char* v = argv[++i];
      if (a == "--grids") {
        grids = parse_list(v);
      } else if (a == "--rounds") {
        rounds = std::atoi(v);
        if (rounds < 1) throw nbfft::Error(std::string("--rounds: '") + v + "' is not a positive count");
      } else if (a == "--min-ms") {
        min_ms = std::atof(v);
      } else if (a == "--effort") {
        if (std::strcmp(v, "measure") == 0) effort = Effort::Measure;
        else if (std::strcmp(v, "estimate") == 0) effort = Effort::Estimate;
        else throw nbfft::Error(std::string("--effort: '") + v + "' (use measure or estimate)");
      } else {
        throw nbfft::Error("unknown option " + a + " (--grids, --rounds, --effort, --min-ms)");
      }
    }
    std::printf("nbfft-bench-local: backends");
    for (Backend b : built_backends()) std::printf(" %s (%s)", name(b), version(b).c_str());
    std::printf("; %d rounds, median us per execute [min..max over rounds]\n", rounds);
    for (std::int64_t n : grids) {
      run<double>(n, rounds, effort, min_ms);
      run<float>(n, rounds, effort, min_ms);
    }
  } catch (const nbfft::Error& e) {
    std::fprintf(stderr, "nbfft-bench-local: %s\n", e.message().c_str());
    return 2;
  }
  return 0;
}
