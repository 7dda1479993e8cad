// Plan-time autotuning (include/nbfft/fft/tune.hpp): candidates, trials, and the memory of
// past choices.
#include "nbfft/fft/tune.hpp"

#include "nbfft/fft/option_table.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/atomic_file.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "fft/memory_stats.hpp"

#include <fftw3.h>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace nbfft::fft {

namespace {

constexpr const char* kMagic = "nbfft-tune 1";
constexpr std::size_t kMaxWisdomBytes = 16u << 20;

// ---- remembering ---------------------------------------------------------------------

std::mutex memory_mutex;
std::map<std::string, std::string>& memory() {
  static std::map<std::string, std::string> m;
  return m;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

// Broadcasts a string from rank 0.
void bcast(MPI_Comm comm, std::string& s) {
  long long len = static_cast<long long>(s.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm), "MPI_Bcast");
  s.resize(static_cast<std::size_t>(len));
  if (len > 0) check_mpi(MPI_Bcast(s.data(), static_cast<int>(len), MPI_CHAR, 0, comm), "MPI_Bcast");
}

// The wisdom file's entries (rank 0 reads; everyone gets them or the same error).
std::map<std::string, std::string> read_wisdom(MPI_Comm comm, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text, error;
  if (rank == 0) {
    // A FIFO would block the open (and every other rank with it), /dev/zero reads as empty.
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) error = "tuning wisdom '" + path + "' is not a regular file";
    std::ifstream in;
    if (exists && error.empty()) in.open(path, std::ios::binary);
    if (in.is_open()) {
      in.seekg(0, std::ios::end);
      const auto size = in.tellg();
      in.seekg(0);
      if (size < 0 || static_cast<std::size_t>(size) > kMaxWisdomBytes) {
        error = "tuning wisdom '" + path + "' is not a regular file of at most 16 MiB";
      } else {
        text.resize(static_cast<std::size_t>(size));
        if (!in.read(text.data(), size)) error = "cannot read tuning wisdom '" + path + "'";
      }
    }
  }
  agree_message(comm, error, ErrorCode::Io);
  bcast(comm, text);
  std::map<std::string, std::string> entries;
  if (text.empty()) return entries;
  std::istringstream is(text);
  std::string line;
  std::getline(is, line);
  if (trim(line) != kMagic)
    throw Error("'" + path + "' is not an nbfft tuning wisdom file (first line must be '" + kMagic + "')",
                ErrorCode::Io);
  while (std::getline(is, line)) {
    if (line.empty()) continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos)
      throw Error("tuning wisdom '" + path + "': malformed line '" + line + "'", ErrorCode::Io);
    entries[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return entries;
}

void write_wisdom(MPI_Comm comm, const std::string& path, const std::map<std::string, std::string>& entries) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  if (rank == 0) {
    std::ostringstream text;
    text << kMagic << "\n";
    for (const auto& [k, v] : entries) text << k << "\t" << v << "\n";
    try {
      write_file_atomic(path, text.str());  // a failed write never loses the old file
    } catch (const Error& e) {
      error = e.message();
    }
  }
  agree_message(comm, error, ErrorCode::Io);
}

// ---- the key -------------------------------------------------------------------------

std::string host_signature() {
  std::string model = "unknown cpu";
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = trim(line.substr(colon + 1));
      break;
    }
  return model + " x" + std::to_string(std::thread::hardware_concurrency());
}

std::string mpi_library() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  std::string s(v, static_cast<std::size_t>(std::max(0, len)));
  s = trim(s.substr(0, s.find_first_of("\n,")));
  return s;
}

// ---- options as text -----------------------------------------------------------------

bool tuned_row(const OptionRow& r) { return r.tuned; }
// The rows the tuner does not choose but its choice depends on (the wisdom key's part).
bool fixed_row(const OptionRow& r) { return !r.tuned; }

// The tuner's choice: every row it chooses (option_table.hpp), key=value;...;seconds=S.
std::string encode(const Options& o, double seconds) {
  std::ostringstream s;
  for (const auto& [k, v] : option_values(o, tuned_row)) s << k << "=" << v << ";";
  s << "seconds=" << std::setprecision(17) << seconds;
  return s.str();
}

