// nbfft-sine: P3DFFT's test_sine kernel. A 3D sine field goes through forward r2c (or
// c2c), normalization and backward c2r, --iters times; every iteration is checked against
// the analytic field. Reports a per-phase breakdown, GFlop/s and, with --baseline
// fftw-mpi, FFTW's own MPI transform on the same grid in the same run.
//
// Runs (each process grid x each transport, then the baseline) are built first and their
// iterations interleaved round-robin, so slow phases of a shared machine hit all runs alike.
//
// With --fields NV every iteration transforms NV fields through Plan::forward_many /
// backward_many (the pipeline of seed 000 Fig. 4), and a run list that includes
// `blocking` gets seed 000's Table II: each transport's time, its improvement over
// blocking, the pipeline bound from the blocking run's per-field compute C and exchange T
// (DESIGN.md "Measures"), and the share of the gap between blocking and the bound it closes.
#include "bench/sine/runner.hpp"
#include "nbfft/error.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/fft.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
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
                           pairwise:4@thread. It is used for both exchanges unless
                           --row-transport says otherwise.
  --row-transport T        transport of the ROW exchange for every run (default: the
                           run's --transport); seed 000 overlaps only the COL exchange
  --fields NV              fields per iteration (default 1): NV sine fields (field v scaled
                           by v+1) through forward_many/backward_many, pipelined as in
                           seed 000 Fig. 4. With `blocking` in --transport the summary adds
                           Table II: improvement over blocking, the pipeline bound and
                           the gap each transport closes
  --progress-chunks LIST   progress calls per stage while an exchange is in flight (the
                           stage's planes in K chunks; default 0 = the plan's default,
                           64). A list runs every transport once per value (labels
                           TRANSPORT/kK), to measure the choice
  --chunk-planes LIST      plane-pipelined COL exchange (seed 001 §5) in chunks of N
                           planes (default 0: one bulk exchange). A list runs every
                           transport once per value (labels TRANSPORT/pN)
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
GFlop/s uses 2.5 N log2 N per r2c or c2r transform of N points (5 N log2 N for c2c),
times NV. The exit code is 1 when any run's max error exceeds 1e-8 (double) or 1e-3
(single).

Table II (with blocking among the transports), per process grid. Per direction d
(forward, backward), per field: C_d = the blocking run's local work (FFTs, pack, unpack;
slowest rank, median) + the fastest ROW exchange alone; T_d = the fastest COL exchange
alone. "Alone" = NV exchanges back to back after a barrier with nothing else running,
slowest rank, median of 3-5 repetitions, measured for every run and (with NV > 1) for the
reference transports blocking, native, caller and thread, so the bound does not depend on
--transport. Pipeline bound = sum over d of max(NV*C_d, NV*T_d + C_d): the CPU must do all
the work, and the network cannot start before the first field's pre-exchange work nor
finish before the last field's post-exchange work. gap closed = (t_blocking - t) /
(t_blocking - bound). JSON records add pipeline_bound_s, gap_closed, improvement_pct,
compute_per_field_s, exchange_per_field_s, blocking_time_s, col_alone_s and row_alone_s.
)";

