// nbfft-io-bench: the time of a checkpoint of one double field through nbfft::io (issue 23,
// deliverable 7), one round per run; bench/io/bench_io.py interleaves it with mpi4py-fft's
// DistArray.write/read and numpy.tofile/fromfile.
//
//   mpirun -n P nbfft-io-bench --grid N --path FILE [--no-sync] [--spectral]
//
// Prints one JSON line (rank 0): the times, each the slowest rank's, between barriers:
//   write: H5File(Create) + write + close (the rename; fsync unless --no-sync)
//   write_call: the write() alone; read: H5File(Read) + read + close; read_call: read()
//   checksum: one pass of the checksum over this rank's box (part of write and of read)
// The field is the physical one (real, (z, y, x) in the file); --spectral writes the
// spectrum instead (complex, the Z-pencil reordered into (kz, ky, kx)). The values read
// back are compared with those written (outside the timings); the file is removed.
#include "bench/common/cli.hpp"
#include "bench/common/main.hpp"
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"

#include "io/checksum.hpp"

#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using nbfft::Error;
using nbfft::ErrorCode;
using nbfft::io::H5File;
using nbfft::io::Space;

double slowest(double t, MPI_Comm c) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, c);
  return m;
}

template <typename T>
int run(MPI_Comm world, std::int64_t n, const std::string& path, bool sync, bool spectral) {
  nbfft::fft::Options o;
  o.effort = nbfft::fft::Effort::Estimate;
  nbfft::fft::Plan plan(world, {n, n, n}, o);
  const nbfft::fft::Box3 b = spectral ? plan.out_box() : plan.in_box();
  const Space space = spectral ? Space::Spectral : Space::Physical;
  std::vector<T> u(std::size_t(b.count())), back(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = T(std::sin(0.001 * double(i)) + double(i % 7));
  nbfft::io::H5Options opt;
  opt.sync = sync;

  MPI_Barrier(world);
  double t0 = MPI_Wtime();
  double call = 0;
  {
    H5File f(world, path, H5File::Mode::Create, opt);
    const double c0 = MPI_Wtime();
    f.write(plan, space, "u", 0, 0.0, u);
    call = MPI_Wtime() - c0;
    f.close();
  }
  const double write = slowest(MPI_Wtime() - t0, world);
  const double write_call = slowest(call, world);

  MPI_Barrier(world);
  t0 = MPI_Wtime();
  {
    H5File f(world, path);
    const double c0 = MPI_Wtime();
    f.read(plan, space, "u", 0, back);
    call = MPI_Wtime() - c0;
    f.close();
  }
  const double read = slowest(MPI_Wtime() - t0, world);
  const double read_call = slowest(call, world);

  // The checksum's share: one pass over this rank's box (in memory order; the writer
  // takes it in the file's order, piece by piece, for a reordered spectrum).
  MPI_Barrier(world);
  t0 = MPI_Wtime();
  const std::int64_t start[3] = {b.lo[2], b.lo[1], b.lo[0]}, count[3] = {b.n[2], b.n[1], b.n[0]};
  const auto& d = plan.decomposition();
  const std::int64_t dims[3] = {spectral ? d.n[2] : d.m[2], spectral ? d.n[1] : d.m[1], spectral ? d.xc : d.m[0]};
  volatile std::uint64_t sink = nbfft::io::detail::block_checksum(start, count, dims, nbfft::io::dtype_of<T>(), u.data());
  (void)sink;
  const double checksum = slowest(MPI_Wtime() - t0, world);

  int bad = back != u, all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, world);
  if (all) throw Error(ErrorCode::Internal, "nbfft-io-bench: the field read back differs from the one written");
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  if (rank == 0) {
    std::remove(path.c_str());
    if (path.size() > 3) std::remove((path.substr(0, path.size() - 3) + ".xmf").c_str());  // the catalog beside it
    std::printf("{\"grid\": %lld, \"ranks\": %d, \"bytes\": %lld, \"sync\": %s, \"space\": \"%s\", \"write\": %.6f, "
                "\"write_call\": %.6f, \"read\": %.6f, \"read_call\": %.6f, \"checksum\": %.6f}\n",
                static_cast<long long>(n), size,
                static_cast<long long>(sizeof(T) * std::size_t(dims[0] * dims[1] * dims[2])), sync ? "true" : "false",
                spectral ? "spectral" : "physical", write, write_call, read, read_call, checksum);
  }
  return 0;
}


const char* const kHelp = R"(nbfft-io-bench: the time of a checkpoint of one double field through nbfft::io, one
round; one JSON line of times (bench/io/bench_io.py interleaves it with its peers).

usage: mpirun -n P nbfft-io-bench --grid N --path FILE [--no-sync] [--spectral]

  --grid N      an N^3 grid (at least 2), required
  --path FILE   the file to write and read back (removed afterwards), required
  --no-sync     no fsync at close
  --spectral    write the spectrum instead of the physical field
)";

}  // namespace

int main(int argc, char** argv) {
  return nbfft::bench::run_main("nbfft-io-bench", argc, argv, MPI_THREAD_FUNNELED, [&](MPI_Comm world) {
    const nbfft::bench::Args args =
        nbfft::bench::parse_agreed(world, "nbfft-io-bench", argc, argv, {"help", "no-sync", "spectral"});
    args.allow_only({"grid", "path", "no-sync", "spectral", "help"});
    if (nbfft::bench::print_help(world, args, kHelp)) return 0;
    if (!args.has("grid") || !args.has("path")) throw Error(ErrorCode::InvalidArgument, "--grid N and --path FILE are needed");
    const std::int64_t n = args.get_long("grid", 0, 2, 1 << 20);
    const std::string path = args.get("path", "");
    nbfft::bench::check_outputs(world, {{"--path", path}});
    const bool sync = !args.has("no-sync"), spectral = args.has("spectral");
    return spectral ? run<std::complex<double>>(world, n, path, sync, true) : run<double>(world, n, path, sync, false);
  });
}
