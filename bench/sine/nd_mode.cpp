#include "bench/sine/nd_mode.hpp"

#include "bench/common/json.hpp"
#include "bench/common/stats.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/wisdom.hpp"
#include "nbfft/nd/options_text.hpp"
#include "nbfft/nd/plan.hpp"
#include "nbfft/nd/tune.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>
#include <sstream>
#include <type_traits>

namespace nbfft::sine {

namespace {

// Options of the 3-D runs that an N-D run has no use for: an error naming them, not a
// silently ignored word.
const char* const kThreeDOnly[] = {"grid",     "row-transport", "progress-chunks", "chunk-planes",
                                   "workspace", "baseline",     "autotune-wisdom", "autotune-log", "seed-run"};
// nd::Options keys taken as --KEY VALUE ('-' for '_'); the rest are nbfft-sine's own words.
const char* const kNdKeys[] = {"kinds", "batch-axis", "fields-in-flight", "output-order"};

std::string key_of(std::string word) {
  std::replace(word.begin(), word.end(), '-', '_');
  return word;
}

std::string join(const std::vector<std::int64_t>& v, const char* sep) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? sep : "") + std::to_string(v[k]);
  return s;
}

// The kernel's field and its spectrum under the forward norm (nd_mode.hpp).
struct SineNd {
  std::vector<std::int64_t> n;
  std::vector<bool> transformed;
  bool complex = false;

  std::complex<double> value(const std::vector<std::int64_t>& g, int v) const {
    const double two_pi = 6.283185307179586476925286766559;
    double r = v + 1;
    for (std::size_t a = 0; a < n.size(); ++a)
      r *= transformed[a] ? std::cos(two_pi * double(g[a]) / double(n[a])) : 1 + double(g[a]) / double(n[a]);
    return complex ? r * std::complex<double>(1, 0.5) : std::complex<double>(r);
  }
  std::complex<double> spectrum(const std::vector<std::int64_t>& k, int v) const {
    double r = v + 1;
    for (std::size_t a = 0; a < n.size(); ++a) {
      if (!transformed[a]) {
        r *= 1 + double(k[a]) / double(n[a]);
        continue;
      }
      const int hits = (k[a] == 1 % n[a]) + (k[a] == (n[a] - 1) % n[a]);  // cos: e^{i..}/2 + e^{-i..}/2
      r *= 0.5 * hits;
    }
    return complex ? r * std::complex<double>(1, 0.5) : std::complex<double>(r);
  }
};

// Calls f(k, g) for each element of a block in memory order: k its offset, g its global
// index (one per axis, axis order).
template <typename F>
void each_point(const nd::Box& b, F&& f) {
  const std::vector<std::int64_t> dims = b.memory_shape();
  const std::size_t d = dims.size();
  std::vector<std::int64_t> idx(d, 0), g(b.lo);
  const std::int64_t count = b.count();
  for (std::int64_t k = 0; k < count; ++k) {
    f(k, g);
    for (std::size_t m = d; m-- > 0;) {  // the last memory axis fastest
      const int a = b.order[m];
      if (++idx[m] < dims[m]) {
        ++g[a];
        break;
      }
      idx[m] = 0;
      g[a] = b.lo[a];
    }
  }
}

template <typename E>
E element(std::complex<double> z) {
  if constexpr (std::is_floating_point_v<E>) return static_cast<E>(z.real());
  else return E(static_cast<typename E::value_type>(z.real()), static_cast<typename E::value_type>(z.imag()));
}

template <typename E>
std::complex<double> widen(E e) {
  if constexpr (std::is_floating_point_v<E>) return {double(e), 0.0};
  else return {double(e.real()), double(e.imag())};
}

class Run {
 public:
  virtual ~Run() = default;
  virtual void iterate() = 0;
  virtual double spectrum_error() const = 0;  // < 0: not checked (r2r kinds)
  virtual double roundtrip_error() const = 0;
  virtual std::string describe() const = 0;
  virtual std::string tune_report() const = 0;  // "" when the plan was not tuned
};

// One transport's plan and arrays; In / Out the forward's element types.
template <typename In, typename Out>
class NdRun final : public Run {
 public:
  NdRun(MPI_Comm comm, const NdArgs& a, const nd::Options& o) : plan_(comm, a.shape, a.axes, o), nv_(a.fields) {
    field_.n = a.shape;
    field_.transformed.assign(a.shape.size(), false);
    for (int ax : plan_.axes()) field_.transformed[std::size_t(ax)] = true;
    field_.complex = !std::is_floating_point_v<In>;
    sparse_ = std::all_of(plan_.kinds().begin(), plan_.kinds().end(),
                          [](fft::AxisKind k) { return k == fft::AxisKind::Periodic; });
    for (int v = 0; v < nv_; ++v) {
      in_.emplace_back(plan_.in_count());
      back_.emplace_back(plan_.in_count());
      spec_.emplace_back(plan_.out_count());
      each_point(plan_.in_box(), [&](std::int64_t k, const std::vector<std::int64_t>& g) {
        in_[v][std::size_t(k)] = element<In>(field_.value(g, v));
      });
    }
  }

