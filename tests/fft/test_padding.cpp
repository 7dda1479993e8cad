// Padded transforms (Options::padding, fft/padding.hpp) against serial FFTW references that
// pad and truncate the whole spectrum by hand, index by index: forward of a random field on
// the physical m grid, backward of a random spectrum of the n grid, the round trip
// backward-then-forward (exact, Nyquist modes included), every norm, r2c and c2c, double
// and single, odd and even n and m, every process grid of the communicator, transports,
// the plane pipeline, multi-field and split-phase transforms, and bad padding options.
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/error.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <tuple>
#include <string>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;
using cd = std::complex<double>;

// ---- The reference: whole-spectrum padding and truncation, one axis at a time ------------

// The coefficients of the padded axis (m points) that index i of the n-coefficient axis
// gathers on truncation: i itself for a non-negative mode, its negative mode's place at
// the end of the m axis, and both +n/2 and -n/2 for the Nyquist index of even n.
std::vector<std::int64_t> sources(std::int64_t i, std::int64_t n, std::int64_t m) {
  if (m == n) return {i};
  if (n % 2 == 0 && i == n / 2) return {n / 2, m - n / 2};
  if (i < (n + 1) / 2) return {i};
  return {m - n + i};
}

// Index of the n axis whose coefficient padded index j holds, and its weight (0: zero).
std::pair<std::int64_t, double> padded_from(std::int64_t j, std::int64_t n, std::int64_t m) {
  if (m == n) return {j, 1.0};
  const std::int64_t h = (n + 1) / 2;
  std::int64_t i = -1;
  if (j < h) i = j;
  else if (j >= m - (n - h)) i = j - m + n;
  else if (n % 2 == 0 && j == n / 2) i = n / 2;  // +n/2 of even n
  if (i < 0) return {0, 0.0};
  return {i, n % 2 == 0 && i == n / 2 ? 0.5 : 1.0};
}

// Full spectrum F of the m grid (x fastest) truncated to the n grid.
std::vector<cd> truncate(const std::vector<cd>& F, const Grid& m, const Grid& n) {
  std::vector<cd> out(static_cast<std::size_t>(n[0] * n[1] * n[2]));
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < n[0]; ++x) {
        cd s = 0;
        for (auto sz : sources(z, n[2], m[2]))
          for (auto sy : sources(y, n[1], m[1]))
            for (auto sx : sources(x, n[0], m[0])) s += F[static_cast<std::size_t>(sx + m[0] * (sy + m[1] * sz))];
        out[static_cast<std::size_t>(x + n[0] * (y + n[1] * z))] = s;
      }
  return out;
}

// Full spectrum F of the n grid padded to the m grid.
std::vector<cd> pad(const std::vector<cd>& F, const Grid& n, const Grid& m) {
  std::vector<cd> out(static_cast<std::size_t>(m[0] * m[1] * m[2]));
  for (std::int64_t z = 0; z < m[2]; ++z)
    for (std::int64_t y = 0; y < m[1]; ++y)
      for (std::int64_t x = 0; x < m[0]; ++x) {
        const auto a = padded_from(x, n[0], m[0]), b = padded_from(y, n[1], m[1]), c = padded_from(z, n[2], m[2]);
        const double w = a.second * b.second * c.second;
        if (w != 0)
          out[static_cast<std::size_t>(x + m[0] * (y + m[1] * z))] =
              w * F[static_cast<std::size_t>(a.first + n[0] * (b.first + n[1] * c.first))];
      }
  return out;
}

std::vector<cd> c2c(const std::vector<cd>& a, const Grid& n, int sign) {
  std::vector<double> v(2 * a.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    v[2 * k] = a[k].real();
    v[2 * k + 1] = a[k].imag();
  }
  const std::vector<double> r = serial_c2c(v, n, sign);
  std::vector<cd> out(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) out[k] = cd(r[2 * k], r[2 * k + 1]);
  return out;
}

