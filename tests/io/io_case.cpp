// nbfft-io-case: one H5File write or read as a program, for the tests that need a process
// boundary: every bad input ends with "nbfft-io-case: [kind] message" on every rank and a
// non-zero exit (tests/errors/cli_case.sh), a full disk, a rank killed mid-checkpoint.
//
//   nbfft-io-case write PATH [options]   writes field u (and, with --spectral, its spectrum
//                                        U) at the steps given, closes (Create: renames)
//   nbfft-io-case read PATH [options]    reads them back and checks every value
//   nbfft-io-case corrupt PATH [--field F --steps S]   rank 0 flips one bit in the middle of
//                                        dataset /F/S (its bytes in the file, not HDF5's)
//   nbfft-io-case foreign PATH           rank 0 writes an HDF5 file that is not nbfft's: a
//                                        dataset /u/0 of the right shape, no nbfft_format
// Options: --grid NX,NY,NZ (8,6,5)  --steps S,S,.. (0)  --field NAME (u)  --single
//          --spectral  --append  --proc-grid M1xM2  --kill-rank R (after writing every
//          field, rank R raises SIGKILL before close(): a rank killed mid-checkpoint; with
//          --background, before the waits: killed with its writes in flight)
//          --background (each field by write_start, all waited for after the last start)
//          --fsize-limit R:BYTES (rank R alone gets a file size limit: its own MPI-IO
//          writes past BYTES fail with EFBIG, which no check at the start can foresee)
// The values are a function of the global point and the step, so a read at any rank
// count knows what it must find.
#include "bench/common/main.hpp"
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <sys/resource.h>

#include <csignal>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using nbfft::Error;
using nbfft::ErrorCode;
using nbfft::fft::Box3;
using nbfft::io::H5File;
using nbfft::io::Space;

struct Args {
  std::string cmd, path, field = "u";
  std::array<std::int64_t, 3> grid{8, 6, 5};
  std::vector<std::int64_t> steps{0};
  bool single = false, spectral = false, append = false, background = false;
  int m1 = 0, m2 = 0, kill_rank = -1, limit_rank = -1;
  std::int64_t limit_bytes = 0;
};

std::vector<std::int64_t> numbers(const std::string& s, const char* opt) {
  std::vector<std::int64_t> v;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = std::min(s.find(',', i), s.size());
    const std::string item = s.substr(i, j - i);
    char* end = nullptr;
    const long long x = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0') throw Error(ErrorCode::InvalidArgument, std::string(opt) + ": '" + s + "'");
    v.push_back(x);
    i = j + 1;
  }
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 3) throw Error(ErrorCode::InvalidArgument, "usage: nbfft-io-case write|read|foreign PATH [options]");
  a.cmd = argv[1];
  a.path = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::string o = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(ErrorCode::InvalidArgument, o + " needs a value");
      return argv[++i];
    };
    if (o == "--grid") {
      const auto g = numbers(value(), "--grid");
      if (g.size() != 3) throw Error(ErrorCode::InvalidArgument, "--grid: NX,NY,NZ");
      a.grid = {g[0], g[1], g[2]};
    } else if (o == "--steps") {
      a.steps = numbers(value(), "--steps");
    } else if (o == "--field") {
      a.field = value();
    } else if (o == "--single") {
      a.single = true;
    } else if (o == "--spectral") {
      a.spectral = true;
    } else if (o == "--append") {
      a.append = true;
    } else if (o == "--proc-grid") {
      const std::string v = value();
      if (std::sscanf(v.c_str(), "%dx%d", &a.m1, &a.m2) != 2)
        throw Error(ErrorCode::InvalidArgument, "--proc-grid: M1xM2");
    } else if (o == "--background") {
      a.background = true;
    } else if (o == "--fsize-limit") {
      const std::string v = value();
      long long r = -1, b = 0;
      if (std::sscanf(v.c_str(), "%lld:%lld", &r, &b) != 2 || r < 0 || b <= 0)
        throw Error(ErrorCode::InvalidArgument, "--fsize-limit: RANK:BYTES");
      a.limit_rank = int(r);
      a.limit_bytes = b;
    } else if (o == "--kill-rank") {
      a.kill_rank = int(numbers(value(), "--kill-rank").at(0));
    } else {
      throw Error(ErrorCode::InvalidArgument, "unknown option '" + o + "'");
    }
  }
  return a;
}

