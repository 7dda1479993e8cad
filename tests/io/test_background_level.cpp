// H5File::write_start below MPI_THREAD_MULTIPLE: the same Unavailable error on every rank,
// naming the level it needs, while the blocking write still works. Exits non-zero on any
// other outcome (its own main: the shared GoogleTest main asks for MPI_THREAD_MULTIPLE).
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const std::string path = "/tmp/nbfft-iobg-level-" + std::to_string(pid) + ".h5";
  int ok = 1;
  {
    nbfft::fft::Options o;
    o.effort = nbfft::fft::Effort::Estimate;
    nbfft::fft::Plan plan(MPI_COMM_WORLD, {6, 5, 4}, o);
    std::vector<double> u(std::size_t(plan.in_count()), 1.0);
    nbfft::io::H5File f(MPI_COMM_WORLD, path, nbfft::io::H5File::Mode::Create);
    try {
      f.write_start(plan, nbfft::io::Space::Physical, "u", 1, 0.0, u).wait();
      std::printf("rank %d: write_start at %d gave no error\n", rank, provided);
      ok = 0;
    } catch (const nbfft::Error& e) {
      const std::string m = e.what();
      if (e.code() != nbfft::ErrorCode::Unavailable || m.find("needs MPI_THREAD_MULTIPLE") == std::string::npos) {
        std::printf("rank %d: unexpected error: %s\n", rank, e.what());
        ok = 0;
      } else if (rank == 0) {
        std::printf("as expected: %s\n", e.what());
      }
    }
    f.write(plan, nbfft::io::Space::Physical, "u", 1, 0.0, u);  // the blocking write needs no thread
    f.close();
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::remove(path.c_str());
  MPI_Finalize();
  return all && provided < MPI_THREAD_MULTIPLE ? 0 : 1;
}
