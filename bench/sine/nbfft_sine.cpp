// nbfft-sine: P3DFFT's test_sine kernel. A 3D sine field goes through forward r2c (or
// c2c), normalization and backward c2r, --iters times; every iteration is checked against
// the analytic field. Reports a per-phase breakdown, GFlop/s and, with --baseline
// fftw-mpi, FFTW's own MPI transform on the same grid in the same run.
//
// Runs (each process grid x each transport, then the baseline) are built first and their
// iterations interleaved round-robin, so slow phases of a shared machine hit all runs alike.
#include "bench/sine/runner.hpp"
#include "coll/error.hpp"
#include "coll/transport.hpp"
#include "fft/fft.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace nbfft::sine {
namespace {

const char* kHelp = R"(nbfft-sine: the P3DFFT test_sine kernel on nbfft's distributed 3D FFT.

usage: mpirun -n P nbfft-sine [options]

  --grid N | NX,NY,NZ      global grid (default 128)
  --proc-grid LIST         process grids M1xM2, comma-separated, or "auto" (default auto:
                           slabs when they fit). M1 splits y of the input (ROW exchange),
                           M2 splits z (COL exchange); 1xP = slabs.
  --precision double|single   (default double)
  --transform r2c|c2c      r2c = forward r2c, backward c2r (default r2c)
  --transport LIST         comma-separated transports, each run and reported separately
                           (default blocking). A transport is a preset (blocking, native,
                           caller, thread, rma) or ALGORITHM[:WINDOW]@ENGINE, e.g.
                           pairwise:4@thread. It is used for both exchanges.
  --iters N                timed iterations per run (default 10)
  --warmup N               untimed iterations first (default 1)
  --effort E               FFTW planner effort: estimate, measure, patient, exhaustive
                           (default measure); the baseline uses the same
  --wisdom FILE            load FFTW wisdom from FILE before planning, save it after
  --baseline fftw-mpi      also run FFTW's MPI transform (FFTW_MPI_TRANSPOSED_OUT/IN) on
                           the same grid and report nbfft's time as a ratio of it
  --sequential             run each configuration's iterations back to back instead of
                           interleaving them round-robin
  --json FILE              write one JSON record per run to FILE (a JSON array)
  --help                   this text

Each iteration is forward + normalize (1/N, fused into nbfft's z FFT) + backward. Phase
times are seconds per iteration, max over ranks, then min / median / max over iterations.
GFlop/s uses 2.5 N log2 N per r2c or c2r transform of N points (5 N log2 N for c2c).
)";

struct Args {
  std::array<std::int64_t, 3> n{128, 128, 128};
  std::vector<std::pair<int, int>> grids{{0, 0}};
  fft::Precision precision = fft::Precision::Double;
  fft::TransformKind transform = fft::TransformKind::R2C;
  std::vector<coll::Transport> transports;
  std::vector<std::string> transport_names;
  int iters = 10, warmup = 1;
  fft::Effort effort = fft::Effort::Measure;
  std::string wisdom, json, baseline;
  bool sequential = false, help = false;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

std::int64_t parse_int(const std::string& opt, const std::string& v, std::int64_t lo) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || x < lo)
    throw Error(opt + ": expected an integer >= " + std::to_string(lo) + ", got '" + v + "'");
  return x;
}

Args parse(int argc, char** argv) {
  Args a;
  std::string transports = "blocking";
  for (int k = 1; k < argc; ++k) {
    const std::string opt = argv[k];
    if (opt == "--help" || opt == "-h") {
      a.help = true;
      continue;
    }
    if (opt == "--sequential") {
      a.sequential = true;
      continue;
    }
    if (k + 1 >= argc) throw Error(opt + " needs a value (see --help)");
    const std::string v = argv[++k];
    if (opt == "--grid") {
      std::string t = v;
      std::replace(t.begin(), t.end(), 'x', ',');
      auto parts = split_list(t);
      if (parts.size() == 1) parts = {parts[0], parts[0], parts[0]};
      if (parts.size() != 3) throw Error("--grid: expected N or NX,NY,NZ, got '" + v + "'");
      for (int d = 0; d < 3; ++d) a.n[d] = parse_int("--grid", parts[d], 1);
    } else if (opt == "--proc-grid") {
      a.grids.clear();
      for (const auto& g : split_list(v)) a.grids.push_back(g == "auto" ? std::make_pair(0, 0) : fft::parse_proc_grid(g));
      if (a.grids.empty()) throw Error("--proc-grid: empty list");
    } else if (opt == "--precision") {
      a.precision = fft::parse_precision(v);
    } else if (opt == "--transform") {
      a.transform = fft::parse_transform(v);
    } else if (opt == "--transport") {
      transports = v;
    } else if (opt == "--iters") {
      a.iters = static_cast<int>(parse_int(opt, v, 1));
    } else if (opt == "--warmup") {
      a.warmup = static_cast<int>(parse_int(opt, v, 0));
    } else if (opt == "--effort") {
      a.effort = fft::parse_effort(v);
    } else if (opt == "--wisdom") {
      a.wisdom = v;
    } else if (opt == "--json") {
      a.json = v;
    } else if (opt == "--baseline") {
      if (v != "fftw-mpi" && v != "none") throw Error("--baseline: only 'fftw-mpi' (or 'none') is known, got '" + v + "'");
      a.baseline = v == "none" ? "" : v;
    } else {
      throw Error("unknown option '" + opt + "' (see --help)");
    }
  }
  a.transports = coll::parse_transports(transports);
  a.transport_names = split_list(transports);
  return a;
}

