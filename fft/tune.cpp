// Plan-time autotuning (include/nbfft/fft/tune.hpp): the settings, the lookup of what is
// remembered, the search, and the report. The parts are in fft/tune_detail.hpp's files.
#include "nbfft/fft/tune.hpp"

#include "fft/tune_detail.hpp"
#include "gpu/transform.hpp"
#include "fft/threads.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"

#include <cstdint>
#include <iomanip>
#include <sstream>

namespace nbfft::fft {

namespace {

// The runoff's size: the few fastest trials timed again side by side.
constexpr int kRunoff = 3;

// `o` without the tuner's own settings: what trials are made with (a trial must not tune).
Options without_tuning(const Options& o) {
  const Options defaults;
  Options plain = o;
  for (const auto& r : option_rows())
    if (r.tuning) r.set(plain, r.get(defaults));
  return plain;
}

void check_settings(const TuneSettings& s) {
  if (s.effort == TuneEffort::None) throw Error("tune: effort none searches nothing (use quick, thorough or exhaustive)");
  if (s.fields < 1) throw Error("tune: fields = " + std::to_string(s.fields) + " must be >= 1");
  if (s.trial_iters < 1) throw Error("tune: trial_iters = " + std::to_string(s.trial_iters) + " must be >= 1");
  if (!(s.budget_seconds > 0)) throw Error("tune: budget_seconds must be > 0");
  if (s.fields > 4096) throw Error("tune: fields = " + std::to_string(s.fields) + " must be <= 4096");
  if (s.trial_iters > 10000) throw Error("tune: trial_iters = " + std::to_string(s.trial_iters) + " must be <= 10000");
  if (!(s.keep_within >= 1 && s.keep_within <= 1e6))
    throw Error("tune: keep_within = " + std::to_string(s.keep_within) + " must be in [1, 1e6]");
  if (s.log < 0 || s.log > 2) throw Error("tune: log = " + std::to_string(s.log) + " must be 0, 1 or 2");
}

// The user boxes of every rank as one word of the key ("" when there are none): a hash of
// each rank's boxes, combined over the ranks, so that a choice made on bricks is never
// answered to pencils or to other bricks. Collective.
std::string boxes_key(MPI_Comm comm, const TuneSettings& s) {
  int given = (s.in_box ? 1 : 0) | (s.out_box ? 2 : 0), any = 0;
  check_mpi(MPI_Allreduce(&given, &any, 1, MPI_INT, MPI_BOR, comm), "MPI_Allreduce");
  if (!any) return "";
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::ostringstream t;
  t << rank;
  for (const auto* b : {&s.in_box, &s.out_box}) {
    t << "|";
    if (*b)
      for (int d = 0; d < 3; ++d) t << (**b).lo[d] << "," << (**b).n[d] << "," << (**b).order[d] << ";";
  }
  std::uint64_t h = 1469598103934665603ull, all = 0;  // FNV-1a
  for (unsigned char c : t.str()) h = (h ^ c) * 1099511628211ull;
  check_mpi(MPI_Allreduce(&h, &all, 1, MPI_UINT64_T, MPI_BXOR, comm), "MPI_Allreduce");
  std::ostringstream k;
  k << " boxes=" << (any & 1 ? "in" : "") << (any & 2 ? "out" : "") << ":" << std::hex << all;
  return k.str();
}

}  // namespace

TuneSettings tune_settings(const Options& o) {
  TuneSettings s;
  s.effort = o.tune;
  s.budget_seconds = o.tune_budget;
  s.fields = o.tune_fields;
  s.wisdom_path = o.tune_wisdom;
  s.log = o.tune_log;
  return s;
}

Options with_tuner_settings(Options chosen, const Options& asked) {
  for (const auto& r : option_rows())
    if (r.tuning) r.set(chosen, r.get(asked));
  return chosen;
}

TuneReport tune(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& asked, const TuneSettings& s) {
  check_mpi_running("tune");
  if (comm == MPI_COMM_NULL) throw Error("tune: the communicator is MPI_COMM_NULL");
  Options base = without_tuning(asked);
  // Threads resolved as the plan would (the environment's default), so that the candidates
  // name them and the untuned trial is the plan as asked.
  base.threads = agree(comm, [&] { return checked_threads(asked.threads); });
  check_same(comm, "tune",
             {{"grid", std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2])},
              {"effort", name(s.effort)},
              {"budget_seconds", std::to_string(s.budget_seconds)},
              {"fields", std::to_string(s.fields)},
              {"trial_iters", std::to_string(s.trial_iters)},
              {"wisdom_path", s.wisdom_path},
              {"keep_within", std::to_string(s.keep_within)},
              {"log", std::to_string(s.log)},
              {"base process grid", std::to_string(base.m1) + "x" + std::to_string(base.m2)}});
  check_settings(s);  // the same settings everywhere: every rank throws alike

  const double t0 = MPI_Wtime();
  detail::TuneLogger log(comm, n, s, t0);
  TuneReport r;
  r.key = tune_key(comm, n, base, s.fields) + boxes_key(comm, s);
  std::map<std::string, std::string> file;
  if (!s.wisdom_path.empty()) file = detail::read_tune_wisdom(comm, s.wisdom_path);
  // What the wisdom file holds (shared by runs: it may be newer than this process's
  // memory), else what this process remembers; rank 0's answer decides, so that every rank
  // takes the same branch.
  const auto in_file = file.find(r.key);
  std::string remembered = in_file != file.end() ? in_file->second : detail::recall(r.key);
  std::string from_memory_only = !remembered.empty() && in_file == file.end() ? "1" : "";
  bcast_string(comm, remembered);
  bcast_string(comm, from_memory_only);
  // A wisdom file the choice could not be written to fails now, not after the trials.
  if (!s.wisdom_path.empty() && (remembered.empty() || !from_memory_only.empty()))
    detail::check_tune_wisdom_writable(comm, s.wisdom_path);
  if (!remembered.empty()) {
    r.chosen = detail::decode_choice(base, remembered, "entry for this key");
    r.from_wisdom = true;
    if (!s.wisdom_path.empty() && !from_memory_only.empty()) {  // the file learns what memory knew
      file[r.key] = remembered;
      detail::write_tune_wisdom(comm, s.wisdom_path, file);
    }
    detail::remember(r.key, remembered);
    r.tuning_seconds = MPI_Wtime() - t0;
    log.done(r);
    return r;
  }

  int P = 1, provided = MPI_THREAD_SINGLE;
  MPI_Comm_size(comm, &P);
  MPI_Query_thread(&provided);
  // The same thread counts on every rank (the trials are collective): the fewest CPUs.
  // (A device plan runs its stages on the GPU: no threads to try.)
  const bool on_device = base.device != Device::Host;
  int cpus = provided >= MPI_THREAD_FUNNELED && !on_device ? rank_cpus() : 1, fewest = 1;
  MPI_Allreduce(&cpus, &fewest, 1, MPI_INT, MPI_MIN, comm);
  const detail::SearchSpace space{n, base, s, P, provided >= MPI_THREAD_MULTIPLE, std::min(fewest, 64)};
  log.start(detail::planned_trials(space, kRunoff));
  // A device plan's trials run on device arrays (on every rank or none).
  std::shared_ptr<gpu::Device> device;
  if (on_device) agree(comm, [&] { device = gpu::open_device(base, comm); });
  detail::Trials trials(comm, n, s, r, log, t0, detail::candidate_grids(space), device);
  trials.run(base, detail::kUntuned, /*always=*/true);
  if (s.effort == TuneEffort::Exhaustive)
    detail::search_exhaustive(trials, space);
  else
    detail::search_greedy(trials, space);
  trials.runoff(kRunoff);
  const TuneTrial* b = trials.best(/*runoff_only=*/true);
  if (!b && trials.untuned_refusal()) std::rethrow_exception(trials.untuned_refusal());
  if (!b) throw Error("tune: no candidate configuration could be planned for this grid and communicator");
  r.chosen = b->options;
  r.best_seconds = b->seconds;

  const std::string value = detail::encode_choice(r.chosen, r.best_seconds);
  detail::remember(r.key, value);
  if (!s.wisdom_path.empty()) {
    file[r.key] = value;
    detail::write_tune_wisdom(comm, s.wisdom_path, file);
  }
  r.tuning_seconds = MPI_Wtime() - t0;
  log.done(r);
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
    for (const auto& [k, v] : option_values(o, detail::tuned_row)) s += (s.empty() ? "" : ", ") + k + " " + v;
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
