// The local-transform seam (local/transform.hpp) on every built backend, against a naive
// O(n^2) DFT written here (not FFTW): c2c both ways, r2c and c2r (even and odd n, in place and
// out of place), 1-D to 3-D, batched over several loops with unit, padded and transposed
// strides, arrays at any alignment, double (1e-12) and single (1e-5); Input::Preserve keeps
// the input bit for bit; zero extents plan empty; one plan run from two threads at once
// gives the one-thread result; the errors for a missing r2r and an unbuilt backend; FFTW's
// DCT-II / DST-II against their sums; and that nbfft's FFTW calls reach libfftw3 even when
// MKL (which exports FFTW's API) is linked beside it. A backend that is not built is
// reported SKIPPED, never passed.
#include "local/transform.hpp"
#include "nbfft/error.hpp"

#include <dlfcn.h>
#if NBFFT_TESTS_WITH_FFTW
#include <fftw3.h>
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace nbfft::local {
namespace {

using C = std::complex<double>;
using Index = std::vector<std::int64_t>;
constexpr double kPi = 3.14159265358979323846;

// Calls fn(index) for every index of the box `n` (last fastest).
void for_each(const Index& n, const std::function<void(const Index&)>& fn) {
  for (std::int64_t x : n)
    if (x <= 0) return;
  Index i(n.size(), 0);
  while (true) {
    fn(i);
    int d = static_cast<int>(n.size()) - 1;
    while (d >= 0 && ++i[d] == n[d]) i[d--] = 0;
    if (d < 0) return;
  }
}

std::int64_t product(const Index& n) {
  std::int64_t p = 1;
  for (std::int64_t x : n) p *= x;
  return p;
}

// Naive DFT of a dense row-major array, one axis at a time; sign -1 forward, +1 backward.
std::vector<C> naive_dft(std::vector<C> a, const Index& n, int sign) {
  std::int64_t inner = 1;
  const std::int64_t total = product(n);
  for (int ax = static_cast<int>(n.size()) - 1; ax >= 0; --ax) {
    const std::int64_t len = n[ax], outer = total / (len * inner);
    std::vector<C> line(len);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        for (std::int64_t k = 0; k < len; ++k) line[k] = a[(o * len + k) * inner + i];
        for (std::int64_t j = 0; j < len; ++j) {
          C s = 0;
          for (std::int64_t k = 0; k < len; ++k) s += line[k] * std::polar(1.0, sign * 2 * kPi * ((j * k) % len) / len);
          a[(o * len + j) * inner + i] = s;
        }
      }
    inner *= len;
  }
  return a;
}

// A layout as the seam takes it, with the logical shapes of both sides.
struct Layout {
  Kind kind;
  std::vector<Dim> dims, loops;
  bool real_in() const { return kind == Kind::R2C; }
  bool real_out() const { return kind == Kind::C2R; }
  // Logical extents of the input / output dims: the complex side of r2c / c2r halves the last.
  Index shape(bool input) const {
    Index s;
    for (const Dim& d : dims) s.push_back(d.n);
    const bool complex_half = (kind == Kind::R2C && !input) || (kind == Kind::C2R && input);
    if (complex_half) s.back() = s.back() / 2 + 1;
    return s;
  }
  Index loop_shape() const {
    Index s;
    for (const Dim& d : loops) s.push_back(d.n);
    return s;
  }
  // Element offset of (loop index, dim index) on the input or output side.
  std::int64_t offset(const Index& l, const Index& d, bool input) const {
    std::int64_t o = 0;
    for (std::size_t i = 0; i < loops.size(); ++i) o += l[i] * (input ? loops[i].is : loops[i].os);
    for (std::size_t i = 0; i < dims.size(); ++i) o += d[i] * (input ? dims[i].is : dims[i].os);
    return o;
  }
  // Elements one side reaches (1 + the furthest offset).
  std::int64_t reach(bool input) const {
    std::int64_t r = 1;
    const Index s = shape(input);
    for (std::size_t i = 0; i < loops.size(); ++i) r += (loops[i].n - 1) * (input ? loops[i].is : loops[i].os);
    for (std::size_t i = 0; i < dims.size(); ++i) r += (s[i] - 1) * (input ? dims[i].is : dims[i].os);
    return r;
  }
};

// Arrays of reals (2 per complex element) laid out for a Layout, at `shift` bytes past an
// aligned start (any alignment must do), in place or not.
template <typename T>
struct Arrays {
  std::vector<T> in_store, out_store;
  T* in = nullptr;
  T* out = nullptr;
  Arrays(const Layout& l, bool in_place, std::size_t shift = 0) {
    const std::int64_t in_reals = l.reach(true) * (l.real_in() ? 1 : 2);
    const std::int64_t out_reals = l.reach(false) * (l.real_out() ? 1 : 2);
    const std::size_t pad = 64 / sizeof(T) + 1;
    in_store.assign((in_place ? std::max(in_reals, out_reals) : in_reals) + pad, T(0));
    in = aligned(in_store, shift);
    if (in_place) {
      out = in;
    } else {
      out_store.assign(out_reals + pad, T(0));
      out = aligned(out_store, shift);
    }
  }
  static T* aligned(std::vector<T>& v, std::size_t shift) {
    auto p = reinterpret_cast<std::uintptr_t>(v.data());
    p = (p + 63) / 64 * 64 + shift;
    return reinterpret_cast<T*>(p);
  }
};

// Logical dense values of one batch of one side, read from / written to the strided arrays.
template <typename T>
std::vector<C> gather(const Layout& l, const T* a, const Index& loop, bool input) {
  std::vector<C> v;
  const bool real = input ? l.real_in() : l.real_out();
  for_each(l.shape(input), [&](const Index& d) {
    const std::int64_t o = l.offset(loop, d, input);
    v.push_back(real ? C(a[o], 0) : C(a[2 * o], a[2 * o + 1]));
  });
  return v;
}
template <typename T>
void scatter(const Layout& l, T* a, const Index& loop, const std::vector<C>& v) {
  std::size_t k = 0;
  for_each(l.shape(true), [&](const Index& d) {
    const std::int64_t o = l.offset(loop, d, true);
    if (l.real_in()) {
      a[o] = static_cast<T>(v[k].real());
    } else {
      a[2 * o] = static_cast<T>(v[k].real());
      a[2 * o + 1] = static_cast<T>(v[k].imag());
    }
    ++k;
  });
}

// The forward DFT of a real array of shape `full`, its last dim cut to n/2 + 1 (r2c's output).
std::vector<C> half_spectrum(const std::vector<C>& real, const Index& full) {
  const std::vector<C> X = naive_dft(real, full, -1);
  Index half_shape = full;
  half_shape.back() = full.back() / 2 + 1;
  std::vector<C> half;
  for_each(half_shape, [&](const Index& d) {
    std::int64_t o = 0;
    for (std::size_t i = 0; i < d.size(); ++i) o = o * full[i] + d[i];
    half.push_back(X[o]);
  });
  return half;
}

// Input for one batch: random values; for c2r the half spectrum of a random real array (so
// that the expected output is well defined), returned with that real array.
std::vector<C> random_input(const Layout& l, std::mt19937& rng, std::vector<C>* real_source) {
  std::uniform_real_distribution<double> u(-1, 1);
  if (l.kind != Kind::C2R) {
    std::vector<C> v(product(l.shape(true)));
    for (C& x : v) x = l.real_in() ? C(u(rng), 0) : C(u(rng), u(rng));
    return v;
  }
  const Index full = l.shape(false);
  std::vector<C> x(product(full));
  for (C& e : x) e = C(u(rng), 0);
  *real_source = x;
  return half_spectrum(x, full);
}

// What the transform must give for one batch.
std::vector<C> expected(const Layout& l, const std::vector<C>& input, const std::vector<C>& real_source) {
  switch (l.kind) {
    case Kind::Forward: return naive_dft(input, l.shape(true), -1);
    case Kind::Backward: return naive_dft(input, l.shape(true), +1);
    case Kind::C2R: {
      std::vector<C> r = real_source;
      for (C& x : r) x *= static_cast<double>(product(l.shape(false)));  // unnormalized
      return r;
    }
    default: return half_spectrum(input, l.shape(true));  // r2c
  }
}

template <typename T>
double tolerance() {
  return std::is_same_v<T, double> ? 1e-12 : 1e-5;
}

Problem problem(const Layout& l, Input input = Input::Any) { return Problem{l.kind, l.dims, l.loops, {}, input}; }

struct Options {
  bool in_place = false;
  Input input = Input::Any;
  std::size_t shift = 0;  // bytes the run's arrays lie past an aligned start
};

// Plans `l` on `b`, runs it on fresh arrays, compares every batch against the naive DFT
// (max error relative to the largest expected magnitude), and with Input::Preserve checks
// that the input is unchanged bit for bit.
template <typename T>
void check(Backend b, const Layout& l, Options o = {}) {
  SCOPED_TRACE(std::string(name(b)) + (std::is_same_v<T, double> ? " double " : " float ") +
               describe(problem(l, o.input)) + (o.in_place ? " in place" : "") +
               " shift " + std::to_string(o.shift));
  Arrays<T> plan_arrays(l, o.in_place);
  const Problem p = problem(l, o.input);
  Transform<T> t(b, p, plan_arrays.in, plan_arrays.out, Effort::Estimate);
  ASSERT_TRUE(static_cast<bool>(t));
  ASSERT_FALSE(t.empty());
  EXPECT_EQ(t.in_place(), o.in_place);

  Arrays<T> run(l, o.in_place, o.shift);
  std::mt19937 rng(7);
  std::vector<std::vector<C>> inputs, sources;
  for_each(l.loop_shape(), [&](const Index& loop) {  // once when there is no loop
    std::vector<C> source;
    inputs.push_back(random_input(l, rng, &source));
    sources.push_back(source);
    scatter(l, run.in, loop, inputs.back());
  });
  const std::vector<T> before = run.in_store;
  t.execute(run.in, run.out);
  if (o.input == Input::Preserve && !o.in_place) {
    EXPECT_EQ(std::memcmp(before.data(), run.in_store.data(), before.size() * sizeof(T)), 0)
        << "Input::Preserve changed the input";
  }

  std::size_t batch = 0;
  auto compare = [&](const Index& loop) {
    const std::vector<C> want = expected(l, inputs[batch], sources[batch]);
    const std::vector<C> got = gather(l, run.out, loop, false);
    ASSERT_EQ(want.size(), got.size());
    double err = 0, scale = 1e-300;
    for (std::size_t i = 0; i < want.size(); ++i) {
      err = std::max(err, std::abs(want[i] - got[i]));
      scale = std::max(scale, std::abs(want[i]));
    }
    EXPECT_LE(err / scale, tolerance<T>()) << "batch " << batch;
    ++batch;
  };
  for_each(l.loop_shape(), compare);  // once when there is no loop
}

// Every check on both precisions.
void check_both(Backend b, const Layout& l, Options o = {}) {
  check<double>(b, l, o);
  check<float>(b, l, o);
}

std::string built_names() {
  std::string s;
  for (Backend b : built_backends()) s += std::string(s.empty() ? "" : ", ") + name(b);
  return s;
}

class Local : public testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (!built(GetParam()))
      GTEST_SKIP() << "the local FFT backend '" << name(GetParam()) << "' is not built here (built: " << built_names()
                   << ")";
  }
  Backend b() const { return GetParam(); }
};

