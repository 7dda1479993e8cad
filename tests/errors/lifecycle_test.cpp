// nbfft objects before MPI_Init and after MPI_Finalize: an InvalidState Error, never an
// MPI abort. Its own main (MPI is initialized and finalized inside the test).
#include "nbfft/coll/coll.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"

#include <mpi.h>

#include <cstdio>
#include <functional>

namespace {

int failures = 0;

void expect_kind(const char* what, nbfft::ErrorCode want, const std::function<void()>& fn) {
  int got = 0;
  try {
    fn();
  } catch (const nbfft::Error& e) {
    got = static_cast<int>(e.code());
  }
  if (got != static_cast<int>(want)) {
    std::fprintf(stderr, "FAIL %s: kind %d, expected %d\n", what, got, static_cast<int>(want));
    ++failures;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using nbfft::ErrorCode;
  expect_kind("Comm before MPI_Init", ErrorCode::InvalidState, [] { nbfft::coll::Comm c(MPI_COMM_WORLD); });
  expect_kind("Plan before MPI_Init", ErrorCode::InvalidState, [] { nbfft::fft::Plan p(MPI_COMM_WORLD, {8, 8, 8}); });
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  expect_kind("Comm on MPI_COMM_NULL", ErrorCode::InvalidArgument, [] { nbfft::coll::Comm c(MPI_COMM_NULL); });
  MPI_Finalize();
  expect_kind("Comm after MPI_Finalize", ErrorCode::InvalidState, [] { nbfft::coll::Comm c(MPI_COMM_WORLD); });
  expect_kind("Plan after MPI_Finalize", ErrorCode::InvalidState, [] { nbfft::fft::Plan p(MPI_COMM_WORLD, {8, 8, 8}); });
  expect_kind("load_wisdom after MPI_Finalize", ErrorCode::InvalidState,
              [] { nbfft::fft::load_wisdom(MPI_COMM_WORLD, "/tmp/x"); });
  if (failures == 0) std::printf("lifecycle: 6 cases OK\n");
  return failures ? 1 : 0;
}
