// The plane pipeline on N-D plans (col_chunk_planes, col_depth, col_kernel; nd/run.cpp
// Flight::feed): exchanges after the first in chunks of planes of axis 0, each started as
// soon as the FFT step before it has transformed its planes. Against the naive DFT and the
// same plan with one bulk exchange, on 2-D process grids (the pipelined exchanges need two
// grid dimensions: 4 ranks), every chunk size and depth, the caller, thread and blocking
// transports, a batch in flight, forward_many, the lean workspace and single precision.
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
using fft::test::world_size;
namespace ref = nbfft::nd::test;

struct Case {
  Shape shape;
  std::vector<int> axes;
  const char* grid;  // at 4 ranks
};

// Axis 0 untransformed and whole: every exchange after the first is pipelined (a 3-D array
// over two axes split in both would exchange axis 0 itself).
const Case kCases[] = {
    {{5, 8, 6, 10}, {1, 2, 3}, "1x2x2x1"},  // 4-D over three axes, r2c
    {{4, 7, 6, 9}, {1, 2, 3}, "1x2x2x1"},  // odd extents
};

// Forward and backward of the plan, both gathered; in place when lean.
void run(const Plan& p, bool complex_in, std::vector<cplx>& spectrum, std::vector<cplx>& back) {
  const Box whole = ref::whole(p.shape());
  std::vector<cplx> in(p.in_count()), out, again;
  ref::for_each(p.in_box(), [&](const Shape& x, std::int64_t at) {
    const auto i = static_cast<std::size_t>(whole.index(x));
    in[at] = cplx(random_value(5, i), complex_in ? random_value(6, i) : 0.0);
  });
  ref::round_trip(p, in, out, again);
  spectrum = ref::gather(p.out_shape(), p.out_box(), out);
  back = ref::gather(p.shape(), p.in_box(), again);
}

double worst(const std::vector<cplx>& a, const std::vector<cplx>& b) {
  double e = 0, most = 1e-300;
  for (std::size_t i = 0; i < a.size(); ++i) {
    e = std::max(e, std::abs(a[i] - b[i]));
    most = std::max(most, std::abs(b[i]));
  }
  return e / most;
}

void check(const Case& c, const std::string& words) {
  SCOPED_TRACE(words);
  Options o = nbfft::nd::parse_options("effort=estimate proc_grid=" + std::string(c.grid) + " " + words);
  const Plan p(MPI_COMM_WORLD, c.shape, c.axes, o);
  SCOPED_TRACE(p.describe());
  EXPECT_NE(p.describe().find(" chunks of "), std::string::npos) << "no exchange was pipelined";
  Options bulk = o;
  bulk.col_chunk_planes = 0;
  const Plan q(MPI_COMM_WORLD, c.shape, c.axes, bulk);
  const bool complex_in = o.kind == nbfft::nd::Kind::C2C, single = o.precision == nbfft::fft::Precision::Single;
  std::vector<cplx> s1, b1, s2, b2;
  run(p, complex_in, s1, b1);
  run(q, complex_in, s2, b2);
  const double tol = single ? 1e-5 : 1e-13;
  EXPECT_LE(worst(s1, s2), tol) << "forward against one bulk exchange";
  EXPECT_LE(worst(b1, b2), tol) << "backward against one bulk exchange";
  // And the spectrum against the naive DFT (r2c: its first half).
  std::vector<cplx> g(static_cast<std::size_t>(ref::volume(c.shape)));
  for (std::size_t i = 0; i < g.size(); ++i) {
    g[i] = cplx(random_value(5, i), complex_in ? random_value(6, i) : 0.0);
    if (single) g[i] = cplx(float(g[i].real()), float(g[i].imag()));
  }
  const std::vector<cplx> want = ref::dft(c.shape, g, c.axes);
  const Box whole = ref::whole(c.shape), out_whole = ref::whole(p.out_shape());
  double e = 0, most = 1;
  ref::for_each(out_whole, [&](const Shape& x, std::int64_t at) {
    const cplx w = want[static_cast<std::size_t>(whole.index(x))];
    e = std::max(e, std::abs(s1[static_cast<std::size_t>(at)] - w));
    most = std::max(most, std::abs(w));
  });
  EXPECT_LE(e, (single ? 2e-4 : 1e-10) * most) << "forward against the naive DFT";
}

class PlanePipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    if (world_size() != 4) GTEST_SKIP() << "the pipelined exchanges need a 2-D process grid: run at 4 ranks";
  }
};

TEST_F(PlanePipeline, ChunksAndDepths) {
  for (const Case& c : kCases)
    for (const char* w : {"col_chunk_planes=1", "col_chunk_planes=2 col_depth=1", "col_chunk_planes=3 col_depth=2",
                          "col_chunk_planes=2 transform=c2c", "col_chunk_planes=1 precision=single"})
      check(c, w);
}

TEST_F(PlanePipeline, Transports) {
  for (const Case& c : kCases)
    for (const char* w : {"col_chunk_planes=2 transport=pairwise:2@caller", "col_chunk_planes=2 transport=thread",
                          "col_chunk_planes=2 transport=blocking", "col_kernel=overlap", "col_kernel=oneplane",
                          "col_kernel=replace", "col_chunk_planes=1 row_transport=thread col_transport=caller"})
      check(c, w);
}

TEST_F(PlanePipeline, WithOtherOptions) {
  check(kCases[0], "col_chunk_planes=2 lean_workspace=true");
  check(kCases[1], "col_chunk_planes=2 threads=2");
  check(kCases[1], "col_chunk_planes=2 transport=pairwise@caller fields_in_flight=3 progress_chunks=3");
  check(kCases[0], "col_chunk_planes=4 transport=thread");  // 5 planes: a chunk of 4 and a tail of 1
}

TEST(PlanePipelineOptions, KernelReadsBackAndBadValues) {
  Options o = nbfft::nd::parse_options("col_kernel=overlap");
  EXPECT_EQ(nbfft::nd::get_option(o, "col_kernel"), "overlap");
  EXPECT_EQ(o.col_chunk_planes, 1);
  EXPECT_EQ(nbfft::nd::get_option(nbfft::nd::parse_options("col_kernel=allplanes"), "col_kernel"), "allplanes");
  EXPECT_EQ(nbfft::nd::get_option(Options{}, "col_kernel"), "transport");
  Options bad;
  bad.col_chunk_planes = -1;
  ref::expect_error([&] { Plan(MPI_COMM_WORLD, {4, 6}, {0, 1}, bad); }, nbfft::ErrorCode::InvalidArgument,
                    "col_chunk_planes = -1 must be >= 0");
  bad.col_chunk_planes = 0;
  bad.col_depth = -2;
  ref::expect_error([&] { Plan(MPI_COMM_WORLD, {4, 6}, {0, 1}, bad); }, nbfft::ErrorCode::InvalidArgument,
                    "col_depth = -2 must be >= 0");
}

}  // namespace
}  // namespace nbfft::nd::test
