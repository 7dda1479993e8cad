// User boxes in and out (Plan's box constructor) and the natural output order: every
// layout verified against a serial FFTW transform of the whole field, at any rank count;
// the reshapes pipelined with multi-field and split-phase calls (fields of their own
// data, each checked against FFTW and against the one-field call bit for bit).
// Bricks in and a different decomposition out, an uneven split, empty boxes, memory
// orders other than x fastest; r2c and c2c, double and single, several transports (the
// thread engine included), split-phase and multi-field calls; and the bad boxes, each an
// error on every rank naming the conflict.
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/field.hpp"
#include "nbfft/fft/tune.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>

namespace nbfft::fft::test {
namespace {

const std::array<std::int64_t, 3> kN = {12, 10, 9};

// Part (i, j, k) of a parts[0] x parts[1] x parts[2] brick split, rank = i + a (j + b k).
Box3 brick(const std::array<std::int64_t, 3>& g, std::array<int, 3> parts, int rank, std::array<int, 3> order = {0, 1, 2}) {
  const int i = rank % parts[0], j = (rank / parts[0]) % parts[1], k = rank / (parts[0] * parts[1]);
  return Box3::from(split(g[0], parts[0], i), split(g[1], parts[1], j), split(g[2], parts[2], k), order);
}

// Bricks that tile the grid over P ranks: 2x2x1 on 4, 3 along x on 3 ...
std::array<int, 3> bricks_2d(int P) {
  for (int a = 1; a * a <= P; ++a)
    if (P % a == 0 && a > 1) return {P / a, a, 1};
  return {P, 1, 1};
}

struct Boxes {
  std::string name;
  Box3 in, out;
  bool natural = false;  // no output box: the internal Z-pencil in the natural order
};

// The layouts every configuration runs (this rank's boxes); g: input grid, s: spectrum's.
std::vector<Boxes> layouts(const std::array<std::int64_t, 3>& g, const std::array<std::int64_t, 3>& s) {
  const int P = world_size(), r = world_rank();
  std::vector<Boxes> v;
  // Bricks in (2x2x1 on 4 ranks), z slabs out stored y fastest.
  v.push_back({"bricks_in_zslabs_out", brick(g, bricks_2d(P), r), brick(s, {1, 1, P}, r, {1, 0, 2})});
  // Uneven splits: z over P in (9 = 3+2+2+2 on 4), y over P out, z fastest in memory.
  v.push_back({"uneven_z_in_y_out", brick(g, {1, 1, P}, r), brick(s, {1, P, 1}, r, {2, 0, 1})});
  // Empty boxes: the last rank holds no input, rank 0 the whole spectrum.
  Box3 in = P > 1 ? (r == P - 1 ? Box3{} : brick(g, {1, P - 1, 1}, r)) : brick(g, {1, 1, 1}, 0);
  Box3 out = r == 0 ? brick(s, {1, 1, 1}, 0) : Box3{};
  v.push_back({"empty_boxes", in, out});
  // x split too (the internal pencils never split x of the input).
  v.push_back({"x_bricks_in_natural_out", brick(g, {P, 1, 1}, r), Box3{}, true});
  return v;
}

// The global field (comps values per point, x fastest) and its values in a box's order.
std::vector<double> global_field(const std::array<std::int64_t, 3>& g, int comps, std::uint64_t seed) {
  return random_box(Box3::from({0, g[0]}, {0, g[1]}, {0, g[2]}), g, comps, seed);
}
template <typename T>
std::vector<T> take(const std::vector<double>& global, const std::array<std::int64_t, 3>& g, const Box3& b, int comps) {
  std::vector<T> v(static_cast<std::size_t>(b.count() * comps));
  for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
    for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
      for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x)
        for (int c = 0; c < comps; ++c)
          v[static_cast<std::size_t>(b.index(x, y, z) * comps + c)] =
              static_cast<T>(global[static_cast<std::size_t>((x + g[0] * (y + g[1] * z)) * comps + c)]);
  return v;
}
template <typename T>
double max_diff(const std::vector<T>& a, const std::vector<T>& b) {
  double d = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) d = std::max(d, std::abs(double(a[k]) - double(b[k])));
  double all = 0;
  MPI_Allreduce(&d, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

struct Case {
  TransformKind t;
  Precision p;
  std::string transport;
  std::string call;  // "plain", "inplace", "split", "many"
  bool lean = false;  // Options::lean_workspace (in place only)
};

template <typename T>
void run_case(const Case& c, const Boxes& L) {
  const bool r2c = c.t == TransformKind::R2C;
  const std::array<std::int64_t, 3> s = {r2c ? kN[0] / 2 + 1 : kN[0], kN[1], kN[2]};
  Options o;
  o.transform = c.t;
  o.precision = c.p;
  o.effort = Effort::Estimate;
  o.transport(c.transport);
  o.fields_in_flight = c.call == "many" ? 2 : 1;
  o.lean_workspace = c.lean;
  std::optional<Box3> out = L.out;
  if (L.natural) {
    out.reset();
    o.output_order = OutputOrder::Natural;
  }
  Plan plan(MPI_COMM_WORLD, kN, L.in, out, o);
  const std::string what = L.name + " " + name(c.t) + " " + name(c.p) + " " + c.transport + " " + c.call +
                           (c.lean ? " lean" : "");
  EXPECT_EQ(plan.in_box(), L.in.empty() ? plan.in_box() : L.in) << what;
  if (out) {
    EXPECT_EQ(plan.out_box().lo, out->lo) << what;
  } else {
    EXPECT_EQ(plan.out_box().order, (std::array<int, 3>{0, 1, 2})) << what;
  }
  if (!L.natural) {
    EXPECT_TRUE(plan.reshapes()) << what;
  }
  const int ci = r2c ? 1 : 2;
  const auto f = global_field(kN, ci, 7);
  const auto F = serial_forward(f, kN, r2c);
  const auto u = take<T>(f, kN, plan.in_box(), ci);
  const auto U_ref = take<T>(F, s, plan.out_box(), 2);
  std::vector<T> U(static_cast<std::size_t>(plan.out_count() * 2) + 1), v(u.size() + 1);
  const double tol = c.p == Precision::Double ? 1e-9 : 2e-3;
  const double scale = static_cast<double>(kN[0] * kN[1] * kN[2]);
  if (c.call == "plain") {
    plan.forward_bytes(u.data(), u.size() * sizeof(T), U.data(), U.size() * sizeof(T));
    plan.backward_bytes(U.data(), U.size() * sizeof(T), v.data(), v.size() * sizeof(T));
  } else if (c.call == "inplace") {
    std::vector<T> w(static_cast<std::size_t>(plan.inplace_bytes() / sizeof(T)) + 1);
    std::copy(u.begin(), u.end(), w.begin());
    plan.forward_bytes(w.data(), w.size() * sizeof(T), w.data(), w.size() * sizeof(T));
    std::copy(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(U.size() - 1), U.begin());
    plan.backward_bytes(w.data(), w.size() * sizeof(T), w.data(), w.size() * sizeof(T));
    std::copy(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(u.size()), v.begin());
  } else if (c.call == "split") {
    Plan::Workspace ws = plan.make_workspace();
    Plan::Pending p = plan.start_bytes(Direction::Forward, u.data(), u.size() * sizeof(T), U.data(),
                                       U.size() * sizeof(T), ws);
    p.wait();
    Plan::Pending q = plan.start_bytes(Direction::Backward, U.data(), U.size() * sizeof(T), v.data(),
                                       v.size() * sizeof(T), ws);
    q.wait();
  } else {  // three fields: u, 2u, 3u
    std::vector<std::vector<T>> us(3, u), Us(3, U), vs(3, v);
    for (int k = 1; k < 3; ++k)
      for (auto& x : us[k]) x *= static_cast<T>(k + 1);
    std::vector<const void*> in;
    std::vector<void*> mid, back;
    for (int k = 0; k < 3; ++k) {
      in.push_back(us[k].data());
      mid.push_back(Us[k].data());
      back.push_back(vs[k].data());
    }
    plan.forward_many_bytes(3, in.data(), u.size() * sizeof(T), mid.data(), U.size() * sizeof(T));
    std::vector<const void*> mid_c(mid.begin(), mid.end());
    plan.backward_many_bytes(3, mid_c.data(), U.size() * sizeof(T), back.data(), v.size() * sizeof(T));
    for (int k = 1; k < 3; ++k) {
      std::vector<T> ref = U_ref, uk = u;
      for (auto& x : ref) x *= static_cast<T>(k + 1);
      for (auto& x : uk) x *= static_cast<T>(k + 1);
      U.resize(U_ref.size());
      EXPECT_LT(max_diff(std::vector<T>(Us[k].begin(), Us[k].begin() + U_ref.size()), ref) / scale, tol) << what << " field " << k;
      EXPECT_LT(max_diff(std::vector<T>(vs[k].begin(), vs[k].begin() + u.size()), uk), tol) << what << " field " << k;
    }
    U = Us[0];
    v = vs[0];
  }
  U.resize(U_ref.size());
  v.resize(u.size());
  EXPECT_LT(max_diff(U, U_ref) / scale, tol) << what;
  EXPECT_LT(max_diff(v, u), tol) << what;
}

TEST(UserBoxes, LayoutsMatchSerialFftw) {
  const std::vector<Case> cases = {
      {TransformKind::R2C, Precision::Double, "blocking", "plain"},
      {TransformKind::C2C, Precision::Single, "blocking", "inplace"},
      {TransformKind::R2C, Precision::Single, "thread", "split"},
      {TransformKind::C2C, Precision::Double, "pairwise:1@caller", "many"},
      {TransformKind::R2C, Precision::Double, "caller", "many"},
      {TransformKind::R2C, Precision::Double, "blocking", "inplace", true},
  };
  for (const Case& c : cases) {
    const bool r2c = c.t == TransformKind::R2C;
    const std::array<std::int64_t, 3> s = {r2c ? kN[0] / 2 + 1 : kN[0], kN[1], kN[2]};
    for (const Boxes& L : layouts(kN, s)) {
      if (c.p == Precision::Double)
        run_case<double>(c, L);
      else
        run_case<float>(c, L);
    }
  }
}

// Bricks that leave the process grid free: the tuner decides it, each candidate timed on a
// plan built on the bricks (the reshapes included), and files the choice under a key that
// names the boxes: a pencil plan with the same options tunes afresh, the same bricks again
// are answered from memory with the same grid. The tuned plan transforms right.
TEST(UserBoxes, TunerDecidesTheGridOnTheBricks) {
  const int P = world_size(), r = world_rank();
  const std::array<std::int64_t, 3> s = {kN[0] / 2 + 1, kN[1], kN[2]};
  const Box3 in = brick(kN, bricks_2d(P), r), out = brick(s, bricks_2d(P), r, {2, 0, 1});
  Options o;
  o.effort = Effort::Estimate;
  o.tune = TuneEffort::Quick;
  o.tune_budget = 3;
  forget_tuning();
  Plan plan(MPI_COMM_WORLD, kN, in, out, o);
  ASSERT_NE(plan.tune_report(), nullptr);
  const TuneReport& rep = *plan.tune_report();
  EXPECT_FALSE(rep.from_wisdom);
  EXPECT_FALSE(rep.trials.empty());
  EXPECT_NE(rep.key.find(" boxes=inout:"), std::string::npos) << rep.key;
  EXPECT_EQ(plan.m1() * plan.m2(), P);
  EXPECT_EQ(plan.m1(), rep.chosen.m1);
  EXPECT_EQ(plan.m2(), rep.chosen.m2);
  EXPECT_EQ(plan.in_box(), in);
  EXPECT_EQ(plan.out_box(), out);
  const auto f = global_field(kN, 1, 11);
  const auto u = take<double>(f, kN, in, 1);
  const auto U_ref = take<double>(serial_forward(f, kN, true), s, out, 2);
  std::vector<double> U(U_ref.size()), v(u.size());
  plan.forward_bytes(u.data(), u.size() * sizeof(double), U.data(), U.size() * sizeof(double));
  plan.backward_bytes(U.data(), U.size() * sizeof(double), v.data(), v.size() * sizeof(double));
  EXPECT_LT(max_diff(U, U_ref) / static_cast<double>(kN[0] * kN[1] * kN[2]), 1e-9);
  EXPECT_LT(max_diff(v, u), 1e-9);
  Plan again(MPI_COMM_WORLD, kN, in, out, o);
  ASSERT_NE(again.tune_report(), nullptr);
  EXPECT_TRUE(again.tune_report()->from_wisdom);
  EXPECT_EQ(again.m1(), plan.m1());
  Plan pencils(MPI_COMM_WORLD, kN, o);
  ASSERT_NE(pencils.tune_report(), nullptr);
  EXPECT_FALSE(pencils.tune_report()->from_wisdom);
  EXPECT_EQ(pencils.tune_report()->key.find(" boxes="), std::string::npos);
  forget_tuning();
}

// Boxes equal to the internal pencils cost nothing: no reshape, the plan's own buffers.
TEST(UserBoxes, InternalBoxesPassThrough) {
  Options o;
  o.effort = Effort::Estimate;
  Plan ref(MPI_COMM_WORLD, kN, o);
  Plan same(MPI_COMM_WORLD, kN, ref.in_box(), ref.out_box(), o);
  EXPECT_FALSE(same.reshapes());
  EXPECT_EQ(same.workspace_bytes(), ref.workspace_bytes());
  EXPECT_EQ(same.in_box(), ref.in_box());
  EXPECT_EQ(same.out_box(), ref.out_box());
  // Only the input given: the output stays the internal pencil.
  Plan half(MPI_COMM_WORLD, kN, ref.in_box(), std::nullopt, o);
  EXPECT_FALSE(half.reshapes());
}

// The natural order on every process grid: the Z stage writes it itself (no reshape), but
// for the lean workspace on M1 > 1, M2 = 1, where a local copy reorders it.
TEST(UserBoxes, NaturalOrderOption) {
  const int P = world_size();
  for (const auto& g : factorizations(P))
    for (bool lean : {false, true}) {
    Options o;
    o.effort = Effort::Estimate;
    o.m1 = g[0];
    o.m2 = g[1];
    o.lean_workspace = lean;
    o.output_order = OutputOrder::Natural;
    Plan plan(MPI_COMM_WORLD, kN, o);
    EXPECT_EQ(plan.out_box().order, (std::array<int, 3>{0, 1, 2}));
    EXPECT_EQ(plan.out_box().lo, plan.decomposition().z_pencil.lo);
    const bool copy = plan.lean_workspace() && g[0] > 1 && g[1] == 1;
    EXPECT_EQ(plan.reshapes(), copy) << g[0] << "x" << g[1] << (lean ? " lean" : "");
    const auto f = global_field(kN, 1, 3);
    const auto F = serial_forward(f, kN, true);
    const auto u = take<double>(f, kN, plan.in_box(), 1);
    std::vector<std::complex<double>> U(static_cast<std::size_t>(plan.out_count()));
    std::vector<double> v(u.size());
    if (plan.lean_workspace() && !copy) {  // in place only
      std::vector<std::complex<double>> w(plan.inplace_bytes() / sizeof(std::complex<double>) + 1);
      std::memcpy(static_cast<void*>(w.data()), u.data(), u.size() * sizeof(double));
      plan.forward_bytes(w.data(), w.size() * 16, w.data(), w.size() * 16);
      std::copy(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(U.size()), U.begin());
      plan.backward_bytes(w.data(), w.size() * 16, w.data(), w.size() * 16);
      std::memcpy(v.data(), w.data(), v.size() * sizeof(double));
    } else {
      plan.forward(u, U);
      plan.backward(U, v);
    }
    const auto ref = take<double>(F, {kN[0] / 2 + 1, kN[1], kN[2]}, plan.out_box(), 2);
    std::vector<double> got(reinterpret_cast<double*>(U.data()), reinterpret_cast<double*>(U.data()) + 2 * U.size());
    EXPECT_LT(max_diff(got, ref) / (12.0 * 10 * 9), 1e-9) << g[0] << "x" << g[1];
    EXPECT_LT(max_diff(v, u), 1e-9) << g[0] << "x" << g[1];
    // gather() knows every rank's box and its order: the whole spectrum in numpy order.
    std::vector<std::complex<double>> G(world_rank() == 0 ? static_cast<std::size_t>(global_count(plan, Layout::Output)) : 0);
    gather(MPI_COMM_WORLD, plan, Layout::Output, U.data(), U.size(), G.data(), G.size(), 0);
    if (world_rank() == 0) {
      std::vector<double> g(reinterpret_cast<double*>(G.data()), reinterpret_cast<double*>(G.data()) + 2 * G.size());
      EXPECT_LT(rel_error(g, F), 1e-12);
    }
    std::ostringstream os;
    os << plan;
    EXPECT_NE(os.str().find(copy ? "local copy" : "the internal pencil (no copy)"), std::string::npos) << os.str();
  }
}

// The brick layouts the pipelined calls run: bricks_2d (2x2x1 on 4 ranks, 3x1x1 on 3) in and
// z slabs out; the y axis split unevenly (10 = 4+3+3 on 3 ranks) in, bricks out stored z
// fastest; empty boxes (the last rank holds no input, rank 0 the whole spectrum).
std::vector<Boxes> pipeline_layouts(const std::array<std::int64_t, 3>& s) {
  const int P = world_size(), r = world_rank();
  std::vector<Boxes> v = layouts(kN, s);
  v.erase(v.begin() + 1);  // uneven z in: replaced by the uneven y split below
  v.pop_back();            // the natural order: no exchange to pipeline
  v.push_back({"uneven_y_in_bricks_out", brick(kN, {1, P, 1}, r), brick(s, bricks_2d(P), r, {2, 0, 1})});
  return v;
}

// Field k of a multi-field test: a field of its own (not a multiple of another), so a
// field's reshape dropped or taken from a neighbour shows as a mismatch.
std::vector<double> field_k(int k, int comps) { return global_field(kN, comps, 101 + 17 * static_cast<std::uint64_t>(k)); }

struct PipeCase {
  std::string transport;
  int in_flight;      // fields_in_flight
  bool lean = false;  // in place per field
  int m1 = 0, m2 = 0;
  bool pipeline_row = false;
};

// Multi-field calls on bricks: the reshapes ride the fields' pipeline (field j+1's input
// reshape in flight while field j is transformed, field j's output reshape while field j+1
// completes). Five fields of different data, each checked against serial FFTW and bit for
// bit against the one-field call on the same plan; backward gives each field back.
TEST(UserBoxes, ManyFieldsPipelineTheReshapes) {
  const int P = world_size();
  std::vector<PipeCase> cases = {{"blocking", 2}, {"pairwise:1@caller", 2}, {"caller", 1},
                                 {"thread", 2},   {"pairwise:2@caller", 3}, {"caller", 2, true}};
  if (P == 4) cases.push_back({"pairwise:1@caller", 2, false, 2, 2, true});  // pencils, both exchanges pipelined
  const std::array<std::int64_t, 3> s = {kN[0] / 2 + 1, kN[1], kN[2]};
  const int nv = 5;
  for (const PipeCase& c : cases)
    for (const Boxes& L : pipeline_layouts(s)) {
      Options o;
      o.effort = Effort::Estimate;
      o.transport(c.transport);
      o.fields_in_flight = c.in_flight;
      o.lean_workspace = c.lean;
      o.m1 = c.m1;
      o.m2 = c.m2;
      o.pipeline_row = c.pipeline_row;
      Plan plan(MPI_COMM_WORLD, kN, L.in, L.out, o);
      const std::string what = L.name + " " + c.transport + " in_flight=" + std::to_string(c.in_flight) +
                               (c.lean ? " lean" : "") + (c.pipeline_row ? " 2x2 pipeline_row" : "");
      ASSERT_TRUE(plan.reshapes()) << what;
      const std::size_t nu = static_cast<std::size_t>(plan.in_count()), nU = static_cast<std::size_t>(plan.out_count());
      // In place per field (one array of inplace_bytes each) for the lean case.
      const std::size_t cap = c.lean ? plan.inplace_bytes() / sizeof(double) : 0;
      std::vector<std::vector<double>> u(nv), arr(nv), back(nv);
      std::vector<std::vector<std::complex<double>>> U(nv), one(nv);
      std::vector<const void*> in;
      std::vector<void*> out;
      for (int k = 0; k < nv; ++k) {
        u[k] = take<double>(field_k(k, 1), kN, plan.in_box(), 1);
        U[k].assign(nU, {});
        one[k].assign(nU, {});
        back[k].assign(nu, 0.0);
        if (c.lean) {
          arr[k].assign(cap, 0.0);
          std::copy(u[k].begin(), u[k].end(), arr[k].begin());
          in.push_back(arr[k].data());
          out.push_back(arr[k].data());
        } else {
          in.push_back(u[k].data());
          out.push_back(U[k].data());
        }
      }
      const std::size_t in_b = c.lean ? cap * sizeof(double) : nu * sizeof(double);
      const std::size_t out_b = c.lean ? cap * sizeof(double) : nU * sizeof(std::complex<double>);
      plan.forward_many_bytes(nv, in.data(), in_b, out.data(), out_b);
      if (c.lean && nU > 0)  // (an empty block's vectors have no data to copy: memcpy takes no null)
        for (int k = 0; k < nv; ++k)
          std::memcpy(static_cast<void*>(U[k].data()), arr[k].data(), nU * sizeof(std::complex<double>));
      for (int k = 0; k < nv; ++k) {
        const auto ref = take<double>(serial_forward(field_k(k, 1), kN, true), s, plan.out_box(), 2);
        std::vector<double> got(reinterpret_cast<const double*>(U[k].data()),
                                reinterpret_cast<const double*>(U[k].data()) + 2 * nU);
        EXPECT_LT(max_diff(got, ref) / (12.0 * 10 * 9), 1e-9) << what << " field " << k;
        if (!c.lean) {  // the one-field call on the same plan: the same bits
          plan.forward(u[k], one[k]);
          int same = one[k] == U[k], all = 0;
          MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
          EXPECT_TRUE(all) << what << " field " << k << ": not bit for bit the one-field forward";
        }
      }
      if (c.lean) {
        plan.backward_many_bytes(nv, out.data(), out_b, out.data(), out_b);
        for (int k = 0; k < nv; ++k) std::copy(arr[k].begin(), arr[k].begin() + static_cast<std::ptrdiff_t>(nu), back[k].begin());
      } else {
        std::vector<const void*> spec(out.begin(), out.end());
        std::vector<void*> res;
        for (auto& b : back) res.push_back(b.data());
        plan.backward_many_bytes(nv, spec.data(), out_b, res.data(), nu * sizeof(double));
      }
      for (int k = 0; k < nv; ++k) EXPECT_LT(max_diff(back[k], u[k]), 1e-9) << what << " backward field " << k;
    }
}

// Split-phase transforms on bricks, several in flight on one plan: the input reshape
// travels from start to the first call that needs it, and each start or wait runs one
// phase of the other transforms in flight. Forward and backward mixed, waited out of start
// order, with progress() and test() between; each result against serial FFTW.
TEST(UserBoxes, SplitPhaseInFlightTogether) {
  const std::array<std::int64_t, 3> s = {kN[0] / 2 + 1, kN[1], kN[2]};
  for (const std::string transport : {"blocking", "pairwise:1@caller", "thread"})
    for (const Boxes& L : pipeline_layouts(s)) {
      Options o;
      o.effort = Effort::Estimate;
      o.transport(transport);
      Plan plan(MPI_COMM_WORLD, kN, L.in, L.out, o);
      const std::string what = L.name + " " + transport;
      const std::size_t nu = static_cast<std::size_t>(plan.in_count()), nU = static_cast<std::size_t>(plan.out_count());
      std::vector<Plan::Workspace> ws;
      for (int k = 0; k < 4; ++k) ws.push_back(plan.make_workspace());
      // Fields 0, 2, 3 forward; field 1 backward from its exact spectrum.
      std::vector<std::vector<double>> u(4), v(4);
      std::vector<std::vector<std::complex<double>>> U(4);
      std::vector<std::vector<double>> ref(4);
      for (int k = 0; k < 4; ++k) {
        u[k] = take<double>(field_k(k, 1), kN, plan.in_box(), 1);
        ref[k] = take<double>(serial_forward(field_k(k, 1), kN, true), s, plan.out_box(), 2);
        U[k].assign(nU, {});
        v[k].assign(nu, 0.0);
      }
      for (std::size_t i = 0; i < nU; ++i) U[1][i] = {ref[1][2 * i], ref[1][2 * i + 1]};
      std::vector<Plan::Pending> p(4);
      p[0] = plan.forward_start(u[0].data(), nu, U[0].data(), nU, ws[0]);
      p[0].progress();
      p[1] = plan.backward_start(U[1].data(), nU, v[1].data(), nu, ws[1]);
      for (int i = 0; i < 3; ++i) p[1].test();
      p[2] = plan.forward_start(u[2].data(), nu, U[2].data(), nU, ws[2]);
      p[1].wait();
      p[3] = plan.forward_start(u[3].data(), nu, U[3].data(), nU, ws[3]);
      // The caller may change its input once start returned: the input reshape read it.
      std::fill(u[3].begin(), u[3].end(), -1.0);
      p[2].wait();
      while (!p[0].test()) {
      }
      p[0].wait();
      p[3].wait();
      const double n3 = 12.0 * 10 * 9;
      for (int k : {0, 2, 3}) {
        std::vector<double> got(reinterpret_cast<const double*>(U[k].data()),
                                reinterpret_cast<const double*>(U[k].data()) + 2 * nU);
        EXPECT_LT(max_diff(got, ref[k]) / n3, 1e-9) << what << " forward field " << k;
      }
      const auto u1 = take<double>(field_k(1, 1), kN, plan.in_box(), 1);
      EXPECT_LT(max_diff(v[1], u1), 1e-9) << what << " backward field 1";
      // A single transform, started and waited alone (the input reshape hidden by the
      // compute between), still gives the plain call's bits.
      std::vector<std::complex<double>> plain(nU), split(nU);
      const auto u0 = take<double>(field_k(0, 1), kN, plan.in_box(), 1);
      plan.forward(u0, plain);
      Plan::Pending q = plan.forward_start(u0.data(), nu, split.data(), nU, ws[0]);
      q.wait();
      int same = plain == split, all = 0;
      MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
      EXPECT_TRUE(all) << what << ": split-phase forward not bit for bit the plain one";
    }
}

// Every bad layout fails on every rank with the same message naming the conflict.
void expect_error(const std::optional<Box3>& in, const std::optional<Box3>& out, const std::string& text,
                  ErrorCode code = ErrorCode::InvalidArgument) {
  Options o;
  o.effort = Effort::Estimate;
  try {
    Plan plan(MPI_COMM_WORLD, kN, in, out, o);
    ADD_FAILURE() << "no error; expected one containing '" << text << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), code) << e.what();
  }
}

