// nbfft-sine --shape / --axes: the test_sine kernel on an N-D plan (nbfft::nd::Plan, issue
// 24): an array of any number of axes, transformed along the chosen ones, each transport of
// --transport a run, their iterations interleaved round-robin as the 3-D runs' are.
//
// The field is a product of cos(2 pi i / n) over the transformed axes (times 1 + i / n over
// the others, and 1 + 0.5i for complex data, field v scaled by v + 1), whose spectrum under
// the forward norm is exactly known: 1/2 at k = 1 and k = n - 1 of each transformed axis (1
// where they coincide, n = 1 or 2). Each run checks its spectrum point by point against that
// (with the r2r kinds, whose spectra are not sparse, only the round trip) and its round trip
// against the field, untimed, after the timed iterations.
#pragma once

#include "bench/common/cli.hpp"
#include "nbfft/fft/options.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nbfft::sine {

struct NdArgs {
  std::vector<std::int64_t> shape;
  std::vector<int> axes;  // empty: every axis
  fft::Precision precision = fft::Precision::Double;
  fft::TransformKind transform = fft::TransformKind::R2C;
  std::vector<std::string> transports{"blocking"};
  std::string grid;  // --proc-grid AxBx... (numpy order), "" = chosen
  int fields = 1, iters = 10, warmup = 1;
  fft::Effort effort = fft::Effort::Measure;
  std::string wisdom, json;
  bool sequential = false, flush_subnormals = false, help = false;
  // nd::Options keys given as --KEY VALUE (kinds, batch-axis, fields-in-flight, output-order).
  std::vector<std::pair<std::string, std::string>> extra;
  // --autotune EFFORT [--autotune-budget S]: one more run, the plan the nd tuner picks
  // (nbfft/nd/tune.hpp) from the first transport's options; "" = none.
  std::string tune;
  double tune_budget = 20;

  bool needs_thread_multiple() const;
};

// Whether the command line asks for an N-D run (--shape).
inline bool is_nd_run(const bench::Args& args) { return args.has("shape"); }
// Throws nbfft::Error naming the bad option (a 3-D-only one too).
NdArgs parse_nd_args(const bench::Args& args);
// Plans, times, checks and reports every run; the exit status (non-zero when a check fails).
int run_nd(MPI_Comm comm, const NdArgs& a);

}  // namespace nbfft::sine