  void iterate() override {
    if (nv_ == 1) {
      plan_.forward(in_[0].data(), in_[0].size(), spec_[0].data(), spec_[0].size());
      plan_.backward(spec_[0].data(), spec_[0].size(), back_[0].data(), back_[0].size());
      return;
    }
    std::vector<const In*> i;
    std::vector<Out*> s;
    std::vector<In*> b;
    for (int v = 0; v < nv_; ++v) {
      i.push_back(in_[v].data());
      s.push_back(spec_[v].data());
      b.push_back(back_[v].data());
    }
    plan_.forward_many(i, in_[0].size(), s, spec_[0].size());
    std::vector<const Out*> sc(s.begin(), s.end());
    plan_.backward_many(sc, spec_[0].size(), b, back_[0].size());
  }

  double spectrum_error() const override {
    if (!sparse_) return -1;
    double e = 0;
    for (int v = 0; v < nv_; ++v)
      each_point(plan_.out_box(), [&](std::int64_t k, const std::vector<std::int64_t>& g) {
        e = std::max(e, std::abs(widen(spec_[v][std::size_t(k)]) - field_.spectrum(g, v)));
      });
    return e;
  }
  double roundtrip_error() const override {
    double e = 0;
    for (int v = 0; v < nv_; ++v)
      for (std::size_t k = 0; k < in_[v].size(); ++k) e = std::max(e, std::abs(widen(back_[v][k]) - widen(in_[v][k])));
    return e;
  }
  std::string describe() const override { return plan_.describe(); }
  std::string tune_report() const override {
    if (!plan_.tune_report()) return "";
    std::ostringstream os;
    os << *plan_.tune_report();
    return os.str();
  }

 private:
  nd::Plan plan_;
  int nv_;
  SineNd field_;
  bool sparse_ = true;
  std::vector<std::vector<In>> in_, back_;
  std::vector<std::vector<Out>> spec_;
};

template <typename T>
std::unique_ptr<Run> make_run_t(MPI_Comm comm, const NdArgs& a, const nd::Options& o) {
  using C = std::complex<T>;
  if (o.kind == nd::Kind::C2C) return std::make_unique<NdRun<C, C>>(comm, a, o);
  const bool real = !o.kinds.empty() && std::none_of(o.kinds.begin(), o.kinds.end(), [](fft::AxisKind k) {
    return k == fft::AxisKind::Periodic;
  });
  if (real) return std::make_unique<NdRun<T, T>>(comm, a, o);  // real in, real spectrum
  return std::make_unique<NdRun<T, C>>(comm, a, o);
}

nd::Options options_of(const NdArgs& a, const std::string& transport) {
  nd::Options o;
  o.kind = a.transform == fft::TransformKind::C2C ? nd::Kind::C2C : nd::Kind::R2C;
  o.precision = a.precision;
  o.norm = fft::Norm::Forward;  // test_sine normalizes after the forward transform
  o.effort = a.effort;
  o.transport = transport;
  if (!a.grid.empty()) nd::set_option(o, "grid", a.grid);
  for (const auto& [k, v] : a.extra) nd::set_option(o, k, v);
  return o;
}

}  // namespace

bool NdArgs::needs_thread_multiple() const {
  for (const auto& t : transports)
    if (t.find("thread") != std::string::npos) return true;
  return false;
}

