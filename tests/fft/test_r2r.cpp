// Transform kinds per axis (Options::kinds): every r2r kind on every axis, mixed kinds,
// r2c / c2c / real-to-real, double and single, slabs and pencils, against a serial FFTW
// reference applied axis by axis to the gathered global field; normalization round trips
// under every norm; the overlapped paths (transports, thread engine, multi-field, split
// phase, lean workspace) against the plain transform; and the plan-time errors.
#include "nbfft/fft/fft.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <optional>
#include <string>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;
const AxisKind kR2r[] = {AxisKind::Dct1, AxisKind::Dct2, AxisKind::Dct3, AxisKind::Dct4,
                         AxisKind::Dst1, AxisKind::Dst2, AxisKind::Dst3, AxisKind::Dst4};

// FFTW's kind for ours, written out here so the test does not trust the library's table.
fftw_r2r_kind fftw_kind(AxisKind k) {
  switch (k) {
    case AxisKind::Dct1: return FFTW_REDFT00;
    case AxisKind::Dct2: return FFTW_REDFT10;
    case AxisKind::Dct3: return FFTW_REDFT01;
    case AxisKind::Dct4: return FFTW_REDFT11;
    case AxisKind::Dst1: return FFTW_RODFT00;
    case AxisKind::Dst2: return FFTW_RODFT10;
    case AxisKind::Dst3: return FFTW_RODFT01;
    default: return FFTW_RODFT11;
  }
}

// Serial forward transform of a complex global field (x fastest, interleaved), one axis at
// a time: the DFT on periodic axes, the r2r kind on the real and imaginary parts otherwise.
std::vector<double> serial_kinds(std::vector<double> a, const Grid& n, const AxisKinds& k) {
  const std::int64_t stride[3] = {1, n[0], n[0] * n[1]};  // complex elements
  for (int ax = 0; ax < 3; ++ax) {
    const int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
    fftw_plan p;
    if (!is_r2r(k[ax])) {
      fftw_iodim64 d{n[ax], stride[ax], stride[ax]};
      fftw_iodim64 h[2] = {{n[o1], stride[o1], stride[o1]}, {n[o2], stride[o2], stride[o2]}};
      auto* c = reinterpret_cast<fftw_complex*>(a.data());
      p = fftw_plan_guru64_dft(1, &d, 2, h, c, c, FFTW_FORWARD, FFTW_ESTIMATE);
    } else {
      fftw_iodim64 d{n[ax], 2 * stride[ax], 2 * stride[ax]};
      fftw_iodim64 h[3] = {{n[o1], 2 * stride[o1], 2 * stride[o1]}, {n[o2], 2 * stride[o2], 2 * stride[o2]}, {2, 1, 1}};
      const fftw_r2r_kind kind = fftw_kind(k[ax]);
      p = fftw_plan_guru64_r2r(1, &d, 3, h, a.data(), a.data(), &kind, FFTW_ESTIMATE);
    }
    fftw_execute(p);
    fftw_destroy_plan(p);
  }
  return a;
}

std::string kinds_name(const AxisKinds& k, TransformKind t, int m1, int m2) {
  return kinds_str(k) + " " + name(t) + " on " + std::to_string(m1) + "x" + std::to_string(m2);
}

Options options(const AxisKinds& k, TransformKind t, int m1, int m2) {
  Options o = test_options(m1, m2, t);
  o.kinds = k;
  return o;
}