// nbfft's transform of the sine field through one Plan.
template <typename T>
class NbfftRunner final : public Runner {
  using C = std::complex<T>;

 public:
  NbfftRunner(MPI_Comm comm, const Args& a, int m1, int m2, const coll::Transport& t, std::string name)
      : name_(std::move(name)), field_(a.n), plan_(comm, a.n, options(a, m1, m2, t)) {
    const fft::Box3& b = plan_.in_box();
    const bool r2c = a.transform == fft::TransformKind::R2C;
    const std::size_t count = static_cast<std::size_t>(b.count());
    if (r2c) {
      real_in_.resize(count);
      real_out_.resize(count);
    } else {
      cplx_in_.resize(count);
      cplx_out_.resize(count);
    }
    spec_.resize(static_cast<std::size_t>(plan_.out_count()));
    std::size_t k = 0;
    for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
      for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
        for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x, ++k) {
          if (r2c)
            real_in_[k] = static_cast<T>(field_.re(x, y, z));
          else
            cplx_in_[k] = C(static_cast<T>(field_.re(x, y, z)), static_cast<T>(field_.im(x, y, z)));
        }
  }

  static fft::Options options(const Args& a, int m1, int m2, const coll::Transport& t) {
    fft::Options o;
    o.precision = a.precision;
    o.transform = a.transform;
    o.norm = fft::Norm::Forward;  // test_sine normalizes after the forward transform
    o.m1 = m1;
    o.m2 = m2;
    o.row_transport = o.col_transport = t;
    o.effort = a.effort;
    return o;
  }

  std::string transport() const override { return name_; }
  std::string proc_grid() const override {
    return std::to_string(plan_.m1()) + "x" + std::to_string(plan_.m2());
  }
  std::string config() const override {
    std::ostringstream os;
    os << plan_.options() << " workspace=" << plan_.workspace_bytes() / (1 << 20) << "MiB";
    return os.str();
  }
  bool has_phases() const override { return true; }

  void iterate(fft::Timings& t) override {
    if (plan_.options().transform == fft::TransformKind::R2C) {
      plan_.forward(real_in_, spec_, &t);
      plan_.backward(spec_, real_out_, &t);
    } else {
      plan_.forward(cplx_in_, spec_, &t);
      plan_.backward(spec_, cplx_out_, &t);
    }
  }

  double local_error() const override {
    const fft::Box3& b = plan_.in_box();
    double e = 0;
    std::size_t k = 0;
    const bool r2c = plan_.options().transform == fft::TransformKind::R2C;
    for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
      for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
        for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x, ++k) {
          if (r2c) {
            e = std::max(e, std::abs(static_cast<double>(real_out_[k]) - field_.re(x, y, z)));
          } else {
            const C v = cplx_out_[k];
            e = std::max(e, std::abs(std::complex<double>(v.real(), v.imag()) -
                                     std::complex<double>(field_.re(x, y, z), field_.im(x, y, z))));
          }
        }
    return e;
  }

 private:
  std::string name_;
  SineField field_;
  fft::Plan plan_;
  std::vector<T> real_in_, real_out_;
  std::vector<C> cplx_in_, cplx_out_, spec_;
};

struct Stat {
  double min = 0, median = 0, max = 0;
};

