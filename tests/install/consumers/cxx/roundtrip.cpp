// nbfft from C++ alone: a known spectrum and a round trip on a 12x10x9 grid (see ../README.md).
// An nbfft::Error (or any exception) aborts every rank with MPI_Abort: an exception that
// unwinds past MPI_Finalize on one rank would leave the others waiting in a collective.
#include <nbfft/error.hpp>
#include <nbfft/fft/field.hpp>  // required_thread_level
#include <nbfft/fft/plan.hpp>
#include <nbfft/io/hdf5.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace fft = nbfft::fft;

int main(int argc, char** argv) {
  const std::array<std::int64_t, 3> n{12, 10, 9};
  const double pi = 3.14159265358979323846, N = 12 * 10 * 9;
  fft::Options o;
  o.norm = fft::Norm::Backward;  // forward unscaled, backward by 1/N
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, fft::required_thread_level(o), &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool ok = false;
  try {
    fft::Plan plan(MPI_COMM_WORLD, n, o);
    const fft::Box3& in = plan.in_box();
    const fft::Box3& out = plan.out_box();
    std::vector<double> u(plan.in_count()), v(plan.in_count());
    std::vector<std::complex<double>> uh(plan.out_count());
    for (std::int64_t z = in.lo[2]; z < in.lo[2] + in.n[2]; ++z)
      for (std::int64_t y = in.lo[1]; y < in.lo[1] + in.n[1]; ++y)
        for (std::int64_t x = in.lo[0]; x < in.lo[0] + in.n[0]; ++x)
          u[in.index(x, y, z)] = 3 + std::cos(2 * pi * (double(x) / n[0] + 2.0 * y / n[1] - double(z) / n[2]));
    plan.transform(fft::Direction::Forward, u, uh);  // the installed direction.hpp
    // Summed over ranks: sum |F|^2, holders of k = 0, the error there, holders of (1, 2, 8), the error there.
    double sums[5] = {0, 0, 0, 0, 0}, roundtrip = 0;
    for (const auto& c : uh) sums[0] += std::norm(c);
    if (out.contains(0, 0, 0)) sums[1] = 1, sums[2] = std::abs(uh[out.index(0, 0, 0)] - 3 * N);
    if (out.contains(1, 2, 8)) sums[3] = 1, sums[4] = std::abs(uh[out.index(1, 2, 8)] - N / 2);
    plan.backward(uh, v);  // the direction-named alias
    for (std::size_t i = 0; i < u.size(); ++i) roundtrip = std::max(roundtrip, std::abs(v[i] - u[i]));
    // The spectrum to disk and back through nbfft::io, when this nbfft has parallel HDF5.
    if (nbfft::io::hdf5_available()) {
      const std::string path = "roundtrip_cxx_" + std::to_string(size) + ".h5";
      nbfft::io::H5File f(MPI_COMM_WORLD, path, nbfft::io::H5File::Mode::Create);
      f.write(plan, nbfft::io::Space::Spectral, "uh", 0, 0.0, uh);
      f.close();
      std::vector<std::complex<double>> back(uh.size());
      nbfft::io::H5File(MPI_COMM_WORLD, path).read(plan, nbfft::io::Space::Spectral, "uh", 0, back);
      if (back != uh) roundtrip = 1;
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) std::remove(path.c_str());
    }
    MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &roundtrip, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double energy = std::abs(sums[0] / (N * N) - 9.25);
    ok = energy < 1e-12 && sums[1] == 1 && sums[2] < 1e-9 && sums[3] == 1 && sums[4] < 1e-9 && roundtrip < 1e-12;
    if (rank == 0)
      std::printf("roundtrip (C++), %d ranks: sum |F|^2 error %.2g, F(0,0,0) error %.2g, F(1,2,8) error %.2g, round trip %.2g: %s\n",
                  size, energy, sums[2], sums[4], roundtrip, ok ? "ok" : "WRONG");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "roundtrip (C++) on rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
