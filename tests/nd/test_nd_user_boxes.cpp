// nd::Plan with user boxes (the caller's own blocks of the input and of the spectrum): the
// results in the caller's blocks equal the plan's own-box results, gathered, at any rank
// count; uneven and empty blocks, blocks split along another axis than the plan's, a batch
// axis, the transposed output order, one side only, many fields and split phase; and the
// errors every rank raises for blocks that do not tile the array.
#include "nbfft/error.hpp"
#include "nbfft/nd/plan.hpp"
#include "../fft/fft_test_util.hpp"
#include "nd_reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <complex>
#include <numeric>
#include <optional>
#include <vector>

namespace {

using cplx = std::complex<double>;
using nbfft::fft::test::random_value;
using nbfft::fft::test::world_rank;
using nbfft::fft::test::world_size;
using nbfft::nd::Box;
using nbfft::nd::Kind;
using nbfft::nd::Options;
using nbfft::nd::Plan;
using nbfft::nd::test::expect_error;
using nbfft::nd::test::for_each;
using nbfft::nd::test::gather;
using nbfft::nd::test::Shape;
using nbfft::nd::test::whole;

// Rank r's block of `shape` cut along `axis` into uneven slabs (rank r gets about r + 1
// shares), the last rank's empty when there are more than 2 ranks and `empty_last`.
Box slab(const Shape& shape, int axis, int r, bool empty_last = false) {
  const int P = world_size();
  const int holders = empty_last && P > 2 ? P - 1 : P;
  std::int64_t weight = 0;
  for (int q = 0; q < holders; ++q) weight += q + 1;
  const std::int64_t n = shape[static_cast<std::size_t>(axis)];
  std::int64_t lo = 0, before = 0;
  for (int q = 0; q < std::min(r, holders); ++q) before += q + 1;
  lo = n * before / weight;
  const std::int64_t hi = r < holders ? n * (before + r + 1) / weight : n;
  Box b{Shape(shape.size(), 0), shape, {}};
  b.lo[static_cast<std::size_t>(axis)] = r < holders ? lo : n;
  b.n[static_cast<std::size_t>(axis)] = r < holders ? hi - lo : 0;
  return b;
}

// The global input (complex or real), the same on every rank.
cplx value(const Shape& shape, const Shape& g, bool complex_in) {
  const auto i = static_cast<std::uint64_t>(whole(shape).index(g));
  return complex_in ? cplx(random_value(3, i), random_value(4, i)) : cplx(random_value(3, i), 0);
}

// Forward on the plan's own blocks and on the caller's, gathered and compared; backward from
// the caller's spectrum back to the caller's input blocks.
template <typename In>
void compare(const Shape& shape, const std::vector<int>& axes, Options o, const std::optional<Box>& in_box,
             const std::optional<Box>& out_box) {
  const bool complex_in = !std::is_floating_point_v<In>;
  o.kind = complex_in ? Kind::C2C : Kind::R2C;
  Plan own(MPI_COMM_WORLD, shape, axes, o);
  Plan mine(MPI_COMM_WORLD, shape, axes, in_box, out_box, o);
  SCOPED_TRACE(mine.describe());
  if (in_box) {
    EXPECT_EQ(mine.in_box(), *in_box);
  }
  if (out_box) {
    EXPECT_EQ(mine.out_box(), *out_box);
  }
  for (int r = 0; r < world_size(); ++r) {
    if (in_box) {
      EXPECT_EQ(mine.in_box_of_rank(r).lo.size(), shape.size());
    }
    if (!in_box) {
      EXPECT_EQ(mine.in_box_of_rank(r), own.in_box_of_rank(r));
    }
  }
  auto fill = [&](const Plan& p) {
    std::vector<In> u(p.in_count());
    for_each(p.in_box(), [&](const Shape& g, std::int64_t at) {
      const cplx v = value(shape, g, complex_in);
      if constexpr (std::is_floating_point_v<In>)
        u[static_cast<std::size_t>(at)] = v.real();
      else
        u[static_cast<std::size_t>(at)] = v;
    });
    return u;
  };
  const std::vector<In> u_own = fill(own), u_mine = fill(mine);
  std::vector<cplx> s_own(own.out_count()), s_mine(mine.out_count());
  own.forward(u_own.data(), u_own.size(), s_own.data(), s_own.size());
  mine.forward(u_mine.data(), u_mine.size(), s_mine.data(), s_mine.size());
  const Shape out_shape = own.out_shape();
  const std::vector<cplx> g_own = gather(out_shape, own.out_box(), s_own), g_mine = gather(out_shape, mine.out_box(), s_mine);
  double e = 0, scale = 0;
  for (std::size_t i = 0; i < g_own.size(); ++i) {
    e = std::max(e, std::abs(g_own[i] - g_mine[i]));
    scale = std::max(scale, std::abs(g_own[i]));
  }
  EXPECT_LT(e, 1e-12 * std::max(1.0, scale)) << "forward";
  std::vector<In> back(mine.in_count());
  mine.backward(s_mine.data(), s_mine.size(), back.data(), back.size());
  double b = 0;
  for (std::size_t i = 0; i < back.size(); ++i) b = std::max(b, std::abs(cplx(back[i]) - cplx(u_mine[i])));
  EXPECT_LT(b, 1e-12) << "backward";
}

TEST(NdUserBoxes, CallerBlocksGiveThePlansResults) {
  const int r = world_rank();
  for (const char* t : {"blocking", "pairwise:2@caller"}) {
    Options o;
    o.transport = t;
    // 2-D: input in slabs of the last axis (the plan takes the first), spectrum in slabs of the first.
    const Shape s2 = {9, 14};
    compare<double>(s2, {0, 1}, o, slab(s2, 1, r), slab({9, 8}, 0, r, true));
    compare<cplx>(s2, {0, 1}, o, slab(s2, 1, r, true), slab(s2, 1, r));
    // One side only.
    compare<double>(s2, {0, 1}, o, slab(s2, 1, r), std::nullopt);
    compare<double>(s2, {0, 1}, o, std::nullopt, slab({9, 8}, 1, r));
    // 3-D over two axes (the channel), 4-D over three.
    const Shape s3 = {6, 7, 10};
    compare<double>(s3, {0, 2}, o, slab(s3, 2, r), slab({6, 7, 6}, 1, r, true));
    const Shape s4 = {5, 4, 6, 7};
    compare<cplx>(s4, {1, 2, 3}, o, slab(s4, 0, r, true), slab(s4, 3, r));
  }
}

TEST(NdUserBoxes, TransposedPlanAndBatchAxis) {
  const int r = world_rank();
  Options o;
  o.output_order = nbfft::fft::OutputOrder::Transposed;  // the plan's spectrum transposed, the caller's C order
  const Shape s2 = {10, 12};
  compare<double>(s2, {0, 1}, o, slab(s2, 0, r), slab({10, 7}, 1, r));
  Options b;
  b.batch_axis = 0;  // the caller's blocks need not keep the batch whole
  b.transport = "pairwise:2@caller";
  const Shape s3 = {4, 9, 8};
  compare<double>(s3, {1, 2}, b, slab(s3, 0, r, true), slab({4, 9, 5}, 2, r));
}

// Several fields and split phase on user boxes: the one-field results bit for bit.
TEST(NdUserBoxes, ManyAndSplitPhase) {
  const int r = world_rank();
  const Shape s = {8, 11, 6};
  Options o;
  o.transport = "pairwise:2@caller";
  Plan p(MPI_COMM_WORLD, s, {0, 1, 2}, slab(s, 2, r), slab({8, 11, 4}, 1, r, true), o);
  std::vector<std::vector<double>> u(3, std::vector<double>(p.in_count()));
  for (int k = 0; k < 3; ++k)
    for_each(p.in_box(), [&](const Shape& g, std::int64_t at) {
      u[k][static_cast<std::size_t>(at)] = (k + 1) * value(s, g, false).real();
    });
  std::vector<std::vector<cplx>> one(3, std::vector<cplx>(p.out_count())), many = one;
  for (int k = 0; k < 3; ++k) p.forward(u[k].data(), u[k].size(), one[k].data(), one[k].size());
  std::vector<const double*> in;
  std::vector<cplx*> out;
  for (int k = 0; k < 3; ++k) {
    in.push_back(u[k].data());
    out.push_back(many[k].data());
  }
  p.forward_many(in, p.in_count(), out, p.out_count());
  EXPECT_EQ(many, one);
  std::vector<cplx> split(p.out_count());
  auto pending = p.forward_start(u[1].data(), u[1].size(), split.data(), split.size());
  pending.wait();
  EXPECT_EQ(split, one[1]);
  std::vector<double> v(p.in_count());
  auto back = p.backward_start(one[2].data(), one[2].size(), v.data(), v.size());
  back.wait();
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], u[2][i], 1e-12);
}

