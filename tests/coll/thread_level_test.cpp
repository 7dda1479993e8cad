// The thread engine refuses to run when MPI lacks MPI_THREAD_MULTIPLE, with a message
// that says what to do. This binary initializes MPI with MPI_THREAD_SERIALIZED on purpose.
#include "nbfft/coll/coll.hpp"

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int failed = 0;
  std::string msg;
  try {
    nbfft::coll::Comm comm(MPI_COMM_WORLD, nbfft::coll::EngineKind::Thread);
    failed = 1;  // must not get here
  } catch (const nbfft::Error& e) {
    msg = e.what();
  }
  if (msg.find("needs MPI_THREAD_MULTIPLE") == std::string::npos || msg.find("MPI_THREAD_SERIALIZED") == std::string::npos)
    failed = 1;
  // The caller engine still works at this level.
  try {
    nbfft::coll::Comm comm(MPI_COMM_WORLD, nbfft::coll::EngineKind::Caller);
    nbfft::coll::barrier(comm).start().wait();
  } catch (const nbfft::Error& e) {
    std::fprintf(stderr, "caller engine failed: %s\n", e.what());
    failed = 1;
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("%s: thread engine without MPI_THREAD_MULTIPLE: '%s'\n", any ? "FAIL" : "PASS", msg.c_str());
  MPI_Finalize();
  return any;
}
