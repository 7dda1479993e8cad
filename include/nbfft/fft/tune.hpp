// Plan-time autotuning: measure candidate configurations on the caller's own grid and ranks,
// keep the fastest, and remember the choice (FFTW's planner idea, applied to the whole
// distributed transform rather than only to its local FFTs).
//
//   nbfft::fft::TuneSettings s;                 // Quick effort, 10 s budget
//   s.fields = 3;                               // the code transforms 3 fields per call
//   s.wisdom_path = "nbfft-tune.txt";           // remembered across runs
//   nbfft::fft::TuneReport r;
//   nbfft::fft::Plan plan = nbfft::fft::tuned_plan(MPI_COMM_WORLD, {n, n, n}, base, s, &r);
//   if (rank == 0) std::cout << r;              // what was tried and why this one
//
// What is tuned: the process grid (every M1 x M2 = P that leaves no rank empty), the ROW
// and COL transports (algorithm, window, engine), the caller engine's progress chunks,
// the plane pipeline's chunk planes, for several fields the fields in flight, threads, and,
// when this nbfft has more than one local FFT backend, the backend of each stage whose
// `backend` the caller left auto. Everything else (precision, transform, normalization,
// planning effort) is the caller's and part of the key.
//
// How (greedy, pruned by short trials, bounded by budget_seconds):
//   1. grids, with the blocking transport: the grid sets the local FFT shapes and how many
//      exchanges run; grids slower than `keep_within` x the best are dropped;
//   2. transports on the kept grids: blocking, pairwise windows, linear, native, and the
//      thread engine when MPI provides MPI_THREAD_MULTIPLE. The cost models prune: linear
//      (all peers at once) only up to 8 ranks per exchange, bruck never (equal counts
//      only), rma never (it cannot run on every MPI/transport);
//   3. progress chunks (caller engine with something to overlap) and chunk planes (slabs
//      with a non-blocking transport) on the best so far;
//   4. with several fields, 1, 2 or 3 fields in flight (memory for speed);
//   5. threads per rank and the engine thread's core;
//   6. each stage's local FFT backend in turn on the best so far (FFTW or MKL; r2r stages
//      stay on FFTW), also after an exhaustive search.
// Thorough widens every step; Exhaustive runs the full cartesian product of the candidate
// lists (to check how close the greedy search gets). Each trial is `trial_iters` timed
// forward+backward calls (forward_many/backward_many when fields > 1) after one warm-up;
// a trial's time is the median over iterations of the slowest rank.
// The few fastest trials are then timed again in rounds that visit each in turn (a runoff).
// Memory: a tune() holds one trial's plan at a time and one set of arrays, allocated once
// for all trials (on several ranks one in-place array per field, the least a caller of the
// plan holds), and gives what each trial freed back to the system: it needs at most what
// the largest candidate plan tried needs, never the sum over trials.
//
// Remembering: the choice is stored under a key of everything that decides it — grid,
// ranks, ranks per node, precision, transform, norm, fields, FFTW effort, the MPI library
// a host signature (CPU model, cores) and the user boxes of every rank — in this process and, with wisdom_path, in a
// text file (read on rank 0 and broadcast; written atomically). A later tune() with the
// same key returns at once with from_wisdom = true (the file's entry first, then this
// process's memory, which the file then learns). Every function here is collective.
//
// As a plan option (every front end): the rows tune, tune_budget, tune_fields, tune_wisdom
// and tune_log of the option table (option_table.hpp) are TuneSettings; a Plan made with
// tune other than none tunes in its constructor and keeps the report:
//   Options o;  o.tune = TuneEffort::Quick;  o.tune_budget = 5;
//   Plan plan(MPI_COMM_WORLD, {n, n, n}, o);     // collective; seconds
//   if (plan.tune_report()) std::cout << *plan.tune_report();
//
// What it tries is logged: tune_log (TuneSettings::log) prints progress lines with an ETA
// on rank 0's stderr, and set_tune_log() installs a hook that sees every event (start,
// each trial, the choice) on every rank: C's nbfft_set_tune_log and Python's logger
// "nbfft.tune" are such hooks.
#pragma once

#include "nbfft/fft/options.hpp"
#include "nbfft/fft/plan.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nbfft::fft {

// TuneEffort, its name() and parse_tune_effort() are in options.hpp (the `tune` row).