// A tuned plan on user boxes: its trials reshape from and to them; the results are the same.
TEST(NdUserBoxes, Tuned) {
  const int r = world_rank();
  Options o;
  o.tune = nbfft::fft::TuneEffort::Quick;
  o.tune_budget = 60;
  const Shape s = {6, 8, 7};
  compare<double>(s, {1, 2}, o, slab(s, 2, r), slab({6, 8, 4}, 0, r, true));
}

// Blocks equal to the plan's own cost no reshape.
TEST(NdUserBoxes, ThePlansOwnBlocksAreNotReshaped) {
  const Shape s = {7, 9};
  Plan own(MPI_COMM_WORLD, s, {0, 1});
  Plan same(MPI_COMM_WORLD, s, {0, 1}, own.in_box(), own.out_box());
  EXPECT_FALSE(same.user_boxes());
  EXPECT_EQ(same.describe(), own.describe());
}

// A lean plan with user boxes runs its calls in place: the caller's array holds the
// caller's blocks, each field is staged in the plan's own array of its in-place size. On nd's
// own steps (2-D; 3-D with use_3d_plan off) and on the 3-D plan (3-D over all axes), one
// field, several and split phase, bit for bit the default plan's results on the same boxes;
// out of place and a short array are refused on every rank. (Before, the plan kept the
// default arrays on nd's steps, and on the 3-D plan every in-place call failed.)
TEST(NdUserBoxes, LeanInPlace) {
  const int r = world_rank(), P = world_size();
  for (const Shape& s : {Shape{6, 10}, Shape{6, 5, 8}})
    for (const bool use_3d : {true, false}) {
      if (s.size() == 2 && !use_3d) continue;
      Options o;
      o.use_3d_plan = use_3d;
      std::vector<int> axes(s.size());
      std::iota(axes.begin(), axes.end(), 0);
      Shape spectrum = s;
      spectrum.back() = s.back() / 2 + 1;
      const Box in = slab(s, 1, r), out = slab(spectrum, 0, r, true);
      Plan plain(MPI_COMM_WORLD, s, axes, in, out, o);
      o.lean_workspace = true;
      Plan lean(MPI_COMM_WORLD, s, axes, in, out, o);
      SCOPED_TRACE(lean.describe());
      EXPECT_EQ(lean.uses_3d_plan(), plain.uses_3d_plan());
      // The 3-D plan may keep its default arrays for its own reasons (one rank: its layout).
      const bool is_lean = lean.lean_workspace();
      if (!lean.uses_3d_plan()) {
        ASSERT_TRUE(is_lean);
      }
      EXPECT_NE(lean.describe().find(is_lean ? "lean workspace (in place only)" : "not lean (the 3-D plan's layout)"),
                std::string::npos);
      EXPECT_EQ(lean.in_box(), in);
      EXPECT_EQ(lean.out_box(), out);
      const std::size_t ni = lean.in_count(), no = lean.out_count();
      EXPECT_EQ(lean.inplace_bytes(), std::max(ni * sizeof(double), no * sizeof(cplx)));
      // Two fields, each in its own in-place array, against the default plan out of place.
      const std::size_t nc = lean.inplace_bytes() / sizeof(cplx) + 1;
      std::vector<std::vector<cplx>> w(2, std::vector<cplx>(nc));
      std::vector<std::vector<double>> u(2, std::vector<double>(ni)), v = u;
      std::vector<std::vector<cplx>> uh(2, std::vector<cplx>(no));
      for (std::size_t f = 0; f < 2; ++f) {
        for_each(in, [&](const Shape& g, std::int64_t at) {
          u[f][static_cast<std::size_t>(at)] = (1.0 + f) * value(s, g, false).real();
        });
        plain.forward(u[f].data(), ni, uh[f].data(), no);
        plain.backward(uh[f].data(), no, v[f].data(), ni);
      }
      auto* w0r = reinterpret_cast<double*>(w[0].data());
      std::copy(u[0].begin(), u[0].end(), w0r);
      lean.forward(w0r, 2 * nc, w[0].data(), nc);
      EXPECT_TRUE(std::equal(uh[0].begin(), uh[0].end(), w[0].begin())) << "forward";
      lean.backward(w[0].data(), nc, w0r, 2 * nc);
      EXPECT_TRUE(std::equal(v[0].begin(), v[0].end(), w0r)) << "backward";
      for (std::size_t f = 0; f < 2; ++f) std::copy(u[f].begin(), u[f].end(), reinterpret_cast<double*>(w[f].data()));
      std::vector<double*> wr{w0r, reinterpret_cast<double*>(w[1].data())};
      std::vector<cplx*> wc{w[0].data(), w[1].data()};
      lean.forward_many(wr, 2 * nc, wc, nc);
      for (std::size_t f = 0; f < 2; ++f) {
        EXPECT_TRUE(std::equal(uh[f].begin(), uh[f].end(), w[f].begin())) << "forward_many field " << f;
      }
      auto t = lean.backward_start(wc[1], nc, wr[1], 2 * nc);
      t.wait();
      EXPECT_TRUE(std::equal(v[1].begin(), v[1].end(), wr[1])) << "split-phase backward";
      // Out of place, and an in-place array short of the caller's blocks on one rank.
      std::vector<cplx> other(nc);
      if (is_lean)
        expect_error([&] { lean.forward(w0r, 2 * nc, other.data(), nc); }, nbfft::ErrorCode::InvalidArgument,
                     "transforms in place only");
      const std::size_t need = lean.inplace_bytes(), have = r == P - 1 && need > 0 ? need - 8 : need;
      expect_error([&] { lean.forward(w0r, have / sizeof(double), w[0].data(), have / sizeof(cplx)); },
                   nbfft::ErrorCode::InvalidArgument, "array has");
    }
}

