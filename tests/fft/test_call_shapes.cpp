// Every call shape of a plan in both directions: transform (pointers, vectors, with a
// workspace), transform_bytes, transform_many (pointer lists, vectors of fields),
// transform_many_bytes, start / start_bytes, the batch helpers, and the direction-named
// aliases (forward, backward_many, forward_start, ...). On r2c and c2c plans of both
// precisions each gives the serial FFTW spectrum forward and the field back backward. The
// shape rule (Plan::shape) is checked as a table: of the eight element-type pairs a call
// can name, exactly shape(d) runs and the seven others throw InvalidArgument naming the
// call, the plan's shape and the one called with. Which pairs compile at all is checked at
// compile time below.
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/field.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;
using cd = std::complex<double>;
using cf = std::complex<float>;

// ---- Compile time: which element types a typed call may name ---------------------------
static_assert(fft_elements<double, cd>() && fft_elements<float, cf>() && fft_elements<cd, cd>() &&
              fft_elements<cf, cf>() && fft_elements<cd, double>() && fft_elements<cf, float>());
static_assert(fft_elements<const double, cd>(), "const input pointers (the many form's lists) are inputs too");
static_assert(fft_elements<double, double>(), "real -> real compiles; the plan's shape decides at run time");
static_assert(!fft_elements<double, cf>() && !fft_elements<cf, double>() && !fft_elements<float, cd>(),
              "one precision per call");
static_assert(!fft_elements<int, cd>() && !fft_elements<double, int>() && !fft_elements<long double, cd>() &&
              !fft_elements<std::complex<long double>, std::complex<long double>>() && !fft_elements<void, cd>());
static_assert(element_of<cf>::type == Element{Precision::Single, false});
static_assert(element_of<const double>::type == Element{Precision::Double, true});
static_assert(element_of<cd>::type.bytes() == 16 && element_of<float>::type.bytes() == 4);
static_assert(std::string_view(name(Direction::Forward)) == "forward" &&
              std::string_view(name(Direction::Backward)) == "backward");
static_assert(opposite(Direction::Forward) == Direction::Backward && opposite(Direction::Backward) == Direction::Forward);
static_assert(std::string_view(name(Element{Precision::Single, false})) == "complex float");

// ---- Run time ----------------------------------------------------------------------------

// Largest |a - b| / largest |b| over all ranks.
template <typename T>
double rel_diff(const std::vector<T>& a, const std::vector<T>& b) {
  double d = 0, r = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
    d = std::max(d, static_cast<double>(std::abs(a[k] - b[k])));
    r = std::max(r, static_cast<double>(std::abs(b[k])));
  }
  double local[2] = {d, r}, global[2] = {0, 0};
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return global[1] > 0 ? global[0] / global[1] : global[0];
}

template <typename T>
std::vector<double> as_doubles(const std::vector<T>& v) {
  std::vector<double> d;
  for (const T& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      d.push_back(static_cast<double>(x));
    } else {
      d.push_back(static_cast<double>(x.real()));
      d.push_back(static_cast<double>(x.imag()));
    }
  }
  return d;
}

template <typename T>
std::vector<T> from_doubles(const std::vector<double>& d) {
  std::vector<T> v;
  if constexpr (std::is_floating_point_v<T>) {
    for (double x : d) v.push_back(static_cast<T>(x));
  } else {
    using R = typename T::value_type;
    for (std::size_t k = 0; k + 1 < d.size(); k += 2) v.emplace_back(static_cast<R>(d[k]), static_cast<R>(d[k + 1]));
  }
  return v;
}

