// nd::tune (nbfft/nd/tune.hpp): candidate grids, transports and fields in flight for an
// N-D plan, each timed on the caller's ranks, the fastest kept.
#include "nbfft/nd/tune.hpp"
#include "fft/tune_detail.hpp"
#include "nbfft/fft/option_table.hpp"

#include "nbfft/coll/transport.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"
#include "nbfft/nd/options_text.hpp"

#include <algorithm>
#include <complex>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <type_traits>

namespace nbfft::nd {

namespace {

// The most ranks one exchange of a grid spans (its largest axis; the whole communicator
// when the grid is not yet chosen): what the tuner's candidates are sized for.
int max_peers(const std::vector<int>& grid, int size) {
  return grid.empty() ? size : *std::max_element(grid.begin(), grid.end());
}

constexpr const char* kUntuned = "untuned";

std::string join(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

// The rows the tuner chooses, set to their defaults: what the key and trial identity ignore.
Options untuned_rows(Options o) {
  const Options d;
  o.grid = d.grid;
  o.transport = d.transport;
  o.row_transport = d.row_transport;
  o.col_transport = d.col_transport;
  o.fields_in_flight = d.fields_in_flight;
  o.tune = d.tune;
  o.tune_budget = d.tune_budget;
  o.tune_wisdom = d.tune_wisdom;
  o.tune_log = d.tune_log;
  return o;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += p + ";";
  return s;
}

std::string chosen_text(const Options& o) {
  std::string g;
  for (int x : o.grid) g += (g.empty() ? "" : "x") + std::to_string(x);
  // The per-exchange transports only where the caller set them (the transport trials clear them).
  return "grid=" + (g.empty() ? std::string("auto") : g) + " transport=" + o.transport +
         (o.row_transport.empty() ? "" : " row_transport=" + o.row_transport) +
         (o.col_transport.empty() ? "" : " col_transport=" + o.col_transport) +
         " fields_in_flight=" + std::to_string(o.fields_in_flight);
}

std::mutex memory_lock;
std::map<std::string, std::string>& memory() {  // key -> the choice as options text
  static std::map<std::string, std::string> m;
  return m;
}

// Every grid of the user's array with `ranks` ranks: one entry per axis, product `ranks`,
// the batch axis (if any) 1. The fewest split axes first; among those, the ranks on axes
// that are not transformed (they need no exchange), then on slower axes.
std::vector<std::vector<int>> grids_of(std::size_t nd, int ranks, int batch, const std::vector<int>& axes) {
  std::vector<std::vector<int>> all;
  std::vector<int> g;
  auto rec = [&](auto&& self, int left) -> void {
    if (g.size() + 1 == nd) {
      if (static_cast<int>(g.size()) == batch && left != 1) return;
      g.push_back(left);
      all.push_back(g);
      g.pop_back();
      return;
    }
    for (int d = 1; d <= left; ++d) {
      if (left % d != 0 || (static_cast<int>(g.size()) == batch && d != 1)) continue;
      g.push_back(d);
      self(self, left / d);
      g.pop_back();
    }
  };
  if (nd > 0) rec(rec, ranks);
  auto score = [&](const std::vector<int>& v) {
    int split = 0, transformed = 0;
    for (std::size_t a = 0; a < v.size(); ++a)
      if (v[a] > 1) {
        ++split;
        if (std::find(axes.begin(), axes.end(), static_cast<int>(a)) != axes.end()) ++transformed;
      }
    return std::make_pair(split, transformed);
  };
  std::stable_sort(all.begin(), all.end(), [&](const std::vector<int>& a, const std::vector<int>& b) {
    const auto sa = score(a), sb = score(b);
    if (sa != sb) return sa < sb;
    return a > b;  // the ranks on slower axes first
  });
  return all;
}


// One set of arrays for every trial (grown as a candidate needs), and one timed call.
class Arrays {
 public:
  // One forward + backward of `fields` fields, the slowest rank's seconds. The input is
  // filled again before each call (untimed): a norm of "none" grows it by the transform's
  // size each round trip.
  double once(const Plan& p, int fields, MPI_Comm comm) {
    const bool single = p.precision() == fft::Precision::Single;
    if (p.real_spectrum()) return single ? run<float, float>(p, fields, comm) : run<double, double>(p, fields, comm);
    if (p.kind() == Kind::R2C)
      return single ? run<float, std::complex<float>>(p, fields, comm) : run<double, std::complex<double>>(p, fields, comm);
    return single ? run<std::complex<float>, std::complex<float>>(p, fields, comm)
                  : run<std::complex<double>, std::complex<double>>(p, fields, comm);
  }

 private:
  template <typename T>
  static T* grow(std::vector<std::complex<double>>& v, std::size_t n) {
    const std::size_t need = (n * sizeof(T) + sizeof(std::complex<double>) - 1) / sizeof(std::complex<double>);
    if (v.size() < need) v.resize(need);
    return reinterpret_cast<T*>(v.data());
  }

  template <typename In, typename Out>
  double run(const Plan& p, int fields, MPI_Comm comm) {
    std::size_t ni = std::max<std::size_t>(1, p.in_count()), no = std::max<std::size_t>(1, p.out_count());
    const auto f = static_cast<std::size_t>(fields);
    // A lean plan transforms in place: each field one array of the larger size.
    const bool lean = p.lean_workspace();
    // Each field's array holds inplace_bytes (and is passed with counts that cover it: a
    // lean plan's middle stages may be larger than both boxes), 64-byte multiples apart.
    const std::size_t each = (std::max({ni * sizeof(In), no * sizeof(Out), p.inplace_bytes()}) + 63) / 64 * 64;
    In* in = nullptr;
    Out* out = nullptr;
    agree(comm, [&] {  // an allocation that fails on one rank fails the trial on every rank
      in = lean ? grow<In>(in_, (each * f + sizeof(In) - 1) / sizeof(In)) : grow<In>(in_, ni * f);
      out = lean ? nullptr : grow<Out>(out_, no * f);
    });
    if (lean) {
      ni = each / sizeof(In);
      no = each / sizeof(Out);
    }
    std::vector<In*> vi;
    std::vector<Out*> vo;
    for (std::size_t k = 0; k < f; ++k) {
      auto* base = reinterpret_cast<unsigned char*>(in) + k * (lean ? each : ni * sizeof(In));
      vi.push_back(reinterpret_cast<In*>(base));
      vo.push_back(lean ? reinterpret_cast<Out*>(base) : out + k * no);
      for (std::size_t i = 0; i < p.in_count(); ++i)
        vi.back()[i] = In(0.5 + 0.25 * static_cast<double>((k * ni + i) % 7));
    }
    in = vi[0];
    out = vo[0];
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    const double t0 = MPI_Wtime();
    if (fields == 1) {
      p.forward(in, ni, out, no);
      p.backward(out, no, in, ni);
    } else {
      p.forward_many(vi, ni, vo, no);
      p.backward_many(vo, no, vi, ni);
    }
    double t = MPI_Wtime() - t0, most = 0;
    check_mpi(MPI_Allreduce(&t, &most, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    return most;
  }

  std::vector<std::complex<double>> in_, out_;
};

class Search {
 public:
  Search(MPI_Comm comm, const std::vector<std::int64_t>& shape, const std::vector<int>& axes, const Options& base,
         const std::optional<Box>& in_box, const std::optional<Box>& out_box, TuneReport& r,
         fft::detail::TuneLogger& log)
      : comm_(comm), shape_(shape), axes_(axes), base_(base), in_box_(in_box), out_box_(out_box), r_(r), log_(log),
        start_(MPI_Wtime()) {
    base_.tune = fft::TuneEffort::None;  // the trials' plans do not tune
  }

  bool out_of_time() {
    double elapsed = MPI_Wtime() - start_, most = 0;
    check_mpi(MPI_Allreduce(&elapsed, &most, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
    if (most > base_.tune_budget) r_.budget_exhausted = true;
    return r_.budget_exhausted;
  }

  // Times one candidate (once: a repeated one returns its time). Negative: the plan cannot
  // be made (every rank agrees: the plan's errors are agreed) or the budget is spent.
  // untuned: the caller's options, always timed, and their errors are the tune's.
  double run(Options o, const char* step, bool untuned = false) {
    for (const auto& t : r_.trials)
      if (chosen_text(t.options) == chosen_text(o)) return t.seconds;
    if (!untuned && out_of_time()) return -1;
    std::vector<double> times;
    int exchanges = 0;
    try {
      Plan p(comm_, shape_, axes_, in_box_, out_box_, o);
      o.grid = p.options().grid;
      exchanges = p.exchanges();
      if (!untuned)  // a grid the plan chose for the caller can come back as a candidate
        for (const auto& t : r_.trials)
          if (chosen_text(t.options) == chosen_text(o)) return t.seconds;
      times = time(p, kIters + 1);
    } catch (const Error& e) {
      if (untuned || e.code() == ErrorCode::Mpi || e.code() == ErrorCode::Internal) throw;
      log_.trial(step, -1, false, chosen_text(o), nullptr);
      return -1;  // a grid the plan refuses, a transport this MPI cannot run
    }
    TuneTrial t;
    t.options = o;
    t.seconds = median(times);
    t.step = step;
    t.exchanges = exchanges;
    r_.trials.push_back(t);
    log_.trial(step, t.seconds, true, chosen_text(o), nullptr);
    return t.seconds;
  }

  const TuneTrial* best() const {
    const TuneTrial* b = nullptr;
    for (const auto& t : r_.trials)
      if (!b || t.seconds < b->seconds) b = &t;
    return b;
  }

  // The `most` fastest trials and the untuned one, timed again in turn (2 visits of 2 calls
  // each): a choice must beat the caller's plan side by side.
  void runoff(std::size_t most) {
    std::vector<std::size_t> order(r_.trials.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r_.trials[a].seconds < r_.trials[b].seconds; });
    if (order.size() > most) {
      const bool untuned_in = std::any_of(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(most),
                                          [&](std::size_t k) { return r_.trials[k].step == kUntuned; });
      std::vector<std::size_t> keep(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(most));
      if (!untuned_in) keep.push_back(0);  // the untuned trial is the first
      order = keep;
    }
    if (order.size() < 2 || out_of_time()) return;
    std::vector<std::vector<double>> times(order.size());
    for (int visit = 0; visit < 2; ++visit)
      for (std::size_t c = 0; c < order.size(); ++c) {
        Plan p(comm_, shape_, axes_, in_box_, out_box_, r_.trials[order[c]].options);
        for (double t : time(p, 2)) times[c].push_back(t);
      }
    for (std::size_t c = 0; c < order.size(); ++c) {
      TuneTrial& t = r_.trials[order[c]];
      t.seconds = median(times[c]);
      t.step += ", runoff";
      log_.trial(t.step, t.seconds, true, chosen_text(t.options), nullptr);
    }
  }

  const Options& base() const { return base_; }
  int fields() const { return base_.tune_fields; }

 private:
  static constexpr int kIters = 3;
  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  // Runs one untimed warm-up call, then `n - 1` timed ones.
  std::vector<double> time(const Plan& p, int n) {
    std::vector<double> t;
    for (int i = 0; i < n; ++i) {
      const double s = arrays_.once(p, fields(), comm_);
      if (i > 0) t.push_back(s);
    }
    return t;
  }

  MPI_Comm comm_;
  const std::vector<std::int64_t>& shape_;
  const std::vector<int>& axes_;
  Options base_;
  const std::optional<Box>& in_box_;
  const std::optional<Box>& out_box_;
  TuneReport& r_;
  fft::detail::TuneLogger& log_;
  double start_;
  Arrays arrays_;
};

// This rank's box as text for the key ("-" when not given); the key gathers every rank's.
std::string box_text(const std::optional<Box>& b) {
  if (!b) return "-";
  std::string s;
  for (std::size_t a = 0; a < b->lo.size() && a < b->n.size(); ++a)
    s += std::to_string(b->lo[a]) + ":" + std::to_string(b->lo[a] + b->n[a]) + ",";
  return s;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const TuneReport& r) {
  char line[160];
  if (r.from_memory) return os << "nd tune: from this process's memory: " << chosen_text(r.chosen) << "\n";
  if (r.from_wisdom) return os << "nd tune: from the wisdom file: " << chosen_text(r.chosen) << "\n";
  std::snprintf(line, sizeof line, "nd tune: %zu trials in %.2f s%s; chose ", r.trials.size(), r.tuning_seconds,
                r.budget_exhausted ? " (budget spent)" : "");
  os << line << chosen_text(r.chosen);
  std::snprintf(line, sizeof line, ": %.3f ms per forward + backward (untuned %.3f ms)\n", r.best_seconds * 1e3,
                r.untuned_seconds * 1e3);
  os << line;
  for (const auto& t : r.trials) {
    std::snprintf(line, sizeof line, "  %-20s %10.3f ms  ", t.step.c_str(), t.seconds * 1e3);
    os << line << chosen_text(t.options) << "\n";
  }
  return os;
}

TuneReport tune(MPI_Comm comm, const std::vector<std::int64_t>& shape, const std::vector<int>& axes,
                const Options& base, const std::optional<Box>& in_box, const std::optional<Box>& out_box) {
  check_mpi_running("nd::tune");
  int size = 1, thread_level = MPI_THREAD_SINGLE;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Query_thread(&thread_level), "MPI_Query_thread");
  std::ostringstream budget;
  budget << base.tune_budget;
  check_same(comm, "nd tune",
             {{"tune", fft::name(base.tune)},
              {"tune_budget", budget.str()},
              {"tune_fields", std::to_string(base.tune_fields)},
              {"tune_wisdom", base.tune_wisdom},
              {"tune_log", std::to_string(base.tune_log)},
              {"in_box given", in_box ? "yes" : "no"},
              {"out_box given", out_box ? "yes" : "no"}});
  agree(comm, [&] {
    if (base.tune == fft::TuneEffort::None) throw Error("nd::tune: Options::tune is none (quick, thorough or exhaustive)");
    if (!(base.tune_budget > 0)) throw Error("nd::tune: tune_budget = " + budget.str() + " must be > 0 seconds");
    const fft::OptionRow& tf = fft::option_row("tune_fields");  // the one range, the 3-D tuner's too
    if (base.tune_fields < tf.lo || base.tune_fields > tf.hi)
      throw Error("nd::tune: tune_fields = " + std::to_string(base.tune_fields) + " must be in [" +
                  std::to_string(tf.lo) + ", " + std::to_string(tf.hi) + "]");
    const fft::OptionRow& tl = fft::option_row("tune_log");
    if (base.tune_log < tl.lo || base.tune_log > tl.hi)
      throw Error("nd::tune: tune_log = " + std::to_string(base.tune_log) + " must be in [" + std::to_string(tl.lo) +
                  ", " + std::to_string(tl.hi) + "]");
  });
  std::string axes_text;
  for (int a : axes) axes_text += std::to_string(a) + ",";
  // (options_text of the untuned rows names tune_fields too.)
  // "nd " first: one wisdom file may hold the 3-D tuner's keys too. The machine's part
  // (ranks per node, backends built, MPI library, host) as the 3-D key names it.
  const std::string key = "nd shape=" + join(shape) + " axes=" + axes_text + " ranks=" + std::to_string(size) + " " +
                          options_text(untuned_rows(base)) + " effort=" + fft::name(base.tune) +
                          (in_box || out_box ? " boxes=" + joined(allgather_strings(comm, box_text(in_box) + "/" + box_text(out_box)))
                                             : std::string()) +
                          " " + fft::detail::machine_key(comm);
  TuneReport r;
  const double t0 = MPI_Wtime();
  // The 3-D tuner's log: rank 0's stderr by tune_log, and the process's hook.
  fft::TuneSettings settings;
  settings.effort = base.tune;
  settings.budget_seconds = base.tune_budget;
  settings.fields = base.tune_fields;
  settings.log = base.tune_log;
  std::string axes_list;
  for (int a : axes) axes_list += (axes_list.empty() ? "" : ", ") + std::to_string(a);
  fft::detail::TuneLogger log(comm, "nd " + join(shape) + " axes (" + axes_list + ")", settings, t0);
  std::map<std::string, std::string> file;
  if (!base.tune_wisdom.empty()) file = fft::detail::read_tune_wisdom(comm, base.tune_wisdom);
  {
    // The wisdom file first (other runs may have written it since), else this process's
    // memory; rank 0's answer decides, so that every rank takes the same branch.
    const auto in_file = file.find(key);
    std::string known = in_file != file.end() ? in_file->second : std::string();
    if (known.empty()) {
      std::lock_guard<std::mutex> hold(memory_lock);
      auto it = memory().find(key);
      if (it != memory().end()) known = it->second;
    }
    int have = known.empty() ? 0 : in_file != file.end() ? 2 : 1;
    check_mpi(MPI_Bcast(&have, 1, MPI_INT, 0, comm), "MPI_Bcast");
    // A wisdom file the choice could not be written to fails now, not after the trials.
    if (!base.tune_wisdom.empty() && have != 2) fft::detail::check_tune_wisdom_writable(comm, base.tune_wisdom);
    if (have) {
      int n = static_cast<int>(known.size());
      check_mpi(MPI_Bcast(&n, 1, MPI_INT, 0, comm), "MPI_Bcast");
      known.resize(static_cast<std::size_t>(n));
      check_mpi(MPI_Bcast(known.data(), n, MPI_CHAR, 0, comm), "MPI_Bcast");
      r.chosen = base;
      agree(comm, [&] {
        try {
          apply_options(r.chosen, known);
        } catch (const Error& e) {
          throw Error("nd tune: tuning wisdom '" + base.tune_wisdom + "': cannot read the entry '" + known +
                          "': " + e.message(),
                      ErrorCode::Io);
        }
      });
      r.from_memory = have == 1;
      r.from_wisdom = have == 2;
      if (have == 1 && !base.tune_wisdom.empty()) {  // the file learns what memory knew
        file[key] = known;
        fft::detail::write_tune_wisdom(comm, base.tune_wisdom, file);
      }
      r.tuning_seconds = MPI_Wtime() - t0;
      log.done(chosen_text(r.chosen), 0, r.tuning_seconds, true, false, nullptr);
      return r;
    }
  }
  Search s(comm, shape, axes, base, in_box, out_box, r, log);
  const fft::TuneEffort effort = base.tune;
  int batch = -1;
  if (base.batch_axis) batch = *base.batch_axis < 0 ? *base.batch_axis + static_cast<int>(shape.size()) : *base.batch_axis;
  std::vector<int> user_axes;
  for (int a : axes) user_axes.push_back(a < 0 ? a + static_cast<int>(shape.size()) : a);
  const std::size_t most_grids = effort == fft::TuneEffort::Quick ? 4 : effort == fft::TuneEffort::Thorough ? 8 : ~std::size_t{0};
  const auto all_grids = grids_of(shape.size(), size, batch, user_axes);
  const bool several = s.fields() > 1 || batch >= 0;
  {
    // The trials expected (an upper estimate, as the 3-D tuner's): the untuned one, the
    // grids, the transports on two grids, the fields in flight and the runoff.
    const std::size_t transports =
        coll::tuning_transports(effort != fft::TuneEffort::Quick, size, thread_level == MPI_THREAD_MULTIPLE).size();
    log.start(static_cast<int>(1 + std::min(most_grids, all_grids.size()) + (size > 1 ? 2 * transports : 0) +
                               (several ? 3 : 0) + 4));
  }
  r.untuned_seconds = s.run(s.base(), kUntuned, true);
  // 1. grids, with the caller's transport and fields in flight.
  std::size_t tried = 0;
  for (const auto& g : all_grids) {
    if (tried >= most_grids) break;
    Options o = s.base();
    o.grid = g;
    const std::size_t before = r.trials.size();
    if (s.run(o, "grid") >= 0 && r.trials.size() > before) ++tried;
    if (r.budget_exhausted) break;
  }
  // 2. transports on the two fastest grids that exchange (a plan with none has no transport).
  std::vector<const TuneTrial*> grids;
  for (const auto& t : r.trials) grids.push_back(&t);
  std::stable_sort(grids.begin(), grids.end(), [](const TuneTrial* a, const TuneTrial* b) { return a->seconds < b->seconds; });
  std::vector<Options> kept;
  for (const TuneTrial* t : grids)
    if (kept.size() < 2 && t->exchanges > 0 && std::none_of(kept.begin(), kept.end(), [&](const Options& k) { return k.grid == t->options.grid; }))
      kept.push_back(t->options);
  for (const Options& g : kept)
    for (const auto& name : coll::tuning_transports(effort != fft::TuneEffort::Quick, max_peers(g.grid, size),
                                                    thread_level == MPI_THREAD_MULTIPLE)) {
      if (r.budget_exhausted) break;
      Options o = g;
      o.transport = name;  // every exchange's
      o.row_transport.clear();
      o.col_transport.clear();
      s.run(o, "transport");
    }
  // 3. fields in flight, when several fields can be in flight at once.
  if (several && !r.budget_exhausted)
    if (const TuneTrial* b = s.best(); b && b->exchanges > 0 &&
                                  coll::Transport::parse(b->options.transport).algorithm.name != "blocking") {
      const Options fastest = b->options;  // run() adds trials: b may move
      for (int f : {1, 2, 3}) {
        Options o = fastest;
        o.fields_in_flight = f;
        s.run(o, "fields");
      }
    }
  s.runoff(3);
  const TuneTrial* b = s.best();
  r.chosen = b->options;
  r.chosen.tune = base.tune;
  r.chosen.tune_budget = base.tune_budget;
  r.best_seconds = b->seconds;
  for (const auto& t : r.trials)
    if (t.step.rfind(kUntuned, 0) == 0) r.untuned_seconds = t.seconds;
  r.tuning_seconds = MPI_Wtime() - t0;
  {
    std::lock_guard<std::mutex> hold(memory_lock);
    memory()[key] = chosen_text(r.chosen);
  }
  if (!base.tune_wisdom.empty()) {
    file[key] = chosen_text(r.chosen);
    fft::detail::write_tune_wisdom(comm, base.tune_wisdom, file);
  }
  log.done(chosen_text(r.chosen), r.best_seconds, r.tuning_seconds, false, r.budget_exhausted, nullptr);
  return r;
}

void forget_tuning() {
  std::lock_guard<std::mutex> hold(memory_lock);
  memory().clear();
}

}  // namespace nbfft::nd