struct Args {
  std::array<std::int64_t, 3> n{128, 128, 128};
  std::vector<std::pair<int, int>> grids{{0, 0}};
  fft::Precision precision = fft::Precision::Double;
  fft::TransformKind transform = fft::TransformKind::R2C;
  std::vector<coll::Transport> transports;
  std::vector<std::string> transport_names;
  std::string row_transport;  // empty: the run's transport
  int fields = 1;
  std::vector<int> chunk_planes{0};
  std::vector<int> progress_chunks{0};
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
    } else if (opt == "--row-transport") {
      coll::Transport::parse(v);  // validates
      a.row_transport = v;
    } else if (opt == "--fields") {
      a.fields = static_cast<int>(parse_int(opt, v, 1));
    } else if (opt == "--progress-chunks") {
      a.progress_chunks.clear();
      for (const auto& x : split_list(v)) a.progress_chunks.push_back(static_cast<int>(parse_int(opt, x, 0)));
      if (a.progress_chunks.empty()) throw Error("--progress-chunks: empty list");
    } else if (opt == "--chunk-planes") {
      a.chunk_planes.clear();
      for (const auto& x : split_list(v)) a.chunk_planes.push_back(static_cast<int>(parse_int(opt, x, 0)));
      if (a.chunk_planes.empty()) throw Error("--chunk-planes: empty list");
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

// nbfft's transform of the sine field through one Plan: nv fields, field v = (v+1) * sine.
template <typename T>
class NbfftRunner final : public Runner {
  using C = std::complex<T>;

 public:
  NbfftRunner(MPI_Comm comm, const Args& a, int m1, int m2, const coll::Transport& t, std::string name,
              int progress_chunks, int chunk_planes)
      : name_(std::move(name)),
        field_(a.n),
        plan_(comm, a.n, options(a, m1, m2, t, progress_chunks, chunk_planes)),
        nv_(a.fields) {
    const fft::Box3& b = plan_.in_box();
    const bool r2c = a.transform == fft::TransformKind::R2C;
    const std::size_t count = static_cast<std::size_t>(b.count());
    if (r2c) {
      real_in_.assign(nv_, std::vector<T>(count));
      real_out_.assign(nv_, std::vector<T>(count));
    } else {
      cplx_in_.assign(nv_, std::vector<C>(count));
      cplx_out_.assign(nv_, std::vector<C>(count));
    }
    spec_.assign(nv_, std::vector<C>(static_cast<std::size_t>(plan_.out_count())));
    for (int v = 0; v < nv_; ++v) {
      std::size_t k = 0;
      const double s = v + 1;
      for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
        for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
          for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x, ++k) {
            if (r2c)
              real_in_[v][k] = static_cast<T>(s * field_.re(x, y, z));
            else
              cplx_in_[v][k] = C(static_cast<T>(s * field_.re(x, y, z)), static_cast<T>(s * field_.im(x, y, z)));
          }
    }
  }

  static fft::Options options(const Args& a, int m1, int m2, const coll::Transport& t, int progress_chunks,
                              int chunk_planes) {
    fft::Options o;
    o.precision = a.precision;
    o.transform = a.transform;
    o.norm = fft::Norm::Forward;  // test_sine normalizes after the forward transform
    o.m1 = m1;
    o.m2 = m2;
    o.row_transport = o.col_transport = t;
    if (!a.row_transport.empty()) o.row_transport = coll::Transport::parse(a.row_transport);
    o.effort = a.effort;
    o.progress_chunks = progress_chunks;
    o.col_chunk_planes = chunk_planes;
    return o;
  }

  std::string transport() const override { return name_; }
  std::string proc_grid() const override {
    return std::to_string(plan_.m1()) + "x" + std::to_string(plan_.m2());
  }
  std::string config() const override {
    std::ostringstream os;
    os << plan_.options() << " fields=" << nv_ << " workspace=" << plan_.workspace_bytes() / (1 << 20) << "MiB";
    return os.str();
  }
  bool has_phases() const override { return true; }

  void iterate(fft::Timings& t) override {
    fwd_ = bwd_ = fft::Timings{};
    if (plan_.options().transform == fft::TransformKind::R2C) {
      plan_.forward_many(real_in_, spec_, &fwd_);
      plan_.backward_many(spec_, real_out_, &bwd_);
    } else {
      plan_.forward_many(cplx_in_, spec_, &fwd_);
      plan_.backward_many(spec_, cplx_out_, &bwd_);
    }
    t += fwd_;
    t += bwd_;
  }
  bool exchange_only(int exchange, bool forward, fft::Timings& t) override {
    plan_.exchange_only(exchange, forward, &t);
    return true;
  }
  bool directions(fft::Timings& f, fft::Timings& b) const override {
    f = fwd_;
    b = bwd_;
    return true;
  }

  double local_error() const override {
    const fft::Box3& b = plan_.in_box();
    double e = 0;
    const bool r2c = plan_.options().transform == fft::TransformKind::R2C;
    for (int v = 0; v < nv_; ++v) {
      std::size_t k = 0;
      const double s = v + 1;
      for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
        for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
          for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x, ++k) {
            if (r2c) {
              e = std::max(e, std::abs(static_cast<double>(real_out_[v][k]) - s * field_.re(x, y, z)) / s);
            } else {
              const C w = cplx_out_[v][k];
              e = std::max(e, std::abs(std::complex<double>(w.real(), w.imag()) -
                                       s * std::complex<double>(field_.re(x, y, z), field_.im(x, y, z))) / s);
            }
          }
    }
    return e;
  }

 private:
  std::string name_;
  SineField field_;
  fft::Plan plan_;
  int nv_;
  std::vector<std::vector<T>> real_in_, real_out_;
  std::vector<std::vector<C>> cplx_in_, cplx_out_, spec_;
  fft::Timings fwd_, bwd_;
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
  bool blocking = false;            // the run's transport is MPI_Alltoall(v): Table II's reference
  std::vector<fft::Timings> iters;  // local
  std::vector<fft::Timings> fwd, bwd;  // local, per direction (when the runner measures them)
  Stat phase[fft::Timings::kPhases];  // over iterations of the per-iteration max over ranks
  double max_error = 0;
  bool baseline = false;
  // Per direction d (0 forward, 1 backward), medians over iterations: per-field compute
  // (slowest rank's time outside the COL exchange, / nv) and exchange (total/nv - compute).
  double compute[2] = {0, 0}, exch[2] = {0, 0};
  bool has_dirs = false;
  // Per direction, medians over repetitions of the slowest rank: each exchange alone
  // (after a barrier, nothing else running), and the local work per field (FFTs, pack,
  // unpack) of the timed iterations.
  double row_alone[2] = {0, 0}, col_alone[2] = {0, 0}, work[2] = {0, 0};
  bool has_alone = false;
};