// Runs src -> dst in direction d through every call shape; returns (name, result) pairs.
template <typename Src, typename Dst>
std::vector<std::pair<std::string, std::vector<Dst>>> every_shape(const Plan& plan, Direction d,
                                                                  const std::vector<Src>& src, std::size_t dst_n) {
  const bool fwd = d == Direction::Forward;
  const std::size_t sn = src.size(), sb = sn * sizeof(Src), db = dst_n * sizeof(Dst);
  std::vector<std::pair<std::string, std::vector<Dst>>> r;
  auto one = [&](const char* what, const std::function<void(std::vector<Dst>&)>& call) {
    std::vector<Dst> out(dst_n);
    call(out);
    r.emplace_back(what, std::move(out));
  };
  // Two fields (copies of src) through a many-field call; keeps the second when it equals the first.
  auto two = [&](const char* what, const std::function<void(std::vector<Src>&, std::vector<Src>&, std::vector<Dst>&,
                                                            std::vector<Dst>&)>& call) {
    std::vector<Src> a = src, b = src;
    std::vector<Dst> x(dst_n), y(dst_n);
    call(a, b, x, y);
    EXPECT_EQ(rel_diff(x, y), 0.0) << what << ": the two fields differ";
    r.emplace_back(what, std::move(y));
  };
  Plan::Workspace ws = plan.make_workspace();
  Timings t;
  one("transform(pointers)", [&](auto& o) { plan.transform(d, src.data(), sn, o.data(), dst_n); });
  one("transform(vectors, &t)", [&](auto& o) { plan.transform(d, src, o, &t); });
  one("transform(pointers, ws)", [&](auto& o) { plan.transform(d, src.data(), sn, o.data(), dst_n, ws); });
  one("transform(vectors, {ws, &t})", [&](auto& o) { plan.transform(d, src, o, {ws, &t}); });
  one("transform_bytes", [&](auto& o) { plan.transform_bytes(d, src.data(), sb, o.data(), db); });
  one("transform_bytes(ws)", [&](auto& o) { plan.transform_bytes(d, src.data(), sb, o.data(), db, ws); });
  one("start", [&](auto& o) { plan.start(d, src.data(), sn, o.data(), dst_n, ws).wait(); });
  one("start_bytes", [&](auto& o) { plan.start_bytes(d, src.data(), sb, o.data(), db, ws, &t).wait(); });
  two("transform_many(pointers)", [&](auto& a, auto& b, auto& x, auto& y) {
    plan.transform_many(d, std::vector<const Src*>{a.data(), b.data()}, sn, std::vector<Dst*>{x.data(), y.data()},
                        dst_n);
  });
  two("transform_many(vectors)", [&](auto& a, auto& b, auto& x, auto& y) {
    std::vector<std::vector<Src>> in = {a, b};
    std::vector<std::vector<Dst>> out = {x, y};
    plan.transform_many(d, in, out, &t);
    x = out[0], y = out[1];
  });
  two("transform_many_bytes", [&](auto& a, auto& b, auto& x, auto& y) {
    const void* in[2] = {a.data(), b.data()};
    void* out[2] = {x.data(), y.data()};
    plan.transform_many_bytes(d, 2, in, sb, out, db);
  });
  // Batches: two fields back to back.
  auto batch = [&](const char* what, bool bytes) {
    two(what, [&](auto& a, auto&, auto& x, auto& y) {
      std::vector<Src> in(a);
      in.insert(in.end(), a.begin(), a.end());
      std::vector<Dst> out(2 * dst_n);
      if (bytes)
        transform_batch_bytes(plan, d, 2, in.data(), 2 * sb, out.data(), 2 * db);
      else
        transform_batch(plan, d, 2, in.data(), in.size(), out.data(), out.size());
      x.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(dst_n));
      y.assign(out.begin() + static_cast<std::ptrdiff_t>(dst_n), out.end());
    });
  };
  batch("transform_batch", false);
  batch("transform_batch_bytes", true);
  // The direction-named aliases.
  one("forward/backward(pointers)", [&](auto& o) {
    fwd ? plan.forward(src.data(), sn, o.data(), dst_n) : plan.backward(src.data(), sn, o.data(), dst_n);
  });
  one("forward/backward(vectors)", [&](auto& o) { fwd ? plan.forward(src, o, &t) : plan.backward(src, o, &t); });
  one("forward/backward_bytes({ws, &t})", [&](auto& o) {
    fwd ? plan.forward_bytes(src.data(), sb, o.data(), db, {ws, &t})
        : plan.backward_bytes(src.data(), sb, o.data(), db, {ws, &t});
  });
  one("forward/backward_start", [&](auto& o) {
    (fwd ? plan.forward_start(src.data(), sn, o.data(), dst_n, ws) : plan.backward_start(src.data(), sn, o.data(), dst_n, ws))
        .wait();
  });
  two("forward/backward_many", [&](auto& a, auto& b, auto& x, auto& y) {
    std::vector<const Src*> in = {a.data(), b.data()};
    std::vector<Dst*> out = {x.data(), y.data()};
    fwd ? plan.forward_many(in, sn, out, dst_n) : plan.backward_many(in, sn, out, dst_n);
  });
  two("forward/backward_many_bytes", [&](auto& a, auto& b, auto& x, auto& y) {
    const void* in[2] = {a.data(), b.data()};
    void* out[2] = {x.data(), y.data()};
    fwd ? plan.forward_many_bytes(2, in, sb, out, db) : plan.backward_many_bytes(2, in, sb, out, db);
  });
  EXPECT_GT(t.total, 0.0) << "the calls given &t added no time";
  return r;
}

