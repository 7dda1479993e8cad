// nbfft-sine's measurements: the runs (process grid x transport x chunking), their
// iterations interleaved round-robin, the exchanges alone, and the reductions over ranks
// and iterations (bench/common's Summary: slowest rank per iteration, then min / median /
// max over iterations).
#pragma once

#include "bench/common/stats.hpp"
#include "bench/sine/options.hpp"
#include "bench/sine/runner.hpp"
#include "bench/sine/table2.hpp"

#include <memory>
#include <string>
#include <vector>

namespace nbfft::sine {

struct Result {
  std::unique_ptr<Runner> runner;
  bool blocking = false;                    // MPI_Alltoall(v) on both exchanges: Table II's reference
  bool baseline = false;                    // FFTW-MPI
  std::vector<fft::Timings> iters, fwd, bwd;  // local, per timed iteration (fwd/bwd when measured apart)
  bench::Summary phase[fft::Timings::kPhases];
  double max_error = 0;
  // Per direction (0 forward, 1 backward), medians over iterations of the slowest rank,
  // per field: compute (outside the COL exchange), exchange (the rest), work (FFTs, pack,
  // unpack), and each exchange alone.
  double compute[2] = {0, 0}, exch[2] = {0, 0}, work[2] = {0, 0};
  double row_alone[2] = {0, 0}, col_alone[2] = {0, 0};
  bool has_dirs = false, has_alone = false;
  // "default" (the plan nbfft picks with no options), "tuned", "seed" (seed 000's
  // configuration, --seed-run) or "" (any other).
  std::string role;
  std::string chosen;           // tuned: the choice in a few words ("pairwise:2@caller")
  std::size_t peak_rss = 0;     // bytes, max over ranks (memory.hpp; 0 = not known)
  std::size_t tuning_rss = 0;   // tuned: how far tune() alone raised the RSS, max over ranks (known with peak_rss)
  std::vector<double> round_s;  // slowest rank's total per timed iteration (round)
  double total_s() const { return phase[fft::Timings::kPhases - 1].median; }
  BlockingRun as_blocking() const;
};

// Exchanges alone of a reference transport (not one of the runs) on one process grid.
struct Reference {
  std::string label, proc_grid;
  double row[2] = {0, 0}, col[2] = {0, 0};
};

// Plans every run; a run this MPI cannot plan (the plan fails alike on every rank) is
// skipped with its reason in `skipped`. Throws when nothing could be planned.
std::vector<Result> plan_runs(const SineArgs& a, std::vector<std::string>& skipped);
// Warm-up and timed iterations, checked against the analytic field.
void iterate_runs(const SineArgs& a, std::vector<Result>& results);
// Exchanges alone of every run and (with several fields) of the reference transports.
std::vector<Reference> measure_alone(const SineArgs& a, std::vector<Result>& results);
// Fills phase, compute, exch and work (collective).
void reduce_runs(const SineArgs& a, std::vector<Result>& results);

}  // namespace nbfft::sine