std::vector<cd> as_complex(const std::vector<double>& v, int comps) {
  std::vector<cd> c(v.size() / static_cast<std::size_t>(comps));
  for (std::size_t k = 0; k < c.size(); ++k) c[k] = comps == 1 ? cd(v[k], 0) : cd(v[2 * k], v[2 * k + 1]);
  return c;
}

// The r2c half (kx < nx/2+1) of a full spectrum, interleaved; c2c: all of it.
std::vector<double> half(const std::vector<cd>& F, const Grid& n, bool r2c) {
  const std::int64_t xc = r2c ? n[0] / 2 + 1 : n[0];
  std::vector<double> out;
  for (std::int64_t z = 0; z < n[2]; ++z)
    for (std::int64_t y = 0; y < n[1]; ++y)
      for (std::int64_t x = 0; x < xc; ++x) {
        const cd v = F[static_cast<std::size_t>(x + n[0] * (y + n[1] * z))];
        out.push_back(v.real());
        out.push_back(v.imag());
      }
  return out;
}

// ---- The matrix ------------------------------------------------------------------------

struct Config {
  Grid n;
  std::array<double, 3> padding;
  int m1, m2;
  Precision precision;
  TransformKind transform;
  Norm norm;
  bool in_place = false;
  std::string transport = "blocking";
  int col_chunk_planes = 0;
};