TEST_P(Local, C2c1dBatched) {
  // Unit stride rows, one loop.
  check_both(b(), {Kind::Forward, {{12, 1, 1}}, {{5, 12, 12}}});
  check_both(b(), {Kind::Backward, {{12, 1, 1}}, {{5, 12, 12}}});
  // Rows in, columns out (transposed), two loops with padding; the longest loop is not first.
  check_both(b(), {Kind::Backward, {{9, 1, 3}}, {{2, 32, 29}, {3, 9, 1}}});
  check_both(b(), {Kind::Forward, {{9, 3, 1}}, {{3, 1, 9}, {4, 29, 32}, {2, 120, 130}}});
  // Strided dims in place, and no loop at all.
  check_both(b(), {Kind::Forward, {{10, 2, 2}}, {{2, 1, 1}}}, {true});
  check_both(b(), {Kind::Backward, {{7, 1, 1}}, {}});
}

TEST_P(Local, R2cC2r1d) {
  for (std::int64_t n : {16, 15}) {
    const std::int64_t h = n / 2 + 1;
    // Out of place, padded rows; and in place, FFTW's padded layout (2h reals a row).
    check_both(b(), {Kind::R2C, {{n, 1, 1}}, {{4, n + 3, h + 1}}});
    check_both(b(), {Kind::C2R, {{n, 1, 1}}, {{4, h + 1, n + 3}}});
    check_both(b(), {Kind::R2C, {{n, 1, 1}}, {{3, 2 * h, h}}}, {true});
    check_both(b(), {Kind::C2R, {{n, 1, 1}}, {{3, h, 2 * h}}}, {true});
    // Columns: n strided by the loop count, two loops.
    check_both(b(), {Kind::R2C, {{n, 6, 6}}, {{3, 2, 2}, {2, 1, 1}}});
    check_both(b(), {Kind::C2R, {{n, 6, 6}}, {{3, 2, 2}, {2, 1, 1}}});
  }
}