template <typename R>
void check_every_shape(TransformKind kind) {
  const bool r2c = kind == TransformKind::R2C;
  const Grid n{9, 6, 5};
  Options o;
  o.precision = std::is_same_v<R, double> ? Precision::Double : Precision::Single;
  o.transform = kind;
  o.effort = Effort::Estimate;
  const Plan plan(MPI_COMM_WORLD, n, o);
  const double tol = std::is_same_v<R, double> ? 1e-12 : 2e-5;
  using Cplx = std::complex<R>;
  auto run = [&](auto real_tag) {
    using Src = std::conditional_t<decltype(real_tag)::value, R, Cplx>;
    const int comps = r2c ? 1 : 2;
    const std::vector<double> f_d = random_box(plan.in_box(), n, comps, 7);
    const std::vector<Src> f = from_doubles<Src>(f_d);
    const std::size_t out_n = static_cast<std::size_t>(plan.out_count());
    const auto fwd = every_shape<Src, Cplx>(plan, Direction::Forward, f, out_n);
    // The first against serial FFTW, the others against the first.
    const auto global_in = gather_box(plan.in_box(), as_doubles(f), n, comps);
    const auto global_out =
        gather_box(plan.out_box(), as_doubles(fwd[0].second), {r2c ? n[0] / 2 + 1 : n[0], n[1], n[2]}, 2);
    if (world_rank() == 0) {
      EXPECT_LT(rel_error(global_out, serial_forward(global_in, n, r2c)), tol);
    }
    for (const auto& [what, out] : fwd) EXPECT_LE(rel_diff(out, fwd[0].second), tol) << "forward " << what;
    // Backward from the spectrum gives the field back (the default norm scales backward).
    const auto bwd = every_shape<Cplx, Src>(plan, Direction::Backward, fwd[0].second, f.size());
    for (const auto& [what, back] : bwd) EXPECT_LE(rel_diff(back, f), 10 * tol) << "backward " << what;
  };
  if (r2c)
    run(std::true_type{});
  else
    run(std::false_type{});
}

TEST(CallShapes, EveryShapeBothDirectionsR2cDouble) { check_every_shape<double>(TransformKind::R2C); }
TEST(CallShapes, EveryShapeBothDirectionsC2cDouble) { check_every_shape<double>(TransformKind::C2C); }
TEST(CallShapes, EveryShapeBothDirectionsR2cSingle) { check_every_shape<float>(TransformKind::R2C); }
TEST(CallShapes, EveryShapeBothDirectionsC2cSingle) { check_every_shape<float>(TransformKind::C2C); }

// One typed call with In/Out of the given kinds and precision P: "" when it ran, else the
// error (after checking its kind).
template <typename P, bool RealIn, bool RealOut>
std::string try_call(const Plan& plan, Direction d) {
  using In = std::conditional_t<RealIn, P, std::complex<P>>;
  using Out = std::conditional_t<RealOut, P, std::complex<P>>;
  // Large enough for any shape of the plan (the bytes check must not be what fails).
  std::vector<In> in(plan.inplace_bytes() / sizeof(In) + 1);
  std::vector<Out> out(plan.inplace_bytes() / sizeof(Out) + 1);
  try {
    plan.transform(d, in, out);
    return "";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
    return e.what();
  }
}

TEST(CallShapes, ExactlyThePlansShapeRunsAndEveryOtherPairIsRefused) {
  for (Precision prec : {Precision::Double, Precision::Single})
    for (TransformKind kind : {TransformKind::R2C, TransformKind::C2C}) {
      Options o;
      o.precision = prec;
      o.transform = kind;
      o.effort = Effort::Estimate;
      const Plan plan(MPI_COMM_WORLD, {8, 6, 5}, o);
      for (Direction d : {Direction::Forward, Direction::Backward}) {
        const Plan::Shape want = plan.shape(d);
        const bool r2c = kind == TransformKind::R2C, fwd = d == Direction::Forward;
        EXPECT_EQ(want.in, (Element{prec, r2c && fwd}));
        EXPECT_EQ(want.out, (Element{prec, r2c && !fwd}));
        const std::pair<Element, std::string> calls[] = {
            {{Precision::Double, true}, try_call<double, true, true>(plan, d)},
            {{Precision::Double, true}, try_call<double, true, false>(plan, d)},
            {{Precision::Double, false}, try_call<double, false, true>(plan, d)},
            {{Precision::Double, false}, try_call<double, false, false>(plan, d)},
            {{Precision::Single, true}, try_call<float, true, true>(plan, d)},
            {{Precision::Single, true}, try_call<float, true, false>(plan, d)},
            {{Precision::Single, false}, try_call<float, false, true>(plan, d)},
            {{Precision::Single, false}, try_call<float, false, false>(plan, d)}};
        int ran = 0;
        for (std::size_t k = 0; k < 8; ++k) {
          const std::string& err = calls[k].second;
          const bool real_out = k % 2 == 0;
          const bool is_shape = calls[k].first == want.in && Element{calls[k].first.precision, real_out} == want.out;
          EXPECT_EQ(err.empty(), is_shape) << name(d) << " " << name(kind) << " " << name(prec) << " pair " << k
                                           << ": " << err;
          ran += err.empty();
          if (err.empty()) continue;
          // One message: the call, the plan's shape, and what it was called with.
          const std::string plan_words = std::string("nbfft: ") + name(d) + ": the plan is " + name(prec) + " precision " +
                                         name(kind) + " (" + (want.in.real ? "real" : "complex") + " in, " +
                                         (want.out.real ? "real" : "complex") + " out) but was called with " +
                                         name(calls[k].first.precision) + " precision " +
                                         (calls[k].first.real ? "real" : "complex") + " in, " +
                                         (real_out ? "real" : "complex") + " out";
          EXPECT_EQ(err, plan_words);
        }
        EXPECT_EQ(ran, 1);
      }
    }
}

}  // namespace
}  // namespace nbfft::fft::test
