// nd::Plan against a naive DFT of the whole array (axis by axis, no FFTW), at any rank
// count: 2-D to 5-D, chosen axes, r2c and c2c, the grid chosen or set (exchanges with and
// without axes between the two exchanged ones), blocking and a non-blocking transport;
// and the errors every rank raises.
#include "nbfft/error.hpp"
#include "nbfft/nd/options_text.hpp"
#include "nbfft/nd/plan.hpp"
#include "local/transform.hpp"
#include "../fft/fft_test_util.hpp"
#include "nd_reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
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
using nbfft::fft::AxisKind;
using nbfft::nd::Box;
using nbfft::nd::Kind;
using nbfft::nd::Plan;
using nbfft::nd::test::dft;
using nbfft::nd::test::expect_error;
using nbfft::nd::test::for_each;
using nbfft::nd::test::gather;
using nbfft::nd::test::Shape;
using nbfft::nd::test::volume;
using nbfft::nd::test::whole;

struct Case {
  Shape shape;
  std::vector<int> axes;
  Kind kind;
  std::vector<int> grid;  // empty: chosen
  std::string transport = "blocking";
  nbfft::fft::Effort effort = nbfft::fft::Effort::Estimate;
  std::vector<AxisKind> kinds = {};  // empty: all periodic
  bool single = false;
  nbfft::fft::Norm norm = nbfft::fft::Norm::Backward;
  nbfft::fft::OutputOrder order = nbfft::fft::OutputOrder::Natural;
};

std::string label(const Case& c) {
  std::string s = std::string(nbfft::nd::name(c.kind)) + (c.single ? " single" : "") + " shape";
  for (auto v : c.shape) s += " " + std::to_string(v);
  s += " axes";
  for (auto a : c.axes) s += " " + std::to_string(a);
  s += " kinds";
  for (auto k : c.kinds) s += std::string(" ") + nbfft::fft::name(k);
  s += " grid";
  for (auto g : c.grid) s += " " + std::to_string(g);
  return s + " " + c.transport + " " + nbfft::fft::name(c.order);
}

// The plan's calls on vectors of any of its element types.
template <typename In, typename Out>
void fwd(const Plan& p, const std::vector<In>& in, std::vector<Out>& out) {
  p.forward(in.data(), in.size(), out.data(), out.size());
}
template <typename In, typename Out>
void bwd(const Plan& p, const std::vector<In>& in, std::vector<Out>& out) {
  p.backward(in.data(), in.size(), out.data(), out.size());
}

// Forward against the naive transform, backward back to the input (double: both to 1e-12;
// single: 2e-5 relative to the largest value).
// The plan options a case asks for.
nbfft::nd::Options options_of(const Case& c) {
  nbfft::nd::Options o;
  o.kind = c.kind;
  o.grid = c.grid;
  o.transport = c.transport;
  o.effort = c.effort;
  o.kinds = c.kinds;
  o.norm = c.norm;
  o.precision = c.single ? nbfft::fft::Precision::Single : nbfft::fft::Precision::Double;
  o.output_order = c.order;
  return o;
}