TEST(NdUserBoxes, Errors) {
  const int r = world_rank(), P = world_size();
  const Shape s = {8, 6};
  auto make = [&](std::optional<Box> in, std::optional<Box> out) { Plan(MPI_COMM_WORLD, s, {0, 1}, in, out); };
  const auto inv = nbfft::ErrorCode::InvalidArgument;
  // Outside the array.
  Box b = slab(s, 0, r);
  if (r == 0) b.n[1] = 7;
  expect_error([&] { make(b, std::nullopt); }, inv, "in_box of rank 0 spans [0, 7) along axis 1");
  // Of the wrong rank.
  Box c = slab(s, 0, r);
  if (r == P - 1) c.lo.push_back(0);
  expect_error([&] { make(c, std::nullopt); }, inv, "entries (lo and n) for a 2-D array");
  // Every rank the whole array: overlap (or, at one rank, fine).
  if (P > 1) {
    expect_error([&] { make(whole(s), std::nullopt); }, inv, "in_box of ranks 0 and 1 overlap");
  }
  // A point no rank holds.
  Box d = slab(s, 0, r);
  if (r == P - 1) d.n[1] = 5;  // the last rank's block is never empty
  expect_error([&] { make(d, std::nullopt); }, inv, "in_box of the " + std::to_string(P) + " ranks do not tile the input");
  expect_error([&] { make(d, std::nullopt); }, inv, "; no rank holds point (");
  // A spectrum box of the input's size (r2c halves the last axis to 4).
  expect_error([&] { make(std::nullopt, slab(s, 0, r)); }, inv, "out_box of rank");
  // Not C order.
  Box e = slab(s, 0, r);
  e.order = {1, 0};
  expect_error([&] { make(e, std::nullopt); }, inv, "C order");
  // Ranks that disagree on whether there are user boxes.
  if (P > 1)
    expect_error([&] { make(r == 0 ? std::optional<Box>(slab(s, 0, r)) : std::nullopt, std::nullopt); },
                 nbfft::ErrorCode::RanksDisagree, "in_box given");
  // A short array on a user-box plan: the caller's count.
  Plan p(MPI_COMM_WORLD, s, {0, 1}, slab(s, 1, r), std::nullopt);
  std::vector<double> u(p.in_count() + 1);
  std::vector<cplx> uh(p.out_count());
  // (the last rank's block is the largest: never empty)
  expect_error([&] { p.forward(u.data(), r == P - 1 ? p.in_count() - 1 : p.in_count(), uh.data(), uh.size()); }, inv,
               "the input array has");
}

}  // namespace