// Reads encode()'s text. Keys of rows the tuner does not choose, and `seconds`, are skipped.
Options decode(const Options& base, const std::string& value, const std::string& where) {
  Options o = base;
  std::istringstream is(value);
  std::string item;
  try {
    while (std::getline(is, item, ';')) {
      const auto eq = item.find('=');
      if (eq == std::string::npos) throw Error("entry '" + item + "' has no '='");
      const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
      if (const OptionRow* r = find_option_row(k); r && r->tuned) set_option(o, k, v);
    }
  } catch (const std::exception& e) {
    throw Error("tuning wisdom " + where + ": cannot read '" + value + "': " + e.what(), ErrorCode::Io);
  }
  return o;
}


// ---- trials --------------------------------------------------------------------------

// fftw_malloc'd bytes (the plan's FFTs are planned on SIMD-aligned buffers), zeroed: the
// trials' transforms are linear, so the arrays stay zero and every timing sees the same data.
struct Buffer {
  explicit Buffer(std::size_t bytes) : n(std::max<std::size_t>(bytes, 64)), p(fftw_malloc(n)) {
    if (!p) throw Error("tune: out of memory allocating " + std::to_string(bytes) + " bytes", ErrorCode::OutOfMemory);
    detail::note_alloc(n);
    std::fill_n(static_cast<unsigned char*>(p), n, 0);
  }
  ~Buffer() {
    detail::note_free(n);
    fftw_free(p);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::size_t n;
  void* p;
};

// The user's arrays of the trials: one set for every trial of a tune(), grown (freed, then
// made again) only when a trial needs larger ones. With at most one plan alive, a tune()
// holds at most one workspace and one set of arrays at a time.
class Arrays {
 public:
  // nv input and nv output arrays of at least in / out bytes each (in_place: the same).
  void fit(int nv, std::size_t in, std::size_t out, bool in_place) {
    const std::size_t need_in = std::max(in, in_place ? out : 0);
    const std::size_t need_out = in_place ? 0 : out;
    const bool grow = static_cast<int>(in_.size()) < nv || need_in > in_bytes_ || need_out > out_bytes_ ||
                      (!in_place && static_cast<int>(out_.size()) < nv);
    if (grow) {
      in_.clear();  // free before allocating: never two sets at once
      out_.clear();
      in_bytes_ = std::max(in_bytes_, need_in);
      out_bytes_ = std::max(out_bytes_, need_out);
      for (int k = 0; k < nv; ++k) in_.push_back(std::make_unique<Buffer>(in_bytes_));
      if (out_bytes_ > 0)
        for (int k = 0; k < nv; ++k) out_.push_back(std::make_unique<Buffer>(out_bytes_));
    }
    ip.clear();
    op.clear();
    for (int k = 0; k < nv; ++k) {
      ip.push_back(in_[k]->p);
      op.push_back(in_place ? in_[k]->p : out_[k]->p);
    }
  }
  std::vector<void*> ip, op;

 private:
  std::vector<std::unique_ptr<Buffer>> in_, out_;
  std::size_t in_bytes_ = 0, out_bytes_ = 0;
};

// The step name of the trial of the caller's own options, timed before the search.
constexpr const char* kUntuned = "untuned";

class Trials {
 public:
  Trials(MPI_Comm comm, std::array<std::int64_t, 3> n, const TuneSettings& s, TuneReport& r)
      : comm_(comm), n_(n), s_(s), r_(r), start_(MPI_Wtime()) {}