template <typename T>
void check_typed(const Case& c) {
  using C = std::complex<T>;
  Plan p(MPI_COMM_WORLD, c.shape, c.axes, options_of(c));
  SCOPED_TRACE(p.describe());
  // The spectrum's memory order: natural, or the two slowest transformed axes traded.
  std::vector<int> natural(c.shape.size());
  std::iota(natural.begin(), natural.end(), 0);
  std::vector<int> order = natural;
  if (c.order == nbfft::fft::OutputOrder::Transposed && p.axes().size() >= 2) {
    std::vector<int> two = p.axes();
    std::sort(two.begin(), two.end());
    std::swap(order[static_cast<std::size_t>(two[0])], order[static_cast<std::size_t>(two[1])]);
  }
  EXPECT_EQ(p.out_box().order, order);
  EXPECT_EQ(p.out_order(), order);
  EXPECT_EQ(p.in_box().order, natural);
  const double tol = c.single ? 2e-5 : 1e-12;
  const bool real_in = c.kind == Kind::R2C, real_out = p.real_spectrum();
  const Box whole_in = whole(c.shape);
  std::vector<C> u(p.in_count());
  std::vector<T> ur(p.in_count());
  std::vector<cplx> ud(p.in_count());  // the input as the reference sees it (rounded to T)
  for_each(p.in_box(), [&](const Shape& g, std::int64_t at) {
    const auto i = static_cast<std::uint64_t>(whole_in.index(g));
    u[at] = real_in ? C(T(random_value(7, i)), 0) : C(T(random_value(7, i)), T(random_value(8, i)));
    ur[at] = u[at].real();
    ud[at] = cplx(u[at].real(), u[at].imag());
  });
  std::vector<C> uh(real_out ? 0 : p.out_count());
  std::vector<T> uhr(real_out ? p.out_count() : 0);
  const std::vector<C> u0 = u;
  const std::vector<T> ur0 = ur;
  if (real_out)
    fwd(p, ur, uhr);
  else if (real_in)
    fwd(p, ur, uh);
  else
    fwd(p, u, uh);
  EXPECT_TRUE(u == u0 && ur == ur0) << "forward changed its input";
  const std::vector<C> uh0 = uh;
  const std::vector<T> uhr0 = uhr;

  // The reference: the full transform, cut to the spectrum's shape (the halved axis keeps n/2+1).
  std::vector<cplx> full = dft(c.shape, gather(c.shape, p.in_box(), ud), p.axes(), c.kinds);
  double n_log = 1;
  for (std::size_t i = 0; i < p.axes().size(); ++i)
    n_log *= nbfft::fft::logical_size(p.kinds()[i], c.shape[p.axes()[i]]);
  const double sf = c.norm == nbfft::fft::Norm::Forward ? 1 / n_log
                    : c.norm == nbfft::fft::Norm::Ortho ? 1 / std::sqrt(n_log)
                                                        : 1.0;
  const Shape out_shape = p.out_shape();
  std::vector<cplx> ref(static_cast<std::size_t>(volume(out_shape)));
  for_each(whole(out_shape), [&](const Shape& g, std::int64_t at) { ref[at] = full[whole_in.index(g)] * sf; });
  std::vector<cplx> mine(p.out_count());
  for (std::size_t i = 0; i < mine.size(); ++i)
    mine[i] = real_out ? cplx(uhr[i], 0) : cplx(uh[i].real(), uh[i].imag());
  const std::vector<cplx> got = gather(out_shape, p.out_box(), mine);
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::abs(got[i] - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  EXPECT_LT(err, tol * std::max(1.0, scale)) << "forward";

  double back = 0;
  const double bs = c.norm == nbfft::fft::Norm::None ? n_log : 1.0;  // unscaled: N times the input
  std::vector<T> vr(real_in ? p.in_count() : 0, T(99));
  std::vector<C> vc(real_in ? 0 : p.in_count(), C(99));
  if (real_in) {
    if (real_out)
      bwd(p, uhr, vr);
    else
      bwd(p, uh, vr);
    for (std::size_t i = 0; i < vr.size(); ++i) back = std::max(back, std::abs(double(vr[i]) - bs * double(ur[i])) / bs);
  } else {
    bwd(p, uh, vc);
    for (std::size_t i = 0; i < vc.size(); ++i) back = std::max(back, std::abs(cplx(vc[i]) - bs * cplx(u[i])) / bs);
  }
  EXPECT_LT(back, tol) << "backward";
  EXPECT_TRUE(uh == uh0 && uhr == uhr0) << "backward changed its input";

  // In place, one array of the larger size in and out (which skips copies the out-of-place
  // calls make), and the same on a plan with the lean workspace (whose second work array is
  // that one): the same results, bit for bit (the same FFTW plans on the same data).
  const auto in_place = [&](const Plan& q, const std::string& what) {
    const std::size_t in_t = q.in_count() * (real_in ? 1 : 2), out_t = q.out_count() * (real_out ? 1 : 2);
    EXPECT_EQ(q.inplace_bytes() >= std::max(in_t, out_t) * sizeof(T), true);
    std::vector<C> w(q.inplace_bytes() / sizeof(C) + 1);
    T* wt = reinterpret_cast<T*>(w.data());
    // Counts that cover the in-place size (a lean 3-D plan's may exceed both boxes).
    const std::size_t nt = w.size() * 2, nc = w.size();
    const std::size_t in_n = real_in ? nt : nc, out_n = real_out ? nt : nc;
    if (real_in)
      std::copy(ur.begin(), ur.end(), wt);
    else
      std::copy(u.begin(), u.end(), w.begin());
    if (real_out)
      q.forward(wt, in_n, wt, out_n);
    else if (real_in)
      q.forward(wt, in_n, w.data(), out_n);
    else
      q.forward(w.data(), in_n, w.data(), out_n);
    EXPECT_TRUE(real_out ? std::equal(uhr.begin(), uhr.end(), wt) : std::equal(uh.begin(), uh.end(), w.begin()))
        << what << " forward";
    if (real_in) {
      if (real_out)
        q.backward(wt, out_n, wt, in_n);
      else
        q.backward(w.data(), out_n, wt, in_n);
      EXPECT_TRUE(std::equal(vr.begin(), vr.end(), wt)) << what << " backward";
    } else {
      q.backward(w.data(), out_n, w.data(), in_n);
      EXPECT_TRUE(std::equal(vc.begin(), vc.end(), w.begin())) << what << " backward";
    }
  };
  in_place(p, "in place");
  nbfft::nd::Options lo = options_of(c);
  lo.lean_workspace = true;
  Plan lean(MPI_COMM_WORLD, c.shape, c.axes, lo);
  SCOPED_TRACE(lean.describe());
  if (lean.lean_workspace() && !lean.uses_3d_plan()) {
    EXPECT_LT(lean.workspace_bytes(), p.workspace_bytes());
  }
  in_place(lean, "lean");
}

// Arrays that FFTW's alignment rules keep from being used directly (one element off an
// aligned start): the plan copies instead, with the same results.
TEST(NdPlan, MisalignedArrays) {
  Plan p(MPI_COMM_WORLD, {6, 10}, {0, 1});
  std::vector<double> u(p.in_count() + 1), v(p.in_count() + 1, 0.0);
  std::vector<cplx> uh(p.out_count());
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = random_value(3, i + 100 * std::uint64_t(world_rank()));
  for (int off : {0, 1}) {
    p.forward(u.data() + off, p.in_count(), uh.data(), uh.size());
    p.backward(uh.data(), uh.size(), v.data() + off, p.in_count());
    double e = 0;
    for (std::size_t i = 0; i < p.in_count(); ++i) e = std::max(e, std::abs(v[i + off] - u[i + off]));
    EXPECT_LT(e, 1e-12) << "offset " << off;
  }
}

// Each case in both output orders.
void check(Case c) {
  for (auto order : {nbfft::fft::OutputOrder::Natural, nbfft::fft::OutputOrder::Transposed}) {
    c.order = order;
    SCOPED_TRACE(label(c));
    if (c.single)
      check_typed<float>(c);
    else
      check_typed<double>(c);
  }
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
  // Unscaled backward: the c2r writes the caller's array itself.
  for (auto n : {nbfft::fft::Norm::Forward, nbfft::fft::Norm::None}) {
    Case c{{7, 6}, {0, 1}, Kind::R2C, {}};
    c.norm = n;
    check(c);
  }
  // c2c may start with its last listed axis split: axis 0 first, then the ranks move to it.
  check({{6, 8}, {0, 1}, Kind::C2C, {1, world_size()}});
  // The one transformed axis split at the input: its ranks move onto the untransformed axis.
  check({{8, 5}, {0}, Kind::C2C, {world_size(), 1}});
}

// Rows of 4 KiB (256 complex doubles): the transposed order's swap reads them through its
// buffered tiles (nd/run.cpp), forward for (6, 256) and backward for (256, 6); at more
// ranks the exchanges' transposes see other row lengths.
// Arrays too small for the ranks: some ranks hold no point at some stages (allow_empty, the
// default), and the results are still the naive DFT's.
TEST(NdPlan, EmptyParts) {
  for (const char* t : {"blocking", kNonBlocking}) {
    check({{2, 9}, {0, 1}, Kind::R2C, {}, t});
    check({{1, 3}, {0, 1}, Kind::C2C, {}, t});
    check({{3, 2, 5}, {0, 2}, Kind::R2C, {}, t});
    check({{2, 3, 2, 3}, {1, 2, 3}, Kind::C2C, {}, t});
  }
  // A set grid with more ranks than points along an axis.
  const int p = world_size();
  check({{2, 7}, {0, 1}, Kind::R2C, {p, 1}});
}

TEST(NdPlan, TransposedRowsOfFourKiB) {
  for (const char* t : {"blocking", kNonBlocking}) {
    check({{6, 256}, {0, 1}, Kind::C2C, {}, t});
    check({{256, 6}, {0, 1}, Kind::C2C, {}, t});
    check({{3, 256, 5}, {0, 1}, Kind::C2C, {}, t});
  }
}

TEST(NdPlan, ChannelIsLocal) {
  // Transform z and x, keep y: split over y, no exchange, as long as y has a point per rank.
  for (Kind k : {Kind::R2C, Kind::C2C}) check({{5, 4, 6}, {0, 2}, k, {}});
  Plan p(MPI_COMM_WORLD, {5, 4, 6}, {0, 2});
  if (world_size() <= 4) {
    EXPECT_EQ(p.exchanges(), 0) << p.describe();
    EXPECT_EQ(p.grid(), (std::vector<int>{1, world_size(), 1}));
    EXPECT_EQ(p.out_box(), (Box{{0, p.in_box().lo[1], 0}, {5, p.in_box().n[1], 4}, {}}));
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

TEST(NdPlan, SinglePrecision) {
  Case c{{7, 6}, {0, 1}, Kind::R2C, {}};
  c.single = true;
  for (Kind k : {Kind::R2C, Kind::C2C}) {
    c.kind = k;
    check(c);
  }
  c = {{5, 3, 6}, {0, 2}, Kind::R2C, {world_size(), 1, 1}, kNonBlocking};  // an exchange across axis 1
  c.single = true;
  check(c);
  c = {{3, 5, 4, 6}, {1, 2, 3}, Kind::C2C, {}};
  c.single = true;
  c.kinds = {AxisKind::Dst2, AxisKind::Periodic, AxisKind::Dct1};
  check(c);
}

TEST(NdPlan, SineCosineKinds) {
  using K = AxisKind;
  // Every kind on a 2-D c2c plan (r2r on the real and imaginary parts), and its inverse.
  for (K k : {K::Dct1, K::Dct2, K::Dct3, K::Dct4, K::Dst1, K::Dst2, K::Dst3, K::Dst4}) {
    Case c{{7, 6}, {0, 1}, Kind::C2C, {}};
    c.kinds = {k, K::Periodic};
    check(c);
  }
  for (const char* t : {"blocking", kNonBlocking}) {
    // Real input, the last listed axis r2r: the halved axis is the last periodic one (0).
    Case c{{7, 9}, {0, 1}, Kind::R2C, {}, t};
    c.kinds = {K::Periodic, K::Dst2};
    check(c);
    // The r2r axis split at the input: transformed after the exchange, on complex data.
    c = {{6, 3, 8}, {0, 2}, Kind::R2C, {world_size(), 1, 1}, t};
    c.kinds = {K::Dct2, K::Periodic};
    check(c);
    // Every listed axis r2r: a real spectrum, real exchanges.
    c = {{6, 5, 7}, {0, 2}, Kind::R2C, {world_size(), 1, 1}, t};
    c.kinds = {K::Dst1, K::Dct3};
    check(c);
  }
  // A channel: x periodic, y carried, z sine (Dirichlet walls); 4-D over three with mixed kinds.
  Case c{{5, 4, 6}, {0, 2}, Kind::R2C, {}};
  c.kinds = {K::Dst1, K::Periodic};
  for (auto n : {nbfft::fft::Norm::Backward, nbfft::fft::Norm::Ortho, nbfft::fft::Norm::Forward}) {
    c.norm = n;
    check(c);
  }
  c = {{4, 5, 3, 6}, {0, 1, 3}, Kind::R2C, {}};
  c.kinds = {K::Dct4, K::Periodic, K::Dst3};
  check(c);
  if (world_size() == 4) {
    c = {{4, 6, 5, 3}, {0, 1, 2, 3}, Kind::R2C, {2, 2, 1, 1}};
    c.kinds = {K::Dct2, K::Dst2, K::Dct1, K::Dst4};
    check(c);
  }
}

// A 3-D array over all its axes runs on the 3-D nbfft::fft::Plan (Options::use_3d_plan):
// the same boxes of every rank, grids, orders and counts as nd's own steps, results equal
// to them to rounding, and the naive DFT through check() (which runs the 3-D plan).
template <typename T>
void same_as_own_steps(const Case& c, bool delegated) {
  using C = std::complex<T>;
  nbfft::nd::Options o = options_of(c);
  Plan a(MPI_COMM_WORLD, c.shape, c.axes, o);
  o.use_3d_plan = false;
  Plan b(MPI_COMM_WORLD, c.shape, c.axes, o);
  SCOPED_TRACE(a.describe() + " | " + b.describe());
  EXPECT_EQ(a.uses_3d_plan(), delegated);
  EXPECT_FALSE(b.uses_3d_plan());
  EXPECT_EQ(a.describe().find("the 3-D plan") != std::string::npos, delegated);
  EXPECT_EQ(a.grid(), b.grid());
  EXPECT_EQ(a.out_grid(), b.out_grid());
  EXPECT_EQ(a.out_order(), b.out_order());
  EXPECT_EQ(a.out_shape(), b.out_shape());
  EXPECT_EQ(a.exchanges(), b.exchanges());
  EXPECT_EQ(a.in_count(), b.in_count());
  EXPECT_EQ(a.out_count(), b.out_count());
  for (int r = 0; r < world_size(); ++r) {
    EXPECT_EQ(a.in_box_of_rank(r), b.in_box_of_rank(r)) << "rank " << r;
    EXPECT_EQ(a.out_box_of_rank(r), b.out_box_of_rank(r)) << "rank " << r;
    EXPECT_EQ(a.out_box_of_rank(r).order, b.out_box_of_rank(r).order) << "rank " << r;
  }
  EXPECT_EQ(a.in_box(), b.in_box());
  EXPECT_EQ(a.out_box(), b.out_box());
  const bool real_in = c.kind == Kind::R2C, real_out = a.real_spectrum();
  const auto at = [&](std::size_t i) { return static_cast<std::uint64_t>(i) + 1000 * std::uint64_t(world_rank()); };
  // Forward and backward through both plans; the largest difference relative to the largest value.
  const auto diff = [](const auto& x, const auto& y) {
    double d = 0, s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      d = std::max(d, double(std::abs(x[i] - y[i])));
      s = std::max(s, double(std::abs(y[i])));
    }
    return d / std::max(1.0, s);
  };
  const double tol = c.single ? 2e-5 : 1e-12;
  // Both plans forward from u, then backward from their own spectra (ua, ub) into va, vb.
  const auto both = [&](const auto& u, auto& ua, auto& ub, auto& va, auto& vb) {
    fwd(a, u, ua);
    fwd(b, u, ub);
    EXPECT_LT(diff(ua, ub), tol) << "forward";
    bwd(a, ua, va);
    bwd(b, ub, vb);
    EXPECT_LT(diff(va, vb), tol) << "backward";
  };
  if (real_in) {
    std::vector<T> u(a.in_count()), va(a.in_count()), vb(a.in_count());
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = T(random_value(5, at(i)));
    if (real_out) {
      std::vector<T> ua(a.out_count()), ub(a.out_count());
      both(u, ua, ub, va, vb);
    } else {
      std::vector<C> ua(a.out_count()), ub(a.out_count());
      both(u, ua, ub, va, vb);
    }
    if (c.norm != nbfft::fft::Norm::None) {
      EXPECT_LT(diff(va, u), tol) << "round trip";
    }
  } else {
    std::vector<C> u(a.in_count()), va(a.in_count()), vb(a.in_count()), ua(a.out_count()), ub(a.out_count());
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = C(T(random_value(5, at(i))), T(random_value(6, at(i))));
    both(u, ua, ub, va, vb);
  }
}

void check_3d(Case c, bool delegated = true) {
  check(c);  // against the naive DFT, both output orders
  for (auto order : {nbfft::fft::OutputOrder::Natural, nbfft::fft::OutputOrder::Transposed}) {
    c.order = order;
    SCOPED_TRACE(label(c));
    if (c.single)
      same_as_own_steps<float>(c, delegated);
    else
      same_as_own_steps<double>(c, delegated);
  }
}

TEST(NdPlan, ThreeDOverAllAxesRunsOnThe3DPlan) {
  using K = AxisKind;
  const int P = world_size();
  for (const char* t : {"blocking", kNonBlocking}) {
    check_3d({{5, 6, 7}, {0, 1, 2}, Kind::R2C, {}, t});
    check_3d({{5, 6, 7}, {-3, -2, -1}, Kind::C2C, {}, t});
    check_3d({{3, 8, 6}, {0, 1, 2}, Kind::R2C, {}, t});  // at 4 ranks: ranks on y (the 3-D plan's 4x1)
  }
  check_3d({{7, 5, 4}, {1, 0, 2}, Kind::R2C, {P, 1, 1}});  // axes in another order, the r2c axis still the last
  if (P == 4) {  // pencils: two exchanges
    check_3d({{5, 6, 7}, {0, 1, 2}, Kind::R2C, {2, 2, 1}});
    check_3d({{6, 5, 7}, {0, 1, 2}, Kind::C2C, {2, 2, 1}, kNonBlocking});
  }
  Case c{{5, 4, 6}, {0, 1, 2}, Kind::R2C, {}};
  c.single = true;
  check_3d(c);
  c.kind = Kind::C2C;
  check_3d(c);
  // Kinds: sine/cosine on z and y, x periodic (halved); every axis r2r (a real spectrum);
  // c2c with an r2r x. Norms.
  c = {{5, 6, 8}, {0, 1, 2}, Kind::R2C, {}};
  c.kinds = {K::Dst1, K::Dct2, K::Periodic};
  for (auto n : {nbfft::fft::Norm::Backward, nbfft::fft::Norm::Ortho, nbfft::fft::Norm::None}) {
    c.norm = n;
    check_3d(c);
  }
  c.norm = nbfft::fft::Norm::Forward;
  c.kinds = {K::Dct1, K::Dst3, K::Dct4};
  check_3d(c);
  c = {{6, 5, 7}, {0, 1, 2}, Kind::C2C, {}};
  c.kinds = {K::Periodic, K::Dct3, K::Dst2};
  check_3d(c);
  // Kept on nd's own steps: the r2c axis not the last, the last axis split at the input,
  // a set grid whose spectrum is not the 3-D plan's pencil.
  check_3d({{6, 5, 7}, {2, 1, 0}, Kind::R2C, {}}, false);
  if (P > 1) check_3d({{6, 5, 8}, {0, 1, 2}, Kind::C2C, {1, 1, P}}, false);
  // Ranks set on y alone: nd's exchange then moves them onto z, whose spectrum the 3-D plan
  // keeps whole (its y-slabs move them onto x).
  if (P > 1) check_3d({{5, 6, 7}, {0, 1, 2}, Kind::R2C, {1, P, 1}}, false);
  c = {{5, 6, 8}, {0, 1, 2}, Kind::R2C, {}};
  c.kinds = {K::Periodic, K::Periodic, K::Dst2};  // halves axis 1
  check_3d(c, false);
}

// The calls the 3-D plan refuses but nd's allow: an output overlapping the input, fields
// sharing an input; misaligned arrays; several fields and split phase, equal to one-field calls.
TEST(NdPlan, ThreeDCallsOnThe3DPlan) {
  Plan p(MPI_COMM_WORLD, {5, 6, 7}, {0, 1, 2});
  ASSERT_TRUE(p.uses_3d_plan()) << p.describe();
  const std::size_t ni = p.in_count(), no = p.out_count();
  std::vector<double> u(ni + 1), v(ni + 1, 0.0);
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = random_value(3, i + 100 * std::uint64_t(world_rank()));
  std::vector<cplx> uh(no), uh1(no + 1);
  p.forward(u.data(), ni, uh.data(), no);
  for (int off : {0, 1}) {  // one element off an aligned start
    p.forward(u.data() + off, ni, uh1.data() + off, no);
    p.backward(uh1.data() + off, no, v.data() + off, ni);
    double e = 0;
    for (std::size_t i = 0; i < ni; ++i) e = std::max(e, std::abs(v[i + off] - u[i + off]));
    EXPECT_LT(e, 1e-12) << "offset " << off;
  }
  // In place: the spectrum written over the input (one array of the larger size).
  std::vector<cplx> w(std::max(no, (ni + 1) / 2 + 1));
  auto* wr = reinterpret_cast<double*>(w.data());
  std::copy(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(ni), wr);
  p.forward(wr, ni, w.data(), no);
  EXPECT_TRUE(std::equal(uh.begin(), uh.end(), w.begin())) << "in place forward";
  p.backward(w.data(), no, wr, ni);
  double e = 0;
  for (std::size_t i = 0; i < ni; ++i) e = std::max(e, std::abs(wr[i] - u[i]));
  EXPECT_LT(e, 1e-12) << "in place backward";
  // Two fields from one input; split phase.
  std::vector<cplx> a(no), b(no);
  p.forward_many(std::vector<const double*>{u.data(), u.data()}, ni, std::vector<cplx*>{a.data(), b.data()}, no);
  EXPECT_EQ(a, uh);
  EXPECT_EQ(b, uh);
  std::fill(a.begin(), a.end(), cplx(0));
  auto pend = p.forward_start(u.data(), ni, a.data(), no);
  EXPECT_TRUE(pend.active());
  pend.test();
  pend.wait();
  EXPECT_FALSE(pend.active());
  EXPECT_EQ(a, uh);
  std::vector<double> back(ni);
  {
    auto pb = p.backward_start(uh.data(), no, back.data(), ni);  // completed by its destructor
  }
  e = 0;
  for (std::size_t i = 0; i < ni; ++i) e = std::max(e, std::abs(back[i] - u[i]));
  EXPECT_LT(e, 1e-12) << "split-phase backward";
  // The errors are nd's own, as before.
  std::vector<cplx> short_out(world_rank() == 0 && no > 0 ? no - 1 : no);
  expect_error([&] { p.forward(u.data(), ni, short_out.data(), short_out.size()); },
               nbfft::ErrorCode::InvalidArgument, "output array");
  expect_error([&] { p.forward(reinterpret_cast<cplx*>(uh.data()), 0, uh.data(), uh.size()); },
               nbfft::ErrorCode::InvalidArgument, "c2c arrays on a r2c plan");
}

// The lean workspace: one work array, the caller's in-place array the other. Made on every
// rank count for 2-D and 3-D-over-two-axes plans with exchanges (uneven blocks too: the
// in-place array then holds every stage), with several fields and split phase, each equal bit
// for bit to the default plan; refused for a batch axis; its call errors.
TEST(NdPlan, LeanWorkspace) {
  for (const Shape& shape : {Shape{8, 14}, Shape{8, 12}, Shape{5, 8, 14}}) {
    nbfft::nd::Options o;
    o.output_order = nbfft::fft::OutputOrder::Transposed;
    const std::vector<int> axes = shape.size() == 3 ? std::vector<int>{0, 2} : std::vector<int>{0, 1};
    Plan p(MPI_COMM_WORLD, shape, axes, o);
    o.lean_workspace = true;
    Plan lean(MPI_COMM_WORLD, shape, axes, o);
    SCOPED_TRACE(lean.describe());
    ASSERT_TRUE(lean.lean_workspace());
    EXPECT_NE(lean.describe().find("lean workspace (in place only)"), std::string::npos);
    EXPECT_LT(lean.workspace_bytes(), p.workspace_bytes());
    const std::size_t ni = lean.in_count(), no = lean.out_count();
    EXPECT_GE(lean.inplace_bytes(), std::max(ni * sizeof(double), no * sizeof(cplx)));
    // Two fields, each its own in-place array, against the default plan out of place.
    const std::size_t nc = lean.inplace_bytes() / sizeof(cplx) + 1;
    std::vector<std::vector<cplx>> w(2, std::vector<cplx>(nc));
    std::vector<double> u(ni), v(ni);
    std::vector<cplx> uh(no);
    for (std::size_t f = 0; f < 2; ++f) {
      for (std::size_t i = 0; i < ni; ++i) u[i] = random_value(11 + f, i + 1000 * std::uint64_t(world_rank()));
      std::copy(u.begin(), u.end(), reinterpret_cast<double*>(w[f].data()));
    }
    p.forward(u.data(), ni, uh.data(), no);  // the second field's
    p.backward(uh.data(), no, v.data(), ni);
    std::vector<double*> wr{reinterpret_cast<double*>(w[0].data()), reinterpret_cast<double*>(w[1].data())};
    std::vector<cplx*> wc{w[0].data(), w[1].data()};
    lean.forward_many(wr, 2 * nc, wc, nc);
    EXPECT_TRUE(std::equal(uh.begin(), uh.end(), w[1].begin())) << "forward_many";
    auto t = lean.backward_start(wc[1], nc, wr[1], 2 * nc);
    t.wait();
    EXPECT_TRUE(std::equal(v.begin(), v.end(), wr[1])) << "split-phase backward";
    // The call's errors, on every rank.
    std::vector<cplx> other(nc);
    expect_error([&] { lean.forward(wr[0], 2 * nc, other.data(), nc); }, nbfft::ErrorCode::InvalidArgument,
                 "transforms in place only");
    // Counts that cover the input and the spectrum but not a larger stage between (uneven
    // blocks; on some rank at least, so on every rank).
    int larger = lean.inplace_bytes() > std::max(ni * sizeof(double), no * sizeof(cplx)), any = 0;
    MPI_Allreduce(&larger, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (shape == Shape{8, 12} && world_size() == 4) {
      EXPECT_TRUE(any) << "a case with a larger stage";
    }
    const std::size_t n_real = std::max(ni, 2 * no), n_cplx = (n_real + 1) / 2;
    if (any)
      expect_error([&] { lean.forward(wr[0], n_real, wc[0], n_cplx); }, nbfft::ErrorCode::InvalidArgument,
                   "the in-place array has");
    // 8 bytes off on rank 0: refused where the plan's backend needs alignment (FFTW's SIMD),
    // run where it does not (MKL).
    auto* off = reinterpret_cast<double*>(w[0].data()) + (world_rank() == 0 ? 1 : 0);
    const nbfft::local::Backend b = lean.options().backend == nbfft::fft::Backend::Mkl ? nbfft::local::Backend::Mkl
                                                                                     : nbfft::local::Backend::Fftw;
    const bool needs_alignment = nbfft::local::misalignment<double>(b, reinterpret_cast<void*>(std::uintptr_t{72})) != 0;
    if ((ni > 0 || world_rank() != 0) && needs_alignment)
      expect_error([&] { lean.forward(off, 2 * nc - 2, reinterpret_cast<cplx*>(off), nc - 1); },
                   nbfft::ErrorCode::InvalidArgument, "SIMD alignment");
  }
  // Ranks that disagree on it fail together (it decides a collective at construction).
  if (world_size() > 1) {
    nbfft::nd::Options d;
    d.lean_workspace = world_rank() == 0;
    expect_error([&] { Plan(MPI_COMM_WORLD, {8, 14}, {0, 1}, d); }, nbfft::ErrorCode::RanksDisagree, "lean_workspace");
  }
  // A batch axis: its fields share the in-place array, so the plan keeps the default arrays.
  nbfft::nd::Options o;
  o.batch_axis = 0;
  o.lean_workspace = true;
  Plan p(MPI_COMM_WORLD, {3, 8, 14}, {1, 2}, o);
  EXPECT_FALSE(p.lean_workspace());
  EXPECT_NE(p.describe().find("not lean: a batch axis"), std::string::npos) << p.describe();
  // A batch in place all the same: each field's spectrum lies at another offset of the
  // array than its input (the call copies the input first), equal to the call out of place.
  const std::size_t ni = p.in_count(), no = p.out_count();
  std::vector<double> u(ni);
  for (std::size_t i = 0; i < ni; ++i) u[i] = random_value(5, i + 1000 * std::uint64_t(world_rank()));
  std::vector<cplx> uh(no), w(p.inplace_bytes() / sizeof(cplx) + 1);
  p.forward(u.data(), ni, uh.data(), no);
  std::copy(u.begin(), u.end(), reinterpret_cast<double*>(w.data()));
  p.forward(reinterpret_cast<double*>(w.data()), 2 * w.size(), w.data(), w.size());
  EXPECT_TRUE(std::equal(uh.begin(), uh.end(), w.begin())) << "a batch in place";
}

// row_transport / col_transport: the first exchange on one transport, the later ones on
// another, on nd's own steps and through the 3-D plan; the bytes of the one-transport plan
// (an exchange moves the same bytes whichever way), several fields in flight; and the options
// text, which reads transport=mixed and gives the same plan back.
TEST(NdPlan, PerExchangeTransports) {
  struct PT {
    Shape shape;
    std::vector<int> axes;
    bool use_3d;
  };
  const int P = world_size();
  for (const PT& c : {PT{{12, 10, 16}, {0, 1, 2}, false}, PT{{12, 10, 16}, {0, 1, 2}, true},
                      PT{{16, 12}, {0, 1}, false}, PT{{6, 4, 8, 10}, {1, 2, 3}, false}}) {
    nbfft::nd::Options one, two;
    one.effort = two.effort = nbfft::fft::Effort::Estimate;
    one.use_3d_plan = two.use_3d_plan = c.use_3d;
    one.fields_in_flight = two.fields_in_flight = 2;
    if (c.shape.size() == 4 && P > 1) one.grid = two.grid = {1, P, 1, 1};
    if (c.shape.size() == 3 && P > 1) one.grid = two.grid = {P > 2 ? 2 : P, P > 2 ? P / 2 : 1, 1};
    if (c.shape.size() == 3 && P == 3) one.grid = two.grid = {3, 1, 1};
    two.row_transport = "pairwise:2@caller";
    two.col_transport = "linear@thread";
    const Plan a(MPI_COMM_WORLD, c.shape, c.axes, one), b(MPI_COMM_WORLD, c.shape, c.axes, two);
    SCOPED_TRACE(b.describe());
    EXPECT_EQ(b.uses_3d_plan(), c.use_3d);
    EXPECT_EQ(nbfft::nd::exchange_transport(b.options(), 0), "pairwise:2@caller");
    EXPECT_EQ(nbfft::nd::exchange_transport(b.options(), 1), "linear@thread");
    if (b.exchanges() >= 1) {
      EXPECT_NE(b.describe().find("pairwise:2@caller"), std::string::npos);
    }
    if (b.exchanges() >= 2) {
      EXPECT_NE(b.describe().find("linear@thread"), std::string::npos);
    }
    const std::string text = nbfft::nd::options_text(b.options());
    EXPECT_NE(text.find("row_transport=pairwise:2@caller"), std::string::npos) << text;
    EXPECT_NE(text.find("transport=mixed"), std::string::npos) << text;
    const nbfft::nd::Options back = nbfft::nd::parse_options(text);
    EXPECT_EQ(nbfft::nd::exchange_transport(back, 0), "pairwise:2@caller");
    EXPECT_EQ(nbfft::nd::exchange_transport(back, 1), "linear@thread");
    // transport= sets every exchange's again, as on the 3-D plan.
    nbfft::nd::Options again = back;
    nbfft::nd::apply_options(again, "transport=native");
    EXPECT_EQ(nbfft::nd::exchange_transport(again, 0), "native");
    EXPECT_EQ(nbfft::nd::exchange_transport(again, 1), "native");
    std::vector<std::vector<double>> u(3, std::vector<double>(a.in_count()));
    for (std::size_t f = 0; f < u.size(); ++f)
      for (std::size_t i = 0; i < u[f].size(); ++i) u[f][i] = random_value(9 + f, i + 1000 * std::uint64_t(world_rank()));
    std::vector<std::vector<cplx>> ua(3, std::vector<cplx>(a.out_count())), ub = ua;
    std::vector<const double*> in;
    std::vector<cplx*> oa, ob;
    for (std::size_t f = 0; f < u.size(); ++f) {
      in.push_back(u[f].data());
      oa.push_back(ua[f].data());
      ob.push_back(ub[f].data());
    }
    a.forward_many(in, a.in_count(), oa, a.out_count());
    b.forward_many(in, b.in_count(), ob, b.out_count());
    for (std::size_t f = 0; f < u.size(); ++f) EXPECT_EQ(ua[f], ub[f]) << "field " << f;
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
    if (p > 2) {
      nbfft::nd::Options strict;
      strict.allow_empty = false;
      expect_error([&] { Plan(MPI_COMM_WORLD, {2, 9}, {0, 1}, strict); }, ErrorCode::InvalidArgument,
                   "cannot decompose");
    }
  }
  nbfft::nd::Options k;
  k.kinds = {nbfft::fft::AxisKind::Dct2};
  expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, k); }, ErrorCode::InvalidArgument, "kinds has 1 entries");
  k.kinds = {nbfft::fft::AxisKind::Dct1, nbfft::fft::AxisKind::Periodic};
  expect_error([&] { Plan(MPI_COMM_WORLD, {1, 8}, {0, 1}, k); }, ErrorCode::InvalidArgument, "dct1 needs at least 2");
  {
    k.kinds = {nbfft::fft::AxisKind::Dct1, nbfft::fft::AxisKind::Dst1};  // a real spectrum
    Plan real(MPI_COMM_WORLD, {4, 8}, {0, 1}, k);
    EXPECT_TRUE(real.real_spectrum());
    std::vector<double> a(real.in_count()), b(real.out_count());
    std::vector<cplx> z(real.out_count());
    expect_error([&] { real.forward(a.data(), a.size(), z.data(), z.size()); }, ErrorCode::InvalidArgument,
                 "complex spectrum on a plan whose spectrum is real");
    nbfft::nd::Options s;
    s.precision = nbfft::fft::Precision::Single;
    Plan single(MPI_COMM_WORLD, {4, 8}, {0, 1}, s);
    std::vector<cplx> zs(single.out_count());
    expect_error([&] { single.forward(a.data(), a.size(), zs.data(), zs.size()); }, ErrorCode::InvalidArgument,
                 "double arrays on a single precision plan");
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
