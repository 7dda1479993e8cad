// The C++ part of issue 16's bad-input campaign: split-phase misuse, lean misuse, FFTW and
// tuner wisdom files, collectives whose arguments are wrong on one rank only, and
// degenerate and prime grids checked against a serial FFTW reference. Every misuse case
// asserts the error kind AND that the message names the problem, on every rank (the shared
// main fails the test when any rank fails); every MPI run has a ctest timeout, so a hang
// is a failure. Runs at 1, 2, 3 and 5 ranks.
#include "nbfft/coll/coll.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/tune.hpp"
#include "../fft/fft_test_util.hpp"
#include "expect_error.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;
using Cplx = std::complex<double>;

Options quick(const std::string& transport = "caller") {
  Options o;
  o.effort = Effort::Estimate;
  o.norm = Norm::Backward;  // explicit: forward unscaled, backward divides by N
  o.transport(transport);
  return o;
}

// One name on every rank (rank 0's pid), distinct per rank count.
std::string shared_path(const std::string& stem) {
  long pid = world_rank() == 0 ? static_cast<long>(getpid()) : 0;
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return "/tmp/nbfft_badinput_" + stem + "_" + std::to_string(pid) + "_" + std::to_string(world_size());
}

void write_on_root(const std::string& path, const std::string& text) {
  if (world_rank() == 0) std::ofstream(path, std::ios::binary) << text;
  MPI_Barrier(MPI_COMM_WORLD);
}

void remove_on_root(const std::string& path) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
}

