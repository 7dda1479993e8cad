// Padded N-D plans (nd::Options::padding, 3/2-rule dealiasing) against the naive reference:
// forward is the physical field's DFT truncated to the spectrum's modes (nd_reference.hpp
// resize_axis) and scaled by N/M, backward that spectrum zero-padded and inverted on the
// physical grid. On 2-D, 3-D (nd's own steps and the 3-D plan), 3-D over two axes and a 4-D
// batch; r2c and c2c, odd and even n, every norm, a transposed output, lean, threads, fields
// in flight with progress chunks, single precision; and the errors of bad padding.
#include "nbfft/error.hpp"
#include "nbfft/nd/options_text.hpp"
#include "nbfft/nd/plan.hpp"
#include "../fft/fft_test_util.hpp"
#include "nd_reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

// In the reference's namespace: Plan, Options, Box, cplx and Shape as it names them.
namespace nbfft::nd::test {
namespace {

using fft::test::random_value;
namespace ref = nbfft::nd::test;

// The plan of `shape` (the spectrum's grid) over `axes` with `text` (options), checked against
// the reference both ways.
void check(const Shape& shape, const std::vector<int>& axes, const std::string& text, bool uses_3d = false) {
  SCOPED_TRACE(text);
  // use_3d_plan=false (not a table key: C++ only) keeps nd's own steps on a 3-D array.
  std::string words = text;
  const std::string own = "use_3d_plan=false";
  const auto at = words.find(own);
  if (at != std::string::npos) words.erase(at, own.size());
  Options o = nbfft::nd::parse_options("effort=estimate " + words);
  o.use_3d_plan = at == std::string::npos;
  const Plan p(MPI_COMM_WORLD, shape, axes, o);
  SCOPED_TRACE(p.describe());
  if (uses_3d) {
    EXPECT_TRUE(p.uses_3d_plan());
  }
  if (!o.use_3d_plan) {
    EXPECT_FALSE(p.uses_3d_plan());
  }
  const bool single = o.precision == nbfft::fft::Precision::Single, complex_in = o.kind == nbfft::nd::Kind::C2C;
  // The physical grid: floor(n * R) on the listed axes, the others as given.
  const std::vector<double> r = o.padding.empty() ? std::vector<double>{1.0} : o.padding;
  Shape phys = shape;
  for (std::size_t i = 0; i < axes.size(); ++i)
    phys[axes[i]] = static_cast<std::int64_t>(std::floor(double(shape[axes[i]]) * r[r.size() == 1 ? 0 : i]));
  ASSERT_EQ(p.shape(), phys);
  const Box whole = ref::whole(phys);
  std::vector<cplx> g(static_cast<std::size_t>(ref::volume(phys)));
  for (std::size_t i = 0; i < g.size(); ++i) {
    g[i] = cplx(random_value(3, i), complex_in ? random_value(4, i) : 0.0);
    if (single) g[i] = cplx(float(g[i].real()), float(g[i].imag()));
  }
  // Each listed axis's kind: the periodic ones padded, the r2r ones (ratio 1) as they are.
  std::vector<nbfft::fft::AxisKind> kinds = o.kinds;
  kinds.resize(axes.size(), nbfft::fft::AxisKind::Periodic);
  std::vector<int> periodic, r2r;
  std::vector<nbfft::fft::AxisKind> r2r_inverse;
  double N = 1, M = 1;  // the logical sizes' products
  for (std::size_t i = 0; i < axes.size(); ++i) {
    N *= double(nbfft::fft::logical_size(kinds[i], shape[axes[i]]));
    M *= double(nbfft::fft::logical_size(kinds[i], phys[axes[i]]));
    if (nbfft::fft::is_r2r(kinds[i])) {
      r2r.push_back(axes[i]);
      r2r_inverse.push_back(nbfft::fft::inverse(kinds[i]));
    } else {
      periodic.push_back(axes[i]);
    }
  }
  double fs = N / M, bs = 1 / N;  // the norm's scales of the padded transforms
  if (o.norm == nbfft::fft::Norm::Forward) fs = 1 / M, bs = 1;
  if (o.norm == nbfft::fft::Norm::Ortho) fs = std::sqrt(N) / M, bs = 1 / std::sqrt(N);
  if (o.norm == nbfft::fft::Norm::None) fs = bs = 1;
  Shape s = phys;
  std::vector<cplx> want = ref::dft(phys, g, axes, kinds);
  for (int a : axes) want = ref::resize_axis(s, want, a, shape[a]);
  for (auto& w : want) w *= fs;
  std::vector<cplx> back = want;
  for (int a : axes) back = ref::resize_axis(s, back, a, phys[a]);
  back = ref::idft(phys, back, periodic);
  if (!r2r.empty()) back = ref::dft(phys, back, r2r, r2r_inverse);
  for (auto& w : back) w *= bs / fs;  // the inverse of the unscaled spectrum
  const Box spec_whole = ref::whole(shape);

  std::vector<cplx> in(p.in_count()), out(p.out_count()), again(p.in_count());
  ref::for_each(p.in_box(), [&](const Shape& x, std::int64_t at) { in[at] = g[whole.index(x)]; });
  ref::round_trip(p, in, out, again);
  // The spectrum of every rank against the reference (r2c: its first half along the halved axis).
  const std::vector<cplx> got = ref::gather(p.out_shape(), p.out_box(), out);
  double err = 0, most = 1e-300, bk = 0, bmost = 1e-300;
  ref::for_each(ref::whole(p.out_shape()), [&](const Shape& x, std::int64_t at) {
    const cplx w = want[spec_whole.index(x)];
    err = std::max(err, std::abs(got[at] - w));
    most = std::max(most, std::abs(w));
  });
  ref::for_each(p.in_box(), [&](const Shape& x, std::int64_t at) {
    const cplx w = back[whole.index(x)] * fs;
    bk = std::max(bk, std::abs(again[at] - (complex_in ? w : cplx(w.real(), 0))));
    bmost = std::max(bmost, std::abs(w));
  });
  MPI_Allreduce(MPI_IN_PLACE, &bk, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &bmost, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double tol = single ? 3e-5 : 1e-12;
  EXPECT_LE(err, tol * most * 10) << "forward";
  EXPECT_LE(bk, tol * bmost * 10) << "backward";
}

TEST(NdPadding, TwoD) {
  check({9, 10}, {0, 1}, "padding=1.5");                   // odd and even n, the r2c axis padded
  check({8, 7}, {0, 1}, "transform=c2c padding=2,1.5");    // per axis
  check({6, 8}, {1, 0}, "padding=1,1.34 norm=ortho");      // the axes listed the other way
  check({10, 12}, {0, 1}, "padding=1.5 precision=single norm=forward");
  check({7, 6}, {0, 1}, "transform=c2c padding=1.5 norm=none output_order=transposed");
}

TEST(NdPadding, ThreeD) {
  check({6, 8, 10}, {0, 1, 2}, "padding=1.5 use_3d_plan=false");
  check({6, 8, 10}, {0, 1, 2}, "padding=1.5 use_3d_plan=false output_order=transposed");
  check({5, 7, 6}, {0, 1, 2}, "transform=c2c padding=2,1,1.5 use_3d_plan=false");
  check({6, 5, 8}, {2, 0}, "transform=c2c padding=1.5,2");  // over two axes, the middle one untouched
  check({6, 5, 8}, {0, 2}, "padding=1.5");
}

TEST(NdPadding, ThreeDOnTheThreeDPlan) {
  // Slabs of the z axis (nd's axis 0) over every rank: the 3-D plan's own decomposition, so
  // it runs there (its x is nd's axis 2, whose ratio comes last).
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string grid = "proc_grid=" + std::to_string(size) + "x1x1";
  check({8, 6, 10}, {0, 1, 2}, grid + " padding=1.5,1,2", true);
  check({8, 6, 10}, {0, 1, 2}, grid + " transform=c2c padding=2", true);
}

TEST(NdPadding, WithOtherOptions) {
  check({6, 8, 10}, {0, 1, 2}, "padding=1.5 use_3d_plan=false lean_workspace=true");
  check({9, 10}, {0, 1}, "padding=1.5,2 lean_workspace=true");
  check({6, 8, 10}, {0, 1, 2}, "padding=1.5 use_3d_plan=false threads=2");
  check({12, 10}, {0, 1}, "transform=c2c padding=1.5 threads=2");
  check({6, 10}, {0, 1}, "padding=1,1.5 kinds=dct2,periodic");  // an r2r axis (unpadded) beside a padded one
}

TEST(NdPadding, BatchInFlight) {
  check({3, 6, 5, 8}, {1, 2, 3}, "padding=1.5 batch_axis=0 fields_in_flight=3 transport=pairwise@caller progress_chunks=3");
  check({4, 9, 6}, {1, 2}, "transform=c2c padding=2,1.5 batch_axis=0 transport=thread");
}

TEST(NdPadding, BadPadding) {
  const auto plan = [](const std::string& text, const std::vector<int>& axes = {0, 1}) {
    Plan(MPI_COMM_WORLD, {8, 8, 6}, axes, nbfft::nd::parse_options(text));
  };
  ref::expect_error([&] { plan("padding=1.5,2,1"); }, nbfft::ErrorCode::InvalidArgument,
                    "padding 1.5,2,1 has 3 entries for 2 axes (one ratio for every listed axis, or one per listed axis)");
  ref::expect_error([&] { plan("padding=1.5 kinds=dct2,periodic"); }, nbfft::ErrorCode::InvalidArgument,
                    "axis 0 is dct2, and padding (3/2-rule dealiasing) applies to periodic axes only");
  ref::expect_error([&] { plan("padding=0.5"); }, nbfft::ErrorCode::InvalidArgument,
                    "padding='0.5' is not valid");
  Options o;
  o.padding = {0.5};
  ref::expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8, 6}, {0, 1}, o); }, nbfft::ErrorCode::InvalidArgument,
                    "padding along axis 0 is 0.5; a padding ratio must be a number >= 1");
}

}  // namespace
}  // namespace nbfft::nd::test