TEST_P(Local, MultiDimensional) {
  // 2-D c2c, rows in, transposed out, batched.
  check_both(b(), {Kind::Forward, {{6, 5, 1}, {5, 1, 6}}, {{3, 30, 31}}});
  check_both(b(), {Kind::Backward, {{6, 1, 5}, {5, 6, 1}}, {{3, 31, 30}}});
  // 2-D r2c / c2r with padded rows (odd last dim).
  check_both(b(), {Kind::R2C, {{6, 8, 4}, {7, 1, 1}}, {{2, 48, 24}}});
  check_both(b(), {Kind::C2R, {{6, 4, 8}, {7, 1, 1}}, {{2, 24, 48}}});
  // 3-D: c2c contiguous with two loops; r2c in place on FFTW's padded layout; c2r out of place.
  check_both(b(), {Kind::Backward, {{4, 15, 15}, {3, 5, 5}, {5, 1, 1}}, {{2, 60, 60}, {2, 120, 120}}});
  check_both(b(), {Kind::R2C, {{4, 24, 12}, {3, 8, 4}, {6, 1, 1}}, {{2, 96, 48}}}, {true});
  check_both(b(), {Kind::C2R, {{4, 12, 24}, {3, 4, 8}, {6, 1, 1}}, {{2, 48, 96}}}, {true});
  check_both(b(), {Kind::C2R, {{4, 9, 15}, {3, 3, 5}, {5, 1, 1}}, {{2, 1 + 36, 60}}});
}