struct TuneSettings {
  TuneEffort effort = TuneEffort::Quick;  // None is refused by tune()
  double budget_seconds = 10;  // wall time for all trials; the best found so far wins
  int fields = 1;              // fields per transform call the application makes
  int trial_iters = 3;         // timed iterations per trial (after one warm-up)
  double keep_within = 1.25;   // step 1 keeps grids within this factor of the best
  std::string wisdom_path;     // "" = remember in this process only
  int log = 0;                 // rank 0's stderr: 0 nothing, 1 progress and the choice, 2 every trial
  // This rank's user boxes (a plan made with Plan(comm, n, in_box, out_box, o) fills them):
  // every trial's plan reshapes from and to them, so the grid and transports chosen are the
  // fastest with the reshapes included, and the key names the boxes of every rank.
  std::optional<Box3> in_box, out_box;
};

// The settings the option table's tuning rows spell (Options::tune, tune_budget, ...).
TuneSettings tune_settings(const Options& o);
// `chosen` with the tuner's own settings of `asked` (the rows marked tuning): what a tuned
// plan reports as its options.
Options with_tuner_settings(Options chosen, const Options& asked);
// The rows the tuner chooses, "proc_grid=1x2 row_transport=blocking@caller ...".
std::string tuned_values(const Options& o);

// One thing the tuner did, as the log hook and tune_log see it.
struct TuneEvent {
  enum class Kind { Start, Trial, Done };
  Kind kind = Kind::Start;
  int trial = 0;        // Trial: its number from 1; Done: how many ran
  int planned = 0;      // trials the search expects (an estimate; the budget may cut it short)
  std::string step;     // Trial: "untuned", "grid", "transport", "chunks", "fields", "exhaustive", "backend", "runoff"
  Options options;      // Trial: the candidate; Done: the choice (the 3-D plan's tuner; an N-D
                        // plan's leaves the defaults here: see candidate)
  std::string candidate;  // the candidate's or the choice's tuned options as text, any plan's
                          // ("proc_grid=1x2 transport=..."; N-D: "grid=2x1 transport=...")
  double seconds = 0;   // Trial: per forward+backward of all fields, < 0 when it cannot be planned
                        // here; Done: the choice's (0 when from wisdom)
  double elapsed = 0;   // seconds since tune() began
  double budget = 0;    // TuneSettings::budget_seconds
  double eta = 0;       // seconds still to go, estimated: the fewer of the budget left and
                        // the trials left at the mean time per trial so far
  bool from_wisdom = false;  // Done: answered from memory or the wisdom file
  std::string line;     // the event as one line of text (what tune_log prints)
};
const char* name(TuneEvent::Kind k);  // "start", "trial", "done"

// The process's log hook: every tune() calls it for each event on every rank of its
// communicator (the values agree: trial times are the slowest rank's). Returns the hook it
// replaces; an empty function removes it. A hook must not throw (what it throws is dropped)
// nor call MPI on the tuner's communicator.
using TuneLog = std::function<void(const TuneEvent&)>;
TuneLog set_tune_log(TuneLog hook);

struct TuneTrial {
  Options options;
  double seconds = 0;  // per forward+backward of all fields (median over iterations)
  // The search's own timing, the one its later steps compared; `seconds` is the runoff's
  // when the runoff timed the trial again (step then ends in ", runoff").
  double search_seconds = 0;
  std::string step;    // "grid", "transport", "chunks", "fields", "threads", "engine_core", "backend", "exhaustive"
};

struct TuneReport {
  Options chosen;
  std::string key;
  bool from_wisdom = false;
  double tuning_seconds = 0;  // wall time tune() took
  bool budget_exhausted = false;
  std::vector<TuneTrial> trials;  // in the order tried (empty when from wisdom)
  double best_seconds = 0;        // the chosen trial's time (0 when from wisdom)
};

std::ostream& operator<<(std::ostream& os, const TuneReport& r);

// Finds the fastest configuration for plans like Plan(comm, n, base). Collective. Errors
// (every rank alike): effort None, settings out of range, a wisdom_path that cannot be read
// or, before any trial runs, cannot be written.
TuneReport tune(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& base,
                const TuneSettings& settings = {});

// tune() then the plan with the chosen options. Collective.
Plan tuned_plan(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& base,
                const TuneSettings& settings = {}, TuneReport* report = nullptr);

// The key tune() files its choice under (collective: it asks for the node layout).
std::string tune_key(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& base, int fields);

// Forgets what this process remembers (not the wisdom file); for tests and benchmarks that
// want to measure tuning itself.
void forget_tuning();

}  // namespace nbfft::fft
