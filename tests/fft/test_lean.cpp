// The lean workspace (Options::lean_workspace): in-place transforms through a workspace of
// about 1x the local data give the default plan's results on every process grid, uneven
// grids, several transports, pipelines and split-phase calls; out-of-place calls are refused
// on every rank; grids the layout cannot serve fall back to the default workspace and say so.
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;
using Cplx = std::complex<double>;

Options options(int m1, int m2, const std::string& transport, bool lean) {
  Options o;
  o.m1 = m1;
  o.m2 = m2;
  o.effort = Effort::Estimate;
  o.transport(transport);
  o.lean_workspace = lean;
  o.fields_in_flight = 1;  // one workspace: the memory compared below
  return o;
}

std::string label(const Grid& n, const std::array<int, 2>& f, const std::string& tr) {
  return std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]) + " on " +
         std::to_string(f[0]) + "x" + std::to_string(f[1]) + " " + tr;
}

// Largest |a - b| over every rank, relative to the largest |b|.
double max_rel(const Cplx* a, const Cplx* b, std::size_t n) {
  double d = 0, s = 0;
  for (std::size_t k = 0; k < n; ++k) {
    d = std::max(d, std::abs(a[k] - b[k]));
    s = std::max(s, std::abs(b[k]));
  }
  double loc[2] = {d, s}, all[2] = {0, 0};
  MPI_Allreduce(loc, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all[1] > 0 ? all[0] / all[1] : all[0];
}

// The default plan's forward output and backward result of one field.
struct Reference {
  std::vector<Cplx> out;
  std::vector<double> back;
};
Reference reference(const Plan& plan, const std::vector<double>& in) {
  Reference r{std::vector<Cplx>(plan.out_count()), std::vector<double>(plan.in_count())};
  plan.forward(in.data(), in.size(), r.out.data(), r.out.size());
  std::vector<Cplx> copy = r.out;
  plan.backward(copy.data(), copy.size(), r.back.data(), r.back.size());
  return r;
}

// One in-place array of the plan's in-place size holding a field.
std::vector<double> in_place_array(const Plan& plan, const std::vector<double>& in) {
  std::vector<double> u(plan.inplace_bytes() / sizeof(double) + 1, 0.0);
  std::copy(in.begin(), in.end(), u.begin());
  return u;
}

void expect_matches(const Plan& plan, const Reference& ref, const std::vector<double>& u_after_forward,
                    const std::vector<double>& u_after_backward, const std::string& what) {
  EXPECT_LT(max_rel(reinterpret_cast<const Cplx*>(u_after_forward.data()), ref.out.data(), ref.out.size()), 1e-13)
      << what << ": forward";
  std::vector<Cplx> a(plan.in_count()), b(plan.in_count());
  for (std::int64_t k = 0; k < plan.in_count(); ++k) {
    a[k] = u_after_backward[k];
    b[k] = ref.back[k];
  }
  EXPECT_LT(max_rel(a.data(), b.data(), a.size()), 1e-13) << what << ": backward";
}

// Cases rotate over the process grids instead of running the full product (which took ~2 min
// at 4 ranks under MPICH's busy-polling on 2 cores): case i of grid g runs on factorization
// (i + g) mod their count, so over the grids each case meets several process grids.
bool runs_on(std::size_t i, std::size_t g, std::size_t j, std::size_t nf) { return (i + g) % nf == j; }

TEST(Lean, InPlaceEqualsDefaultPlanOnEveryGrid) {
  const int P = world_size();
  const std::vector<Grid> grids = {{17, 13, 11}, {12, 10, 9}, {16, 12, 10}};
  const std::vector<std::string> transports = {"blocking", "pairwise:1@caller", "thread"};
  const auto fs = factorizations(P);
  for (std::size_t g = 0; g < grids.size(); ++g)
    for (std::size_t j = 0; j < fs.size(); ++j)
      for (std::size_t t = 0; t < transports.size(); ++t) {
        if (!runs_on(t, g, j, fs.size())) continue;
        const auto& n = grids[g];
        const auto& f = fs[j];
        const auto& tr = transports[t];
        const std::string what = label(n, f, tr);
        const Plan plain(MPI_COMM_WORLD, n, options(f[0], f[1], tr, false));
        const Plan lean(MPI_COMM_WORLD, n, options(f[0], f[1], tr, true));
        EXPECT_EQ(lean.lean_workspace(), P > 1) << what;
        const auto in = random_box(plain.in_box(), n, 1, 7);
        const Reference ref = reference(plain, in);
        auto u = in_place_array(lean, in);
        lean.forward(u.data(), u.size(), reinterpret_cast<Cplx*>(u.data()), u.size() / 2);
        const auto fwd = u;
        lean.backward(reinterpret_cast<Cplx*>(u.data()), u.size() / 2, u.data(), u.size());
        expect_matches(lean, ref, fwd, u, what);
        // Memory: one buffer of about the local data plus one padded plane, less than the default.
        if (lean.lean_workspace()) {
          const std::size_t plane = sizeof(Cplx) * static_cast<std::size_t>(std::max({n[0], n[1], n[2]}) + 16) *
                                    static_cast<std::size_t>(std::max({n[0], n[1], n[2]}));
          EXPECT_LE(lean.workspace_bytes(), lean.inplace_bytes() + plane + 64) << what;
          EXPECT_LT(lean.workspace_bytes(), plain.workspace_bytes()) << what;
        }
        // A second call on another array rebinds; a third on the first array again.
        auto v = in_place_array(lean, in);
        lean.forward(v.data(), v.size(), reinterpret_cast<Cplx*>(v.data()), v.size() / 2);
        EXPECT_EQ(v, fwd) << what << ": second array";
      }
}

TEST(Lean, SinglePrecisionComplex) {
  const int P = world_size();
  const Grid n{12, 11, 10};
  for (const auto& f : factorizations(P)) {
    Options o = options(f[0], f[1], "blocking", false);
    o.precision = Precision::Single;
    o.transform = TransformKind::C2C;
    const Plan plain(MPI_COMM_WORLD, n, o);
    o.lean_workspace = true;
    const Plan lean(MPI_COMM_WORLD, n, o);
    EXPECT_EQ(lean.lean_workspace(), P > 1);
    std::vector<std::complex<float>> in(plain.in_count()), ref(plain.out_count());
    for (std::size_t k = 0; k < in.size(); ++k)
      in[k] = {static_cast<float>(random_value(3, k)), static_cast<float>(random_value(4, k))};
    plain.forward(in.data(), in.size(), ref.data(), ref.size());
    std::vector<std::complex<float>> u(std::max(plain.in_count(), plain.out_count()));
    std::copy(in.begin(), in.end(), u.begin());
    lean.forward(u.data(), u.size(), u.data(), u.size());
    float d = 0;
    for (std::size_t k = 0; k < ref.size(); ++k) d = std::max(d, std::abs(u[k] - ref[k]));
    float all = 0;
    MPI_Allreduce(&d, &all, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_LT(all, 1e-4f) << f[0] << "x" << f[1];
  }
}

TEST(Lean, PipelineAndSplitPhase) {
  const int P = world_size();
  const Grid n{16, 12, 10};
  for (const auto& f : factorizations(P)) {
    const std::string what = label(n, f, "caller");
    const Plan plain(MPI_COMM_WORLD, n, options(f[0], f[1], "caller", false));
    Options o = options(f[0], f[1], "caller", true);
    o.fields_in_flight = 2;
    const Plan lean(MPI_COMM_WORLD, n, o);
    const int nv = 3;
    std::vector<std::vector<double>> in, u;
    std::vector<Reference> ref;
    for (int v = 0; v < nv; ++v) {
      in.push_back(random_box(plain.in_box(), n, 1, 20 + v));
      ref.push_back(reference(plain, in[v]));
      u.push_back(in_place_array(lean, in[v]));
    }
    std::vector<double*> re;
    std::vector<Cplx*> cx;
    for (auto& a : u) {
      re.push_back(a.data());
      cx.push_back(reinterpret_cast<Cplx*>(a.data()));
    }
    lean.forward_many(re, u[0].size(), cx, u[0].size() / 2);
    const auto fwd = u;
    lean.backward_many(cx, u[0].size() / 2, re, u[0].size());
    for (int v = 0; v < nv; ++v) expect_matches(lean, ref[v], fwd[v], u[v], what + " many, field " + std::to_string(v));

    // Split phase: two fields in flight on two workspaces.
    std::vector<Plan::Workspace> ws;
    ws.push_back(lean.make_workspace());
    ws.push_back(lean.make_workspace());
    for (int v = 0; v < 2; ++v) u[v] = in_place_array(lean, in[v]);
    std::vector<Plan::Pending> pend;
    for (int v = 0; v < 2; ++v)
      pend.push_back(lean.forward_start(u[v].data(), u[v].size(), reinterpret_cast<Cplx*>(u[v].data()),
                                        u[v].size() / 2, ws[v]));
    for (auto& p : pend) p.wait();
    for (int v = 0; v < 2; ++v)
      EXPECT_LT(max_rel(reinterpret_cast<const Cplx*>(u[v].data()), ref[v].out.data(), ref[v].out.size()), 1e-13)
          << what << " split phase, field " << v;
  }
}

// A lean plan's exchanges are bound to the caller's array; a call whose array moved must
// rebind on every rank together (for rma and persistent transports the binding is itself
// collective), yet no rank sees another's array. Here one rank alone, each in turn, passes
// another array (and then the first again) while the rest keep theirs: single calls both
// ways, a two-field pipeline whose second field alone moves, and a split-phase start.
TEST(Lean, OneRankAloneMovesItsArray) {
  const int P = world_size(), me = world_rank();
  const auto fs = factorizations(P);
  // Not rma: with Open MPI here rma with lean workspaces fails or hangs on small and
  // uneven grids and on 3 ranks whether or not an array moves (left to coll).
  const std::vector<std::string> transports = {"blocking", "pairwise:1@caller", "thread", "persistent@caller"};
  // Each transport on one process grid (transport t on factorization t mod their count):
  // every rank moving alone in turn is the point, and that loop is already P-fold.
  for (std::size_t t = 0; t < transports.size(); ++t) {
      const auto& f = fs[t % fs.size()];
      const std::string& tr = transports[t];
      const Grid n{13, 10, 9};
      const std::string what = label(n, f, tr);
      const Plan plain(MPI_COMM_WORLD, n, options(f[0], f[1], tr, false));
      Options o = options(f[0], f[1], tr, true);
      o.fields_in_flight = 2;
      const Plan lean(MPI_COMM_WORLD, n, o);
      EXPECT_EQ(lean.lean_workspace(), P > 1) << what;
      const auto in = random_box(plain.in_box(), n, 1, 9);
      const Reference ref = reference(plain, in);
      auto a = in_place_array(lean, in), b = a, c = a;
      // Forward then backward in place on u, each checked against the default plan.
      auto roundtrip = [&](std::vector<double>& u, const std::string& call) {
        std::copy(in.begin(), in.end(), u.begin());
        lean.forward(u.data(), u.size(), reinterpret_cast<Cplx*>(u.data()), u.size() / 2);
        const auto fwd = u;
        lean.backward(reinterpret_cast<Cplx*>(u.data()), u.size() / 2, u.data(), u.size());
        expect_matches(lean, ref, fwd, u, what + ": " + call);
      };
      roundtrip(a, "first call");
      roundtrip(a, "same array");
      for (int mover = 0; mover < P; ++mover) {
        const std::string who = "rank " + std::to_string(mover) + " alone";
        roundtrip(me == mover ? b : a, who + " moves");
        roundtrip(a, who + " moves back");
        // Two fields in flight (one workspace each): only the mover's second field moves.
        std::vector<std::vector<double>*> fields = {&a, me == mover ? &c : &b};
        std::vector<double*> re;
        std::vector<Cplx*> cx;
        for (auto* u : fields) {
          std::copy(in.begin(), in.end(), u->begin());
          re.push_back(u->data());
          cx.push_back(reinterpret_cast<Cplx*>(u->data()));
        }
        lean.forward_many(re, a.size(), cx, a.size() / 2);
        for (std::size_t k = 0; k < fields.size(); ++k)
          EXPECT_LT(max_rel(cx[k], ref.out.data(), ref.out.size()), 1e-13) << what << ": " << who << " many, field "
                                                                            << k;
        // Split phase on a workspace of its own, bound by the previous mover's call.
        Plan::Workspace ws = lean.make_workspace();
        for (int round = 0; round < 2; ++round) {
          auto& u = round == 1 && me == mover ? b : a;
          std::copy(in.begin(), in.end(), u.begin());
          auto pend = lean.forward_start(u.data(), u.size(), reinterpret_cast<Cplx*>(u.data()), u.size() / 2, ws);
          pend.wait();
          EXPECT_LT(max_rel(reinterpret_cast<const Cplx*>(u.data()), ref.out.data(), ref.out.size()), 1e-13)
              << what << ": " << who << " split phase, round " << round;
        }
      }
    }
}

TEST(Lean, OutOfPlaceIsRefusedOnEveryRank) {
  const int P = world_size();
  if (P == 1) GTEST_SKIP() << "one rank has no lean workspace";
  const Grid n{12, 10, 9};
  const Plan lean(MPI_COMM_WORLD, n, options(0, 0, "blocking", true));
  ASSERT_TRUE(lean.lean_workspace());
  std::vector<double> in(lean.in_count(), 1.0);
  std::vector<Cplx> out(lean.out_count());
  // Only rank 0 passes separate arrays: every rank must get the error, none may hang.
  std::vector<double> u = in_place_array(lean, in);
  try {
    if (world_rank() == 0) {
      lean.forward(in.data(), in.size(), out.data(), out.size());
    } else {
      lean.forward(u.data(), u.size(), reinterpret_cast<Cplx*>(u.data()), u.size() / 2);
    }
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  }
}

TEST(Lean, GridsTheLayoutCannotServeFallBack) {
  const int P = world_size();
  // x = 2 (r2c: 2 complex points): the other ranks' part of a plane, (M-1)/M of it, outgrows
  // the real plane for M >= 3 slabs.
  const Grid n{2, 12, 12};
  const Plan plain(MPI_COMM_WORLD, n, options(1, P, "blocking", false));
  const Plan lean(MPI_COMM_WORLD, n, options(1, P, "blocking", true));
  EXPECT_EQ(lean.lean_workspace(), P == 2);
  std::ostringstream os;
  os << lean;
  if (P > 2) {
    EXPECT_NE(os.str().find("not lean"), std::string::npos) << os.str();
  }
  const auto in = random_box(plain.in_box(), n, 1, 5);
  const Reference ref = reference(plain, in);
  auto u = in_place_array(lean, in);
  lean.forward(u.data(), u.size(), reinterpret_cast<Cplx*>(u.data()), u.size() / 2);
  const auto fwd = u;
  lean.backward(reinterpret_cast<Cplx*>(u.data()), u.size() / 2, u.data(), u.size());
  expect_matches(lean, ref, fwd, u, "2x12x12 slabs");
}

}  // namespace
}  // namespace nbfft::fft::test