double value(std::int64_t x, std::int64_t y, std::int64_t z, std::int64_t step) {
  return double(x + 256 * y + 65536 * z) + 0.25 * double(step);
}
template <typename T>
T element(std::int64_t x, std::int64_t y, std::int64_t z, std::int64_t step) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(value(x, y, z, step));
  } else {
    using R = typename T::value_type;
    return T(R(value(x, y, z, step)), R(-value(x, y, z, step)));
  }
}
template <typename T, typename F>
void each(const Box3& b, F&& f) {
  for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
    for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
      for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x) f(std::size_t(b.index(x, y, z)), x, y, z);
}

template <typename R, typename C>
int run(const Args& a, MPI_Comm world) {
  nbfft::fft::Options o;
  o.effort = nbfft::fft::Effort::Estimate;
  o.precision = a.single ? nbfft::fft::Precision::Single : nbfft::fft::Precision::Double;
  o.m1 = a.m1;
  o.m2 = a.m2;
  nbfft::fft::Plan plan(world, a.grid, o);
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (a.cmd == "write") {
    H5File f(world, a.path, a.append ? H5File::Mode::Append : H5File::Mode::Create);
    // Only this rank's own writes past the limit fail; the checks at the start (rank 0's
    // room claim among them) see nothing wrong.
    rlimit was{};
    getrlimit(RLIMIT_FSIZE, &was);
    if (rank == a.limit_rank) {
      const rlimit lim{rlim_t(a.limit_bytes), was.rlim_max};
      if (setrlimit(RLIMIT_FSIZE, &lim) != 0) throw Error(ErrorCode::Internal, "setrlimit(RLIMIT_FSIZE) failed");
    }
    std::vector<H5File::Pending> pending;
    for (std::int64_t s : a.steps) {
      std::vector<R> u(std::size_t(plan.in_count()));
      each<R>(plan.in_box(), [&](std::size_t i, auto x, auto y, auto z) { u[i] = element<R>(x, y, z, s); });
      if (a.background)
        pending.push_back(f.write_start(plan, Space::Physical, a.field, s, 0.5 * double(s), u));  // copies u
      else
        f.write(plan, Space::Physical, a.field, s, 0.5 * double(s), u);
      if (a.spectral) {
        std::vector<C> U(std::size_t(plan.out_count()));
        each<C>(plan.out_box(), [&](std::size_t i, auto x, auto y, auto z) { U[i] = element<C>(x, y, z, s + 1); });
        if (a.background)
          pending.push_back(f.write_start(plan, Space::Spectral, a.field + "_hat", s, 0.5 * double(s), U));
        else
          f.write(plan, Space::Spectral, a.field + "_hat", s, 0.5 * double(s), U);
      }
    }
    if (rank == a.kill_rank && a.background) std::raise(SIGKILL);  // its writes in flight
    try {
      for (auto& p : pending) p.wait();  // a write's failure comes out here, on every rank
    } catch (const Error& e) {
      // The limit lifted, as a disk gets room back: HDF5's closing flush must not fail too.
      // close() must then refuse to rename the file with a hole over the previous one.
      if (rank == a.limit_rank) setrlimit(RLIMIT_FSIZE, &was);
      bool renamed = true;
      try {
        f.close();
      } catch (const Error& c) {
        renamed = false;
        if (rank == 0) std::fprintf(stderr, "nbfft-io-case: close() after it: %s\n", c.what());
      }
      if (renamed) throw Error(ErrorCode::Internal, "close() renamed a file whose background write failed");
      throw;
    }
    if (rank == a.kill_rank) std::raise(SIGKILL);  // everything written, nothing closed or renamed
    f.close();
    return 0;
  }
  H5File f(world, a.path);
  int bad = 0;
  for (std::int64_t s : a.steps) {
    if (a.spectral) {  // the spectrum written as <field>_hat has the values of step s + 1
      std::vector<C> U(std::size_t(plan.out_count()));
      f.read(plan, Space::Spectral, a.field, s, U);
      each<C>(plan.out_box(), [&](std::size_t i, auto x, auto y, auto z) { bad += U[i] != element<C>(x, y, z, s + 1); });
    } else {
      std::vector<R> u(std::size_t(plan.in_count()));
      f.read(plan, Space::Physical, a.field, s, u);
      each<R>(plan.in_box(), [&](std::size_t i, auto x, auto y, auto z) { bad += u[i] != element<R>(x, y, z, s); });
    }
  }
  int all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, world);
  if (all) throw Error(ErrorCode::Internal, "'" + a.path + "': " + std::to_string(all) + " values differ from those written");
  if (rank == 0) std::printf("nbfft-io-case: read %zu step(s) of '%s' from '%s': every value as written\n",
                             a.steps.size(), a.field.c_str(), a.path.c_str());
  return 0;
}

