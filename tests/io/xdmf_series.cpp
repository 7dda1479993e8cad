// Writes the time series that tests/io/check_xdmf.py opens with VTK's XDMF reader (the one
// ParaView uses): three steps at physical times 0, 0.25, 0.5 of an uneven 10x7x6 r2c grid
// in a box of lengths 2 x 3 x 4, at any rank count. Step 0 through Mode::Create (the XDMF
// appears at close), steps 1 and 2 through Mode::Append (the XDMF is rewritten at each
// write). Per step: the physical field u, its spectrum U, the planes z = 2 and x = 3 of u,
// u subsampled by (3, 2, 2), and the plane kz = 1 of U (complex: real, imaginary, modulus).
// The same u in single precision (v) and its spectrum V share the grids of u and U. A 2-D
// field w(y, x) = x + 10 y + 1000 step of an N-D plan (7 x 10) and its spectrum W go through
// the same write on the plan's layout, onto 2-D grids of their own (one z plane).
// u(x, y, z) = x + 10 y + 100 z + 1000 step, exact in float32 too, so the reader's values say
// where each point landed.
//
//   mpirun -n 3 io_xdmf_series OUTDIR      # writes OUTDIR/run.h5 and OUTDIR/run.xmf
#include "nbfft/error.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/io/hdf5.hpp"
#include "nbfft/io/layout.hpp"
#include "nbfft/nd/plan.hpp"

#include <mpi.h>
#include <sys/stat.h>

#include <complex>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using nbfft::io::Axis;
using nbfft::io::H5File;
using nbfft::io::Space;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    if (argc != 2) throw nbfft::Error(nbfft::ErrorCode::InvalidArgument, "usage: io_xdmf_series OUTDIR");
    if (rank == 0) ::mkdir(argv[1], 0755);  // an existing folder is fine
    MPI_Barrier(MPI_COMM_WORLD);
    const std::string path = std::string(argv[1]) + "/run.h5";
    nbfft::fft::Options o;
    o.effort = nbfft::fft::Effort::Estimate;
    nbfft::fft::Plan plan(MPI_COMM_WORLD, {10, 7, 6}, o);
    nbfft::io::H5Options h5o;
    h5o.box_lengths = {2.0, 3.0, 4.0};  // x, y, z
    nbfft::fft::Options o32 = o;  // single precision: v = u as float32, V its spectrum (complex64)
    o32.precision = nbfft::fft::Precision::Single;
    nbfft::fft::Plan plan32(MPI_COMM_WORLD, {10, 7, 6}, o32);
    std::vector<float> v(plan32.in_count());
    std::vector<std::complex<float>> V(plan32.out_count());
    const nbfft::fft::Box3 b = plan.in_box();
    std::vector<double> u(plan.in_count());
    std::vector<std::complex<double>> U(plan.out_count());
    nbfft::nd::Options no;
    no.effort = nbfft::fft::Effort::Estimate;
    const nbfft::nd::Plan plan2(MPI_COMM_WORLD, {7, 10}, {0, 1}, no);
    const nbfft::Box b2 = plan2.in_box();
    std::vector<double> w(plan2.in_count());
    std::vector<std::complex<double>> W(plan2.out_count());
    for (int step = 0; step < 3; ++step) {
      for (std::int64_t y = 0; y < b2.n[0]; ++y)
        for (std::int64_t x = 0; x < b2.n[1]; ++x)
          w[static_cast<std::size_t>(y * b2.n[1] + x)] = double(b2.lo[1] + x + 10 * (b2.lo[0] + y) + 1000 * step);
      plan2.forward(w.data(), w.size(), W.data(), W.size());
      for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
        for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
          for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x)
            u[b.index(x, y, z)] = double(x + 10 * y + 100 * z + 1000 * step);
      plan.forward(u, U);
      for (std::size_t i = 0; i < u.size(); ++i) v[i] = float(u[i]);  // the same boxes: one decomposition rule
      plan32.forward(v, V);
      const double t = 0.25 * step;
      H5File f(MPI_COMM_WORLD, path, step == 0 ? H5File::Mode::Create : H5File::Mode::Append, h5o);
      f.write(plan, Space::Physical, "u", step, t, u);
      f.write(plan, Space::Spectral, "U", step, t, U);
      f.write(plan32, Space::Physical, "v", step, t, v);  // shares the grid "physical" with u
      f.write(plan32, Space::Spectral, "V", step, t, V);
      f.write_plane(plan, Space::Physical, "u_z2", step, t, Axis::Z, 2, u);
      f.write_plane(plan, Space::Physical, "u_x3", step, t, Axis::X, 3, u);
      f.write_subsampled(plan, Space::Physical, "u_sub", step, t, {3, 2, 2}, u);
      f.write_plane(plan, Space::Spectral, "U_kz1", step, t, Axis::Z, 1, U);
      f.write(nbfft::io::Layout::of(plan2, Space::Physical), "w", step, t, w);
      f.write(nbfft::io::Layout::of(plan2, Space::Spectral), "W", step, t, W);
      if (step == 2) {  // Append keeps the XDMF current before close()
        int current = 0;
        if (rank == 0) {
          std::ifstream x(f.xdmf_path());
          const std::string text((std::istreambuf_iterator<char>(x)), std::istreambuf_iterator<char>());
          current = text.find("<Time Value=\"0.5\"/>") != std::string::npos;
        }
        MPI_Bcast(&current, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!current)
          throw nbfft::Error(nbfft::ErrorCode::Internal, "the XDMF lacks step 2 before close(): " + f.xdmf_path());
      }
      f.close();
    }
    if (rank == 0) std::printf("io_xdmf_series: wrote %s and its XDMF\n", path.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "io_xdmf_series: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
