// Poisson solves with walls, nbfft's C++ API: -lap u = f with a transform kind per axis.
//
//   dirichlet  periodic x, y on [0, 2pi), walls u = 0 at z = 0, pi: DST-II in z (dst2;
//              z on cell centres), real data in, complex spectrum out (r2c on x)
//   neumann    the same with du/dz = 0 at the walls: DCT-II in z (dct2)
//   box        a closed box [0, pi]^3: DST-I in x (interior points), DCT-II in y, DST-II in z;
//              every axis r2r, so the spectrum is real (real in, real out)
//
// Each f is built from products of the kinds' basis functions, whose exact solution u is
// known; u = backward(forward(f) / |k|^2) with k from nbfft::fft::wavenumbers(plan, L) and
// the grid points from nbfft::fft::axis_point (docs/fft.md "Transform kinds"). Prints the
// largest error and exits non-zero when one exceeds 1e-10.
// Usage: mpiexec -n P channel_poisson_cxx [transport [M1xM2]]
#include <nbfft/error.hpp>
#include <nbfft/fft/field.hpp>
#include <nbfft/fft/plan.hpp>

#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <tuple>
#include <vector>

namespace fft = nbfft::fft;
using K = fft::AxisKind;
using Fn = std::function<double(double, double, double)>;
const double pi = 3.14159265358979323846;

struct Case {
  const char* name;
  fft::AxisKinds kinds;
  std::array<double, 3> length;
  Fn exact, source;
};

// One solve; Spec is the spectrum's element type (double when every axis is r2r).
template <typename Spec>
double solve(const Case& c, const std::array<std::int64_t, 3>& n, const fft::Options& o) {
  const fft::Plan plan(MPI_COMM_WORLD, n, o);
  auto at = [&](std::int64_t i, int d) { return fft::axis_point(c.kinds[d], i, n[d], c.length[d]); };
  std::vector<double> u(plan.in_count());
  std::vector<Spec> uh(plan.out_count());
  fft::for_each_point(plan.in_box(), [&](std::int64_t a, std::int64_t x, std::int64_t y, std::int64_t z) {
    u[a] = c.source(at(x, 0), at(y, 1), at(z, 2));
  });
  plan.forward(u, uh);
  const auto k = fft::wavenumbers(plan, c.length);
  const auto& lo = plan.out_box().lo;
  fft::for_each_point(plan.out_box(), [&](std::int64_t a, std::int64_t x, std::int64_t y, std::int64_t z) {
    const double kx = k[0][x - lo[0]], ky = k[1][y - lo[1]], kz = k[2][z - lo[2]];
    const double k2 = kx * kx + ky * ky + kz * kz;  // d^2/dx^2 -> -k^2 for every kind
    uh[a] = k2 > 0 ? uh[a] / k2 : Spec(0);           // k = 0: the mean, 0 for these u
  });
  plan.backward(uh, u);
  double err = 0, maxerr = 0;
  fft::for_each_point(plan.in_box(), [&](std::int64_t a, std::int64_t x, std::int64_t y, std::int64_t z) {
    err = std::max(err, std::abs(u[a] - c.exact(at(x, 0), at(y, 1), at(z, 2))));
  });
  MPI_Allreduce(&err, &maxerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("channel_poisson (C++) %-9s kinds %s on %dx%d: max error %.3g\n", c.name,
                fft::kinds_str(c.kinds).c_str(), plan.m1(), plan.m2(), maxerr);
  return maxerr;
}

int main(int argc, char** argv) {
  const std::array<std::int64_t, 3> n{16, 12, 10};
  using std::cos;
  using std::sin;
  const std::vector<Case> cases = {
      {"dirichlet", {K::Periodic, K::Periodic, K::Dst2}, {2 * pi, 2 * pi, pi},
       [](double x, double y, double z) { return sin(x) * cos(2 * y) * sin(3 * z) + cos(3 * x) * sin(y) * sin(z); },
       [](double x, double y, double z) { return 14 * sin(x) * cos(2 * y) * sin(3 * z) + 11 * cos(3 * x) * sin(y) * sin(z); }},
      {"neumann", {K::Periodic, K::Periodic, K::Dct2}, {2 * pi, 2 * pi, pi},
       [](double x, double y, double z) { return sin(x) * cos(2 * y) * cos(3 * z) + cos(3 * x) * sin(y) * cos(z) + cos(2 * y); },
       [](double x, double y, double z) {
         return 14 * sin(x) * cos(2 * y) * cos(3 * z) + 11 * cos(3 * x) * sin(y) * cos(z) + 4 * cos(2 * y);
       }},
      {"box", {K::Dst1, K::Dct2, K::Dst2}, {pi, pi, pi},
       [](double x, double y, double z) { return sin(2 * x) * cos(y) * sin(3 * z) + sin(x) * sin(z); },
       [](double x, double y, double z) { return 14 * sin(2 * x) * cos(y) * sin(3 * z) + 2 * sin(x) * sin(z); }},
  };
  fft::Options o;
  o.effort = fft::Effort::Estimate;
  o.transport(argc > 1 ? argv[1] : "blocking");
  if (argc > 2) std::tie(o.m1, o.m2) = fft::parse_proc_grid(argv[2]);
  int provided = 0;
  MPI_Init_thread(&argc, &argv, fft::required_thread_level(o), &provided);
  double worst = 1;
  try {
    worst = 0;
    for (const Case& c : cases) {
      o.kinds = c.kinds;  // r2c (real data): x periodic, or every axis r2r
      const double e = fft::real_spectrum(o) ? solve<double>(c, n, o) : solve<std::complex<double>>(c, n, o);
      worst = std::max(worst, e);
    }
  } catch (const nbfft::Error& e) {
    std::fprintf(stderr, "channel_poisson: %s (%s)\n", e.what(), nbfft::error_code_name(e.code()));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return worst < 1e-10 ? 0 : 1;
}
