// The one main() of every benchmark binary: MPI start-up and tear-down, and errors that
// reach every rank and the exit code.
//
//   int main(int argc, char** argv) {
//     return nbfft::bench::run_main("nbfft-bench", argc, argv, MPI_THREAD_MULTIPLE,
//                                   [&](MPI_Comm world) { return run(argc, argv, world); });
//   }
//
// body runs on every rank. Whatever it throws (nbfft::Error, std::bad_alloc, any
// std::exception) is caught and settled between the ranks on a private communicator, so
// that every rank prints the failing rank's error as "prog: [kind] message [rank N]" on
// stderr and every rank exits non-zero: 2 for bad input (invalid argument, ranks
// disagree), 1 for anything else. The exit code is also non-zero if body returned
// non-zero on any rank.
//
// A rank that fails while others are still inside the benchmark's own collectives cannot
// be joined by them; it waits NBFFT_FAIL_TIMEOUT seconds (default 60) for the others to
// arrive, then prints its error and calls MPI_Abort, so a failure never hangs the job.
#pragma once

#include <mpi.h>

#include <functional>

namespace nbfft::bench {

int run_main(const char* prog, int argc, char** argv, int thread_level, const std::function<int(MPI_Comm)>& body);

// The same for a program without MPI (the serial limits): an error is printed as
// "prog: [kind] message" and exits 2 for bad input, 1 otherwise.
int run_serial_main(const char* prog, const std::function<int()>& body);

}  // namespace nbfft::bench