NdArgs parse_nd_args(const bench::Args& args) {
  for (const char* w : kThreeDOnly)
    if (args.has(w))
      throw Error(std::string("--") + w + ": an option of the 3-D runs, which an N-D run (--shape) does not take (--help: \"N-D runs\")");
  std::vector<std::string> known = {"shape", "axes",   "precision", "transform", "transport", "proc-grid",
                                    "fields", "iters", "warmup",    "effort",    "wisdom",    "json",
                                    "sequential", "flush-subnormals", "autotune", "autotune-budget", "help"};
  for (const char* k : kNdKeys) known.push_back(k);
  args.allow_only(known);
  NdArgs a;
  a.help = args.has("help");
  a.sequential = args.has("sequential");
  a.flush_subnormals = args.has("flush-subnormals");
  for (long n : args.get_long_list("shape", "", 1, INT_MAX)) a.shape.push_back(n);
  if (a.shape.empty() || a.shape.size() > 16)
    throw Error("--shape: 1 to 16 extents, slowest axis first (numpy order), e.g. --shape 64,48,30");
  if (args.has("axes"))
    for (long x : args.get_long_list("axes", "", -long(a.shape.size()), long(a.shape.size()) - 1))
      a.axes.push_back(int(x));  // negative from the end; repeats are nd::Plan's to name
  else
    for (std::size_t k = 0; k < a.shape.size(); ++k) a.axes.push_back(int(k));
  a.precision = fft::parse_precision(args.get("precision", "double"));
  a.transform = fft::parse_transform(args.get("transform", "r2c"));
  a.transports = args.get_list("transport", "blocking");
  a.grid = args.get("proc-grid", "");
  a.fields = int(args.get_long("fields", 1, 1, 64));
  a.iters = int(args.get_long("iters", 10, 1, 1000000));
  a.warmup = int(args.get_long("warmup", 1, 0, 1000000));
  a.effort = fft::parse_effort(args.get("effort", "measure"));
  a.wisdom = args.get("wisdom", "");
  a.json = args.get("json", "");
  for (const char* k : kNdKeys)
    if (args.has(k)) a.extra.emplace_back(key_of(k), args.get(k, ""));
  if (args.has("autotune")) {
    const std::vector<std::string> efforts = args.get_list("autotune", "quick");
    if (efforts.size() != 1 || fft::parse_tune_effort(efforts[0]) == fft::TuneEffort::None)
      throw Error("--autotune: one effort (quick, thorough or exhaustive) for an N-D run");
    a.tune = efforts[0];
  } else if (args.has("autotune-budget")) {
    throw Error("--autotune-budget: give --autotune too");
  }
  a.tune_budget = args.get_double("autotune-budget", 20, 0.001, 1e6);
  // Every word checked now, on every rank alike (the plan would name them too, later).
  nd::Options check;
  for (const auto& t : a.transports) check = options_of(a, t);
  return a;
}

