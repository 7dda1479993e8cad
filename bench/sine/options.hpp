// nbfft-sine's command line: what to run, read through bench/common's Args.
#pragma once

#include "bench/common/cli.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/options.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nbfft::sine {

extern const char* const kHelp;

struct SineArgs {
  std::array<std::int64_t, 3> n{128, 128, 128};
  std::vector<std::pair<int, int>> grids{{0, 0}};  // {0, 0}: the plan chooses
  fft::Precision precision = fft::Precision::Double;
  fft::TransformKind transform = fft::TransformKind::R2C;
  std::vector<coll::Transport> transports;
  std::vector<std::string> transport_names;
  std::string row_transport;  // empty: the run's transport
  int fields = 1;
  std::vector<int> chunk_planes{0};
  std::vector<int> progress_chunks{0};
  std::vector<bool> lean{false};  // Options::lean_workspace of each run (--workspace)
  int iters = 10, warmup = 1;
  fft::Effort effort = fft::Effort::Measure;
  std::string wisdom, json, baseline;  // baseline: "", "fftw-mpi", "auto" (when built in) or "cufft"
  std::vector<std::string> tune;  // TuneEffort names: each adds the tuner's choice as a run
  double tune_budget = 20;  // seconds
  std::string tune_wisdom;  // the tuner's memory across runs
  int tune_log = 0;         // the tuner's stderr lines (the tune_log row)
  bool sequential = false, help = false;
  bool seed_run = false;
  bool flush_subnormals = false;  // --flush-subnormals (bench/common/subnormals.hpp)  // --seed-run: seed 000's configuration as one more run
  // Every other plan option of the option table given as --KEY VALUE (fft/option_table.hpp),
  // applied to every run after the run's own settings.
  std::vector<std::pair<std::string, std::string>> plan_extra;

  bool needs_thread_multiple() const;  // a transport runs on the thread engine
};

// Throws nbfft::Error naming the bad option.
SineArgs parse_sine_args(const bench::Args& args);

// The Plan options of one run.
fft::Options plan_options(const SineArgs& a, int m1, int m2, const coll::Transport& t, int progress_chunks,
                          int chunk_planes);

}  // namespace nbfft::sine