bool all_ranks(bool mine) {
  int ok = mine ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// Forward through `plan` (double) against a serial FFTW transform of the gathered field,
// and the round trip: the relative error of each, the same on every rank.
std::array<double, 2> errors_against_fftw(const Plan& plan, const Grid& n, std::uint64_t seed) {
  const bool r2c = plan.options().transform == TransformKind::R2C;
  const int comps = r2c ? 1 : 2;
  const std::vector<double> in = random_box(plan.in_box(), n, comps, seed);
  std::vector<Cplx> out(static_cast<std::size_t>(plan.out_count()));
  std::vector<double> back(in.size());
  if (r2c) {
    plan.forward(in.data(), in.size(), out.data(), out.size());
    plan.backward(out.data(), out.size(), back.data(), back.size());
  } else {
    std::vector<Cplx> cin(in.size() / 2), cback(in.size() / 2);
    for (std::size_t k = 0; k < cin.size(); ++k) cin[k] = {in[2 * k], in[2 * k + 1]};
    plan.forward(cin.data(), cin.size(), out.data(), out.size());
    plan.backward(out.data(), out.size(), cback.data(), cback.size());
    for (std::size_t k = 0; k < cback.size(); ++k) back[2 * k] = cback[k].real(), back[2 * k + 1] = cback[k].imag();
  }
  std::vector<double> outd(2 * out.size());
  for (std::size_t k = 0; k < out.size(); ++k) outd[2 * k] = out[k].real(), outd[2 * k + 1] = out[k].imag();
  const Grid nout{r2c ? n[0] / 2 + 1 : n[0], n[1], n[2]};
  const auto g_in = gather_box(plan.in_box(), in, n, comps);
  const auto g_out = gather_box(plan.out_box(), outd, nout, 2);
  double e[2] = {0, 0};
  if (world_rank() == 0) e[0] = rel_error(g_out, serial_forward(g_in, n, r2c));
  double mine = rel_error(back, in), worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  e[1] = worst;
  MPI_Bcast(e, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return {e[0], e[1]};
}

void expect_matches_fftw(const Grid& n, const Options& o, const std::string& what) {
  const Plan plan(MPI_COMM_WORLD, n, o);
  const auto e = errors_against_fftw(plan, n, 7);
  EXPECT_LT(e[0], 1e-12) << what << ": forward differs from serial FFTW";
  EXPECT_LT(e[1], 1e-12) << what << ": round trip differs";
}

// ---- degenerate and prime grids against serial FFTW -------------------------------------

TEST(Grids, OneByOneByOne) {
  expect_matches_fftw({1, 1, 1}, quick(), "1x1x1 r2c");
  Options c = quick();
  c.transform = TransformKind::C2C;
  expect_matches_fftw({1, 1, 1}, c, "1x1x1 c2c");
}
TEST(Grids, OneByNByOne) { expect_matches_fftw({1, 17, 1}, quick(), "1x17x1"); }
TEST(Grids, NByOneByOne) { expect_matches_fftw({16, 1, 1}, quick(), "16x1x1"); }
TEST(Grids, OneByOneByN) { expect_matches_fftw({1, 1, 13}, quick(), "1x1x13"); }
TEST(Grids, TwoByTwoByTwo) { expect_matches_fftw({2, 2, 2}, quick(), "2x2x2"); }
TEST(Grids, Prime97x89x83) { expect_matches_fftw({97, 89, 83}, quick("blocking"), "97x89x83"); }
TEST(Grids, Prime97x89x83Pencils) {
  // Every factorization of the rank count, slabs and pencils alike.
  for (const auto& f : factorizations(world_size())) {
    Options o = quick("blocking");
    o.m1 = f[0];
    o.m2 = f[1];
    expect_matches_fftw({97, 89, 83}, o, "97x89x83 on " + std::to_string(f[0]) + "x" + std::to_string(f[1]));
  }
}
TEST(Grids, PrimeC2C) {
  Options o = quick("thread");
  o.transform = TransformKind::C2C;
  expect_matches_fftw({31, 29, 23}, o, "31x29x23 c2c");
}
TEST(Grids, MoreRanksThanPlanes) {
  // nz = ny = 2 planes for up to 5 ranks: some ranks hold nothing, on every factorization.
  for (const auto& f : factorizations(world_size())) {
    Options o = quick();
    o.m1 = f[0];
    o.m2 = f[1];
    expect_matches_fftw({7, 2, 2}, o, "7x2x2 on " + std::to_string(f[0]) + "x" + std::to_string(f[1]));
  }
}
TEST(Grids, MoreRanksThanPlanesRefusedWithoutEmptyBoxes) {
  if (world_size() < 3) GTEST_SKIP() << "every rank holds a plane";
  Options o = quick();
  o.allow_empty = false;
  o.m1 = 1;
  o.m2 = world_size();
  expect_error([&] { Plan(MPI_COMM_WORLD, {7, 2, 2}, o); }, ErrorCode::InvalidArgument, "nz = 2");
}
TEST(Grids, SinglePrecisionPrime) {
  Options o = quick();
  o.precision = Precision::Single;
  const Grid n{23, 19, 17};
  const Plan plan(MPI_COMM_WORLD, n, o);
  const auto in = random_box(plan.in_box(), n, 1, 3);
  std::vector<float> f(in.begin(), in.end());
  std::vector<std::complex<float>> out(static_cast<std::size_t>(plan.out_count()));
  plan.forward(f, out);
  std::vector<double> outd(2 * out.size());
  for (std::size_t k = 0; k < out.size(); ++k) outd[2 * k] = out[k].real(), outd[2 * k + 1] = out[k].imag();
  const auto g_in = gather_box(plan.in_box(), in, n, 1);
  const auto g_out = gather_box(plan.out_box(), outd, {n[0] / 2 + 1, n[1], n[2]}, 2);
  double e = 0;
  if (world_rank() == 0) e = rel_error(g_out, serial_forward(g_in, n, true));
  MPI_Bcast(&e, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  EXPECT_LT(e, 1e-5);
}
TEST(Grids, LeanPrime) {
  Options o = quick();
  o.lean_workspace = true;
  const Grid n{17, 13, 11};
  const Plan lean(MPI_COMM_WORLD, n, o), plain(MPI_COMM_WORLD, n, quick());
  const auto in = random_box(plain.in_box(), n, 1, 5);
  std::vector<Cplx> ref(static_cast<std::size_t>(plain.out_count()));
  plain.forward(in, ref);
  std::vector<Cplx> buf(lean.inplace_bytes() / sizeof(Cplx) + 1);
  std::copy(in.begin(), in.end(), reinterpret_cast<double*>(buf.data()));
  lean.forward_bytes(buf.data(), lean.inplace_bytes(), buf.data(), lean.inplace_bytes());
  EXPECT_TRUE(all_ranks(std::equal(ref.begin(), ref.end(), buf.begin())));
}

// ---- split-phase misuse ---------------------------------------------------------------

struct SplitSetup {
  Grid n{12, 10, 9};
  std::vector<double> in;
  std::vector<Cplx> ref;
  explicit SplitSetup(const Plan& plan) : in(random_box(plan.in_box(), n, 1, 11)), ref(plan.out_count()) {
    plan.forward(in, ref);
  }
};

TEST(SplitPhase, FinishWithoutStart) {
  Plan::Pending p;
  expect_error([&] { p.wait(); }, ErrorCode::InvalidState, "not active");
  expect_error([&] { p.progress(); }, ErrorCode::InvalidState, "not active");
  expect_error([&] { p.test(); }, ErrorCode::InvalidState, "not active");
}
TEST(SplitPhase, StartTwiceOnOneWorkspace) {
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  Plan::Workspace ws = plan.make_workspace();
  std::vector<Cplx> a(plan.out_count()), b(plan.out_count());
  Plan::Pending p = plan.forward_start(s.in.data(), s.in.size(), a.data(), a.size(), ws);
  expect_error([&] { plan.forward_start(s.in.data(), s.in.size(), b.data(), b.size(), ws); }, ErrorCode::InvalidState,
               "a forward_start that was not waited for");
  p.wait();
  expect_error([&] { p.wait(); }, ErrorCode::InvalidState, "already waited");
  EXPECT_TRUE(all_ranks(a == s.ref));
}
TEST(SplitPhase, WorkspaceOfAnotherPlanOrNone) {
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick()), other(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  Plan::Workspace foreign = other.make_workspace(), none;
  std::vector<Cplx> a(plan.out_count());
  expect_error([&] { plan.forward_start(s.in.data(), s.in.size(), a.data(), a.size(), foreign); },
               ErrorCode::InvalidArgument, "not made by this plan");
  expect_error([&] { plan.forward_start(s.in.data(), s.in.size(), a.data(), a.size(), none); },
               ErrorCode::InvalidArgument, "not made by this plan");
}
TEST(SplitPhase, PlanDestroyedWhileInFlight) {
  auto plan = std::make_unique<Plan>(MPI_COMM_WORLD, Grid{12, 10, 9}, quick());
  SplitSetup s(*plan);
  std::vector<Cplx> a(plan->out_count());
  Plan::Workspace ws = plan->make_workspace();
  Plan::Pending p = plan->forward_start(s.in.data(), s.in.size(), a.data(), a.size(), ws);
  ws = Plan::Workspace();  // (the workspace goes first: it completes the transform)
  plan.reset();
  expect_error([&] { p.wait(); }, ErrorCode::InvalidState, "workspace was destroyed");
  EXPECT_TRUE(all_ranks(a == s.ref)) << "the destructor completed the transform";
}
TEST(SplitPhase, PlanDestroyedWhileBackwardInFlight) {
  std::vector<double> back;
  std::vector<double> in;
  Plan::Pending p;
  {
    const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
    SplitSetup s(plan);
    in = s.in;
    back.assign(s.in.size(), 0.0);
    Plan::Workspace ws = plan.make_workspace();
    p = plan.backward_start(s.ref.data(), s.ref.size(), back.data(), back.size(), ws);
    // the plan dies with the workspace here; the plan's destructor runs first? No: ws is
    // declared later, so it is destroyed first, and completes the transform.
  }
  expect_error([&] { p.wait(); }, ErrorCode::InvalidState, "destroyed");
  double e = rel_error(back, in), worst = 0;
  MPI_Allreduce(&e, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_LT(worst, 1e-12);
}
TEST(SplitPhase, PlanWithItsOwnWorkspaceDestroyedWhileInFlight) {
  // The workspace outlives the plan: the plan's destructor completes the transform.
  auto plan = std::make_unique<Plan>(MPI_COMM_WORLD, Grid{12, 10, 9}, quick());
  SplitSetup s(*plan);
  std::vector<Cplx> a(plan->out_count());
  Plan::Workspace ws = plan->make_workspace();
  Plan::Pending p = plan->forward_start(s.in.data(), s.in.size(), a.data(), a.size(), ws);
  plan.reset();
  expect_error([&] { p.wait(); }, ErrorCode::InvalidState, "plan was destroyed");
  EXPECT_TRUE(all_ranks(a == s.ref));
}
TEST(SplitPhase, PlanMovedWhileInFlight) {
  Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  std::vector<Cplx> a(plan.out_count());
  Plan::Workspace ws = plan.make_workspace();
  Plan::Pending p = plan.forward_start(s.in.data(), s.in.size(), a.data(), a.size(), ws);
  Plan moved(std::move(plan));
  Plan::Pending q(std::move(p));
  q.wait();
  EXPECT_TRUE(all_ranks(a == s.ref)) << "a moved plan keeps its transforms in flight";
  expect_error([&] { p.wait(); }, ErrorCode::InvalidState, "not active");  // NOLINT: moved from
  std::vector<Cplx> b(moved.out_count());
  expect_error([&] { plan.forward(s.in, b); }, ErrorCode::InvalidState, "moved from");  // NOLINT
}
TEST(SplitPhase, PlanAssignedOverWhileInFlight) {
  Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  std::vector<Cplx> a(plan.out_count());
  Plan::Workspace ws = plan.make_workspace();
  Plan::Pending p = plan.forward_start(s.in.data(), s.in.size(), a.data(), a.size(), ws);
  Plan::Workspace keep = std::move(ws);
  plan = Plan(MPI_COMM_WORLD, {8, 8, 8}, quick());
  expect_error([&] { p.wait(); }, ErrorCode::InvalidState, "assigned over");
  EXPECT_TRUE(all_ranks(a == s.ref));
}
TEST(SplitPhase, RanksDisagreeOnBackwardsInFlight) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  Plan::Workspace w1 = plan.make_workspace(), w2 = plan.make_workspace();
  std::vector<double> b1(s.in.size()), b2(s.in.size());
  Plan::Pending p1 = plan.backward_start(s.ref.data(), s.ref.size(), b1.data(), b1.size(), w1);
  // Rank 0 starts a second backward; the others wait for the first (whose ROW exchange
  // needs rank 0): they meet in the call agreement instead of hanging.
  if (world_rank() == 0)
    expect_error([&] { plan.backward_start(s.ref.data(), s.ref.size(), b2.data(), b2.size(), w2); },
                 ErrorCode::RanksDisagree, "backward wait");
  else
    expect_error([&] { p1.wait(); }, ErrorCode::RanksDisagree, "backward_start");
  EXPECT_TRUE(p1.active()) << "a refused wait leaves the transform to wait for again";
  p1.wait();  // now in the same order everywhere
  double e = rel_error(b1, s.in), worst = 0;
  MPI_Allreduce(&e, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_LT(worst, 1e-12);
}
TEST(SplitPhase, PlainCallWhileOthersWait) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  Plan::Workspace ws = plan.make_workspace();
  std::vector<double> b(s.in.size()), c(s.in.size());
  Plan::Pending p = plan.backward_start(s.ref.data(), s.ref.size(), b.data(), b.size(), ws);
  if (world_rank() == 0)
    expect_error([&] { plan.backward(s.ref, c); }, ErrorCode::RanksDisagree, "the collective call");
  else
    expect_error([&] { p.wait(); }, ErrorCode::RanksDisagree, "the collective call");
  p.wait();
  EXPECT_TRUE(all_ranks(rel_error(b, s.in) < 1e-12));
}
TEST(SplitPhase, ForwardsInFlightMayDifferBetweenRanks) {
  // Forward waits are local: rank 0 keeps two in flight while the others keep one. (The
  // thread engine moves the first exchange while rank 0 is in the second start.)
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick("thread"));
  SplitSetup s(plan);
  Plan::Workspace w1 = plan.make_workspace(), w2 = plan.make_workspace();
  std::vector<Cplx> a(plan.out_count()), b(plan.out_count());
  Plan::Pending p1 = plan.forward_start(s.in.data(), s.in.size(), a.data(), a.size(), w1);
  if (world_rank() != 0) p1.wait();
  Plan::Pending p2 = plan.forward_start(s.in.data(), s.in.size(), b.data(), b.size(), w2);
  if (world_rank() == 0) p1.wait();
  p2.wait();
  EXPECT_TRUE(all_ranks(a == s.ref && b == s.ref));
}
TEST(SplitPhase, ShortBufferOnOneRankLeavesTheWorkspaceFree) {
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  Plan::Workspace ws = plan.make_workspace();
  std::vector<Cplx> a(plan.out_count());
  const std::size_t n = world_rank() == world_size() - 1 ? a.size() - 1 : a.size();
  expect_error([&] { plan.forward_start(s.in.data(), s.in.size(), a.data(), n, ws); }, ErrorCode::InvalidArgument,
               "output buffer has");
  Plan::Pending p = plan.forward_start(s.in.data(), s.in.size(), a.data(), a.size(), ws);
  p.wait();
  EXPECT_TRUE(all_ranks(a == s.ref));
}

// ---- lean misuse -----------------------------------------------------------------------

TEST(Lean, OutOfPlaceSplitPhaseAndMany) {
  Options o = quick();
  o.lean_workspace = true;
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, o);
  if (!all_ranks(plan.lean_workspace())) GTEST_SKIP() << "no lean layout here (one rank)";
  const Plan plain(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plain);
  std::vector<Cplx> a(plan.out_count());
  Plan::Workspace ws = plan.make_workspace();
  expect_error([&] { plan.forward_start(s.in.data(), s.in.size(), a.data(), a.size(), ws); },
               ErrorCode::InvalidArgument, "in place only");
  std::vector<const double*> ins{s.in.data()};
  std::vector<Cplx*> outs{a.data()};
  expect_error([&] { plan.forward_many(ins, s.in.size(), outs, a.size()); }, ErrorCode::InvalidArgument,
               "in place only");
  // In place, but the buffer holds only the input box.
  std::vector<double> small(plan.in_bytes() / sizeof(double));
  expect_error([&] { plan.forward_bytes(small.data(), plan.in_bytes(), small.data(), plan.in_bytes()); },
               ErrorCode::InvalidArgument, "in-place buffer");
}

// ---- many: counts that differ in kind --------------------------------------------------

TEST(Many, InputAndOutputCountsDiffer) {
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  std::vector<Cplx> a(plan.out_count()), b(plan.out_count());
  std::vector<const double*> ins{s.in.data()};
  std::vector<Cplx*> outs{a.data(), b.data()};
  expect_error([&] { plan.forward_many(ins, s.in.size(), outs, a.size()); }, ErrorCode::InvalidArgument,
               "1 input fields but 2 output fields");
}
TEST(Many, NullFieldOnOneRank) {
  const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick());
  SplitSetup s(plan);
  std::vector<Cplx> a(plan.out_count());
  std::vector<const double*> ins{world_rank() == 0 ? nullptr : s.in.data()};
  std::vector<Cplx*> outs{a.data()};
  expect_error([&] { plan.forward_many(ins, s.in.size(), outs, a.size()); }, ErrorCode::InvalidArgument,
               "null buffer");
}

