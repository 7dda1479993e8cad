// Spectral Poisson solve with nbfft's C++ API: -lap u = f on the periodic box [0, 2pi)^3.
//
// f is built from sin/cos products whose exact solution u is known; u = IFFT(FFT(f) / |k|^2)
// with the mean (k = 0) set to 0. Prints the largest error against the exact u and exits
// non-zero when it exceeds 1e-10. Usage: mpiexec -n P poisson_cxx [transport [M1xM2]]
#include <nbfft/error.hpp>
#include <nbfft/fft/field.hpp>
#include <nbfft/fft/plan.hpp>

#include <mpi.h>

#include <cmath>
#include <complex>
#include <tuple>
#include <cstdio>
#include <vector>

namespace fft = nbfft::fft;

int main(int argc, char** argv) {
  const std::array<std::int64_t, 3> n{24, 20, 18};
  const double pi = 3.14159265358979323846;
  auto exact = [](double x, double y, double z) { return std::sin(x) * std::cos(2 * y) * std::sin(3 * z) + std::cos(3 * x) * std::sin(y); };
  auto source = [](double x, double y, double z) { return 14 * std::sin(x) * std::cos(2 * y) * std::sin(3 * z) + 10 * std::cos(3 * x) * std::sin(y); };
  auto coord = [&](std::int64_t i, int d) { return 2 * pi * static_cast<double>(i) / static_cast<double>(n[d]); };

  fft::Options o;
  o.norm = fft::Norm::Backward;  // backward scaled by 1/N (the default, said here for the reader)
  o.effort = fft::Effort::Estimate;
  o.transport(argc > 1 ? argv[1] : "blocking");
  if (argc > 2) std::tie(o.m1, o.m2) = fft::parse_proc_grid(argv[2]);
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, fft::required_thread_level(o), &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double maxerr = 1;
  try {
    fft::Plan plan(MPI_COMM_WORLD, n, o);
    std::vector<double> u(plan.in_count());
    std::vector<std::complex<double>> uh(plan.out_count());
    fft::for_each_point(plan.in_box(), [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
      u[at] = source(coord(x, 0), coord(y, 1), coord(z, 2));
    });
    plan.transform(fft::Direction::Forward, u, uh);
    const auto k = fft::wavenumbers(plan);
    const auto& lo = plan.out_box().lo;
    fft::for_each_point(plan.out_box(), [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
      const double kx = k[0][x - lo[0]], ky = k[1][y - lo[1]], kz = k[2][z - lo[2]];
      const double k2 = kx * kx + ky * ky + kz * kz;
      uh[at] = k2 > 0 ? uh[at] / k2 : 0.0;
    });
    plan.transform(fft::Direction::Backward, uh, u);
    double err = 0;
    fft::for_each_point(plan.in_box(), [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
      err = std::max(err, std::abs(u[at] - exact(coord(x, 0), coord(y, 1), coord(z, 2))));
    });
    MPI_Allreduce(&err, &maxerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("poisson (C++): %lldx%lldx%lld grid on %d ranks (%dx%d), transport %s: max error %.3g\n",
                  (long long)n[0], (long long)n[1], (long long)n[2], size, plan.m1(), plan.m2(),
                  o.row_transport.label.c_str(), maxerr);
  } catch (const nbfft::Error& e) {
    std::fprintf(stderr, "poisson: %s (%s)\n", e.what(), nbfft::error_code_name(e.code()));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return maxerr < 1e-10 ? 0 : 1;
}
