// Split-phase transforms (Plan::forward_start / backward_start + Pending::wait): results
// identical to the plain calls with every transport, any number in flight, uneven grids,
// work done between start and wait; and the misuse errors.
#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/fft.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;
using Cplx = std::complex<double>;

bool small() { return std::getenv("NBFFT_FFT_TEST_SMALL") != nullptr; }

Options options(int m1, int m2, const std::string& transport) {
  Options o;
  o.m1 = m1;
  o.m2 = m2;
  o.effort = Effort::Estimate;
  o.transport(transport);
  return o;
}

// Exact equality on every rank: the split calls run the same code on the same data.
template <typename X>
bool all_equal(const std::vector<X>& a, const std::vector<X>& b) {
  int ok = a == b ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

std::vector<double> field(const Plan& plan, const Grid& n, int seed) {
  return random_box(plan.in_box(), n, 1, static_cast<std::uint64_t>(seed));
}

// A stand-in for the application's own work between start and wait.
double busy_work(std::vector<double>& v) {
  double s = 0;
  for (int r = 0; r < 3; ++r)
    for (auto& x : v) s += (x = x * 0.999 + 1e-3);
  return s;
}

TEST(SplitPhase, EqualsPlainCallsForEveryTransportAndDepth) {
  const int P = world_size();
  std::vector<std::string> transports = {"blocking", "caller", "thread", "native", "pairwise:1@caller"};
  if (small()) transports = {"blocking", "caller", "thread"};
  const std::vector<Grid> grids = {{17, 13, 11}, {12, 10, 9}};
  const auto fs = factorizations(P);
  // Transport t of grid g on factorization (t + g) mod their count, not the full product
  // (~45 s a run at 4 and 5 ranks under MPICH's busy-polling on 2 cores): each transport
  // meets two process grids over the two grids, each depth runs on every one.
  for (std::size_t g = 0; g < grids.size(); ++g)
    for (std::size_t j = 0; j < fs.size(); ++j)
      for (std::size_t t = 0; t < transports.size(); ++t) {
        if ((t + g) % fs.size() != j) continue;
        const auto& n = grids[g];
        const auto& f = fs[j];
        const auto& tr = transports[t];
        const Plan plan(MPI_COMM_WORLD, n, options(f[0], f[1], tr));
        for (int inflight : {1, 2, 3}) {
          const std::string what = std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]) +
                                   " on " + std::to_string(f[0]) + "x" + std::to_string(f[1]) + " " + tr +
                                   ", " + std::to_string(inflight) + " in flight";
          std::vector<Plan::Workspace> ws;
          for (int k = 0; k < inflight; ++k) ws.push_back(plan.make_workspace());
          const int nv = inflight + 1;  // one more than workspaces: a workspace is reused
          std::vector<std::vector<double>> in, back(nv, std::vector<double>(plan.in_count()));
          std::vector<std::vector<Cplx>> out(nv, std::vector<Cplx>(plan.out_count()));
          for (int v = 0; v < nv; ++v) in.push_back(field(plan, n, 100 + v));
          std::vector<double> scratch(4096, 1.0);
          // Forward: start up to `inflight`, waiting for the oldest when a workspace is needed.
          std::vector<Plan::Pending> pend(nv);
          for (int v = 0; v < nv; ++v) {
            if (v >= inflight) pend[v - inflight].wait();
            pend[v] = plan.forward_start(in[v].data(), in[v].size(), out[v].data(), out[v].size(), ws[v % inflight]);
            busy_work(scratch);
            pend[v].progress();
          }
          for (auto& p : pend)
            if (p.active()) p.wait();
          // Backward likewise, completing in start order (the same on every rank).
          for (int v = 0; v < nv; ++v) {
            if (v >= inflight) pend[v - inflight].wait();
            pend[v] = plan.backward_start(out[v].data(), out[v].size(), back[v].data(), back[v].size(),
                                          ws[v % inflight]);
            busy_work(scratch);
            while (!pend[v].test()) {
            }
          }
          for (auto& p : pend)
            if (p.active()) p.wait();
          for (int v = 0; v < nv; ++v) {
            std::vector<Cplx> ref(plan.out_count());
            std::vector<double> ref_back(plan.in_count());
            plan.forward(in[v], ref);
            plan.backward(ref, ref_back);
            EXPECT_TRUE(all_equal(out[v], ref)) << what << ": forward field " << v;
            EXPECT_TRUE(all_equal(back[v], ref_back)) << what << ": backward field " << v;
          }
        }
      }
}