TEST(UserBoxes, BadBoxesFailOnEveryRank) {
  const int P = world_size(), r = world_rank();
  const Box3 whole = Box3::from({0, kN[0]}, {0, kN[1]}, {0, kN[2]});
  const Box3 mine = brick(kN, {1, 1, P}, r);
  if (P > 1) expect_error(whole, std::nullopt, "in_box of ranks 0 and 1 overlap");
  // A gap: rank 0 drops its first x column.
  Box3 gap = mine;
  if (r == 0) {
    gap.lo[0] = 1;
    gap.n[0] -= 1;
  }
  expect_error(gap, std::nullopt, "do not tile the input grid 12x10x9: they hold");
  expect_error(gap, std::nullopt, "no rank holds (x, y, z) = (0, 0, 0)");
  // Out of range: the last rank reaches past z.
  Box3 far = mine;
  if (r == P - 1) far.n[2] += 1;
  expect_error(far, std::nullopt, "in_box of rank " + std::to_string(P - 1));
  expect_error(far, std::nullopt, "out of range along z");
  // An order that is not a permutation.
  Box3 bad = mine;
  bad.order = {0, 0, 1};
  expect_error(bad, std::nullopt, "is not a permutation");
  // The spectrum's grid keeps nx/2+1 points along x.
  expect_error(std::nullopt, brick({12, 10, 9}, {1, 1, P}, r), "the spectrum's grid 7x10x9");
  // Ranks disagreeing: only rank 0 passes boxes.
  if (P > 1)
    expect_error(r == 0 ? std::optional<Box3>(whole) : std::nullopt, std::nullopt, "ranks disagree on user boxes",
                 ErrorCode::RanksDisagree);
}

}  // namespace
}  // namespace nbfft::fft::test