TEST_P(Local, AnyAlignment) {
  // Planned on 64-byte aligned arrays, run 4, 8 and 24 bytes past such a start.
  for (std::size_t shift : {std::size_t{8}, std::size_t{24}}) {
    check_both(b(), {Kind::Forward, {{16, 1, 1}}, {{5, 16, 16}}}, {false, Input::Any, shift});
    check_both(b(), {Kind::R2C, {{6, 8, 4}, {6, 1, 1}}, {{2, 48, 24}}}, {false, Input::Any, shift});
  }
  check<float>(b(), {Kind::C2R, {{12, 1, 1}}, {{3, 7, 13}}}, {false, Input::Any, 4});
}

TEST_P(Local, PreserveKeepsTheInput) {
  const Options keep{false, Input::Preserve};
  check_both(b(), {Kind::Forward, {{12, 1, 1}}, {{4, 12, 12}}}, keep);
  check_both(b(), {Kind::R2C, {{15, 1, 1}}, {{4, 17, 9}}}, keep);
  check_both(b(), {Kind::R2C, {{6, 8, 4}, {7, 1, 1}}, {{2, 48, 24}}}, keep);
  check_both(b(), {Kind::Forward, {{6, 5, 1}, {5, 1, 6}}, {{3, 30, 31}}}, keep);
  check_both(b(), {Kind::C2R, {{16, 1, 1}}, {{3, 9, 17}}}, keep);
}