std::string config_name(const testing::TestParamInfo<Config>& info) {
  const Config& c = info.param;
  std::ostringstream os;
  os << c.n[0] << "x" << c.n[1] << "x" << c.n[2] << "_pad" << padding_str(c.padding) << "_p" << c.m1 << "x" << c.m2
     << "_" << name(c.transform) << "_" << name(c.precision) << "_" << name(c.norm) << (c.in_place ? "_inplace" : "")
     << "_" << c.transport << "_cp" << c.col_chunk_planes;
  std::string s = os.str();
  for (auto& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s + "_" + std::to_string(info.index);
}

std::vector<Config> configs() {
  // Odd and even n and m; 3/2 everywhere, per-axis (1.5, 1, 2), a ratio giving odd m.
  const std::vector<std::pair<Grid, std::array<double, 3>>> grids = {
      {{8, 6, 5}, {1.5, 1.5, 1.5}},  // m = 12, 9, 7
      {{7, 10, 6}, {1.5, 1, 2}},     // m = 10, 10, 12
      {{6, 5, 9}, {1.34, 1.34, 1.34}},  // m = 8, 6, 12
      {{4, 4, 4}, {2, 2, 2}},
      {{6, 5, 4}, {1.2, 1.2, 1.2}},  // m = 7, 6, 4: odd mx of even nx; z not padded (floor)
  };
  struct Variant {
    TransformKind t;
    Precision p;
    Norm norm;
    bool in_place;
  };
  const Variant variants[4] = {
      {TransformKind::R2C, Precision::Double, Norm::Backward, false},
      {TransformKind::C2C, Precision::Double, Norm::Ortho, true},
      {TransformKind::R2C, Precision::Single, Norm::Forward, true},
      {TransformKind::C2C, Precision::Single, Norm::None, false},
  };
  std::vector<Config> out;
  for (const auto& g : grids)
    for (const auto& f : factorizations(world_size()))
      for (const auto& v : variants) out.push_back({g.first, g.second, f[0], f[1], v.p, v.t, v.norm, v.in_place});
  // Other ways to move the data: a transport per exchange and the plane pipeline.
  const auto fs = factorizations(world_size());
  const auto pencil = fs[fs.size() / 2];
  for (const char* t : {"pairwise:2@caller", "linear@thread"}) {
    Config c{{7, 10, 6}, {1.5, 1, 2}, pencil[0], pencil[1], Precision::Double, TransformKind::R2C, Norm::Backward};
    c.transport = t;
    out.push_back(c);
    c.col_chunk_planes = 1;
    c.transform = TransformKind::C2C;
    out.push_back(c);
  }
  return out;
}

// (forward scale, backward scale) of a padded plan: the spectrum is the n grid's under the
// norm and the physical values those of the same field, so forward's sums over M points
// carry N/M (docs/fft.md "Padding"); none leaves both unscaled.
std::pair<double, double> scales(Norm norm, double N, double M) {
  switch (norm) {
    case Norm::None: return {1, 1};
    case Norm::Backward: return {N / M, 1 / N};
    case Norm::Forward: return {1 / M, 1};
    case Norm::Ortho: return {std::sqrt(N) / M, 1 / std::sqrt(N)};
  }
  return {1, 1};
}

template <typename T>
void run(const Config& c) {
  using C = std::complex<T>;
  const bool r2c = c.transform == TransformKind::R2C;
  Options o;
  o.precision = std::is_same<T, double>::value ? Precision::Double : Precision::Single;
  o.transform = c.transform;
  o.norm = c.norm;
  o.m1 = c.m1;
  o.m2 = c.m2;
  o.effort = Effort::Estimate;
  o.padding = c.padding;
  o.transport(c.transport);
  o.col_chunk_planes = c.col_chunk_planes;
  const Plan plan(MPI_COMM_WORLD, c.n, o);
  const Grid n = c.n, m = plan.physical_size();
  ASSERT_EQ(m, padded_size(n, c.padding));
  ASSERT_EQ(plan.global_size(), n);
  const int comps = r2c ? 1 : 2;
  const Grid spec{r2c ? n[0] / 2 + 1 : n[0], n[1], n[2]};
  const double N = static_cast<double>(n[0] * n[1] * n[2]), M = static_cast<double>(m[0] * m[1] * m[2]);
  const auto sc = scales(c.norm, N, M);
  const double tol = std::is_same<T, double>::value ? 1e-12 : 2e-5;

  // The plan's buffers: in place, one of inplace_bytes; else one per side.
  const std::size_t in_reals = static_cast<std::size_t>(plan.in_count() * comps);
  const std::size_t out_reals = static_cast<std::size_t>(2 * plan.out_count());
  std::vector<C> a((std::max(in_reals, c.in_place ? out_reals : 0) + 1) / 2 + 1), b(plan.out_count() + 1);
  T* x = reinterpret_cast<T*>(a.data());
  C* X = c.in_place ? a.data() : b.data();
  const std::size_t xcap = 2 * a.size(), Xcap = c.in_place ? a.size() : b.size();
  auto forward = [&] {
    if (r2c) plan.forward(x, xcap, X, Xcap);
    else plan.forward(reinterpret_cast<C*>(x), xcap / 2, X, Xcap);
  };
  auto backward = [&] {
    if (r2c) plan.backward(X, Xcap, x, xcap);
    else plan.backward(X, Xcap, reinterpret_cast<C*>(x), xcap / 2);
  };
  auto read = [](const T* p, std::size_t k) { return std::vector<double>(p, p + k); };

  // Forward of a random field on the m grid: the m grid's spectrum truncated by hand.
  std::vector<double> f = random_box(plan.in_box(), m, comps, 77);
  std::copy(f.begin(), f.end(), x);
  f = read(x, in_reals);  // as the plan's precision holds it
  forward();
  auto f_all = gather_box(plan.in_box(), f, m, comps);
  auto F_got = gather_box(plan.out_box(), read(reinterpret_cast<T*>(X), out_reals), spec, 2);
  if (world_rank() == 0) {
    const auto ref = half(truncate(c2c(as_complex(f_all, comps), m, -1), m, n), n, r2c);
    EXPECT_LE(rel_error(F_got, ref, sc.first), tol) << "forward vs the truncated serial spectrum";
  }

  // Backward of a spectrum of the n grid (r2c: a real field's, so that its kx = 0 and
  // Nyquist planes are Hermitian): the spectrum padded by hand, inverse on the m grid.
  std::vector<double> g = random_box(Box3{{0, 0, 0}, n}, n, comps, 99);  // every rank: the whole n-grid field
  const auto G = c2c(as_complex(g, comps), n, -1);
  const auto Gh = half(G, n, r2c);
  std::vector<double> mine;
  const Box3& ob = plan.out_box();
  mine.resize(out_reals);
  for (std::int64_t kz = ob.lo[2]; kz < ob.lo[2] + ob.n[2]; ++kz)
    for (std::int64_t ky = ob.lo[1]; ky < ob.lo[1] + ob.n[1]; ++ky)
      for (std::int64_t kx = ob.lo[0]; kx < ob.lo[0] + ob.n[0]; ++kx)
        for (int q = 0; q < 2; ++q)
          mine[static_cast<std::size_t>(2 * ob.index(kx, ky, kz) + q)] =
              Gh[static_cast<std::size_t>(2 * (kx + spec[0] * (ky + spec[1] * kz)) + q)];
  std::vector<C> spectrum(static_cast<std::size_t>(plan.out_count()));
  for (std::size_t k = 0; k < spectrum.size(); ++k) spectrum[k] = C(static_cast<T>(mine[2 * k]), static_cast<T>(mine[2 * k + 1]));
  std::copy(spectrum.begin(), spectrum.end(), X);
  backward();
  if (!c.in_place) {
    EXPECT_TRUE(std::equal(spectrum.begin(), spectrum.end(), X)) << "backward modified its input";
  }
  auto u_all = gather_box(plan.in_box(), read(x, in_reals), m, comps);
  if (world_rank() == 0) {
    const auto u = c2c(pad(G, n, m), m, +1);
    std::vector<double> ref;
    for (const cd& v : u) {
      ref.push_back(v.real());
      if (!r2c) ref.push_back(v.imag());
    }
    EXPECT_LE(rel_error(u_all, ref, sc.second), tol) << "backward vs the padded serial spectrum";
  }

  // Backward then forward returns the spectrum, Nyquist coefficients included (scaled by
  // M under none, whose transforms are the plain sums).
  forward();
  std::vector<double> back = read(reinterpret_cast<T*>(X), out_reals);
  const double s = c.norm == Norm::None ? M : 1.0;
  EXPECT_LE(rel_error(back, mine, s), tol) << "backward then forward";
}

class Padded : public testing::TestWithParam<Config> {};

TEST_P(Padded, MatchesHandPaddedSerialFftw) {
  const Config& c = GetParam();
  if (c.precision == Precision::Double)
    run<double>(c);
  else
    run<float>(c);
}

INSTANTIATE_TEST_SUITE_P(Grids, Padded, testing::ValuesIn(configs()), config_name);

Options padded_options(int fields) {
  Options o;
  o.effort = Effort::Estimate;
  o.padding = {1.5, 1.5, 1.5};
  o.fields_in_flight = fields;
  return o;
}

// Multi-field (pipelined over two workspaces; on 2D pencils with the ROW exchange
// pipelined too) and split-phase transforms equal the plain calls of the same padded plan.
class PaddedPaths : public testing::TestWithParam<bool> {};

TEST_P(PaddedPaths, ManyAndSplitPhaseEqualSingleCalls) {
  const Grid n{10, 7, 9};
  Options o = padded_options(2);
  if (GetParam()) {  // 2D pencils, ROW pipelined across fields (Transform::run_pencils)
    for (const auto& f : factorizations(world_size()))
      if (f[0] > 1 && f[1] > 1) std::tie(o.m1, o.m2) = std::make_pair(f[0], f[1]);
    if (o.m1 == 0) GTEST_SKIP() << "no 2D pencil grid on " << world_size() << " ranks";
    o.pipeline_row = true;
  }
  const Plan plan(MPI_COMM_WORLD, n, o);
  const std::size_t in = static_cast<std::size_t>(plan.in_count()), out = static_cast<std::size_t>(plan.out_count());
  std::vector<std::vector<double>> f(3), g(3, std::vector<double>(in));
  std::vector<std::vector<cd>> F(3, std::vector<cd>(out)), Fm(3, std::vector<cd>(out));
  for (int k = 0; k < 3; ++k) f[k] = random_box(plan.in_box(), plan.physical_size(), 1, 5 + k);
  for (int k = 0; k < 3; ++k) plan.forward(f[k], F[k]);
  plan.forward_many(f, Fm);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(F[k], Fm[k]) << "forward_many field " << k;
  std::vector<std::vector<double>> gm(3, std::vector<double>(in));
  for (int k = 0; k < 3; ++k) plan.backward(F[k], g[k]);
  plan.backward_many(F, gm);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(g[k], gm[k]) << "backward_many field " << k;

  Plan::Workspace w0 = plan.make_workspace(), w1 = plan.make_workspace();
  std::vector<cd> S0(out), S1(out);
  auto p0 = plan.forward_start(f[0].data(), in, S0.data(), out, w0);
  auto p1 = plan.forward_start(f[1].data(), in, S1.data(), out, w1);
  p0.wait();
  p1.wait();
  EXPECT_EQ(S0, F[0]);
  EXPECT_EQ(S1, F[1]);
  std::vector<double> b0(in);
  auto q = plan.backward_start(F[2].data(), out, b0.data(), in, w0);
  q.wait();
  EXPECT_EQ(b0, g[2]);
}

INSTANTIATE_TEST_SUITE_P(Grids, PaddedPaths, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& i) { return i.param ? "pencils_pipeline_row" : "auto"; });

