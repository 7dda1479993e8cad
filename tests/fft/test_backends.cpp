// Local FFT backends (Options::backends): every built backend, alone and mixed per stage,
// against the serial FFTW reference at 1-4 ranks (uneven grid, r2c and c2c, double and
// single); options() names the backend each stage ran; a backend this build lacks, an r2r
// kind on a backend without r2r, and a bad NBFFT_LOCAL_BACKEND are clear errors on every
// rank. Cases that need MKL report SKIPPED where it is not built.
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/tune.hpp"
#include "local/transform.hpp"
#include "fft_test_util.hpp"
#include "../errors/expect_error.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <cstdlib>
#include <string>
#include <vector>

namespace nbfft::fft::test {
namespace {

const std::array<std::int64_t, 3> kGrid{12, 10, 9};

Backend public_of(local::Backend b) { return b == local::Backend::Mkl ? Backend::Mkl : Backend::Fftw; }

// Every single backend, and with two built the mixes that give each stage each backend.
std::vector<StageBackends> combos() {
  std::vector<StageBackends> c;
  for (local::Backend b : local::built_backends()) c.push_back({public_of(b), public_of(b), public_of(b)});
  if (local::built(local::Backend::Fftw) && local::built(local::Backend::Mkl)) {
    c.push_back({Backend::Fftw, Backend::Mkl, Backend::Mkl});
    c.push_back({Backend::Mkl, Backend::Fftw, Backend::Mkl});
    c.push_back({Backend::Mkl, Backend::Mkl, Backend::Fftw});
  }
  return c;
}

template <typename T>
void check(const StageBackends& b, TransformKind t, int m1, int m2) {
  Options o;
  o.precision = std::is_same_v<T, float> ? Precision::Single : Precision::Double;
  o.transform = t;
  o.effort = Effort::Estimate;
  o.backends = b;
  o.m1 = m1;
  o.m2 = m2;
  Plan plan(MPI_COMM_WORLD, kGrid, o);
  EXPECT_EQ(backends_str(plan.options().backends), backends_str(b));
  const bool r2c = t == TransformKind::R2C;
  const std::vector<double> in_d = random_box(plan.in_box(), kGrid, r2c ? 1 : 2, 7);
  std::vector<T> in(in_d.begin(), in_d.end()), back(in.size());
  std::vector<std::complex<T>> spec(static_cast<std::size_t>(plan.out_count()));
  // The plan's element types: real or complex input, complex spectrum.
  auto as_complex = [](std::vector<T>& v) {
    return reinterpret_cast<std::complex<T>*>(v.data());
  };
  if (r2c) {
    plan.forward(in, spec);
  } else {
    plan.transform_bytes(Direction::Forward, as_complex(in), in.size() * sizeof(T), spec.data(),
                         spec.size() * sizeof(spec[0]));
  }
  std::vector<double> spec_d(2 * spec.size());
  for (std::size_t k = 0; k < spec.size(); ++k) {
    spec_d[2 * k] = spec[k].real();
    spec_d[2 * k + 1] = spec[k].imag();
  }
  const auto got = gather_box(plan.out_box(), spec_d, {r2c ? kGrid[0] / 2 + 1 : kGrid[0], kGrid[1], kGrid[2]}, 2);
  const auto all_in = gather_box(plan.in_box(), in_d, kGrid, r2c ? 1 : 2);
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
  if (world_rank() == 0) {
    EXPECT_LT(rel_error(got, serial_forward(all_in, kGrid, r2c)), tol) << backends_str(b);
  }
  if (r2c) {
    plan.backward(spec, back);
  } else {
    plan.transform_bytes(Direction::Backward, spec.data(), spec.size() * sizeof(spec[0]), as_complex(back),
                         back.size() * sizeof(T));
  }
  double err = 0;  // the default norm scales backward by 1/N
  for (std::size_t k = 0; k < in.size(); ++k) err = std::max(err, std::abs(double(back[k]) - double(in[k])));
  EXPECT_LT(err, 10 * tol) << backends_str(b) << ": backward(forward(f)) != f";
}

TEST(Backends, EveryBuiltBackendOnEveryStage) {
  const auto fs = factorizations(world_size());
  int k = 0;
  for (const StageBackends& b : combos())
    for (TransformKind t : {TransformKind::R2C, TransformKind::C2C}) {
      const auto& f = fs[static_cast<std::size_t>(k++) % fs.size()];
      check<double>(b, t, f[0], f[1]);
      check<float>(b, t, f[0], f[1]);
    }
}

TEST(Backends, AutoNamesWhatRan) {
  Options o;
  o.effort = Effort::Estimate;
  o.kinds = {AxisKind::Periodic, AxisKind::Dct2, AxisKind::Periodic};
  o.transform = TransformKind::C2C;
  if (!local::built(local::Backend::Fftw)) GTEST_SKIP() << "r2r kinds need the FFTW backend, not built here";
  Plan plan(MPI_COMM_WORLD, kGrid, o);
  const StageBackends got = plan.options().backends;
  EXPECT_EQ(got[1], Backend::Fftw) << "auto must give an r2r axis FFTW";
  for (Backend b : got) EXPECT_NE(b, Backend::Auto) << "options() must name the backend that ran";
}

TEST(Backends, MissingBackendIsUnavailableEverywhere) {
  const local::Backend missing = local::built(local::Backend::Mkl) ? local::Backend::Fftw : local::Backend::Mkl;
  if (local::built(missing)) GTEST_SKIP() << "every backend is built here";
  Options o;
  o.backends = {Backend::Auto, public_of(missing), Backend::Auto};
  expect_error([&] { Plan p(MPI_COMM_WORLD, kGrid, o); }, ErrorCode::Unavailable,
               std::string("'") + local::name(missing) + "' is not built");
}

// An r2r axis on MKL runs through its complex DFT (local/r2r_by_dft.cpp): the same numbers
// as FFTW's native r2r on that axis.
TEST(Backends, R2rOnMklMatchesFftw) {
  if (!local::built(local::Backend::Mkl) || !local::built(local::Backend::Fftw))
    GTEST_SKIP() << "needs both MKL and FFTW built";
  for (AxisKind k : {AxisKind::Dct1, AxisKind::Dst2, AxisKind::Dct4}) {
    std::vector<std::vector<double>> spec;
    for (Backend b : {Backend::Fftw, Backend::Mkl}) {
      Options o;
      o.transform = TransformKind::C2C;
      o.effort = Effort::Estimate;
      o.kinds = {k, AxisKind::Periodic, k};
      o.backends = {b, b, b};
      Plan plan(MPI_COMM_WORLD, kGrid, o);
      EXPECT_EQ(plan.options().backends[0], b);
      std::vector<double> in = random_box(plan.in_box(), kGrid, 2, 11), out(2 * static_cast<std::size_t>(plan.out_count()));
      plan.transform_bytes(Direction::Forward, in.data(), in.size() * sizeof(double), out.data(), out.size() * sizeof(double));
      spec.push_back(out);
    }
    EXPECT_LT(rel_error(spec[1], spec[0]), 1e-12) << name(k) << ": MKL's r2r through its DFT differs from FFTW's";
  }
}

TEST(Backends, BadEnvironmentNamesIt) {
  // One rank's bad environment: every rank gets the error (the resolution is agreed).
  if (world_rank() == world_size() - 1) setenv("NBFFT_LOCAL_BACKEND", "fastest", 1);
  Options o;
  expect_error([&] { Plan p(MPI_COMM_WORLD, kGrid, o); }, ErrorCode::InvalidArgument, "'fastest'");
  unsetenv("NBFFT_LOCAL_BACKEND");
}

// The tuner's step 'backend' (tune_search.cpp): with two backends built it tries each
// periodic stage's other backend on its best candidate and its choice names what ran; with
// one, or a stage the caller fixed, there is nothing to try.
TEST(Backends, TunerTriesEachStagesBackend) {
  forget_tuning();
  Options base;
  base.effort = Effort::Estimate;
  base.kinds = {AxisKind::Periodic, AxisKind::Periodic, AxisKind::Periodic};
  TuneSettings s;
  s.budget_seconds = 30;
  s.trial_iters = 1;
  const TuneReport r = tune(MPI_COMM_WORLD, {16, 12, 10}, base, s);
  int backend_trials = 0;
  for (const TuneTrial& t : r.trials) {
    if (t.step.rfind("backend", 0) == 0) ++backend_trials;  // "backend", or "backend, runoff" when among the fastest
    for (Backend b : t.options.backends) EXPECT_NE(b, Backend::Auto) << "trial " << t.step << " did not name its backends";
  }
  const bool two = local::built(local::Backend::Fftw) && local::built(local::Backend::Mkl);
  // One candidate per stage with two backends (fewer recorded when a candidate repeats an
  // earlier trial, which is then not timed again), none with one.
  if (two) {
    EXPECT_GE(backend_trials, 1) << r;
    EXPECT_LE(backend_trials, 3) << r;
  } else {
    EXPECT_EQ(backend_trials, 0);
  }
  for (Backend b : r.chosen.backends) EXPECT_NE(b, Backend::Auto);
  // A stage the caller fixed is kept, and searched no further.
  forget_tuning();
  base.backends = {Backend::Auto, public_of(local::default_backend()), Backend::Auto};
  const TuneReport fixed = tune(MPI_COMM_WORLD, {16, 12, 10}, base, s);
  EXPECT_EQ(fixed.chosen.backends[1], public_of(local::default_backend()));
  int fixed_trials = 0;
  for (const TuneTrial& t : fixed.trials) {
    EXPECT_EQ(t.options.backends[1], public_of(local::default_backend())) << "trial " << t.step << " moved a fixed stage";
    fixed_trials += t.step.rfind("backend", 0) == 0;
  }
  EXPECT_LE(fixed_trials, two ? 2 : 0);
}

TEST(Backends, OptionTextRoundTrips) {
  EXPECT_EQ(backends_str(parse_backends("FFTW")), "fftw");
  EXPECT_EQ(backends_str(parse_backends("fftw,mkl,auto")), "fftw,mkl,auto");
  expect_error([] { parse_backends("fftw,mkl"); }, ErrorCode::InvalidArgument, "three");
  expect_error([] { parse_backends("cufft"); }, ErrorCode::InvalidArgument, "cufft");
}

}  // namespace
}  // namespace nbfft::fft::test