TEST_P(Local, ZeroExtentsAreEmpty) {
  for (const Layout& l : {Layout{Kind::Forward, {{0, 1, 1}}, {{4, 8, 8}}}, Layout{Kind::R2C, {{8, 1, 1}}, {{0, 8, 5}}},
                          Layout{Kind::C2R, {{4, 5, 8}, {8, 1, 1}}, {{3, 20, 32}, {0, 60, 96}}}}) {
    double a[64] = {0};
    Transform<double> t(b(), problem(l), a, a + 32, Effort::Estimate);
    EXPECT_TRUE(static_cast<bool>(t));
    EXPECT_TRUE(t.empty());
    t.execute(a, a + 32);  // nothing to do
  }
}

TEST_P(Local, ConcurrentExecuteMatchesOneThread) {
  // One plan, two threads, each on its own arrays, many times; bitwise the one-thread result.
  const Layout l{Kind::Forward, {{48, 64, 64}, {64, 1, 1}}, {{4, 48 * 64, 48 * 64}}};
  const Problem p = problem(l);
  const std::size_t reals = 2 * static_cast<std::size_t>(l.reach(true));
  std::vector<double> plan_in(reals), plan_out(reals);
  Transform<double> t(b(), p, plan_in.data(), plan_out.data(), Effort::Estimate);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> input(reals);
  for (double& x : input) x = u(rng);
  std::vector<double> want(reals), in = input;
  t.execute(in.data(), want.data());

  std::vector<std::vector<double>> got(2, std::vector<double>(reals));
  std::vector<int> mismatches(2, 0);
  auto work = [&](int k) {
    std::vector<double> my_in(reals);
    for (int round = 0; round < 40; ++round) {
      my_in = input;
      t.execute(my_in.data(), got[k].data());
      if (std::memcmp(got[k].data(), want.data(), reals * sizeof(double)) != 0) ++mismatches[k];
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  EXPECT_EQ(mismatches[0], 0);
  EXPECT_EQ(mismatches[1], 0);
}

// FFTW's unnormalized definitions of the eight kinds (nbfft/fft/r2r_kinds.hpp), written out.
std::vector<double> r2r_ref(R2r kind, const std::vector<double>& x) {
  const auto n = static_cast<std::int64_t>(x.size());
  const double N = static_cast<double>(n);
  std::vector<double> y(x.size(), 0.0);
  for (std::int64_t k = 0; k < n; ++k) {
    double s = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double xj = x[static_cast<std::size_t>(j)];
      switch (kind) {
        case R2r::Dct1:
          s += (j == 0 || j == n - 1 ? 1 : 2) * xj * std::cos(kPi * j * k / (N - 1));
          break;
        case R2r::Dct2: s += 2 * xj * std::cos(kPi * (j + 0.5) * k / N); break;
        case R2r::Dct3: s += (j == 0 ? 1 : 2) * xj * std::cos(kPi * j * (k + 0.5) / N); break;
        case R2r::Dct4: s += 2 * xj * std::cos(kPi * (j + 0.5) * (k + 0.5) / N); break;
        case R2r::Dst1: s += 2 * xj * std::sin(kPi * (j + 1) * (k + 1) / (N + 1)); break;
        case R2r::Dst2: s += 2 * xj * std::sin(kPi * (j + 0.5) * (k + 1) / N); break;
        case R2r::Dst3: s += (j == n - 1 ? 1 : 2) * xj * std::sin(kPi * (j + 1) * (k + 0.5) / N); break;
        case R2r::Dst4: s += 2 * xj * std::sin(kPi * (j + 0.5) * (k + 0.5) / N); break;
      }
    }
    y[static_cast<std::size_t>(k)] = s;
  }
  return y;
}

// Every r2r kind on every backend: natively (FFTW) or through the backend's complex DFT
// (local/r2r_by_dft.cpp, MKL), batched with strides, out of place and in place, double and
// single, and a 2-D problem of two kinds (its second dim runs in place on the output).
TEST_P(Local, RealToRealKinds) {
  const R2r kinds[] = {R2r::Dct1, R2r::Dct2, R2r::Dct3, R2r::Dct4, R2r::Dst1, R2r::Dst2, R2r::Dst3, R2r::Dst4};
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (R2r kind : kinds)
    for (std::int64_t n : {5, 8})
      for (bool in_place : {false, true}) {
        // 3 lines, interleaved (stride 3 along the line, 1 between lines): a strided layout.
        const std::int64_t lines = 3;
        std::vector<double> in(static_cast<std::size_t>(n * lines)), out(in.size()), plan_in(in.size()),
            plan_out(in.size());
        for (double& x : in) x = u(rng);
        const Problem p{Kind::R2R, {{n, lines, lines}}, {{lines, 1, 1}}, {kind}, Input::Any};
        Transform<double> t(b(), p, plan_in.data(), in_place ? plan_in.data() : plan_out.data(), Effort::Estimate);
        std::vector<double> work = in;
        t.execute(work.data(), in_place ? work.data() : out.data());
        const std::vector<double>& got = in_place ? work : out;
        for (std::int64_t l = 0; l < lines; ++l) {
          std::vector<double> x(static_cast<std::size_t>(n));
          for (std::int64_t j = 0; j < n; ++j) x[static_cast<std::size_t>(j)] = in[static_cast<std::size_t>(l + j * lines)];
          const std::vector<double> y = r2r_ref(kind, x);
          for (std::int64_t k = 0; k < n; ++k)
            EXPECT_NEAR(got[static_cast<std::size_t>(l + k * lines)], y[static_cast<std::size_t>(k)], 1e-12 * n)
                << name(b()) << " kind " << static_cast<int>(kind) << " n " << n << (in_place ? " in place" : "");
        }
        // Single precision, contiguous lines.
        std::vector<float> f(in.begin(), in.end()), fo(f.size()), fp(f.size()), fq(f.size());
        Transform<float> tf(b(), Problem{Kind::R2R, {{n, 1, 1}}, {{lines, n, n}}, {kind}, Input::Any}, fp.data(),
                            fq.data(), Effort::Estimate);
        tf.execute(f.data(), fo.data());
        for (std::int64_t l = 0; l < lines; ++l) {
          const std::vector<double> x(f.begin() + l * n, f.begin() + (l + 1) * n);
          const std::vector<double> y = r2r_ref(kind, x);
          for (std::int64_t k = 0; k < n; ++k)
            EXPECT_NEAR(fo[static_cast<std::size_t>(l * n + k)], y[static_cast<std::size_t>(k)], 2e-5 * n)
                << name(b()) << " single, kind " << static_cast<int>(kind) << " n " << n;
        }
      }
  // 2-D: dct2 along the slow dim (6), dst3 along the fast one (5), out of place.
  const std::int64_t n0 = 6, n1 = 5;
  std::vector<double> in(static_cast<std::size_t>(n0 * n1)), out(in.size()), pa(in.size()), pb(in.size());
  for (double& x : in) x = u(rng);
  Transform<double> t(b(), Problem{Kind::R2R, {{n0, n1, n1}, {n1, 1, 1}}, {}, {R2r::Dct2, R2r::Dst3}, Input::Any},
                      pa.data(), pb.data(), Effort::Estimate);
  t.execute(in.data(), out.data());
  std::vector<double> ref(in.size());
  for (std::int64_t i = 0; i < n0; ++i) {  // rows first (dst3), then columns (dct2): separable
    const std::vector<double> row(in.begin() + i * n1, in.begin() + (i + 1) * n1);
    const std::vector<double> y = r2r_ref(R2r::Dst3, row);
    std::copy(y.begin(), y.end(), ref.begin() + i * n1);
  }
  for (std::int64_t j = 0; j < n1; ++j) {
    std::vector<double> col(static_cast<std::size_t>(n0));
    for (std::int64_t i = 0; i < n0; ++i) col[static_cast<std::size_t>(i)] = ref[static_cast<std::size_t>(i * n1 + j)];
    const std::vector<double> y = r2r_ref(R2r::Dct2, col);
    for (std::int64_t i = 0; i < n0; ++i) ref[static_cast<std::size_t>(i * n1 + j)] = y[static_cast<std::size_t>(i)];
  }
  for (std::size_t k = 0; k < ref.size(); ++k) EXPECT_NEAR(out[k], ref[k], 1e-11) << name(b()) << " 2-D at " << k;
}

INSTANTIATE_TEST_SUITE_P(Backends, Local, testing::Values(Backend::Fftw, Backend::Mkl),
                         [](const testing::TestParamInfo<Backend>& i) { return std::string(name(i.param)); });

TEST(LocalBackends, UnbuiltBackendNamesTheBuiltOnes) {
  bool any = false;
  for (int i = 0; i < kBackends; ++i) {
    const Backend b = static_cast<Backend>(i);
    if (built(b)) continue;
    any = true;
    double a[16] = {0};
    try {
      Transform<double> t(b, problem({Kind::Forward, {{4, 1, 1}}, {}}), a, a + 8, Effort::Estimate);
      FAIL() << name(b) << " is not built but planned";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Unavailable);
      EXPECT_NE(e.message().find(std::string("'") + name(b) + "' is not built"), std::string::npos) << e.message();
      EXPECT_NE(e.message().find("it has " + built_names()), std::string::npos) << e.message();
    }
    EXPECT_EQ(version(b), "not built");
  }
  if (!any) GTEST_SKIP() << "every backend is built here (" << built_names() << ")";
}