// Seed 000 Table II numbers of one run against the blocking run of its process grid.
struct TableRow {
  bool valid = false;
  double blocking_s = 0, bound_s = 0, improvement_pct = 0, gap_closed = 0;
  double compute_s = 0, exchange_s = 0;  // per field, forward + backward
  bool has_gap = false;                  // blocking is slower than the bound (gap_closed defined)
};

// Exchanges alone of a reference transport (not one of the runs), per direction.
struct Reference {
  std::string label, proc_grid;
  double row[2] = {0, 0}, col[2] = {0, 0};
};

// The fastest exchanges alone among the runs and references of one process grid, per
// direction: the network's (and the node's) time for one field's exchange, whatever
// transport got it.
struct Alone {
  double row[2] = {0, 0}, col[2] = {0, 0};
  bool valid = false;
};

TableRow table_row(const Result& r, const Result* blocking, int nv, const Alone& alone) {
  TableRow t;
  if (!blocking || !blocking->has_dirs || r.baseline) return t;
  const int total = fft::Timings::kPhases - 1;
  t.valid = true;
  t.blocking_s = blocking->phase[total].median;
  for (int d = 0; d < 2; ++d) {
    // C: the blocking run's local work of one field plus the fastest ROW exchange alone;
    // T: the fastest COL exchange alone. Without that calibration, what the blocking
    // iteration spent outside / inside the COL exchange (skew then counts as exchange).
    const double C = alone.valid ? blocking->work[d] + alone.row[d] : blocking->compute[d];
    const double T = alone.valid ? alone.col[d] : blocking->exch[d];
    t.bound_s += std::max(nv * C, nv * T + C);
    t.compute_s += C;
    t.exchange_s += T;
  }
  const double tr = r.phase[total].median;
  t.improvement_pct = 100.0 * (t.blocking_s - tr) / t.blocking_s;
  const double gap = t.blocking_s - t.bound_s;
  t.has_gap = gap > 0;
  t.gap_closed = t.has_gap ? (t.blocking_s - tr) / gap : 0.0;
  return t;
}

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
  std::vector<std::string> skipped;
  for (const auto& g : a.grids)
    for (std::size_t k = 0; k < a.transports.size(); ++k)
      for (int pc : a.progress_chunks)
        for (int cp : a.chunk_planes) {
          Result r;
          std::string label = a.transport_names[k];
          if (a.progress_chunks.size() > 1) label += "/k" + std::to_string(pc);
          if (a.chunk_planes.size() > 1) label += "/p" + std::to_string(cp);
          // A transport this MPI cannot run here (the plan fails on every rank alike, e.g.
          // rma over TCP under MPI_THREAD_MULTIPLE in Open MPI 4.1) is skipped, not fatal.
          try {
            if (a.precision == fft::Precision::Double)
              r.runner = std::make_unique<NbfftRunner<double>>(MPI_COMM_WORLD, a, g.first, g.second, a.transports[k],
                                                               label, pc, cp);
            else
              r.runner = std::make_unique<NbfftRunner<float>>(MPI_COMM_WORLD, a, g.first, g.second, a.transports[k],
                                                              label, pc, cp);
          } catch (const Error& e) {
            skipped.push_back(label + " on " + std::to_string(g.first) + "x" + std::to_string(g.second) + ": " + e.what());
            continue;
          }
          r.blocking = a.transports[k].algorithm.name == "blocking" &&
                       (a.row_transport.empty() ||
                        coll::Transport::parse(a.row_transport).algorithm.name == "blocking");
          results.push_back(std::move(r));
        }
  if (results.empty()) {
    std::string why;
    for (const auto& w : skipped) why += "\n  " + w;
    throw Error("no run could be planned:" + why);
  }
  if (a.baseline == "fftw-mpi") {
    Result r;
    r.runner = make_fftw_mpi({MPI_COMM_WORLD, a.n, a.precision, a.transform, a.effort, a.fields});
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
    if (timed) {
      r.iters.push_back(t);
      fft::Timings f, b;
      if (r.runner->directions(f, b)) {
        r.fwd.push_back(f);
        r.bwd.push_back(b);
      }
    }
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

  // The exchanges alone (Table II's T, and the ROW part of C): per direction, nv exchanges
  // back to back with nothing else running (so the network stays as busy as in a
  // pipeline), after a barrier; slowest rank, median over repetitions. Measured for every
  // run and for a fixed set of reference transports on each process grid, so that the
  // bound does not depend on which transports --transport lists.
  const int reps = std::max(3, std::min(a.iters, 5));
  auto measure_alone = [&](const std::function<bool(int, bool, fft::Timings&)>& ex, double row[2], double col[2]) {
    std::vector<double> loc(static_cast<std::size_t>(reps) * 4), glob(loc.size());
    bool ok = true;
    for (int i = 0; i < reps && ok; ++i)
      for (int d = 0; d < 2 && ok; ++d)
        for (int x = 0; x < 2 && ok; ++x) {
          fft::Timings t;
          MPI_Barrier(MPI_COMM_WORLD);
          for (int v = 0; v < a.fields && ok; ++v) ok = ex(x, d == 0, t);
          loc[4 * i + 2 * d + x] = (x == 0 ? t.row : t.col) / a.fields;
        }
    if (!ok) return false;
    MPI_Allreduce(loc.data(), glob.data(), static_cast<int>(loc.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int d = 0; d < 2; ++d) {
      std::vector<double> rw(reps), cl(reps);
      for (int i = 0; i < reps; ++i) {
        rw[i] = glob[4 * i + 2 * d];
        cl[i] = glob[4 * i + 2 * d + 1];
      }
      row[d] = stats(rw).median;
      col[d] = stats(cl).median;
    }
    return true;
  };
  for (auto& r : results) {
    if (r.baseline) continue;
    r.has_alone = measure_alone([&](int x, bool f, fft::Timings& t) { return r.runner->exchange_only(x, f, t); },
                                r.row_alone, r.col_alone);
  }
  std::vector<Reference> refs;
  if (a.fields > 1) {
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    std::vector<std::string> names = {"blocking", "native", "caller"};
    if (level == MPI_THREAD_MULTIPLE) names.push_back("thread");
    for (const auto& g : a.grids)
      for (const auto& name : names) {
        fft::Options o = NbfftRunner<double>::options(a, g.first, g.second, coll::Transport::parse(name), 0, 0);
        o.effort = fft::Effort::Estimate;  // only the exchanges run
        const fft::Plan plan(MPI_COMM_WORLD, a.n, o);
        Reference ref;
        ref.label = name;
        ref.proc_grid = std::to_string(plan.m1()) + "x" + std::to_string(plan.m2());
        measure_alone([&](int x, bool f, fft::Timings& t) { plan.exchange_only(x, f, &t); return true; }, ref.row,
                      ref.col);
        refs.push_back(ref);
      }
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
    // Per direction: slowest rank's compute (all but the COL exchange) and total.
    if (r.fwd.size() == static_cast<std::size_t>(a.iters)) {
      std::vector<double> loc(4 * a.iters), glob(loc.size());
      for (int i = 0; i < a.iters; ++i) {
        const fft::Timings* dt[2] = {&r.fwd[i], &r.bwd[i]};
        for (int d = 0; d < 2; ++d) {
          loc[4 * i + 2 * d] = dt[d]->total - dt[d]->col;
          loc[4 * i + 2 * d + 1] = dt[d]->total;
        }
      }
      MPI_Allreduce(loc.data(), glob.data(), static_cast<int>(loc.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      for (int d = 0; d < 2; ++d) {
        std::vector<double> c(a.iters), e(a.iters);
        for (int i = 0; i < a.iters; ++i) {
          c[i] = glob[4 * i + 2 * d] / a.fields;
          e[i] = std::max(0.0, glob[4 * i + 2 * d + 1] / a.fields - c[i]);
        }
        r.compute[d] = stats(c).median;
        r.exch[d] = stats(e).median;
      }
      r.has_dirs = true;
      // Local work per field: FFTs, pack and unpack of the slowest rank.
      std::vector<double> wl(2 * a.iters), wg(wl.size());
      for (int i = 0; i < a.iters; ++i) {
        const fft::Timings* dt[2] = {&r.fwd[i], &r.bwd[i]};
        for (int d = 0; d < 2; ++d)
          wl[2 * i + d] = dt[d]->fft_x + dt[d]->fft_y + dt[d]->fft_z + dt[d]->pack + dt[d]->unpack;
      }
      MPI_Allreduce(wl.data(), wg.data(), static_cast<int>(wl.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      for (int d = 0; d < 2; ++d) {
        std::vector<double> w(a.iters);
        for (int i = 0; i < a.iters; ++i) w[i] = wg[2 * i + d] / a.fields;
        r.work[d] = stats(w).median;
      }
    }
  }
  if (!root) return 0;
  // The blocking run of each process grid (Table II's reference).
  auto blocking_of = [&](const Result& r) -> const Result* {
    for (const auto& q : results)
      if (q.blocking && !q.baseline && q.runner->proc_grid() == r.runner->proc_grid()) return &q;
    return nullptr;
  };
  auto alone_of = [&](const Result& r) {
    Alone al;
    auto take = [&](const double row[2], const double col[2]) {
      for (int d = 0; d < 2; ++d) {
        al.row[d] = al.valid ? std::min(al.row[d], row[d]) : row[d];
        al.col[d] = al.valid ? std::min(al.col[d], col[d]) : col[d];
      }
      al.valid = true;
    };
    for (const auto& q : results)
      if (!q.baseline && q.has_alone && q.runner->proc_grid() == r.runner->proc_grid()) take(q.row_alone, q.col_alone);
    for (const auto& q : refs)
      if (q.proc_grid == r.runner->proc_grid()) take(q.row, q.col);
    return al;
  };

  const double N = static_cast<double>(a.n[0]) * a.n[1] * a.n[2];
  const double flops = a.fields * 2.0 * (a.transform == fft::TransformKind::R2C ? 2.5 : 5.0) * N * std::log2(N);
  const Result* base = nullptr;
  for (const auto& r : results)
    if (r.baseline) base = &r;
  const int total = fft::Timings::kPhases - 1;

  std::printf("nbfft-sine: grid %lldx%lldx%lld, %d ranks, %s %s, %d field%s, %d iterations (+%d warm-up), %s\n",
              static_cast<long long>(a.n[0]), static_cast<long long>(a.n[1]), static_cast<long long>(a.n[2]), size,
              fft::name(a.precision), fft::name(a.transform), a.fields, a.fields == 1 ? "" : "s", a.iters, a.warmup,
              a.sequential ? "runs back to back" : "runs interleaved");
  for (std::size_t k = 0; k < results.size(); ++k)
    std::printf("  [%zu] %-8s %-5s %-20s %s\n", k + 1, results[k].baseline ? "fftw-mpi" : "nbfft",
                results[k].runner->proc_grid().c_str(), results[k].runner->transport().c_str(),
                results[k].runner->config().c_str());
  for (const auto& w : skipped) std::printf("  skipped %s\n", w.c_str());
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

  // Seed 000 Table II, per process grid with a blocking run.
  bool any_table = false;
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Result& b = results[k];
    if (!b.blocking || b.baseline || !b.has_dirs) continue;
    const bool first_of_grid = blocking_of(b) == &b;
    if (!first_of_grid) continue;
    any_table = true;
    const Alone al = alone_of(b);
    const TableRow ref = table_row(b, &b, a.fields, al);
    std::printf("\nTable II (seed 000): %s, %d field%s, ms per iteration (forward + backward of every field)\n",
                b.runner->proc_grid().c_str(), a.fields, a.fields == 1 ? "" : "s");
    std::printf("  per field: compute C = %.2f ms (fwd %.2f + bwd %.2f) = the blocking run's FFTs, pack, unpack "
                "%.2f + the fastest ROW exchange alone %.2f\n",
                1e3 * ref.compute_s, 1e3 * (b.work[0] + al.row[0]), 1e3 * (b.work[1] + al.row[1]),
                1e3 * (b.work[0] + b.work[1]), 1e3 * (al.row[0] + al.row[1]));
    std::printf("             exchange T = %.2f ms (fwd %.2f + bwd %.2f) = the fastest COL exchange alone (nv back to "
                "back, nothing else running)\n",
                1e3 * ref.exchange_s, 1e3 * al.col[0], 1e3 * al.col[1]);
    std::printf("  blocking: measured %.2f ms, nv*(C+T) = %.2f ms (the rest is the ranks waiting on each other); "
                "inside its COL exchanges %.2f ms a field\n",
                1e3 * ref.blocking_s, 1e3 * a.fields * (ref.compute_s + ref.exchange_s), 1e3 * (b.exch[0] + b.exch[1]));
    std::printf("  pipeline bound = sum over directions d of max(nv*C_d, nv*T_d + C_d) = %.2f ms\n", 1e3 * ref.bound_s);
    std::printf("  %-20s %11s %15s %13s %14s %14s\n", "transport", "median ms", "vs blocking %", "gap closed %",
                "COL alone ms", "ROW alone ms");
    for (const auto& r : results) {
      if (r.baseline || r.runner->proc_grid() != b.runner->proc_grid()) continue;
      const TableRow t = table_row(r, &b, a.fields, al);
      char gap[32] = "-";
      if (t.has_gap) std::snprintf(gap, sizeof gap, "%.1f", 100.0 * t.gap_closed);
      std::printf("  %-20s %11.2f %15.1f %13s %14.2f %14.2f\n", r.runner->transport().c_str(),
                  1e3 * r.phase[total].median, t.improvement_pct, gap, 1e3 * (r.col_alone[0] + r.col_alone[1]),
                  1e3 * (r.row_alone[0] + r.row_alone[1]));
    }
    std::printf("  %-20s %11.2f\n", "(pipeline bound)", 1e3 * ref.bound_s);
    std::printf("  exchanges alone of the reference transports, ms per field (COL / ROW):");
    for (const auto& q : refs)
      if (q.proc_grid == b.runner->proc_grid())
        std::printf(" %s %.2f / %.2f;", q.label.c_str(), 1e3 * (q.col[0] + q.col[1]), 1e3 * (q.row[0] + q.row[1]));
    std::printf("\n");
  }
  if (a.fields > 1 && !any_table)
    std::printf("\n(no Table II: add blocking to --transport to compare against it)\n");
  std::fflush(stdout);

  if (!a.json.empty()) {
    std::ofstream out(a.json);
    out << "[\n";
    for (std::size_t k = 0; k < results.size(); ++k) {
      const Result& r = results[k];
      out << "  {\"grid\": [" << a.n[0] << ", " << a.n[1] << ", " << a.n[2] << "], \"proc_grid\": \""
          << r.runner->proc_grid() << "\", \"ranks\": " << size << ", \"precision\": \"" << fft::name(a.precision)
          << "\", \"transform\": \"" << fft::name(a.transform) << "\", \"transport\": \""
          << json_escape(r.runner->transport()) << "\", \"fields\": " << a.fields << ", \"iters\": " << a.iters
          << ", \"time_s\": " << r.phase[total].median << ", \"time_min_s\": " << r.phase[total].min
          << ", \"time_max_s\": " << r.phase[total].max << ", \"max_error\": " << r.max_error
          << ", \"gflops\": " << flops / r.phase[total].median * 1e-9 << ", \"effort\": \"" << fft::name(a.effort)
          << "\", \"interleaved\": " << (a.sequential ? "false" : "true");
      if (base) out << ", \"ratio_vs_fftw_mpi\": " << r.phase[total].median / base->phase[total].median;
      const TableRow tr = table_row(r, blocking_of(r), a.fields, alone_of(r));
      if (tr.valid)
        out << ", \"pipeline_bound_s\": " << tr.bound_s;
      if (tr.valid && tr.has_gap) out << ", \"gap_closed\": " << tr.gap_closed;
      if (tr.valid)
        out << ", \"improvement_pct\": " << tr.improvement_pct << ", \"compute_per_field_s\": " << tr.compute_s
            << ", \"exchange_per_field_s\": " << tr.exchange_s << ", \"blocking_time_s\": " << tr.blocking_s;
      if (r.has_alone)
        out << ", \"col_alone_s\": " << r.col_alone[0] + r.col_alone[1] << ", \"row_alone_s\": "
            << r.row_alone[0] + r.row_alone[1];
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
  // A wrong result fails the run (exit 1), so scripts and tests can rely on the check.
  const double tol = a.precision == fft::Precision::Double ? 1e-8 : 1e-3;
  int rc = 0;
  for (const auto& r : results)
    if (!(r.max_error <= tol)) {
      std::fprintf(stderr, "nbfft-sine: %s %s: max error %.3g exceeds %.0e\n", r.runner->proc_grid().c_str(),
                   r.runner->transport().c_str(), r.max_error, tol);
      rc = 1;
    }
  return rc;
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
  if (!args.row_transport.empty())
    threads = threads || nbfft::coll::Transport::parse(args.row_transport).engine == nbfft::coll::EngineKind::Thread;
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