// The lean workspace does not fit padded plans: the plan keeps the default one and says why.
TEST(PaddedPlan, LeanWorkspaceFallsBackAndSaysWhy) {
  Options o = padded_options(1);
  o.lean_workspace = true;
  const Plan plan(MPI_COMM_WORLD, {12, 10, 8}, o);
  EXPECT_FALSE(plan.lean_workspace());
  std::ostringstream os;
  os << plan;
  if (world_size() > 1) {
    EXPECT_NE(os.str().find("padded transforms"), std::string::npos) << os.str();
  }
  EXPECT_NE(os.str().find("padded: physical 18x15x12"), std::string::npos) << os.str();
}

// Boxes: in_box() tiles the physical grid, out_box() the spectrum of global_size().
TEST(PaddedPlan, BoxesTileThePhysicalAndSpectralGrids) {
  const Grid n{7, 10, 6};
  Options o = padded_options(1);
  o.padding = {1.5, 1, 2};
  const Plan plan(MPI_COMM_WORLD, n, o);
  const Grid m = plan.physical_size();
  EXPECT_EQ(m, (Grid{10, 10, 12}));
  std::int64_t counts[2] = {plan.in_count(), plan.out_count()}, total[2] = {0, 0};
  MPI_Allreduce(counts, total, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total[0], m[0] * m[1] * m[2]);
  EXPECT_EQ(total[1], (n[0] / 2 + 1) * n[1] * n[2]);
  EXPECT_EQ(plan.in_box().n[0], m[0]);
  EXPECT_EQ(plan.out_box().n[2], n[2]);
}