TEST(LocalBackends, Versions) {
  for (Backend b : built_backends()) EXPECT_FALSE(version(b).empty()) << name(b);
  if (built(Backend::Fftw)) {
    EXPECT_NE(version(Backend::Fftw).find("fftw-3"), std::string::npos) << version(Backend::Fftw);
  }
  if (built(Backend::Mkl)) {
    EXPECT_NE(version(Backend::Mkl).find("Math Kernel Library"), std::string::npos) << version(Backend::Mkl);
  }
}

// MKL's libraries export FFTW's API too (local/CMakeLists.txt): in this program, linked the
// way nbfft's own programs are, FFTW's entry points must resolve into libfftw3.
TEST(LocalBackends, FftwCallsReachLibfftw3) {
#if !NBFFT_TESTS_WITH_FFTW
  GTEST_SKIP() << "fftw is not built";
#else
  if (!built(Backend::Fftw)) GTEST_SKIP() << "fftw is not built";
  for (const void* f : {reinterpret_cast<const void*>(&fftw_plan_guru64_dft),
                        reinterpret_cast<const void*>(&fftw_execute_dft),
                        reinterpret_cast<const void*>(&fftwf_plan_guru64_dft)}) {
    Dl_info at{};
    ASSERT_NE(dladdr(f, &at), 0);
    ASSERT_NE(at.dli_fname, nullptr);
    EXPECT_NE(std::string(at.dli_fname).find("libfftw3"), std::string::npos) << at.dli_fname;
  }
#endif
}

}  // namespace
}  // namespace nbfft::local
