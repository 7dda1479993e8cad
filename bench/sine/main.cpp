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
// `blocking` gets seed 000's Table II (table2.hpp).
//
// One idea per file: options.* (the command line, on bench/common's Args), nbfft_runner.*
// and fftw_mpi_baseline.cpp (the two codes), measure.* (iterations, exchanges alone,
// reductions), table2.* (the Table II arithmetic), report.* (text and JSON records).
#include "bench/common/json.hpp"
#include "bench/sine/measure.hpp"
#include "bench/sine/options.hpp"
#include "bench/sine/report.hpp"
#include "nbfft/fft/wisdom.hpp"

#include <mpi.h>

#include <cstdio>
#include <exception>
#include <string>

namespace {

int run(const nbfft::sine::SineArgs& a) {
  using namespace nbfft::sine;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!a.wisdom.empty()) nbfft::fft::load_wisdom(MPI_COMM_WORLD, a.wisdom);
  std::vector<std::string> skipped;
  std::vector<Result> results = plan_runs(a, skipped);
  if (!a.wisdom.empty()) nbfft::fft::save_wisdom(MPI_COMM_WORLD, a.wisdom);
  iterate_runs(a, results);
  const std::vector<Reference> refs = measure_alone(a, results);
  reduce_runs(a, results);
  if (rank != 0) return 0;
  const Report report{a, results, refs, skipped, size};
  report.print();
  if (!a.json.empty()) nbfft::bench::write_json(a.json, report.records());
  return report.check_errors();
}

}  // namespace

int main(int argc, char** argv) {
  nbfft::sine::SineArgs args;
  std::string parse_error;
  try {
    args = nbfft::sine::parse_sine_args(nbfft::bench::Args(argc, argv, {"help", "sequential"}));
  } catch (const std::exception& e) {
    parse_error = e.what();
  }
  // The thread engine needs MPI_THREAD_MULTIPLE; everything else runs at the default level.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, args.needs_thread_multiple() ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = 0;
  if (args.help || !parse_error.empty()) {
    if (rank == 0) {
      if (!parse_error.empty())
        std::fprintf(stderr, "%s\n", parse_error.c_str());
      else
        std::fputs(nbfft::sine::kHelp, stdout);
    }
    rc = parse_error.empty() ? 0 : 2;
  } else {
    nbfft::sine::fftw_mpi_init();
    try {
      rc = run(args);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "[rank %d] %s\n", rank, e.what());
      rc = 1;
    }
    nbfft::sine::fftw_mpi_cleanup();
  }
  MPI_Finalize();
  return rc;
}