// Bad padding: the table's parser names the problem; a plan made with a bad ratio fails on
// every rank with the same message.
TEST(PaddedErrors, BadRatiosAreRefusedEverywhere) {
  Options o;
  for (const char* bad : {"0.5", "abc", "1.5,1.5", "1.5,,2", "", "nan", "inf", "1,1,1,1", " 1.5"}) {
    try {
      set_option(o, "padding", bad);
      ADD_FAILURE() << "padding '" << bad << "' was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("padding"), std::string::npos) << e.what();
    }
  }
  set_option(o, "padding", "1.5");
  EXPECT_EQ(get_option(o, "padding"), "1.5");
  set_option(o, "padding", "1.5,1,2");
  EXPECT_EQ(get_option(o, "padding"), "1.5,1,2");
  EXPECT_EQ(padded_size({7, 10, 6}, o.padding), (Grid{10, 10, 12}));

  Options p;
  p.padding = {1.5, 0.75, 1};
  int threw = 0, all = 0;
  try {
    Plan plan(MPI_COMM_WORLD, {8, 8, 8}, p);
  } catch (const Error& e) {
    threw = std::string(e.what()).find("padding along y is 0.75") != std::string::npos;
    EXPECT_TRUE(threw) << e.what();
  }
  MPI_Allreduce(&threw, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  EXPECT_TRUE(all) << "every rank refuses the plan";
}

}  // namespace
}  // namespace nbfft::fft::test
