// nd::Plan with threads inside each rank (Options::threads): every shape and option a plan
// takes, with 3 threads against the same plan with one (whose results tests/nd/test_nd_plan
// checks against a naive DFT), forward, backward back to the input, several fields in
// flight and split phase; and that the threads are really there (options(), describe()).
#include "nbfft/error.hpp"
#include "nbfft/nd/plan.hpp"
#include "fft/threads.hpp"
#include "../fft/fft_test_util.hpp"
#include "nd_reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using nbfft::fft::AxisKind;
using nbfft::fft::test::random_value;
using nbfft::nd::Kind;
using nbfft::nd::Options;
using nbfft::nd::Plan;
using nbfft::nd::test::Shape;

struct Case {
  std::string what;
  Shape shape;
  std::vector<int> axes;
  Options o;
};

template <typename V>
double max_abs(const V& v) {
  double m = 0;
  for (const auto& x : v) m = std::max(m, static_cast<double>(std::abs(x)));
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

template <typename V>
double max_diff(const V& a, const V& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, static_cast<double>(std::abs(a[i] - b[i])));
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

// In: the input's element, Out: the spectrum's.
template <typename In, typename Out>
void check(const Case& c) {
  SCOPED_TRACE(c.what);
  using R = std::conditional_t<std::is_same_v<In, float> || std::is_same_v<In, std::complex<float>>, float, double>;
  const double tol = std::is_same_v<R, float> ? 2e-5 : 1e-12;
  Options one = c.o, three = c.o;
  one.threads = 1;
  three.threads = 3;
  const Plan p1(MPI_COMM_WORLD, c.shape, c.axes, one);
  const Plan p3(MPI_COMM_WORLD, c.shape, c.axes, three);
  SCOPED_TRACE(p3.describe());
  // With the thread engine's own core, at most the rank's CPUs - 1 compute threads.
  const bool engine_thread = c.o.transport.find("@thread") != std::string::npos;
  const int threads = nbfft::fft::compute_threads(3, engine_thread, c.o.engine_own_core);
  EXPECT_EQ(p3.options().threads, threads);
  EXPECT_EQ(p1.options().threads, 1);
  EXPECT_EQ(p3.uses_3d_plan(), p1.uses_3d_plan());
  if (!p3.uses_3d_plan() && threads > 1) {
    EXPECT_NE(p3.describe().find("; " + std::to_string(threads) + " threads"), std::string::npos);
  }
  ASSERT_EQ(p3.in_box(), p1.in_box());
  ASSERT_EQ(p3.out_box(), p1.out_box());
  const std::size_t n = p1.in_count(), m = p1.out_count();
  std::vector<In> u(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::uint64_t>(i) + 100000u * static_cast<std::uint64_t>(nbfft::fft::test::world_rank());
    if constexpr (std::is_same_v<In, R>) {
      u[i] = static_cast<R>(random_value(3, k));
    } else {
      u[i] = In(static_cast<R>(random_value(3, k)), static_cast<R>(random_value(4, k)));
    }
  }
  std::vector<Out> ref(m), got(m);
  p1.forward(u.data(), n, ref.data(), m);
  p3.forward(u.data(), n, got.data(), m);
  const double scale = std::max(1.0, max_abs(ref));
  EXPECT_LE(max_diff(got, ref), tol * scale) << "forward";
  std::vector<In> back(n);
  p3.backward(got.data(), m, back.data(), n);
  EXPECT_LE(max_diff(back, u), tol * std::max(1.0, max_abs(u))) << "backward";

  // Three fields through the pipeline, and one split-phase call with the caller's work between.
  std::vector<std::vector<In>> ins(3, u);
  for (std::size_t f = 1; f < 3; ++f)
    for (auto& x : ins[f]) x = x * static_cast<R>(f + 1);
  std::vector<std::vector<Out>> outs(3, std::vector<Out>(m));
  std::vector<const In*> ip;
  std::vector<Out*> op;
  for (std::size_t f = 0; f < 3; ++f) {
    ip.push_back(ins[f].data());
    op.push_back(outs[f].data());
  }
  p3.forward_many(ip, n, op, m);
  for (std::size_t f = 0; f < 3; ++f) {
    std::vector<Out> want(ref);
    for (auto& x : want) x = x * static_cast<R>(f + 1);
    EXPECT_LE(max_diff(outs[f], want), tol * scale * static_cast<double>(f + 1)) << "forward_many field " << f;
  }
  std::vector<Out> split(m);
  auto pending = p3.forward_start(u.data(), n, split.data(), m);
  volatile double work = 0;
  for (int i = 0; i < 1000; ++i) work = work + 1;  // the caller's own work meanwhile
  pending.wait();
  EXPECT_LE(max_diff(split, ref), tol * scale) << "split phase";
}

Options with(Kind kind, std::string transport = "blocking") {
  Options o;
  o.kind = kind;
  o.transport = std::move(transport);
  o.effort = nbfft::fft::Effort::Estimate;
  return o;
}

using D = double;
using Z = std::complex<double>;

// User boxes on a 2-D plan (columns in, rows of the spectrum out): the
// reshapes' copies run on the plan's threads, with the one-thread plan's bytes.
TEST(NdThreads, UserBoxes) {
  const int P = nbfft::fft::test::world_size(), r = nbfft::fft::test::world_rank();
  const std::int64_t ny = 1024, nx = 800, kx = nx / 2 + 1;  // blocks of several 256 KiB copy ranges
  auto part = [&](std::int64_t n) { return std::array<std::int64_t, 2>{n * r / P, n * (r + 1) / P - n * r / P}; };
  const auto c = part(nx), k = part(ny);
  const nbfft::Box in{{0, c[0]}, {ny, c[1]}, {}}, out{{k[0], 0}, {k[1], kx}, {}};
  Options o = with(Kind::R2C);
  o.threads = 1;
  const Plan p1(MPI_COMM_WORLD, {ny, nx}, {0, 1}, in, out, o);
  o.threads = 3;
  const Plan p3(MPI_COMM_WORLD, {ny, nx}, {0, 1}, in, out, o);
  const std::size_t n = p1.in_count(), m = p1.out_count();
  std::vector<D> u(n), back1(n), back3(n);
  for (std::size_t i = 0; i < n; ++i) u[i] = random_value(5, i + 1000003u * static_cast<std::uint64_t>(r));
  std::vector<Z> s1(m), s3(m);
  p1.forward(u.data(), n, s1.data(), m);
  p3.forward(u.data(), n, s3.data(), m);
  EXPECT_LE(max_diff(s3, s1), 1e-12 * std::max(1.0, max_abs(s1))) << "forward";
  p1.backward(s1.data(), m, back1.data(), n);
  p3.backward(s3.data(), m, back3.data(), n);
  EXPECT_LE(max_diff(back3, back1), 1e-12) << "backward";
  EXPECT_LE(max_diff(back3, u), 1e-12) << "round trip";
}

TEST(NdThreads, TwoD) {
  // At one rank the whole 2-D FFT is one step: split in two so that each has an axis to share.
  check<D, Z>({"2-D r2c", {24, 20}, {0, 1}, with(Kind::R2C)});
  check<Z, Z>({"2-D c2c", {18, 30}, {0, 1}, with(Kind::C2C)});
}

TEST(NdThreads, ThreeDOverAllAxes) {
  Options own = with(Kind::R2C);
  own.use_3d_plan = false;
  check<D, Z>({"3-D r2c on nd's own steps", {12, 10, 16}, {0, 1, 2}, own});
  check<D, Z>({"3-D r2c on the 3-D plan (threads passed on)", {12, 10, 16}, {0, 1, 2}, with(Kind::R2C)});
}

TEST(NdThreads, ThreeDOverTwoAxes) {
  check<D, Z>({"3-D r2c over axes 0, 2", {12, 5, 16}, {0, 2}, with(Kind::R2C)});
  check<Z, Z>({"3-D c2c over axes 1, 2", {6, 12, 14}, {1, 2}, with(Kind::C2C)});
}

TEST(NdThreads, FourDBatch) {
  Options o = with(Kind::R2C);
  o.batch_axis = 0;
  check<D, Z>({"4-D batch of 3 fields", {3, 8, 6, 10}, {1, 2, 3}, o});
}

TEST(NdThreads, Options) {
  Options t = with(Kind::R2C);
  t.output_order = nbfft::fft::OutputOrder::Transposed;
  check<D, Z>({"transposed output order", {16, 12}, {0, 1}, t});
  check<D, Z>({"transposed output order, transposes of several row blocks", {150, 136}, {0, 1}, t});
  Options k = with(Kind::C2C);
  k.kinds = {AxisKind::Dct2, AxisKind::Periodic, AxisKind::Dst1};
  k.use_3d_plan = false;
  check<Z, Z>({"r2r kinds", {10, 12, 9}, {0, 1, 2}, k});
  Options s = with(Kind::R2C);
  s.precision = nbfft::fft::Precision::Single;
  check<float, std::complex<float>>({"single precision", {20, 16}, {0, 1}, s});
  // Fields in flight on the caller engine: chunks with progress passes, shared by the threads.
  Options caller = with(Kind::R2C, "pairwise@caller");
  caller.fields_in_flight = 2;
  caller.progress_chunks = 6;
  check<D, Z>({"caller engine, progress chunks", {16, 14}, {0, 1}, caller});
  Options thread = with(Kind::C2C, "pairwise@thread");
  thread.engine_own_core = true;
  check<Z, Z>({"thread engine", {10, 12}, {0, 1}, thread});
}

// A lean plan runs in place: the same array in and out.
TEST(NdThreads, LeanWorkspace) {
  Options o = with(Kind::C2C);
  o.lean_workspace = true;
  Options one = o, three = o;
  one.threads = 1;
  three.threads = 3;
  const Shape shape{14, 18};
  const Plan p1(MPI_COMM_WORLD, shape, {0, 1}, one), p3(MPI_COMM_WORLD, shape, {0, 1}, three);
  ASSERT_TRUE(p3.lean_workspace());
  const std::size_t n = p1.inplace_bytes() / sizeof(Z);
  std::vector<Z> a(n), b;
  for (std::size_t i = 0; i < p1.in_count(); ++i) a[i] = Z(random_value(5, i), random_value(6, i));
  b = a;
  const std::vector<Z> u = a;
  p1.forward(a.data(), n, a.data(), n);
  p3.forward(b.data(), n, b.data(), n);
  std::vector<Z> ra(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(p1.out_count()));
  std::vector<Z> rb(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(p1.out_count()));
  EXPECT_LE(max_diff(rb, ra), 1e-12 * std::max(1.0, max_abs(ra)));
  p3.backward(b.data(), n, b.data(), n);
  b.resize(p1.in_count());
  std::vector<Z> u0(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(p1.in_count()));
  EXPECT_LE(max_diff(b, u0), 1e-12);
}

TEST(NdThreads, BadCounts) {
  Options o = with(Kind::R2C);
  o.threads = -1;
  nbfft::nd::test::expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, o); }, nbfft::ErrorCode::InvalidArgument,
                                "threads = -1 must be in [0, 1024]");
  o.threads = 2000;
  nbfft::nd::test::expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, o); }, nbfft::ErrorCode::InvalidArgument,
                                "threads = 2000");
}

}  // namespace