Stat stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Stat s;
  if (v.empty()) return s;
  s.min = v.front();
  s.max = v.back();
  const std::size_t m = v.size();
  s.median = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
  return s;
}

struct Result {
  std::unique_ptr<Runner> runner;
  std::vector<fft::Timings> iters;  // local
  Stat phase[fft::Timings::kPhases];  // over iterations of the per-iteration max over ranks
  double max_error = 0;
  bool baseline = false;
};

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

int run(const Args& a) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool root = rank == 0;
  if (!a.wisdom.empty()) fft::load_wisdom(MPI_COMM_WORLD, a.wisdom);

  std::vector<Result> results;
  for (const auto& g : a.grids)
    for (std::size_t k = 0; k < a.transports.size(); ++k) {
      Result r;
      if (a.precision == fft::Precision::Double)
        r.runner = std::make_unique<NbfftRunner<double>>(MPI_COMM_WORLD, a, g.first, g.second, a.transports[k], a.transport_names[k]);
      else
        r.runner = std::make_unique<NbfftRunner<float>>(MPI_COMM_WORLD, a, g.first, g.second, a.transports[k], a.transport_names[k]);
      results.push_back(std::move(r));
    }
  if (a.baseline == "fftw-mpi") {
    Result r;
    r.runner = make_fftw_mpi({MPI_COMM_WORLD, a.n, a.precision, a.transform, a.effort});
    r.baseline = true;
    results.push_back(std::move(r));
  }
  if (!a.wisdom.empty()) fft::save_wisdom(MPI_COMM_WORLD, a.wisdom);

  // Iterations: warm-up untimed, then timed; round-robin over runs unless --sequential.
  auto one = [&](Result& r, bool timed) {
    fft::Timings t;
    MPI_Barrier(MPI_COMM_WORLD);
    r.runner->iterate(t);
    double e = r.runner->local_error(), emax = 0;
    MPI_Allreduce(&e, &emax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    r.max_error = std::max(r.max_error, emax);
    if (timed) r.iters.push_back(t);
  };
  if (a.sequential) {
    for (auto& r : results) {
      for (int i = 0; i < a.warmup; ++i) one(r, false);
      for (int i = 0; i < a.iters; ++i) one(r, true);
    }
  } else {
    for (int i = 0; i < a.warmup; ++i)
      for (auto& r : results) one(r, false);
    for (int i = 0; i < a.iters; ++i)
      for (auto& r : results) one(r, true);
  }

  const int P = fft::Timings::kPhases;
  for (auto& r : results) {
    std::vector<double> local(static_cast<std::size_t>(a.iters) * P), global(local.size());
    for (int i = 0; i < a.iters; ++i)
      for (int p = 0; p < P; ++p) local[i * P + p] = r.iters[i].phase(p);
    MPI_Allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int p = 0; p < P; ++p) {
      std::vector<double> v(a.iters);
      for (int i = 0; i < a.iters; ++i) v[i] = global[i * P + p];
      r.phase[p] = stats(v);
    }
  }
  if (!root) return 0;

  const double N = static_cast<double>(a.n[0]) * a.n[1] * a.n[2];
  const double flops = 2.0 * (a.transform == fft::TransformKind::R2C ? 2.5 : 5.0) * N * std::log2(N);
  const Result* base = nullptr;
  for (const auto& r : results)
    if (r.baseline) base = &r;
  const int total = fft::Timings::kPhases - 1;

  std::printf("nbfft-sine: grid %lldx%lldx%lld, %d ranks, %s %s, %d iterations (+%d warm-up), %s\n",
              static_cast<long long>(a.n[0]), static_cast<long long>(a.n[1]), static_cast<long long>(a.n[2]), size,
              fft::name(a.precision), fft::name(a.transform), a.iters, a.warmup,
              a.sequential ? "runs back to back" : "runs interleaved");
  for (std::size_t k = 0; k < results.size(); ++k)
    std::printf("  [%zu] %-8s %-5s %-20s %s\n", k + 1, results[k].baseline ? "fftw-mpi" : "nbfft",
                results[k].runner->proc_grid().c_str(), results[k].runner->transport().c_str(),
                results[k].runner->config().c_str());
  std::printf("\nphase times in ms per forward+backward: max over ranks, then min / median / max over iterations\n");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Result& r = results[k];
    std::printf("[%zu] %s %s %s\n%-8s", k + 1, r.baseline ? "fftw-mpi" : "nbfft", r.runner->proc_grid().c_str(),
                r.runner->transport().c_str(), "");
    for (int p = 0; p < P; ++p) std::printf(" %9s", fft::Timings::phase_name(p));
    std::printf("\n");
    const char* rows[3] = {"min", "median", "max"};
    for (int row = 0; row < 3; ++row) {
      std::printf("%-8s", rows[row]);
      for (int p = 0; p < P; ++p) {
        const Stat& st = r.phase[p];
        const double v = row == 0 ? st.min : row == 1 ? st.median : st.max;
        if (r.runner->has_phases() || p == total)
          std::printf(" %9.2f", 1e3 * v);
        else
          std::printf(" %9s", "-");
      }
      std::printf("\n");
    }
  }
  std::printf("\n%-4s %-8s %-5s %-20s %11s %9s %9s %10s %11s\n", "run", "code", "proc", "transport", "median ms",
              "min ms", "GFlop/s", "max error", "vs fftw-mpi");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Result& r = results[k];
    char ratio[32] = "-";
    if (base) std::snprintf(ratio, sizeof ratio, "%.3f", r.phase[total].median / base->phase[total].median);
    std::printf("%-4zu %-8s %-5s %-20s %11.2f %9.2f %9.2f %10.2e %11s\n", k + 1, r.baseline ? "fftw-mpi" : "nbfft",
                r.runner->proc_grid().c_str(), r.runner->transport().c_str(), 1e3 * r.phase[total].median,
                1e3 * r.phase[total].min, flops / r.phase[total].median * 1e-9, r.max_error, ratio);
  }
  std::fflush(stdout);

  if (!a.json.empty()) {
    std::ofstream out(a.json);
    out << "[\n";
    for (std::size_t k = 0; k < results.size(); ++k) {
      const Result& r = results[k];
      out << "  {\"grid\": [" << a.n[0] << ", " << a.n[1] << ", " << a.n[2] << "], \"proc_grid\": \""
          << r.runner->proc_grid() << "\", \"ranks\": " << size << ", \"precision\": \"" << fft::name(a.precision)
          << "\", \"transform\": \"" << fft::name(a.transform) << "\", \"transport\": \""
          << json_escape(r.runner->transport()) << "\", \"fields\": 1, \"iters\": " << a.iters
          << ", \"time_s\": " << r.phase[total].median << ", \"time_min_s\": " << r.phase[total].min
          << ", \"time_max_s\": " << r.phase[total].max << ", \"max_error\": " << r.max_error
          << ", \"gflops\": " << flops / r.phase[total].median * 1e-9 << ", \"effort\": \"" << fft::name(a.effort)
          << "\", \"interleaved\": " << (a.sequential ? "false" : "true");
      if (base) out << ", \"ratio_vs_fftw_mpi\": " << r.phase[total].median / base->phase[total].median;
      out << ", \"config\": \"" << json_escape(r.runner->config()) << "\"";
      if (r.runner->has_phases()) {
        out << ", \"phases\": {";
        for (int p = 0; p < P; ++p)
          out << (p ? ", " : "") << "\"" << fft::Timings::phase_name(p) << "\": {\"min\": " << r.phase[p].min
              << ", \"median\": " << r.phase[p].median << ", \"max\": " << r.phase[p].max << "}";
        out << "}";
      }
      out << "}" << (k + 1 < results.size() ? "," : "") << "\n";
    }
    out << "]\n";
    if (!out) std::fprintf(stderr, "nbfft-sine: cannot write %s\n", a.json.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace nbfft::sine

int main(int argc, char** argv) {
  using namespace nbfft::sine;
  Args args;
  std::string parse_error;
  try {
    args = parse(argc, argv);
  } catch (const std::exception& e) {
    parse_error = e.what();
  }
  // The thread engine needs MPI_THREAD_MULTIPLE; everything else runs at the default level.
  bool threads = false;
  for (const auto& t : args.transports) threads = threads || t.engine == nbfft::coll::EngineKind::Thread;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = 0;
  if (args.help || !parse_error.empty()) {
    if (rank == 0) {
      if (!parse_error.empty()) std::fprintf(stderr, "%s\n", parse_error.c_str());
      else std::fputs(kHelp, stdout);
    }
    rc = parse_error.empty() ? 0 : 2;
  } else {
    fftw_mpi_init();
    try {
      rc = run(args);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "[rank %d] %s\n", rank, e.what());
      rc = 1;
    }
    fftw_mpi_cleanup();
  }
  MPI_Finalize();
  return rc;
}
