// nd::Plan against a naive DFT of the whole array (axis by axis, no FFTW), at any rank
// count: 2-D to 5-D, chosen axes, r2c and c2c, the grid chosen or set (exchanges with and
// without axes between the two exchanged ones), blocking and a non-blocking transport;
// and the errors every rank raises.
#include "nbfft/error.hpp"
#include "nbfft/nd/plan.hpp"
#include "../fft/fft_test_util.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <complex>
#include <numeric>
#include <string>
#include <vector>

namespace {

using cplx = std::complex<double>;
using nbfft::fft::test::random_value;
using nbfft::fft::test::world_rank;
using nbfft::fft::test::world_size;
using nbfft::nd::Box;
using nbfft::nd::Kind;
using nbfft::nd::Plan;
using Shape = std::vector<std::int64_t>;

std::int64_t volume(const Shape& n) {
  return std::accumulate(n.begin(), n.end(), std::int64_t{1}, std::multiplies<>());
}

// Calls f(global index vector, offset in the box) for every point of b, C order.
template <typename F>
void for_each(const Box& b, F&& f) {
  const auto n = b.count();
  std::vector<std::int64_t> g(b.lo);
  for (std::int64_t at = 0; at < n; ++at) {
    f(g, at);
    for (std::size_t a = g.size(); a-- > 0;) {
      if (++g[a] < b.lo[a] + b.n[a]) break;
      g[a] = b.lo[a];
    }
  }
}

Box whole(const Shape& n) { return Box{Shape(n.size(), 0), n}; }

// The whole array on every rank from each rank's box (a sum: the boxes tile the array).
std::vector<cplx> gather(const Shape& shape, const Box& b, const std::vector<cplx>& local) {
  std::vector<cplx> all(static_cast<std::size_t>(volume(shape)));
  const Box w = whole(shape);
  for_each(b, [&](const Shape& g, std::int64_t at) { all[static_cast<std::size_t>(w.index(g))] += local[at]; });
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(2 * all.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

// Naive DFT (sign -1) of the whole array along each of `axes`.
std::vector<cplx> dft(const Shape& shape, std::vector<cplx> x, const std::vector<int>& axes) {
  const double pi = std::acos(-1.0);
  for (int ax : axes) {
    const std::int64_t n = shape[ax];
    std::int64_t inner = 1;
    for (std::size_t a = ax + 1; a < shape.size(); ++a) inner *= shape[a];
    const std::int64_t outer = volume(shape) / (n * inner);
    std::vector<cplx> y(x.size());
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i)
        for (std::int64_t k = 0; k < n; ++k) {
          cplx s = 0;
          for (std::int64_t j = 0; j < n; ++j)
            s += x[(o * n + j) * inner + i] * std::polar(1.0, -2 * pi * double((j * k) % n) / double(n));
          y[(o * n + k) * inner + i] = s;
        }
    x.swap(y);
  }
  return x;
}

struct Case {
  Shape shape;
  std::vector<int> axes;
  Kind kind;
  std::vector<int> grid;  // empty: chosen
  std::string transport = "blocking";
  nbfft::fft::Effort effort = nbfft::fft::Effort::Estimate;
};

std::string label(const Case& c) {
  std::string s = std::string(nbfft::nd::name(c.kind)) + " shape";
  for (auto v : c.shape) s += " " + std::to_string(v);
  s += " axes";
  for (auto a : c.axes) s += " " + std::to_string(a);
  s += " grid";
  for (auto g : c.grid) s += " " + std::to_string(g);
  return s + " " + c.transport;
}

// Forward against the naive DFT, backward back to the input (both to 1e-12).
void check(const Case& c) {
  SCOPED_TRACE(label(c));
  nbfft::nd::Options o;
  o.kind = c.kind;
  o.grid = c.grid;
  o.transport = c.transport;
  o.effort = c.effort;
  Plan p(MPI_COMM_WORLD, c.shape, c.axes, o);
  SCOPED_TRACE(p.describe());
  const bool r2c = c.kind == Kind::R2C;
  const Box whole_in = whole(c.shape);
  std::vector<cplx> u(p.in_count());
  for_each(p.in_box(), [&](const Shape& g, std::int64_t at) {
    const auto i = static_cast<std::uint64_t>(whole_in.index(g));
    u[at] = r2c ? cplx(random_value(7, i), 0) : cplx(random_value(7, i), random_value(8, i));
  });
  std::vector<cplx> uh(p.out_count());
  std::vector<double> ur(p.in_count());
  for (std::size_t i = 0; i < ur.size(); ++i) ur[i] = u[i].real();
  if (r2c)
    p.forward(ur.data(), ur.size(), uh.data(), uh.size());
  else
    p.forward(u.data(), u.size(), uh.data(), uh.size());

  // The reference: the full c2c DFT, cut to the spectrum's shape (rfftn keeps n/2+1).
  const std::vector<cplx> full = dft(c.shape, gather(c.shape, p.in_box(), u), p.axes());
  const Shape out_shape = p.out_shape();
  std::vector<cplx> ref(static_cast<std::size_t>(volume(out_shape)));
  for_each(whole(out_shape), [&](const Shape& g, std::int64_t at) { ref[at] = full[whole_in.index(g)]; });
  const std::vector<cplx> got = gather(out_shape, p.out_box(), uh);
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::abs(got[i] - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  EXPECT_LT(err, 1e-12 * std::max(1.0, scale)) << "forward";

  double back = 0;
  if (r2c) {
    std::vector<double> v(p.in_count(), 99.0);
    p.backward(uh.data(), uh.size(), v.data(), v.size());
    for (std::size_t i = 0; i < v.size(); ++i) back = std::max(back, std::abs(v[i] - ur[i]));
  } else {
    std::vector<cplx> v(p.in_count(), 99.0);
    p.backward(uh.data(), uh.size(), v.data(), v.size());
    for (std::size_t i = 0; i < v.size(); ++i) back = std::max(back, std::abs(v[i] - u[i]));
  }
  EXPECT_LT(back, 1e-12) << "backward";
}

const char* kNonBlocking = "pairwise:2@caller";

TEST(NdPlan, TwoD) {
  for (const char* t : {"blocking", kNonBlocking}) {
    check({{7, 6}, {0, 1}, Kind::R2C, {}, t});
    check({{7, 6}, {0, 1}, Kind::C2C, {}, t});
    check({{7, 9}, {1, 0}, Kind::R2C, {}, t});  // r2c on axis 0: numpy's last listed axis
  }
  check({{6, 5}, {1}, Kind::R2C, {}});
  check({{6, 5}, {-2}, Kind::C2C, {}});
  check({{6, 8}, {0, 1}, Kind::R2C, {}, "blocking", nbfft::fft::Effort::Measure});
  // c2c may start with its last listed axis split: axis 0 first, then the ranks move to it.
  check({{6, 8}, {0, 1}, Kind::C2C, {1, world_size()}});
  // The one transformed axis split at the input: its ranks move onto the untransformed axis.
  check({{8, 5}, {0}, Kind::C2C, {world_size(), 1}});
}

TEST(NdPlan, ChannelIsLocal) {
  // Transform z and x, keep y: split over y, no exchange, as long as y has a point per rank.
  for (Kind k : {Kind::R2C, Kind::C2C}) check({{5, 4, 6}, {0, 2}, k, {}});
  Plan p(MPI_COMM_WORLD, {5, 4, 6}, {0, 2});
  if (world_size() <= 4) {
    EXPECT_EQ(p.exchanges(), 0) << p.describe();
    EXPECT_EQ(p.grid(), (std::vector<int>{1, world_size(), 1}));
    EXPECT_EQ(p.out_box(), (Box{{0, p.in_box().lo[1], 0}, {5, p.in_box().n[1], 4}}));
  }
}

TEST(NdPlan, ThreeDOverTwoAxesWithExchanges) {
  // y too short for the ranks: z is split and exchanged with x, across y (the copy aside).
  for (const char* t : {"blocking", kNonBlocking}) {
    check({{6, 1, 7}, {0, 2}, Kind::R2C, {}, t});
    check({{6, 3, 8}, {2, 0}, Kind::C2C, {world_size(), 1, 1}, t});
    check({{7, 5, 6}, {0, 2}, Kind::R2C, {world_size(), 1, 1}, t});
  }
  check({{5, 6, 7}, {0, 1, 2}, Kind::R2C, {}});
}

TEST(NdPlan, FourDOverThreeAxes) {
  for (const char* t : {"blocking", kNonBlocking}) {
    check({{3, 5, 4, 6}, {1, 2, 3}, Kind::R2C, {}, t});
    check({{4, 5, 3, 6}, {0, 1, 3}, Kind::C2C, {}, t});
  }
  check({{2, 5, 4, 6}, {1, 2, 3}, Kind::R2C, {1, world_size(), 1, 1}});
  // A pencil grid: two grid dimensions on transformed axes, two exchanges.
  if (world_size() == 4) {
    check({{4, 6, 5, 3}, {0, 1, 2, 3}, Kind::C2C, {2, 2, 1, 1}});
    check({{4, 6, 5, 7}, {0, 1, 3}, Kind::R2C, {2, 2, 1, 1}, kNonBlocking});
  }
}

TEST(NdPlan, FiveDOverTwoAxes) {
  for (const char* t : {"blocking", kNonBlocking}) {
    check({{2, 3, 4, 3, 5}, {1, 3}, Kind::R2C, {}, t});
    check({{2, 3, 4, 3, 5}, {3, 1}, Kind::C2C, {}, t});
  }
  check({{1, 5, 1, 2, 6}, {1, 4}, Kind::R2C, {}});  // the untransformed axes too short: exchanges
  check({{1, 5, 1, 2, 6}, {4, 1}, Kind::R2C, {}});  // r2c on axis 1
}

template <typename F>
void expect_error(F&& f, nbfft::ErrorCode code, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "no error (expected: " << words << ")";
  } catch (const nbfft::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(NdPlan, Errors) {
  using nbfft::ErrorCode;
  const int p = world_size();
  expect_error([] { Plan(MPI_COMM_WORLD, {4, 5}, {0, 2}); }, ErrorCode::InvalidArgument, "out of range");
  expect_error([] { Plan(MPI_COMM_WORLD, {4, 5}, {1, -1}); }, ErrorCode::InvalidArgument, "repeated");
  expect_error([] { Plan(MPI_COMM_WORLD, {4, 0}, {0}); }, ErrorCode::InvalidArgument, "shape[1]");
  expect_error([] { Plan(MPI_COMM_WORLD, {4, 5}, {}); }, ErrorCode::InvalidArgument, "axes is empty");
  if (p > 1)
    expect_error([] { Plan(MPI_COMM_WORLD, {4 + world_rank(), 5}, {0, 1}); }, ErrorCode::RanksDisagree, "shape");
  nbfft::nd::Options o;
  o.grid = {p, 2};
  expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, o); }, ErrorCode::InvalidArgument, "ranks, the communicator");
  o.grid = {1, 1, p};
  expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, o); }, ErrorCode::InvalidArgument, "entries");
  o.transport = "nonsense";
  o.grid = {};
  expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, o); }, ErrorCode::InvalidArgument, "nonsense");
  if (p > 1) {
    nbfft::nd::Options g;
    g.grid = {1, p};  // the r2c axis split at the input
    expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, g); }, ErrorCode::InvalidArgument, "r2c axis 1");
    // Two rows cannot hold more than two ranks, whatever the grid.
    if (p > 2) expect_error([] { Plan(MPI_COMM_WORLD, {2, 9}, {0, 1}); }, ErrorCode::InvalidArgument, "cannot decompose");
  }
  Plan ok(MPI_COMM_WORLD, {6, 8});
  std::vector<double> u(ok.in_count());
  std::vector<cplx> uh(ok.out_count() > 0 && world_rank() == 0 ? ok.out_count() - 1 : ok.out_count());
  expect_error([&] { ok.forward(u.data(), u.size(), uh.data(), uh.size()); }, ErrorCode::InvalidArgument,
               "output array");
  expect_error([&] { ok.forward(reinterpret_cast<cplx*>(uh.data()), 0, uh.data(), uh.size()); },
               ErrorCode::InvalidArgument, "c2c arrays on a r2c plan");
}

}  // namespace
