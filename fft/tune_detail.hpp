// The tuner's parts (include/nbfft/fft/tune.hpp), one file each:
//   tune_wisdom.cpp  what is remembered: the key, the choice as text, this process's memory
//                    and the wisdom file (read, written, checked writable before trials);
//   tune_trials.cpp  timing one candidate (one plan at a time, on one set of arrays sized
//                    once for every trial) and the runoff of the fastest few;
//   tune_search.cpp  which candidates: grids, transports, chunks, fields in flight, greedy
//                    or exhaustive, and how many trials a search expects;
//   tune_log.cpp     the events of a tune(): the hook, the stderr lines, the ETA;
//   tune.cpp         tune() itself: settings, the wisdom lookup, the search, the report.
#pragma once

#include "gpu/device.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/fft/tune.hpp"

#include <mpi.h>

#include <exception>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace nbfft::fft::detail {

// ---- tune_wisdom.cpp -----------------------------------------------------------------

bool tuned_row(const OptionRow& r);  // the rows the tuner chooses (what wisdom stores)
bool key_row(const OptionRow& r);    // the rows its choice depends on (the key's part)

// The choice as a wisdom value (key=value;...;seconds=S) and back; decode() keeps base's
// rows the tuner does not choose and throws an Io error naming `where` on bad text.
std::string encode_choice(const Options& o, double seconds);
Options decode_choice(const Options& base, const std::string& value, const std::string& where);

// This process's memory of choices ("" = none).
std::string recall(const std::string& key);
void remember(const std::string& key, const std::string& value);

// The wisdom file: rank 0 reads it and every rank gets its entries (or the same error);
// a missing file is empty. Collective.
std::map<std::string, std::string> read_tune_wisdom(MPI_Comm comm, const std::string& path);
// Whether rank 0 could replace `path` (a regular file or none, in a directory it can create
// a file in); an Io error on every rank otherwise. Collective; run before the trials so that
// a wrong path costs nothing.
void check_tune_wisdom_writable(MPI_Comm comm, const std::string& path);
void write_tune_wisdom(MPI_Comm comm, const std::string& path, const std::map<std::string, std::string>& entries);
// What a choice depends on beside the plan: ranks per node, the backends built, the MPI
// library and rank 0's host ("per_node=2 backends_built=fftw,mkl mpi=... host=..."), as the
// 3-D key names them, for the N-D tuner's key (nd/tune.cpp). Collective.
std::string machine_key(MPI_Comm comm);

// ---- tune_log.cpp --------------------------------------------------------------------

// The events of one tune(): to the hook (every rank) and, by settings.log, to rank 0's
// stderr. Never throws out of a hook.
// Any plan's tuner: `what` names the problem in its start line ("10x7x6", "nd 12x10 axes
// (0, 1)"); a candidate is its tuned options as text (TuneEvent::candidate), and the 3-D
// plan's Options when the tuner is the 3-D plan's (else null: TuneEvent::options default).
class TuneLogger {
 public:
  TuneLogger(MPI_Comm comm, std::string what, const TuneSettings& s, double t0);
  TuneLogger(MPI_Comm comm, std::array<std::int64_t, 3> n, const TuneSettings& s, double t0);
  void start(int planned);
  void trial(const TuneTrial& t, bool planned_here);
  void trial(const std::string& step, double seconds, bool planned_here, const std::string& candidate,
             const Options* options);
  void done(const TuneReport& r);
  void done(const std::string& candidate, double best_seconds, double tuning_seconds, bool from_wisdom,
            bool budget_exhausted, const Options* options);

 private:
  void emit(TuneEvent& e, bool print);
  double eta(double elapsed) const;
  std::string what_;
  const TuneSettings& s_;
  TuneLog hook_;
  int rank_ = 0, size_ = 1;
  double t0_, last_print_ = 0;
  int done_ = 0, planned_ = 0;
  double best_ = -1;
  std::string best_text_;
};

// ---- tune_trials.cpp -----------------------------------------------------------------

class Arrays;  // the trials' user arrays (one set for all trials, sized once)

// The step name of the trial of the caller's own options, timed before the search.
constexpr const char* kUntuned = "untuned";

class Trials {
 public:
  // grids: every process grid a candidate may have (candidate_grids), so that the arrays
  // are sized once for the largest boxes of any trial. device: where the trials' arrays
  // live (a device plan's tuning; null: host memory).
  Trials(MPI_Comm comm, std::array<std::int64_t, 3> n, const TuneSettings& s, TuneReport& r, TuneLogger& log,
         double t0, std::vector<std::pair<int, int>> grids, std::shared_ptr<gpu::Device> device = nullptr);
  ~Trials();

  // Whether the budget is spent (agreed: the slowest rank's clock).
  bool out_of_time();
  // Times one configuration (once: a repeated one returns its time); returns its seconds,
  // or a negative number when the plan cannot be built here (every rank agrees) or the
  // budget is spent. `always`: even past the budget (the untuned trial, so that a tune
  // with a tiny budget still has the caller's own plan to choose).
  double run(const Options& o, const char* step, bool always = false);
  // The fastest trial so far (nullptr when none ran). runoff_only: among the trials the
  // runoff re-timed (when it ran), so that a trial timed once cannot win on a lucky moment.
  const TuneTrial* best(bool runoff_only = false) const;
  // The fastest trial whose options pass keep (nullptr when none ran).
  const TuneTrial* best_of(bool (*keep)(const Options&)) const;
  // The `most` fastest trials (and the untuned one) timed again side by side.
  void runoff(int most);

  static bool same(const Options& a, const Options& b);
  // Why the plan as asked (the untuned trial) could not be built, or null: the error to
  // give when no candidate can be (a grid too large to address, not "no candidate").
  const std::exception_ptr& untuned_refusal() const { return untuned_refusal_; }

 private:
  // `iters` timed calls of the plan on the shared arrays (after its warm-up), seconds of the
  // slowest rank each; the plan is freed before it returns.
  std::vector<double> timed(Plan plan, int iters);
  double time(Plan plan);  // the median of trial_iters timed calls
  Plan make(const Options& o) const;  // the candidate's plan, on the user's boxes when given
  MPI_Comm comm_;
  std::array<std::int64_t, 3> n_;
  const TuneSettings& s_;
  TuneReport& r_;
  TuneLogger& log_;
  double start_;
  std::vector<std::pair<int, int>> grids_;
  std::unique_ptr<Arrays> arrays_;
  std::exception_ptr untuned_refusal_;
};

// ---- tune_search.cpp -----------------------------------------------------------------

struct SearchSpace {
  std::array<std::int64_t, 3> n;
  Options base;  // the caller's options, tuning settings cleared
  const TuneSettings& s;
  int ranks;
  bool thread_ok;  // MPI_THREAD_MULTIPLE: the thread engine can be tried
  // Threads per rank the tuner tries (Options::threads): 1 up to the fewest CPUs any rank
  // may run on (sched_getaffinity); only 1 below MPI_THREAD_FUNNELED.
  int max_threads = 1;
};

// Trials the search expects to run (an upper estimate for greedy, exact for exhaustive),
// the untuned trial and the runoff included.
int planned_trials(const SearchSpace& sp, int runoff);
// The process grids M1 x M2 the search's candidates may have.
std::vector<std::pair<int, int>> candidate_grids(const SearchSpace& sp);
void search_greedy(Trials& trials, const SearchSpace& sp);
void search_exhaustive(Trials& trials, const SearchSpace& sp);

}  // namespace nbfft::fft::detail