  bool out_of_time() {
    double elapsed = MPI_Wtime() - start_, most = 0;
    check_mpi(MPI_Allreduce(&elapsed, &most, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
    if (most > s_.budget_seconds) r_.budget_exhausted = true;
    return r_.budget_exhausted;
  }

  // Times one configuration; returns its seconds, or a negative number when the plan
  // cannot be built here (every rank agrees: Plan's constructor settles errors).
  double run(const Options& o, const char* step) {
    for (const auto& t : r_.trials)
      if (same(t.options, o)) return t.seconds;
    if (out_of_time()) return -1;
    double seconds = -1;
    Options planned = o;
    try {
      Plan plan(comm_, n_, o);
      // A process grid left to the plan (0 x 0) is recorded as the plan chose it, so the
      // choice rebuilds the same plan and a later trial of that grid is known as this one.
      planned.m1 = plan.m1();
      planned.m2 = plan.m2();
      seconds = time(std::move(plan));
    } catch (const Error& e) {
      // Unavailable transports, grids the plan refuses: not a candidate here.
      if (e.code() == ErrorCode::Mpi || e.code() == ErrorCode::Internal) throw;
      return -1;
    }
    TuneTrial t;
    t.options = planned;
    t.seconds = seconds;
    t.step = step;
    r_.trials.push_back(t);
    return seconds;
  }

  // The fastest trial so far (its options; base when none ran).
  // runoff_only: among the trials the runoff re-timed (when it ran), so that a trial timed
  // once cannot win on a lucky moment over the ones timed side by side.
  const TuneTrial* best(bool runoff_only = false) const {
    bool any = false;
    for (const auto& t : r_.trials) any = any || t.step.find("runoff") != std::string::npos;
    const TuneTrial* b = nullptr;
    for (const auto& t : r_.trials) {
      if (runoff_only && any && t.step.find("runoff") == std::string::npos) continue;
      if (!b || t.seconds < b->seconds) b = &t;
    }
    return b;
  }

  static bool same(const Options& a, const Options& b) {
    return option_values(a, tuned_row) == option_values(b, tuned_row);
  }

  // The few fastest trials again, in rounds that visit each in turn, so that a noisy moment
  // of a shared machine hits all of them alike: a single short trial of each (the search)
  // can mistake noise for a difference of 30% and more. Each visit builds the plan again
  // (FFTW remembers its plans' wisdom, so that is quick) and frees it before the next: the
  // runoff holds one plan's workspace at a time, like every other trial.
  // The untuned trial (the plan the caller gets without tuning) always takes part when it
  // was timed: a choice must beat it side by side, not only its one noisy search trial.
  void runoff(int most) {
    std::vector<std::size_t> order(r_.trials.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r_.trials[a].seconds < r_.trials[b].seconds; });
    const auto keep = static_cast<std::size_t>(most);
    if (order.size() > keep) {
      auto at = std::find_if(order.begin() + most, order.end(),
                             [&](std::size_t k) { return r_.trials[k].step.rfind(kUntuned, 0) == 0; });
      const bool add = at != order.end();
      if (add) std::iter_swap(order.begin() + most, at);
      order.resize(keep + (add ? 1 : 0));
    }
    if (order.size() < 2) return;
    constexpr int kRounds = 2;
    const int per_visit = std::max(2, (s_.trial_iters + 1) / 2);
    std::vector<std::vector<double>> times(order.size());
    for (int round = 0; round < kRounds; ++round)
      for (std::size_t c = 0; c < order.size(); ++c) {
        Timed t(Plan(comm_, n_, r_.trials[order[c]].options), s_.fields, arrays_);
        for (int it = 0; it < per_visit; ++it) times[c].push_back(t.once(comm_));
      }
    for (std::size_t c = 0; c < order.size(); ++c) {
      std::sort(times[c].begin(), times[c].end());
      TuneTrial& t = r_.trials[order[c]];
      t.seconds = times[c][times[c].size() / 2];
      t.step += ", runoff";
    }
  }

 private:
  // A plan on the shared arrays, timed one forward+backward at a time.
  struct Timed {
    Timed(Plan p, int fields, Arrays& arrays) : plan(std::move(p)), nv(std::max(1, fields)) {
      const bool in_place = plan.lean_workspace();  // a lean plan transforms in place only
      ib = in_place ? plan.inplace_bytes() : plan.in_bytes();
      ob = in_place ? plan.inplace_bytes() : plan.out_bytes();
      arrays.fit(nv, ib, ob, in_place);
      ip = arrays.ip;
      op = arrays.op;
      run();  // warm-up: first-touch, engine start, MPI connections
    }
    void run() {
      if (nv == 1) {
        plan.forward_bytes(ip[0], ib, op[0], ob);
        plan.backward_bytes(op[0], ob, ip[0], ib);
      } else {
        plan.forward_many_bytes(static_cast<std::size_t>(nv), ip.data(), ib, op.data(), ob);
        plan.backward_many_bytes(static_cast<std::size_t>(nv), op.data(), ob, ip.data(), ib);
      }
    }
    // Seconds of the slowest rank.
    double once(MPI_Comm comm) {
      check_mpi(MPI_Barrier(comm), "MPI_Barrier");
      const double t0 = MPI_Wtime();
      run();
      double mine = MPI_Wtime() - t0, slowest = 0;
      check_mpi(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
      return slowest;
    }
    Plan plan;
    int nv;
    std::size_t ib = 0, ob = 0;
    std::vector<void*> ip, op;
  };

  double time(Plan plan) {
    Timed t(std::move(plan), s_.fields, arrays_);
    std::vector<double> times;
    for (int it = 0; it < std::max(1, s_.trial_iters); ++it) times.push_back(t.once(comm_));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

  MPI_Comm comm_;
  std::array<std::int64_t, 3> n_;
  const TuneSettings& s_;
  TuneReport& r_;
  double start_;
  Arrays arrays_;  // every trial's user arrays (one set, see Arrays)
};

// ---- candidates ----------------------------------------------------------------------

std::vector<std::pair<int, int>> grids(std::array<std::int64_t, 3> n, const Options& base, int P) {
  const bool r2c = base.transform == TransformKind::R2C;
  if (base.m1 > 0 || base.m2 > 0) {  // the caller fixed the grid: validate it, tune the rest
    const Decomposition d = Decomposition::make(n, r2c, base.m1, base.m2, P, 0, base.allow_empty);
    return {{d.m1, d.m2}};
  }
  std::vector<std::pair<int, int>> g;
  for (int m1 = 1; m1 <= P; ++m1)
    if (P % m1 == 0 && Decomposition::empty_reason(n, r2c, m1, P / m1).empty()) g.emplace_back(m1, P / m1);
  if (g.empty()) g.push_back(Decomposition::choose_grid(n, r2c, P));
  return g;
}

std::vector<std::string> transports(TuneEffort e, int peers, bool thread_ok) {
  std::vector<std::string> t = {"blocking@caller", "pairwise:2@caller", "native@native"};
  if (e != TuneEffort::Quick) {
    t.push_back("pairwise:1@caller");
    t.push_back("pairwise:4@caller");
    if (peers <= 8) t.push_back("linear@caller");
  }
  if (thread_ok) {
    t.push_back("pairwise:4@thread");
    if (e != TuneEffort::Quick) t.push_back("pairwise:2@thread");
  }
  return t;
}

std::vector<int> progress_chunk_values(TuneEffort e) {
  return e == TuneEffort::Quick ? std::vector<int>{16, 256} : std::vector<int>{8, 16, 32, 128, 256};
}
std::vector<int> chunk_plane_values(TuneEffort e) {
  return e == TuneEffort::Quick ? std::vector<int>{2, 8} : std::vector<int>{1, 2, 4, 8, 16};
}

bool overlaps(const Options& o) { return o.col_transport.algorithm.name != "blocking"; }

// A candidate on grid g; several fields start with seed 000's two-field pipeline.
Options with(const Options& base, std::pair<int, int> g, int fields) {
  Options o = base;
  o.m1 = g.first;
  o.m2 = g.second;
  if (fields > 1 && o.fields_in_flight == 1) o.fields_in_flight = 2;
  return o;
}

void search_greedy(Trials& trials, std::array<std::int64_t, 3> n, const Options& base, const TuneSettings& s, int P,
                   bool thread_ok) {
  // 1. grids, blocking.
  std::vector<std::pair<double, std::pair<int, int>>> by_time;
  for (auto g : grids(n, base, P)) {
    Options o = with(base, g, s.fields);
    o.transport("blocking");
    const double t = trials.run(o, "grid");
    if (t >= 0) by_time.push_back({t, g});
  }
  if (by_time.empty()) return;
  std::sort(by_time.begin(), by_time.end());
  const std::size_t keep_max = s.effort == TuneEffort::Quick ? 2 : 3;
  std::vector<std::pair<int, int>> kept;
  for (const auto& [t, g] : by_time)
    if (kept.size() < keep_max && t <= by_time.front().first * s.keep_within) kept.push_back(g);

  // 2. transports on the kept grids (both exchanges alike, and Thorough: ROW blocking).
  for (auto g : kept) {
    const int peers = std::max(g.first, g.second);
    for (const auto& name : transports(s.effort, peers, thread_ok)) {
      Options o = with(base, g, s.fields);
      o.transport(name);
      trials.run(o, "transport");
      if (s.effort != TuneEffort::Quick && g.first > 1 && g.second > 1) {
        o.row_transport = coll::Transport::parse("blocking");
        trials.run(o, "transport");
      }
    }
  }

  // 3. chunking on the best so far.
  const TuneTrial* b = trials.best();
  if (!b || !overlaps(b->options)) return;
  const Options best = b->options;
  const bool caller = best.col_transport.engine == coll::EngineKind::Caller;
  if (best.m1 == 1 && best.m2 > 1)
    for (int cp : chunk_plane_values(s.effort)) {
      Options o = best;
      o.col_chunk_planes = cp;
      trials.run(o, "chunks");
    }
  if (caller && (s.fields > 1 || trials.best()->options.col_chunk_planes > 0)) {
    const Options now = trials.best()->options;
    for (int pc : progress_chunk_values(s.effort)) {
      Options o = now;
      o.progress_chunks = pc;
      trials.run(o, "chunks");
    }
  }
  // 4. fields in flight (each costs a workspace): in turn, two, three.
  if (s.fields > 1) {
    const Options now = trials.best()->options;
    for (int k = 1; k <= std::min(3, s.fields); ++k) {
      Options o = now;
      o.fields_in_flight = k;
      trials.run(o, "fields");
    }
    // 5. pencils: the ROW exchange pipelined across fields too.
    Options o = trials.best()->options;
    if (o.m1 > 1 && o.m2 > 1 && o.fields_in_flight > 1) {
      o.pipeline_row = true;
      trials.run(o, "fields");
    }
  }
}

void search_exhaustive(Trials& trials, std::array<std::int64_t, 3> n, const Options& base, const TuneSettings& s,
                       int P, bool thread_ok) {
  for (auto g : grids(n, base, P))
    for (const auto& name : transports(TuneEffort::Thorough, std::max(g.first, g.second), thread_ok)) {
      Options o = with(base, g, s.fields);
      o.transport(name);
      std::vector<int> cps = {0};
      if (o.m1 == 1 && o.m2 > 1 && overlaps(o))
        for (int cp : chunk_plane_values(TuneEffort::Thorough)) cps.push_back(cp);
      for (int cp : cps) {
        std::vector<int> pcs = {0};
        if (o.col_transport.engine == coll::EngineKind::Caller && overlaps(o) && (s.fields > 1 || cp > 0))
          for (int pc : progress_chunk_values(TuneEffort::Thorough)) pcs.push_back(pc);
        std::vector<int> inflight = {o.fields_in_flight};
        if (s.fields > 1) inflight = {1, 2, 3};
        for (int pc : pcs)
          for (int k : inflight)
            for (bool row : {false, true}) {
              if (row && !(o.m1 > 1 && o.m2 > 1 && k > 1)) continue;
              Options c = o;
              c.col_chunk_planes = cp;
              c.progress_chunks = pc;
              c.fields_in_flight = k;
              c.pipeline_row = row;
              trials.run(c, "exhaustive");
              if (trials.out_of_time()) return;
            }
      }
    }
}

}  // namespace

const char* name(TuneEffort e) {
  switch (e) {
    case TuneEffort::Quick: return "quick";
    case TuneEffort::Thorough: return "thorough";
    case TuneEffort::Exhaustive: return "exhaustive";
  }
  return "?";
}

TuneEffort parse_tune_effort(std::string_view s) {
  if (s == "quick") return TuneEffort::Quick;
  if (s == "thorough") return TuneEffort::Thorough;
  if (s == "exhaustive") return TuneEffort::Exhaustive;
  throw Error("unknown tuning effort '" + std::string(s) + "' (use quick, thorough or exhaustive)");
}

std::string tune_key(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& base, int fields) {
  int P = 1;
  check_mpi(MPI_Comm_size(comm, &P), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int per_node = 1, most = 1;
  MPI_Comm_size(node, &per_node);
  MPI_Comm_free(&node);
  check_mpi(MPI_Allreduce(&per_node, &most, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string host = rank == 0 ? host_signature() : "";
  bcast(comm, host);
  std::ostringstream k;
  k << "grid=" << n[0] << "x" << n[1] << "x" << n[2] << " ranks=" << P << " per_node=" << most
    << " fields=" << std::max(1, fields) << " fixed_grid=" << base.m1 << "x" << base.m2;
  for (const auto& [key, v] : option_values(base, fixed_row)) k << " " << key << "=" << v;
  k << " mpi=" << mpi_library() << " host=" << host;
  std::string key = k.str();
  for (auto& c : key)
    if (c == '\t' || c == '\n') c = ' ';
  return key;
}

void forget_tuning() {
  std::lock_guard<std::mutex> lock(memory_mutex);
  memory().clear();
}

TuneReport tune(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& base, const TuneSettings& s) {
  check_mpi_running("tune");
  if (comm == MPI_COMM_NULL) throw Error("tune: the communicator is MPI_COMM_NULL");
  check_same(comm, "tune",
             {{"grid", std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2])},
              {"effort", name(s.effort)},
              {"budget_seconds", std::to_string(s.budget_seconds)},
              {"fields", std::to_string(s.fields)},
              {"trial_iters", std::to_string(s.trial_iters)},
              {"wisdom_path", s.wisdom_path},
              {"keep_within", std::to_string(s.keep_within)},
              {"base process grid", std::to_string(base.m1) + "x" + std::to_string(base.m2)}});
  if (s.fields < 1) throw Error("tune: fields = " + std::to_string(s.fields) + " must be >= 1");
  if (s.trial_iters < 1) throw Error("tune: trial_iters = " + std::to_string(s.trial_iters) + " must be >= 1");
  if (!(s.budget_seconds > 0)) throw Error("tune: budget_seconds must be > 0");
  if (s.fields > 4096) throw Error("tune: fields = " + std::to_string(s.fields) + " must be <= 4096");
  if (s.trial_iters > 10000) throw Error("tune: trial_iters = " + std::to_string(s.trial_iters) + " must be <= 10000");
  if (!(s.keep_within >= 1 && s.keep_within <= 1e6))
    throw Error("tune: keep_within = " + std::to_string(s.keep_within) + " must be in [1, 1e6]");

  const double t0 = MPI_Wtime();
  TuneReport r;
  r.key = tune_key(comm, n, base, s.fields);
  std::map<std::string, std::string> file;
  if (!s.wisdom_path.empty()) file = read_wisdom(comm, s.wisdom_path);
  {
    std::string remembered;
    {
      std::lock_guard<std::mutex> lock(memory_mutex);
      auto it = memory().find(r.key);
      if (it != memory().end()) remembered = it->second;
    }
    if (remembered.empty()) {
      auto it = file.find(r.key);
      if (it != file.end()) remembered = it->second;
    }
    // Every rank must take the same branch: rank 0's memory decides.
    bcast(comm, remembered);
    if (!remembered.empty()) {
      r.chosen = decode(base, remembered, "entry for this key");
      r.from_wisdom = true;
      r.tuning_seconds = MPI_Wtime() - t0;
      return r;
    }
  }

  int P = 1, provided = MPI_THREAD_SINGLE;
  MPI_Comm_size(comm, &P);
  MPI_Query_thread(&provided);
  const bool thread_ok = provided >= MPI_THREAD_MULTIPLE;
  Trials trials(comm, n, s, r);
  trials.run(base, kUntuned);
  if (s.effort == TuneEffort::Exhaustive)
    search_exhaustive(trials, n, base, s, P, thread_ok);
  else
    search_greedy(trials, n, base, s, P, thread_ok);
  trials.runoff(3);
  const TuneTrial* b = trials.best(/*runoff_only=*/true);
  if (!b) throw Error("tune: no candidate configuration could be planned for this grid and communicator");
  r.chosen = b->options;
  r.best_seconds = b->seconds;

  const std::string value = encode(r.chosen, r.best_seconds);
  {
    std::lock_guard<std::mutex> lock(memory_mutex);
    memory()[r.key] = value;
  }
  if (!s.wisdom_path.empty()) {
    file[r.key] = value;
    write_wisdom(comm, s.wisdom_path, file);
  }
  r.tuning_seconds = MPI_Wtime() - t0;
  return r;
}

Plan tuned_plan(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& base, const TuneSettings& s,
                TuneReport* report) {
  TuneReport r = tune(comm, n, base, s);
  Plan plan(comm, n, r.chosen);
  if (report) *report = std::move(r);
  return plan;
}

std::ostream& operator<<(std::ostream& os, const TuneReport& r) {
  auto line = [&](const Options& o) {
    std::string s;
    for (const auto& [k, v] : option_values(o, tuned_row)) s += (s.empty() ? "" : ", ") + k + " " + v;
    return s;
  };
  if (r.from_wisdom) {
    return os << "tuning: from wisdom (" << std::fixed << std::setprecision(3) << r.tuning_seconds * 1e3
              << " ms): " << line(r.chosen) << "\n";
  }
  os << "tuning: " << r.trials.size() << " trials in " << std::fixed << std::setprecision(2) << r.tuning_seconds
     << " s" << (r.budget_exhausted ? " (budget exhausted)" : "") << "\n";
  os << "  step        time ms   configuration\n";
  for (const auto& t : r.trials)
    os << "  " << std::left << std::setw(10) << t.step << std::right << std::setw(10) << std::setprecision(3)
       << t.seconds * 1e3 << "   " << line(t.options) << "\n";
  os << "  chosen: " << line(r.chosen) << " (" << std::setprecision(3) << r.best_seconds * 1e3
     << " ms, the fastest trial)\n";
  return os;
}

}  // namespace nbfft::fft