int run_nd(MPI_Comm comm, const NdArgs& a) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  bench::check_outputs(comm, {{"--json", a.json}, {"--wisdom", a.wisdom}});
  if (!a.wisdom.empty()) fft::load_wisdom(comm, a.wisdom);
  std::vector<std::unique_ptr<Run>> runs;
  std::vector<std::string> labels = a.transports;  // each run's name in the table
  for (const auto& t : a.transports) {
    const nd::Options o = options_of(a, t);
    runs.push_back(a.precision == fft::Precision::Single ? make_run_t<float>(comm, a, o)
                                                         : make_run_t<double>(comm, a, o));
  }
  if (!a.tune.empty()) {  // the tuner's plan, from the first transport's options
    nd::Options o = options_of(a, a.transports.front());
    nd::set_option(o, "tune", a.tune);
    o.tune_budget = a.tune_budget;
    o.tune_fields = a.fields;
    runs.push_back(a.precision == fft::Precision::Single ? make_run_t<float>(comm, a, o)
                                                         : make_run_t<double>(comm, a, o));
    labels.push_back("tuned:" + a.tune);
  }
  if (!a.wisdom.empty()) fft::save_wisdom(comm, a.wisdom);

  // Iterations interleaved round-robin (or each run's back to back); each timed from a
  // barrier to the slowest rank's end.
  std::vector<std::vector<double>> times(runs.size());
  auto once = [&](std::size_t r, bool keep) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    runs[r]->iterate();
    const double most = bench::reduce_max(MPI_Wtime() - t0, comm);
    if (keep) times[r].push_back(most);
  };
  if (a.sequential) {
    for (std::size_t r = 0; r < runs.size(); ++r)
      for (int it = 0; it < a.warmup + a.iters; ++it) once(r, it >= a.warmup);
  } else {
    for (int it = 0; it < a.warmup + a.iters; ++it)
      for (std::size_t r = 0; r < runs.size(); ++r) once(r, it >= a.warmup);
  }

  // Which axes are transformed (axes as given, negative from the end).
  std::vector<bool> listed(a.shape.size(), false);
  for (int x : a.axes) listed[std::size_t(x < 0 ? x + int(a.shape.size()) : x)] = true;

  // The checks, untimed: the most over ranks of each run's errors, against a limit that
  // follows the field's size (fields scaled by v + 1, untransformed axes by up to 2).
  double scale = a.fields;
  for (std::size_t k = 0; k < a.shape.size(); ++k)
    if (!listed[k]) scale *= 2;
  const double limit = (a.precision == fft::Precision::Single ? 1e-4 : 1e-10) * scale;
  std::vector<double> spec(runs.size()), trip(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) {
    double e[2] = {runs[r]->spectrum_error(), runs[r]->roundtrip_error()}, m[2];
    MPI_Allreduce(e, m, 2, MPI_DOUBLE, MPI_MAX, comm);
    spec[r] = m[0];
    trip[r] = m[1];
  }
  bool ok = true;
  for (std::size_t r = 0; r < runs.size(); ++r) ok = ok && spec[r] <= limit && trip[r] <= limit;

  // GFlop/s: 5 N log2 N per complex transform of N points (2.5 for real data), each of the
  // B slices along the untransformed axes, forward and backward, per field.
  double N = 1, B = 1;
  for (std::size_t k = 0; k < a.shape.size(); ++k) (listed[k] ? N : B) *= double(a.shape[k]);
  const double flops = a.fields * 2.0 * (a.transform == fft::TransformKind::R2C ? 2.5 : 5.0) * B * N * std::log2(std::max(N, 2.0));

  std::vector<std::string> described;
  for (const auto& r : runs) described.push_back(r->describe());
  if (rank == 0) {
    std::vector<std::int64_t> axes(a.axes.begin(), a.axes.end());
    std::printf("nbfft-sine: N-D shape %s axes (%s), %d ranks, %s %s, %d field%s, %d iterations (+%d warm-up), %s%s\n",
                join(a.shape, "x").c_str(), join(axes, ", ").c_str(), size, fft::name(a.precision),
                fft::name(a.transform), a.fields, a.fields == 1 ? "" : "s", a.iters, a.warmup,
                a.sequential ? "runs one after another" : "runs interleaved",
                a.flush_subnormals ? ", subnormals flushed" : "");
    for (std::size_t r = 0; r < runs.size(); ++r)
      std::printf("  [%zu] %-22s %s\n", r + 1, labels[r].c_str(), described[r].c_str());
    for (const auto& run : runs)
      if (!run->tune_report().empty()) std::printf("\n%s", run->tune_report().c_str());
    std::printf("\nrun  transport              median ms    min ms   GFlop/s   spectrum error   round-trip error\n");
    std::vector<bench::Summary> sum;
    for (const auto& t : times) sum.push_back(bench::summarize(t));
    std::size_t best = 0;
    std::vector<bench::JsonRecord> records;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const bench::Summary& s = sum[r];
      if (s.median < sum[best].median) best = r;
      char se[32] = "-";
      if (spec[r] >= 0) std::snprintf(se, sizeof se, "%.2e", spec[r]);
      std::printf("%-4zu %-22s %10.2f %9.2f %9.2f   %14s   %16.2e\n", r + 1, labels[r].c_str(), s.median * 1e3,
                  s.min * 1e3, flops / s.median * 1e-9, se, trip[r]);
      bench::JsonRecord j;
      j.add_raw("shape", "[" + join(a.shape, ", ") + "]")
          .add_raw("axes", "[" + join(axes, ", ") + "]")
          .add("ranks", size)
          .add("precision", fft::name(a.precision))
          .add("transform", fft::name(a.transform))
          .add("transport", labels[r])
          .add("fields", a.fields)
          .add("iters", a.iters)
          .add("time_s", s.median)
          .add("time_min_s", s.min)
          .add("gflops", flops / s.median * 1e-9)
          .add("roundtrip_error", trip[r])
          .add("effort", fft::name(a.effort))
          .add_raw("interleaved", a.sequential ? "false" : "true")
          .add("config", described[r]);
      if (spec[r] >= 0) j.add("spectrum_error", spec[r]);
      else j.add_raw("spectrum_error", "null");
      records.push_back(j);
    }
    double worst = 0;
    for (std::size_t r = 0; r < runs.size(); ++r) worst = std::max({worst, spec[r], trip[r]});
    const std::string verdict = ok ? "All " + std::to_string(runs.size()) + " verified" : std::string("FAILED");
    std::printf("\nsummary: %s: the fastest run is %s (%.2f ms median); spectra against the analytic one%s and round "
                "trips against the field, max error %.1e (limit %.0e).\n",
                verdict.c_str(),
                labels[best].c_str(), sum[best].median * 1e3,
                std::all_of(spec.begin(), spec.end(), [](double e) { return e >= 0; }) ? "" : " (not with r2r kinds)",
                worst, limit);
    if (!a.json.empty()) bench::write_json(a.json, records);
  }
  return ok ? 0 : 1;
}

}  // namespace nbfft::sine