TEST(SplitPhase, C2CSingleInPlace) {
  const Grid n{10, 9, 7};
  for (const auto& f : factorizations(world_size())) {
    Options o = options(f[0], f[1], "caller");
    o.transform = TransformKind::C2C;
    o.precision = Precision::Single;
    const Plan plan(MPI_COMM_WORLD, n, o);
    Plan::Workspace ws = plan.make_workspace();
    const auto d = random_box(plan.in_box(), n, 2, 9);
    const std::size_t cap = std::max(plan.in_count(), plan.out_count());
    std::vector<std::complex<float>> a(cap), ref_out(plan.out_count());
    for (std::int64_t k = 0; k < plan.in_count(); ++k) a[k] = {static_cast<float>(d[2 * k]), static_cast<float>(d[2 * k + 1])};
    std::vector<std::complex<float>> in(a.begin(), a.begin() + plan.in_count());
    plan.forward(in, ref_out);
    Plan::Pending p = plan.forward_start(a.data(), a.size(), a.data(), a.size(), ws);
    p.wait();
    std::vector<std::complex<float>> got(a.begin(), a.begin() + plan.out_count());
    EXPECT_TRUE(all_equal(got, ref_out)) << f[0] << "x" << f[1];
  }
}

template <typename F>
void expect_kind(F&& f, ErrorCode code, const char* what) {
  try {
    f();
    ADD_FAILURE() << what << ": no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << what << ": " << e.what();
  }
}

TEST(SplitPhase, Misuse) {
  const Grid n{8, 8, 8};
  const Plan plan(MPI_COMM_WORLD, n, options(0, 0, "caller"));
  const Plan other(MPI_COMM_WORLD, n, options(0, 0, "caller"));
  Plan::Workspace ws = plan.make_workspace();
  Plan::Workspace foreign = other.make_workspace();
  std::vector<double> in = field(plan, n, 1);
  std::vector<Cplx> out(plan.out_count()), out2(plan.out_count());
  // A workspace of another plan.
  expect_kind([&] { plan.forward_start(in.data(), in.size(), out.data(), out.size(), foreign); },
              ErrorCode::InvalidArgument, "foreign workspace");
  // A workspace still held by a pending transform (agreed: every rank refuses together).
  Plan::Pending p = plan.forward_start(in.data(), in.size(), out.data(), out.size(), ws);
  expect_kind([&] { plan.forward_start(in.data(), in.size(), out2.data(), out2.size(), ws); },
              ErrorCode::InvalidState, "busy workspace");
  p.wait();
  EXPECT_FALSE(p.active());
  expect_kind([&] { p.wait(); }, ErrorCode::InvalidState, "wait twice");
  Plan::Pending never;
  expect_kind([&] { never.wait(); }, ErrorCode::InvalidState, "never started");
  // A short buffer on one rank fails on every rank and leaves the workspace free.
  const std::size_t short_n = world_rank() == 0 ? out.size() - 1 : out.size();
  expect_kind([&] { plan.forward_start(in.data(), in.size(), out.data(), short_n, ws); },
              ErrorCode::InvalidArgument, "short buffer");
  Plan::Pending again = plan.forward_start(in.data(), in.size(), out.data(), out.size(), ws);
  again.wait();
  // Destroying an active Pending completes it.
  { Plan::Pending dropped = plan.forward_start(in.data(), in.size(), out2.data(), out2.size(), ws); }
  EXPECT_TRUE(all_equal(out, out2));
}

// Starts without a workspace take one of the plan's pool (made as more are in flight, the
// same on every rank): 64 in flight at once, and the 65th refused on every rank, the plan
// still usable; each of the 64 equals the plain call, and a later start reuses the pool.
TEST(SplitPhase, PooledWorkspacesUpToTheirLimit) {
  const Grid n{4, 4, 4};
  const Plan plan(MPI_COMM_WORLD, n, options(0, 0, "caller"));
  const std::vector<double> in = field(plan, n, 1);
  std::vector<Cplx> want(plan.out_count());
  plan.forward(in, want);
  std::vector<std::vector<Cplx>> outs(64, std::vector<Cplx>(plan.out_count()));
  std::vector<Plan::Pending> flight;
  for (auto& o : outs) flight.push_back(plan.start(Direction::Forward, in.data(), in.size(), o.data(), o.size()));
  std::vector<Cplx> extra(plan.out_count());
  expect_kind([&] { plan.start(Direction::Forward, in.data(), in.size(), extra.data(), extra.size()); },
              ErrorCode::InvalidState, "a 65th pooled start");
  for (auto& p : flight) p.wait();
  for (const auto& o : outs) EXPECT_TRUE(all_equal(o, want));
  Plan::Pending again = plan.start(Direction::Forward, in.data(), in.size(), extra.data(), extra.size());
  again.wait();
  EXPECT_TRUE(all_equal(extra, want));
}

}  // namespace
}  // namespace nbfft::fft::test
