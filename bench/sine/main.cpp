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
#include "bench/common/cli.hpp"
#include "bench/common/json.hpp"
#include "bench/common/main.hpp"
#include "bench/common/subnormals.hpp"
#include "bench/sine/measure.hpp"
#include "bench/sine/memory.hpp"
#include "bench/sine/nd_mode.hpp"
#include "bench/sine/options.hpp"
#include "bench/sine/report.hpp"
#include "nbfft/build_info.hpp"
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
  nbfft::bench::check_outputs(MPI_COMM_WORLD, {{"--json", a.json}, {"--wisdom", a.wisdom}});
  if (!a.wisdom.empty()) nbfft::fft::load_wisdom(MPI_COMM_WORLD, a.wisdom);
  std::vector<std::string> skipped;
  std::vector<Result> results = plan_runs(a, skipped);
  if (!a.wisdom.empty()) nbfft::fft::save_wisdom(MPI_COMM_WORLD, a.wisdom);
  iterate_runs(a, results);
  const std::vector<Reference> refs = measure_alone(a, results);
  reduce_runs(a, results);
  unsigned long long mine = PeakRss::process_peak(), most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  const Report report{a, results, refs, skipped, size, static_cast<std::size_t>(most)};
  report.print();
  if (!a.json.empty()) nbfft::bench::write_json(a.json, report.records());
  return report.check_errors();
}

}  // namespace

int main(int argc, char** argv) {
  // --version alone: nbfft_build_info()'s text, with MPI running (at the level the thread
  // engine asks for) so it names the thread level this MPI provides.
  if (argc == 2 && std::string(argv[1]) == "--version")
    return nbfft::bench::run_main("nbfft-sine", argc, argv, MPI_THREAD_MULTIPLE, [](MPI_Comm world) {
      int rank = 0;
      MPI_Comm_rank(world, &rank);
      if (rank == 0) std::fputs(nbfft::build_info().c_str(), stdout);
      return 0;
    });
  // The thread engine needs MPI_THREAD_MULTIPLE; everything else runs at the default level.
  // The options are read once here only to choose the level (before MPI starts); they are
  // parsed for real, and agreed on by every rank, inside run_main.
  // --flush-subnormals is set here too, before MPI or any plan starts a thread.
  // --shape makes an N-D run (bench/sine/nd_mode.hpp), with options of its own.
  int level = MPI_THREAD_MULTIPLE;
  const std::vector<std::string> flags = {"help", "sequential", "seed-run", "flush-subnormals"};
  try {
    const nbfft::bench::Args raw(argc, argv, flags);
    bool multiple = true, flush = false;
    if (nbfft::sine::is_nd_run(raw)) {
      const nbfft::sine::NdArgs pre = nbfft::sine::parse_nd_args(raw);
      multiple = pre.needs_thread_multiple();
      flush = pre.flush_subnormals;
    } else {
      const nbfft::sine::SineArgs pre = nbfft::sine::parse_sine_args(raw);
      multiple = pre.needs_thread_multiple();
      flush = pre.flush_subnormals;
    }
    if (!multiple) level = MPI_THREAD_FUNNELED;
    if (flush) nbfft::bench::flush_subnormals();
  } catch (const std::exception&) {
    // Reported on every rank below.
  }
  return nbfft::bench::run_main("nbfft-sine", argc, argv, level, [&](MPI_Comm world) {
    const nbfft::bench::Args raw = nbfft::bench::parse_agreed(world, "nbfft-sine", argc, argv, flags);
    int rank = 0;
    MPI_Comm_rank(world, &rank);
    if (nbfft::sine::is_nd_run(raw)) {
      const nbfft::sine::NdArgs nd = nbfft::sine::parse_nd_args(raw);
      if (nd.help) {
        if (rank == 0) std::fputs(nbfft::sine::kHelp, stdout);
        return 0;
      }
      return nbfft::sine::run_nd(world, nd);
    }
    const nbfft::sine::SineArgs args = nbfft::sine::parse_sine_args(raw);
    if (args.help) {
      if (rank == 0) std::fputs(nbfft::sine::kHelp, stdout);
      return 0;
    }
    nbfft::sine::fftw_mpi_init();
    struct Cleanup {
      ~Cleanup() { nbfft::sine::fftw_mpi_cleanup(); }
    } cleanup;
    return run(args);
  });
}
