// docs/nd.md's two worked examples of nbfft::nd::Plan, run as a test (capi.nd_examples) so
// they cannot rot: a 2-D r2c transform, and a channel transformed in x and z with second
// differences in the wall-normal y taken on the spectrum (y whole on every rank). Each
// checks its answer against the analytic one; the exit code is non-zero when one is off.
#include <nbfft/nd/plan.hpp>

#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

namespace {

const double kPi = 3.14159265358979323846;
using cplx = std::complex<double>;

// 2-D: u = cos(3 x) on a 2*pi-periodic (n0, n1) grid; d2u/dx2 = -9 u, spectrally.
double two_d(MPI_Comm comm) {
  const std::int64_t n0 = 24, n1 = 20;
  nbfft::nd::Plan p(comm, {n0, n1});                  // rfftn over both axes, as numpy's
  const nbfft::nd::Box& in = p.in_box();               // this rank's rows: lo, n per axis
  std::vector<double> u(p.in_count()), v(p.in_count());
  std::vector<cplx> uh(p.out_count());
  for (std::int64_t i = 0; i < in.n[0]; ++i)
    for (std::int64_t j = 0; j < in.n[1]; ++j) u[i * in.n[1] + j] = std::cos(3 * 2 * kPi * (in.lo[1] + j) / n1);
  p.forward(u.data(), u.size(), uh.data(), uh.size());
  const nbfft::nd::Box& out = p.out_box();             // [k0][k1], k1 = 0..n1/2 (r2c)
  for (std::int64_t i = 0; i < out.n[0]; ++i)
    for (std::int64_t j = 0; j < out.n[1]; ++j) {
      const double k1 = static_cast<double>(out.lo[1] + j);  // 0..n1/2: no negative ones on the r2c axis
      uh[i * out.n[1] + j] *= -k1 * k1;
    }
  p.backward(uh.data(), uh.size(), v.data(), v.size());
  double err = 0;
  for (std::size_t k = 0; k < u.size(); ++k) err = std::max(err, std::abs(v[k] + 9 * u[k]));
  return err;
}

// Channel (nz, ny, nx), x and z periodic, y wall-normal: the grid puts every rank on z so
// the spectrum [kz][y][kx] is split over kx with y whole; the second difference in y is
// then local. u = sin(2 x) cos(z) y^2 -> d2u/dy2 = 2 sin(2 x) cos(z), exact for a parabola.
double channel(MPI_Comm comm, int size) {
  const std::int64_t nz = 12, ny = 9, nx = 16;
  const double h = 1.0 / (ny - 1);
  nbfft::nd::Options o;
  o.grid = {size, 1, 1};
  nbfft::nd::Plan p(comm, {nz, ny, nx}, {0, 2}, o);
  const nbfft::nd::Box& in = p.in_box();
  const nbfft::nd::Box& out = p.out_box();  // lo/n along kz, y, kx: y is whole
  std::vector<double> u(p.in_count()), lap(p.in_count());
  std::vector<cplx> uh(p.out_count()), d2(p.out_count());
  for (std::int64_t z = 0; z < in.n[0]; ++z)
    for (std::int64_t y = 0; y < in.n[1]; ++y)
      for (std::int64_t x = 0; x < in.n[2]; ++x) {
        const double Z = 2 * kPi * (in.lo[0] + z) / nz, Y = (in.lo[1] + y) * h, X = 2 * kPi * (in.lo[2] + x) / nx;
        u[in.index({in.lo[0] + z, in.lo[1] + y, in.lo[2] + x})] = std::sin(2 * X) * std::cos(Z) * Y * Y;
      }
  p.forward(u.data(), u.size(), uh.data(), uh.size());
  const std::int64_t plane = out.n[2];  // one y row of this rank's kx
  for (std::int64_t kz = 0; kz < out.n[0]; ++kz)
    for (std::int64_t y = 1; y + 1 < out.n[1]; ++y)  // interior points; the walls stay 0
      for (std::int64_t kx = 0; kx < out.n[2]; ++kx) {
        const std::int64_t at = (kz * out.n[1] + y) * plane + kx;
        d2[at] = (uh[at + plane] - 2.0 * uh[at] + uh[at - plane]) / (h * h);
      }
  p.backward(d2.data(), d2.size(), lap.data(), lap.size());
  double err = 0;
  for (std::int64_t z = 0; z < in.n[0]; ++z)
    for (std::int64_t y = 1; y + 1 < in.n[1]; ++y)
      for (std::int64_t x = 0; x < in.n[2]; ++x) {
        const double Z = 2 * kPi * (in.lo[0] + z) / nz, X = 2 * kPi * (in.lo[2] + x) / nx;
        const std::int64_t at = in.index({in.lo[0] + z, in.lo[1] + y, in.lo[2] + x});
        err = std::max(err, std::abs(lap[at] - 2 * std::sin(2 * X) * std::cos(Z)));
      }
  return err;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    double e[2] = {two_d(MPI_COMM_WORLD), channel(MPI_COMM_WORLD, size)}, most[2];
    MPI_Allreduce(e, most, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) std::printf("nd examples: 2-D error %.2e, channel error %.2e\n", most[0], most[1]);
    bad = !(most[0] < 1e-10 && most[1] < 1e-9);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "rank %d: %s\n", rank, ex.what());
    bad = 1;
  }
  MPI_Finalize();
  return bad;
}