// ---- coll: one rank wrong, every rank fails at build ------------------------------------

struct Vbufs {
  int P = world_size(), me = world_rank();
  std::vector<int> s = std::vector<int>(4 * P, 1), r = std::vector<int>(4 * P);
  std::vector<std::int64_t> sc = std::vector<std::int64_t>(P, 1), rc = sc, d = std::vector<std::int64_t>(P);
  Vbufs() {
    for (int p = 0; p < P; ++p) d[p] = 2 * p;
  }
};

TEST(Coll, BlockToSelfDiffersOnOneRankOnly) {
  coll::Comm comm(MPI_COMM_WORLD);
  Vbufs v;
  if (v.me == v.P - 1) v.sc[v.me] = 2;  // only the last rank's block to itself disagrees
  expect_error([&] { coll::alltoallv(comm, v.s.data(), v.sc, v.d, v.r.data(), v.rc, v.d, 4).start().wait(); },
               ErrorCode::InvalidArgument, "block to itself must match");
}
TEST(Coll, NegativeCountOnOneRank) {
  coll::Comm comm(MPI_COMM_WORLD);
  Vbufs v;
  if (v.me == 0) v.rc[v.P - 1] = -1;
  expect_error([&] { coll::alltoallv(comm, v.s.data(), v.sc, v.d, v.r.data(), v.rc, v.d, 4).start().wait(); },
               ErrorCode::InvalidArgument, "is negative");
}
TEST(Coll, NullBufferOnOneRank) {
  coll::Comm comm(MPI_COMM_WORLD);
  Vbufs v;
  expect_error(
      [&] {
        coll::alltoallv(comm, v.me == v.P - 1 ? nullptr : v.s.data(), v.sc, v.d, v.r.data(), v.rc, v.d, 4)
            .start()
            .wait();
      },
      ErrorCode::InvalidArgument, "sendbuf is null");
}
TEST(Coll, WrongArrayLengthOnOneRank) {
  coll::Comm comm(MPI_COMM_WORLD);
  Vbufs v;
  if (v.me == 0) v.sc.push_back(1);
  expect_error([&] { coll::alltoallv(comm, v.s.data(), v.sc, v.d, v.r.data(), v.rc, v.d, 4).start().wait(); },
               ErrorCode::InvalidArgument, "entries but the communicator has");
}
TEST(Coll, AlltoallCountDiffers) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  coll::Comm comm(MPI_COMM_WORLD);
  std::vector<int> s(4 * world_size()), r(4 * world_size());
  expect_error([&] { coll::alltoall(comm, s.data(), r.data(), world_rank() == 1 ? 2 : 1, 4).start().wait(); },
               ErrorCode::RanksDisagree, "the count");
}
TEST(Coll, AlltoallNegativeCountOnOneRank) {
  coll::Comm comm(MPI_COMM_WORLD);
  std::vector<int> s(4 * world_size()), r(4 * world_size());
  const std::int64_t count = world_rank() == world_size() - 1 ? -3 : 1;
  expect_error([&] { coll::alltoall(comm, s.data(), r.data(), count, 4).start().wait(); },
               world_size() > 1 ? ErrorCode::RanksDisagree : ErrorCode::InvalidArgument,
               world_size() > 1 ? "the count" : "negative");
}
TEST(Coll, AlgorithmDiffers) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  coll::Comm comm(MPI_COMM_WORLD);
  std::vector<int> s(4 * world_size()), r(4 * world_size());
  const auto spec = coll::AlgorithmSpec::parse(world_rank() == 1 ? "linear" : "pairwise:2");
  expect_error([&] { coll::alltoall(comm, s.data(), r.data(), 1, 4, spec).start().wait(); },
               ErrorCode::RanksDisagree, "the algorithm");
}
TEST(Coll, ElementSizeDiffers) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  coll::Comm comm(MPI_COMM_WORLD);
  std::vector<double> s(4 * world_size()), r(4 * world_size());
  expect_error([&] { coll::alltoall(comm, s.data(), r.data(), 1, world_rank() == 1 ? 8 : 4).start().wait(); },
               ErrorCode::RanksDisagree, "the element size");
}
TEST(Coll, AgreedBuildStillMovesData) {
  coll::Comm comm(MPI_COMM_WORLD);
  Vbufs v;
  for (int p = 0; p < v.P; ++p) v.s[2 * p] = 100 * v.me + p;
  coll::alltoallv(comm, v.s.data(), v.sc, v.d, v.r.data(), v.rc, v.d, 4).start().wait();
  bool ok = true;
  for (int p = 0; p < v.P; ++p) ok = ok && v.r[2 * p] == 100 * p + v.me;
  EXPECT_TRUE(all_ranks(ok));
}