// An HDF5 file that is not nbfft's: the layout a user might guess (/u/0, float64, the
// grid's shape) but no nbfft_format attribute.
void foreign(const Args& a, MPI_Comm world) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (rank == 0) {
    hid_t f = H5Fcreate(a.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "u", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[3] = {hsize_t(a.grid[2]), hsize_t(a.grid[1]), hsize_t(a.grid[0])};
    hid_t s = H5Screate_simple(3, dims, nullptr);
    hid_t d = H5Dcreate2(g, "0", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    std::vector<double> v(dims[0] * dims[1] * dims[2], 1.0);
    const bool ok = f >= 0 && d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0;
    H5Dclose(d);
    H5Sclose(s);
    H5Gclose(g);
    if (H5Fclose(f) < 0 || !ok) throw Error(ErrorCode::Io, "could not write '" + a.path + "'");
  }
  MPI_Barrier(world);
}

// Damage that HDF5 cannot see: one bit of the dataset's data, in place.
void corrupt(const Args& a, MPI_Comm world) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (rank == 0) {
    const std::string name = "/" + a.field + "/" + std::to_string(a.steps.at(0));
    hid_t f = H5Fopen(a.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, name.c_str(), H5P_DEFAULT) : -1;
    const haddr_t at = d >= 0 ? H5Dget_offset(d) : HADDR_UNDEF;
    const hsize_t size = d >= 0 ? H5Dget_storage_size(d) : 0;
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    if (at == HADDR_UNDEF || size == 0) throw Error(ErrorCode::Io, "no contiguous " + name + " in '" + a.path + "'");
    std::FILE* fp = std::fopen(a.path.c_str(), "r+b");
    const long where = long(at + size / 2);
    int c = fp && std::fseek(fp, where, SEEK_SET) == 0 ? std::fgetc(fp) : EOF;
    const bool ok = c != EOF && std::fseek(fp, where, SEEK_SET) == 0 && std::fputc(c ^ 0x10, fp) != EOF;
    if (fp) std::fclose(fp);
    if (!ok) throw Error(ErrorCode::Io, "could not flip a bit of '" + a.path + "'");
    std::printf("nbfft-io-case: flipped bit 4 of byte %ld of '%s' (inside %s)\n", where, a.path.c_str(), name.c_str());
  }
  MPI_Barrier(world);
}

}  // namespace

int main(int argc, char** argv) {
  // The full-disk test's fallback without root is a file size limit (ulimit -f); a file that
  // would pass it must fail with EFBIG, as on a full disk, not kill the rank with SIGXFSZ
  // (mpirun starts ranks with default signal actions, whatever the shell ignored).
  std::signal(SIGXFSZ, SIG_IGN);
  return nbfft::bench::run_main("nbfft-io-case", argc, argv, MPI_THREAD_FUNNELED, [&](MPI_Comm world) {
    const Args a = parse(argc, argv);
    if (a.cmd == "foreign" || a.cmd == "corrupt") {
      a.cmd == "foreign" ? foreign(a, world) : corrupt(a, world);
      return 0;
    }
    if (a.cmd != "write" && a.cmd != "read")
      throw Error(ErrorCode::InvalidArgument, "unknown command '" + a.cmd + "' (write, read, foreign)");
    return a.single ? run<float, std::complex<float>>(a, world) : run<double, std::complex<double>>(a, world);
  });
}
