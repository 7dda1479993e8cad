// A time series that ParaView opens: the heat equation u_t = nu lap u on the periodic box
// [0, 4pi) x [0, 2pi) x [0, 2pi), solved exactly in spectral space (each mode decays as
// exp(-nu |k|^2 t)), written with nbfft::io at a few physical times into one HDF5 file with
// an XDMF file beside it (docs/io.md "Time series and pictures"):
//
//   mpiexec -n 2 io_series [OUTDIR]      # OUTDIR/heat.h5 and OUTDIR/heat.xmf
//   paraview OUTDIR/heat.xmf             # the "XDMF Reader"; or python docs/img/render_heat.py
//
// Per step: the field u, its spectrum U (shown as U_re, U_im, U_abs), the plane z = pi of u
// (u_mid) and u at every 4th point (u_coarse); each rank writes only its own part of each.
#include <nbfft/error.hpp>
#include <nbfft/fft/field.hpp>
#include <nbfft/fft/plan.hpp>
#include <nbfft/io/hdf5.hpp>

#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

namespace fft = nbfft::fft;
namespace io = nbfft::io;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    const std::string path = std::string(argc > 1 ? argv[1] : ".") + "/heat.h5";
    const double pi = 3.14159265358979323846, nu = 0.05;
    const std::array<std::int64_t, 3> n{64, 32, 32};
    const std::array<double, 3> L{4 * pi, 2 * pi, 2 * pi};  // x, y, z
    fft::Options o;
    o.effort = fft::Effort::Estimate;
    fft::Plan plan(MPI_COMM_WORLD, n, o);

    // The start: a few dozen waves of wavenumber 1..4 with amplitudes and phases from a
    // fixed sequence, the same at any rank count.
    std::vector<double> u(plan.in_count());
    std::uint32_t seed = 12345;
    auto next = [&] { return (seed = seed * 1664525u + 1013904223u) / 4294967296.0; };
    struct Wave { double kx, ky, kz, amp, phase; };
    std::vector<Wave> waves;
    for (int w = 0; w < 40; ++w) {
      const Wave v{std::floor(next() * 9) - 4, std::floor(next() * 9) - 4, std::floor(next() * 9) - 4, next(),
                   2 * pi * next()};
      const double k2 = (v.kx * v.kx) / 4 + v.ky * v.ky + v.kz * v.kz;  // x wavenumbers are kx/2 in a 4pi box
      if (k2 > 0) waves.push_back({v.kx / 2, v.ky, v.kz, v.amp / std::sqrt(k2), v.phase});
    }
    fft::for_each_point(plan.in_box(), [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
      const double X = L[0] * double(x) / double(n[0]), Y = L[1] * double(y) / double(n[1]),
                   Z = L[2] * double(z) / double(n[2]);
      double s = 0;
      for (const auto& w : waves) s += w.amp * std::cos(w.kx * X + w.ky * Y + w.kz * Z + w.phase);
      u[at] = s;
    });
    std::vector<std::complex<double>> U0(plan.out_count()), U(plan.out_count());
    plan.forward(u, U0);
    const auto k = fft::wavenumbers(plan, L);
    const auto& lo = plan.out_box().lo;

    io::H5Options h5o;
    h5o.box_lengths = L;  // the XDMF grid's spacing (default 2*pi each)
    const double times[] = {0, 0.5, 1, 2, 4};
    std::string xmf;
    for (int step = 0; step < 5; ++step) {
      const double t = times[step];
      fft::for_each_point(plan.out_box(), [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
        const double kx = k[0][x - lo[0]], ky = k[1][y - lo[1]], kz = k[2][z - lo[2]];
        U[at] = U0[at] * std::exp(-nu * (kx * kx + ky * ky + kz * kz) * t);
      });
      std::vector<std::complex<double>> scratch = U;  // the backward transform may use its input
      plan.backward(scratch, u);
      // Step 0 creates the file (it appears at close); later steps append, and each write
      // rewrites the XDMF, so a viewer sees the run grow.
      io::H5File f(MPI_COMM_WORLD, path, step == 0 ? io::H5File::Mode::Create : io::H5File::Mode::Append, h5o);
      f.write(plan, io::Space::Physical, "u", step, t, u);
      f.write(plan, io::Space::Spectral, "U", step, t, U);
      f.write_plane(plan, io::Space::Physical, "u_mid", step, t, io::Axis::Z, n[2] / 2, u);
      f.write_subsampled(plan, io::Space::Physical, "u_coarse", step, t, {4, 4, 4}, u);
      f.close();
      xmf = f.xdmf_path();
    }
    if (rank == 0) std::printf("io_series: wrote %s and %s\n", path.c_str(), xmf.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "io_series: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