// True on every rank when it is true on every rank.
bool all_ranks(bool ok) {
  int a = ok, all = 0;
  MPI_Allreduce(&a, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// One plan of precision R (double or float) against the serial reference: forward equals
// it (norm backward: the forward is FFTW's), backward(forward(f)) = f.
template <typename R>
void check_against_serial(const Grid& n, const AxisKinds& k, TransformKind t, int m1, int m2, double tol) {
  Options o = options(k, t, m1, m2);
  o.precision = std::is_same_v<R, double> ? Precision::Double : Precision::Single;
  const Plan plan(MPI_COMM_WORLD, n, o);
  const std::string what = kinds_name(k, t, plan.m1(), plan.m2()) + (o.precision == Precision::Single ? " single" : "");
  const int cin = t == TransformKind::R2C ? 1 : 2;
  const int cout = real_spectrum(o) ? 1 : 2;
  EXPECT_EQ(plan.out_bytes(), static_cast<std::size_t>(plan.out_count() * cout) * sizeof(R)) << what;
  EXPECT_EQ(plan.decomposition().xc, halves_x(o) ? n[0] / 2 + 1 : n[0]) << what;
  const std::vector<double> f = random_box(plan.in_box(), n, cin, 7);
  std::vector<R> in(f.begin(), f.end()), out(static_cast<std::size_t>(plan.out_count() * cout)), back(in.size());
  plan.forward_bytes(in.data(), in.size() * sizeof(R), out.data(), out.size() * sizeof(R));
  plan.backward_bytes(out.data(), out.size() * sizeof(R), back.data(), back.size() * sizeof(R));
  const std::vector<double> outd(out.begin(), out.end()), backd(back.begin(), back.end());
  EXPECT_LT(rel_error(backd, f), tol) << what << ": backward(forward(f)) != f";

  const auto got = gather_box(plan.out_box(), outd, n, cout);  // xc x ny x nz, packed by gather_box as nx-wide
  const auto input = gather_box(plan.in_box(), f, n, cin);
  double err = 0;
  if (world_rank() == 0) {
    std::vector<double> c(static_cast<std::size_t>(2 * n[0] * n[1] * n[2]), 0.0);
    for (std::size_t i = 0; i < c.size() / 2; ++i) {
      c[2 * i] = input[i * cin];
      if (cin == 2) c[2 * i + 1] = input[2 * i + 1];
    }
    const auto ref = serial_kinds(c, n, k);
    // The spectrum's x extent (gather_box places it in an nx-wide array).
    const std::int64_t xc = halves_x(o) ? n[0] / 2 + 1 : n[0];
    std::vector<double> a, b;
    for (std::int64_t z = 0; z < n[2]; ++z)
      for (std::int64_t y = 0; y < n[1]; ++y)
        for (std::int64_t x = 0; x < xc; ++x) {
          const std::size_t g = static_cast<std::size_t>(x + n[0] * (y + n[1] * z));
          for (int q = 0; q < cout; ++q) {
            a.push_back(got[g * cout + q]);
            b.push_back(ref[2 * g + q]);
          }
          if (cout == 1) {
            EXPECT_NEAR(ref[2 * g + 1], 0.0, 1e-9) << what << ": reference not real";
          }
        }
    err = rel_error(a, b);
  }
  MPI_Bcast(&err, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  EXPECT_LT(err, tol) << what << ": forward differs from serial FFTW";
}

// The kind x axis cases rotate through the process grids (case i on grid i mod the grids'
// count), so every grid meets every kind and every axis without the full product: that
// product made a 4-rank run take minutes under MPICH, whose ranks busy-poll on 2 cores.
template <typename F>
const F& rotate(const std::vector<F>& grids, std::size_t i) {
  return grids[i % grids.size()];
}

TEST(R2r, EveryKindOnEveryAxisAgainstSerialFftw) {
  const Grid n{9, 7, 6};  // uneven over 2-4 ranks, odd and even lengths
  const auto grids = factorizations(world_size());
  for (std::size_t ki = 0; ki < std::size(kR2r); ++ki)
    for (int axis = 0; axis < 3; ++axis) {
      const AxisKind kind = kR2r[ki];
      const auto& f = rotate(grids, ki + static_cast<std::size_t>(axis));
      AxisKinds k{AxisKind::Periodic, AxisKind::Periodic, AxisKind::Periodic};
      k[axis] = kind;
      check_against_serial<double>(n, k, TransformKind::C2C, f[0], f[1], 1e-12);
      if (axis > 0) check_against_serial<double>(n, k, TransformKind::R2C, f[0], f[1], 1e-12);
    }
}

TEST(R2r, EveryAxisR2rRealToRealAndComplex) {
  const Grid n{10, 7, 5};
  const auto grids = factorizations(world_size());
  for (std::size_t ki = 0; ki < std::size(kR2r); ++ki) {
    const AxisKind kind = kR2r[ki];
    const auto& f = rotate(grids, ki);
    const AxisKinds k{kind, kind, kind};
    check_against_serial<double>(n, k, TransformKind::R2C, f[0], f[1], 1e-12);
    check_against_serial<double>(n, k, TransformKind::C2C, f[0], f[1], 1e-12);
  }
}

TEST(R2r, MixedKinds) {
  using K = AxisKind;
  const Grid n{8, 6, 9};
  for (const auto& f : factorizations(world_size())) {
    // A channel: periodic x, y and Chebyshev-ready DCT-I wall-normal z.
    check_against_serial<double>(n, {K::Periodic, K::Periodic, K::Dct1}, TransformKind::R2C, f[0], f[1], 1e-12);
    check_against_serial<double>(n, {K::Periodic, K::Periodic, K::Dct1}, TransformKind::C2C, f[0], f[1], 1e-12);
    check_against_serial<double>(n, {K::Dst2, K::Dct3, K::Dct1}, TransformKind::R2C, f[0], f[1], 1e-12);
    check_against_serial<double>(n, {K::Dct4, K::Periodic, K::Dst3}, TransformKind::C2C, f[0], f[1], 1e-12);
  }
}

TEST(R2r, SinglePrecision) {
  using K = AxisKind;
  const Grid n{9, 7, 6};
  const auto grids = factorizations(world_size());
  for (std::size_t ki = 0; ki < std::size(kR2r); ++ki) {
    const AxisKind kind = kR2r[ki];
    const auto& f = rotate(grids, ki + 1);
    check_against_serial<float>(n, {kind, kind, kind}, TransformKind::R2C, f[0], f[1], 2e-5);
    check_against_serial<float>(n, {K::Periodic, kind, kind}, TransformKind::R2C, f[0], f[1], 2e-5);
    check_against_serial<float>(n, {kind, K::Periodic, kind}, TransformKind::C2C, f[0], f[1], 2e-5);
  }
}

// The shortest lengths (dct1 on 2 points, dst1 on 1) on grids that leave ranks empty.
TEST(R2r, ShortestAxesAndEmptyRanks) {
  using K = AxisKind;
  for (const Grid& n : {Grid{2, 1, 2}, Grid{3, 2, 2}})
    for (const auto& f : factorizations(world_size())) {
      check_against_serial<double>(n, {K::Dct1, K::Dst1, K::Dct1}, TransformKind::R2C, f[0], f[1], 1e-12);
      check_against_serial<double>(n, {K::Periodic, K::Dst1, K::Dct1}, TransformKind::C2C, f[0], f[1], 1e-12);
    }
}

// backward(forward(f)) = f under every norm, and the forward scaled as the norm says.
// Each kind's scale (its logical length) under every norm: the all-kind and the one-axis
// pattern take two norms each, in turn over the kinds, so each kind meets every norm once
// (and each pattern every norm over the kinds) at a quarter of the full product's plans.
TEST(R2r, NormalizationRoundTrips) {
  using K = AxisKind;
  const Grid n{6, 5, 4};
  const Norm norms[] = {Norm::None, Norm::Backward, Norm::Forward, Norm::Ortho};
  for (std::size_t ki = 0; ki < std::size(kR2r); ++ki) {
    const AxisKind kind = kR2r[ki];
    const AxisKinds patterns[] = {AxisKinds{kind, kind, kind}, AxisKinds{K::Periodic, K::Periodic, kind}};
    for (std::size_t pi = 0; pi < 2; ++pi) {
      const AxisKinds& k = patterns[pi];
      Options unscaled = options(k, TransformKind::R2C, 0, 0);
      unscaled.norm = Norm::None;
      const Plan raw(MPI_COMM_WORLD, n, unscaled);
      const std::size_t cout = real_spectrum(unscaled) ? 1 : 2;
      const auto f = random_box(raw.in_box(), n, 1, 3);
      std::vector<double> G(raw.out_count() * cout);
      raw.forward_bytes(f.data(), f.size() * 8, G.data(), G.size() * 8);
      double N = 1;
      for (int d = 0; d < 3; ++d) N *= logical_size(k[d], n[d]);
      for (std::size_t step : {std::size_t{0}, std::size_t{2}}) {
        const Norm norm = norms[(ki + pi + step) % 4];
        Options o = unscaled;
        o.norm = norm;
        // Norm::None is the reference plan itself (one plan fewer to build, ~1/6 of the test).
        const std::optional<Plan> other = norm == Norm::None ? std::nullopt : std::optional<Plan>(std::in_place, MPI_COMM_WORLD, n, o);
        const Plan& plan = other ? *other : raw;
        std::vector<double> F(G.size()), back(f.size());
        plan.forward_bytes(f.data(), f.size() * 8, F.data(), F.size() * 8);
        plan.backward_bytes(F.data(), F.size() * 8, back.data(), back.size() * 8);
        const double s = norm == Norm::Forward ? 1 / N : norm == Norm::Ortho ? 1 / std::sqrt(N) : 1;
        const std::string what = kinds_str(k) + " norm " + name(norm);
        const double round = norm == Norm::None ? rel_error(back, f, N) : rel_error(back, f);
        EXPECT_TRUE(all_ranks(round < 1e-12 && rel_error(F, G, s) < 1e-12))
            << what << ": round trip " << round << ", spectrum " << rel_error(F, G, s) << " (this rank)";
      }
    }
  }
}

// The overlapped paths run the same stages: equal to the plain blocking transform.
TEST(R2r, TransportsFieldsSplitPhaseLeanEqualPlain) {
  using K = AxisKind;
  const Grid n{11, 7, 6};
  const std::vector<std::pair<AxisKinds, TransformKind>> cases = {
      {{K::Periodic, K::Periodic, K::Dst1}, TransformKind::R2C},
      {{K::Dct2, K::Dst4, K::Dct1}, TransformKind::R2C},
      {{K::Dct3, K::Periodic, K::Dst2}, TransformKind::C2C}};
  // Case c on process grid c mod their count, not the full product (~3x at 4 ranks under
  // MPICH's busy-polling on 2 cores): each case still runs every transport, lean and split phase.
  const auto fs = factorizations(world_size());
  for (std::size_t c = 0; c < cases.size(); ++c) {
      const auto& [k, t] = cases[c];
      const auto& f = fs[c % fs.size()];
      const Options base = options(k, t, f[0], f[1]);
      const Plan plain(MPI_COMM_WORLD, n, base);
      const int cin = t == TransformKind::R2C ? 1 : 2, cout = real_spectrum(base) ? 1 : 2;
      const std::size_t ib = plain.in_count() * cin * 8, ob = plain.out_count() * cout * 8;
      std::vector<std::vector<double>> u = {random_box(plain.in_box(), n, cin, 1), random_box(plain.in_box(), n, cin, 2),
                                            random_box(plain.in_box(), n, cin, 3)};
      std::vector<std::vector<double>> ref(3, std::vector<double>(plain.out_count() * cout));
      for (int j = 0; j < 3; ++j) plain.forward_bytes(u[j].data(), ib, ref[j].data(), ob);
      const std::string what = kinds_name(k, t, plain.m1(), plain.m2());
      for (const char* tr : {"pairwise:1@caller", "thread", "linear@caller"}) {
        Options o = base;
        o.transport(tr);
        o.fields_in_flight = 2;
        if (std::string(tr) == "linear@caller") o.col_chunk_planes = 2;
        const Plan plan(MPI_COMM_WORLD, n, o);
        std::vector<std::vector<double>> out(3, std::vector<double>(ref[0].size())), back(3, std::vector<double>(u[0].size()));
        const void* in_p[3] = {u[0].data(), u[1].data(), u[2].data()};
        void* out_p[3] = {out[0].data(), out[1].data(), out[2].data()};
        plan.forward_many_bytes(3, in_p, ib, out_p, ob);
        for (int j = 0; j < 3; ++j)
          EXPECT_TRUE(all_ranks(rel_error(out[j], ref[j]) < 1e-13)) << what << " " << tr << " forward_many field " << j;
        const void* o_c[3] = {out[0].data(), out[1].data(), out[2].data()};
        void* b_p[3] = {back[0].data(), back[1].data(), back[2].data()};
        plan.backward_many_bytes(3, o_c, ob, b_p, ib);
        for (int j = 0; j < 3; ++j)
          EXPECT_TRUE(all_ranks(rel_error(back[j], u[j]) < 1e-12)) << what << " " << tr << " backward_many field " << j;
        // Split phase, two in flight.
        Plan::Workspace w0 = plan.make_workspace(), w1 = plan.make_workspace();
        std::vector<double> s0(ref[0].size()), s1(ref[0].size());
        auto p0 = plan.start_bytes(Direction::Forward, u[0].data(), ib, s0.data(), ob, w0);
        auto p1 = plan.start_bytes(Direction::Forward, u[1].data(), ib, s1.data(), ob, w1);
        p0.wait();
        p1.wait();
        EXPECT_TRUE(all_ranks(rel_error(s0, ref[0]) < 1e-13 && rel_error(s1, ref[1]) < 1e-13)) << what << " " << tr << " split";
      }
      // Lean workspace: in place.
      Options o = base;
      o.lean_workspace = true;
      const Plan lean(MPI_COMM_WORLD, n, o);
      std::vector<double> a(std::max(ib, ob) / 8);
      std::copy(u[0].begin(), u[0].end(), a.begin());
      lean.forward_bytes(a.data(), a.size() * 8, a.data(), a.size() * 8);
      std::vector<double> head(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(ref[0].size()));
      EXPECT_TRUE(all_ranks(rel_error(head, ref[0]) < 1e-13)) << what << " lean forward";
      lean.backward_bytes(a.data(), a.size() * 8, a.data(), a.size() * 8);
      std::vector<double> back(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(u[0].size()));
      EXPECT_TRUE(all_ranks(rel_error(back, u[0]) < 1e-12)) << what << " lean backward";
    }
}

// Typed real-to-real calls, and the shape rule's refusal of complex buffers.
TEST(R2r, TypedRealToReal) {
  const Grid n{8, 6, 5};
  const Plan plan(MPI_COMM_WORLD, n, options({AxisKind::Dct2, AxisKind::Dct2, AxisKind::Dst2}, TransformKind::R2C, 0, 0));
  std::vector<double> f = random_box(plan.in_box(), n, 1, 5), F(plan.out_count()), g(f.size());
  plan.forward(f, F);
  plan.backward(F, g);
  EXPECT_TRUE(all_ranks(rel_error(g, f) < 1e-12));
  std::vector<std::complex<double>> C(plan.out_count());
  EXPECT_THROW(plan.forward(f, C), Error);
}

void expect_plan_error(const Grid& n, const Options& o, const std::string& needle) {
  try {
    const Plan plan(MPI_COMM_WORLD, n, o);
    ADD_FAILURE() << "no error for " << kinds_str(o.kinds);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(R2r, PlanTimeErrorsOnEveryRank) {
  using K = AxisKind;
  Options o = options({K::Periodic, K::Periodic, K::Dct1}, TransformKind::R2C, 1, world_size());
  o.allow_empty = true;
  expect_plan_error({8, 8, 1}, o, "dct1 (REDFT00) on z needs nz >= 2, got 1");
  o.kinds = {K::Dct1, K::Dst1, K::Dst1};
  expect_plan_error({1, 8, 8}, o, "on x needs nx >= 2");
  o.kinds = {K::Dct2, K::Periodic, K::Periodic};
  expect_plan_error({8, 8, 8}, o, "real data with an r2r x axis needs every axis r2r");
  Options p;
  EXPECT_THROW(set_option(p, "kinds", "periodic,dct5,dst1"), Error);
  try {
    set_option(p, "kinds", "dct1,dct2");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 entries"), std::string::npos) << e.what();
  }
  set_option(p, "kinds", "REDFT00,rodft11,Periodic");
  EXPECT_EQ(get_option(p, "kinds"), "dct1,dst4,periodic");
  set_option(p, "kinds", "dst2");
  EXPECT_EQ(get_option(p, "kinds"), "dst2,dst2,dst2");
}

}  // namespace
}  // namespace nbfft::fft::test
