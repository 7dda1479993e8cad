// H5File::write_start needs no MPI thread level: under MPI_THREAD_SINGLE (no thread of
// nbfft's, the write is non-blocking MPI-IO) a background write lands where the blocking
// one does and reads back. Exits non-zero on any other outcome (its own main: the shared
// GoogleTest main asks for MPI_THREAD_MULTIPLE).
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const std::string path = "/tmp/nbfft-iobg-level-" + std::to_string(pid) + ".h5";
  int ok = 1;
  try {
    nbfft::fft::Options o;
    o.effort = nbfft::fft::Effort::Estimate;
    nbfft::fft::Plan plan(MPI_COMM_WORLD, {6, 5, 4}, o);
    std::vector<double> u(std::size_t(plan.in_count()));
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = 1000.0 * rank + double(i);
    {
      nbfft::io::H5File f(MPI_COMM_WORLD, path, nbfft::io::H5File::Mode::Create);
      nbfft::io::H5File::Pending w = f.write_start(plan, nbfft::io::Space::Physical, "u", 1, 0.0, u);
      while (!w.test()) {
      }
      w.wait();
      f.write(plan, nbfft::io::Space::Physical, "u", 2, 0.0, u);
      f.close();
    }
    nbfft::io::H5File r(MPI_COMM_WORLD, path);
    std::vector<double> a(u.size()), c(u.size());
    r.read(plan, nbfft::io::Space::Physical, "u", 1, a);
    r.read(plan, nbfft::io::Space::Physical, "u", 2, c);
    if (a != u || c != u) {
      std::printf("rank %d: the background write at thread level %d read back wrong\n", rank, provided);
      ok = 0;
    }
  } catch (const nbfft::Error& e) {
    std::printf("rank %d: unexpected error at thread level %d: %s\n", rank, provided, e.what());
    ok = 0;
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) {
    std::remove(path.c_str());
    std::remove((path.substr(0, path.size() - 3) + ".xmf").c_str());  // the catalog beside it
    if (all) std::printf("a background write at MPI thread level %d: read back as written\n", provided);
  }
  MPI_Finalize();
  return all ? 0 : 1;
}