// ---- FFTW wisdom files ------------------------------------------------------------------

TEST(Wisdom, BinaryGarbage) {
  const std::string path = shared_path("garbage");
  write_on_root(path, std::string("\x00\xff\x13nbfft\x00", 9));
  expect_error([&] { load_wisdom(MPI_COMM_WORLD, path); }, ErrorCode::Io, "not an nbfft wisdom file");
  remove_on_root(path);
}
TEST(Wisdom, Empty) {
  const std::string path = shared_path("empty");
  write_on_root(path, "");
  expect_error([&] { load_wisdom(MPI_COMM_WORLD, path); }, ErrorCode::Io, path);
  remove_on_root(path);
}
TEST(Wisdom, TruncatedRealFile) {
  const std::string path = shared_path("cut");
  { const Plan plan(MPI_COMM_WORLD, {12, 10, 9}, quick()); }
  save_wisdom(MPI_COMM_WORLD, path);
  if (world_rank() == 0) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text.substr(0, text.size() / 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_error([&] { load_wisdom(MPI_COMM_WORLD, path); }, ErrorCode::Io, "truncated");
  remove_on_root(path);
}
TEST(Wisdom, AnotherGridsWisdomIsHarmless) {
  const std::string path = shared_path("other");
  { const Plan plan(MPI_COMM_WORLD, {20, 6, 5}, quick()); }
  save_wisdom(MPI_COMM_WORLD, path);
  EXPECT_TRUE(load_wisdom(MPI_COMM_WORLD, path));
  expect_matches_fftw({13, 11, 7}, quick(), "13x11x7 after another grid's wisdom");
  remove_on_root(path);
}
TEST(Wisdom, UnwritableBelowAFile) {
  expect_error([&] { save_wisdom(MPI_COMM_WORLD, "/etc/hostname/wisdom"); }, ErrorCode::Io, "/etc/hostname/wisdom");
}
TEST(Wisdom, DifferentPathPerRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const std::string path = shared_path("per_rank") + "_" + std::to_string(world_rank());
  expect_error([&] { save_wisdom(MPI_COMM_WORLD, path); }, ErrorCode::RanksDisagree, "the wisdom file");
  expect_error([&] { load_wisdom(MPI_COMM_WORLD, path); }, ErrorCode::RanksDisagree, "the wisdom file");
}

// ---- tuner wisdom files -----------------------------------------------------------------

TuneSettings fast_tune(const std::string& path) {
  TuneSettings s;
  s.budget_seconds = 0.3;  // the best found so far wins: enough to write a file
  s.trial_iters = 1;
  s.wisdom_path = path;
  return s;
}

TEST(TuneFiles, MalformedLine) {
  const std::string path = shared_path("tune_line");
  write_on_root(path, "nbfft-tune 1\nno tab on this line\n");
  expect_error([&] { tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), fast_tune(path)); }, ErrorCode::Io, "malformed line");
  remove_on_root(path);
}
TEST(TuneFiles, GarbageEntryForThisKey) {
  const std::string path = shared_path("tune_entry");
  const Grid n{10, 9, 8};
  // A real file first, then its entry's value replaced by garbage.
  forget_tuning();
  tune(MPI_COMM_WORLD, n, quick(), fast_tune(path));
  const std::string key = tune_key(MPI_COMM_WORLD, n, quick(), 1);
  if (world_rank() == 0) {
    std::ifstream in(path, std::ios::binary);
    std::string first;
    std::getline(in, first);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << first << "\n" << key << "\tproc_grid=banana\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  forget_tuning();
  expect_error([&] { tune(MPI_COMM_WORLD, n, quick(), fast_tune(path)); }, ErrorCode::Io, "banana");
  remove_on_root(path);
}
TEST(TuneFiles, TruncatedFile) {
  const std::string path = shared_path("tune_cut");
  const Grid n{10, 9, 8};
  forget_tuning();
  tune(MPI_COMM_WORLD, n, quick(), fast_tune(path));
  if (world_rank() == 0) {  // cut inside the entry's key: no tab left
    std::ifstream in(path, std::ios::binary);
    std::string first, entry;
    std::getline(in, first);
    std::getline(in, entry);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << first << "\n" << entry.substr(0, entry.find('\t') / 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  forget_tuning();
  expect_error([&] { tune(MPI_COMM_WORLD, n, quick(), fast_tune(path)); }, ErrorCode::Io, "malformed line");
  remove_on_root(path);
}
TEST(TuneFiles, AnotherGridsFileTunesAnewAndIsCorrect) {
  const std::string path = shared_path("tune_other");
  forget_tuning();
  tune(MPI_COMM_WORLD, {10, 9, 8}, quick(), fast_tune(path));
  forget_tuning();
  TuneReport r;
  const Grid n{11, 7, 6};
  const Plan plan = tuned_plan(MPI_COMM_WORLD, n, quick(), fast_tune(path), &r);
  EXPECT_FALSE(r.from_wisdom) << "another grid's entry must not answer";
  const auto e = errors_against_fftw(plan, n, 9);
  EXPECT_LT(e[0], 1e-12);
  EXPECT_LT(e[1], 1e-12);
  remove_on_root(path);
}
TEST(TuneFiles, Unwritable) {
  forget_tuning();
  expect_error([&] { tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), fast_tune("/etc/hostname/tune")); }, ErrorCode::Io,
               "/etc/hostname/tune");
}
TEST(TuneFiles, FifoDoesNotBlock) {
  const std::string path = shared_path("tune_fifo");
  if (world_rank() == 0) {
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_error([&] { tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), fast_tune(path)); }, ErrorCode::Io,
               "not a regular file");
  remove_on_root(path);
}
TEST(TuneFiles, DifferentPerRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  expect_error([&] { tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), fast_tune(shared_path("t") + std::to_string(world_rank()))); },
               ErrorCode::RanksDisagree, "wisdom_path");
}
TEST(TuneFiles, SettingsOutOfRange) {
  TuneSettings s = fast_tune("");
  s.keep_within = std::nan("");
  expect_error([&] { tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), s); }, ErrorCode::InvalidArgument, "keep_within");
  s = fast_tune("");
  s.trial_iters = 0;
  expect_error([&] { tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), s); }, ErrorCode::InvalidArgument, "trial_iters");
  s = fast_tune("");
  s.fields = 1 << 30;
  expect_error([&] { tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), s); }, ErrorCode::InvalidArgument, "fields");
  s = fast_tune("");
  s.budget_seconds = -1;
  expect_error([&] { tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), s); }, ErrorCode::InvalidArgument, "budget_seconds");
}

}  // namespace
}  // namespace nbfft::fft::test
