// Issue 37's misuse class in C++: a split-phase workspace that is busy on some ranks only,
// the message of a second use of a workspace before its transform's wait, batch counts
// beyond memory, wavenumber box lengths that are not positive finite numbers, and grids
// too large to address. Every case asserts the error kind and that the message names the
// problem, on every rank (the shared main fails the test when any rank fails); a hang is
// a ctest timeout. Runs at 1, 2, 3 and 4 ranks.
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/field.hpp"
#include "nbfft/fft/transpose.hpp"
#include "../fft/fft_test_util.hpp"
#include "expect_error.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;
using Cplx = std::complex<double>;

bool all_ranks(bool mine) {
  int ok = mine ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

Options quick() {
  Options o;
  o.effort = Effort::Estimate;
  o.transport("caller");
  return o;
}

struct Fixture {
  Grid n{12, 10, 9};
  Plan plan{MPI_COMM_WORLD, n, quick()};
  std::vector<double> in = random_box(plan.in_box(), n, 1, 37);
  std::vector<Cplx> ref = std::vector<Cplx>(plan.out_count()), a = ref, b = ref;
  Fixture() { plan.forward(in, ref); }
};

// ---- a split-phase workspace busy on some ranks only ------------------------------------

// Forward waits are local, so a rank may wait while the others do not: a second start on
// the workspace then finds it free on that rank and busy on the others. Every rank must
// refuse together (that rank used to enter the call's agreement alone and hang).
TEST(BusyWorkspace, SecondStartWhereOnlySomeRanksWaited) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  Fixture s;
  Plan::Workspace ws = s.plan.make_workspace();
  Plan::Pending p = s.plan.forward_start(s.in.data(), s.in.size(), s.a.data(), s.a.size(), ws);
  if (world_rank() == 0) p.wait();
  expect_error([&] { s.plan.forward_start(s.in.data(), s.in.size(), s.b.data(), s.b.size(), ws); },
               ErrorCode::InvalidState, "a forward_start that was not waited for");
  if (world_rank() != 0) {
    EXPECT_TRUE(p.active()) << "the refused start leaves the first transform in flight";
    p.wait();
  }
  EXPECT_TRUE(all_ranks(s.a == s.ref));
  // Nothing was left claimed: the workspace starts again everywhere.
  Plan::Pending q = s.plan.forward_start(s.in.data(), s.in.size(), s.b.data(), s.b.size(), ws);
  q.wait();
  EXPECT_TRUE(all_ranks(s.b == s.ref));
}

// The same with a plain (blocking) call on the workspace.
TEST(BusyWorkspace, PlainCallWhereOnlySomeRanksWaited) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  Fixture s;
  Plan::Workspace ws = s.plan.make_workspace();
  Plan::Pending p = s.plan.forward_start(s.in.data(), s.in.size(), s.a.data(), s.a.size(), ws);
  if (world_rank() == world_size() - 1) p.wait();
  expect_error([&] { s.plan.forward(s.in, s.b, ws); }, ErrorCode::InvalidState, "a forward_start that was not waited for",
               "another thread");
  if (p.active()) p.wait();
  s.plan.forward(s.in, s.b, ws);
  EXPECT_TRUE(all_ranks(s.a == s.ref && s.b == s.ref));
}

// One thread, every rank alike: the message names the real cause, not another thread.
TEST(BusyWorkspace, SameThreadReuseNamesTheMissingWait) {
  Fixture s;
  Plan::Workspace ws = s.plan.make_workspace();
  std::vector<double> back(s.in.size());
  Plan::Pending p = s.plan.backward_start(s.ref.data(), s.ref.size(), back.data(), back.size(), ws);
  expect_error([&] { s.plan.forward(s.in, s.b, ws); }, ErrorCode::InvalidState,
               "a backward_start that was not waited for", "another thread");
  expect_error([&] { s.plan.forward_start(s.in.data(), s.in.size(), s.b.data(), s.b.size(), ws); },
               ErrorCode::InvalidState, "a backward_start that was not waited for", "another thread");
  p.wait();
  double e = rel_error(back, s.in), worst = 0;
  MPI_Allreduce(&e, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_LT(worst, 1e-12);
}

// Pencils pool one set of buffers and collectives per transpose in flight and make a new
// set when none is free; with an algorithm whose collectives are built collectively
// (`replace` duplicates a communicator and agrees on a block size; `persistent` is MPI-4's
// Alltoallv_init) the ranks must make it together. Waits are local, so one rank may have a
// free set where the others have none: the new set is agreed (it used to be made on the
// ranks that lacked one only, while the others started the transpose: a hang).
TEST(BusyWorkspace, PencilsSlotsWhereOnlySomeRanksWaited) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  // The thread engine: a rank's wait completes while the others are already in their next
  // call (with the caller engine and a schedule of several steps they would have to
  // progress the first transpose themselves first).
  for (const char* transport : {"replace@thread", "pairwise:2@thread"}) {
    Pencils::Options o;
    o.m1 = world_size();
    o.m2 = 1;
    o.transport(transport);
    const Pencils p(MPI_COMM_WORLD, {8, 6, 5}, o);
    std::vector<Cplx> x(p.count(Pencil::X)), y1(p.count(Pencil::Y)), y2(y1.size()), back(x.size());
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = Cplx(double(k), double(world_rank()));
    Pencils::Pending a = p.start(Pencil::X, Pencil::Y, x, y1);
    if (world_rank() == 0) a.wait();
    Pencils::Pending b = p.start(Pencil::X, Pencil::Y, x, y2);
    if (world_rank() != 0) a.wait();
    b.wait();
    EXPECT_TRUE(all_ranks(y1 == y2)) << transport;
    p.transpose(Pencil::Y, Pencil::X, y2, back);
    EXPECT_TRUE(all_ranks(back == x)) << transport;
    // transpose_many with two fields in flight while rank 0 still holds one set.
    Pencils::Pending c = p.start(Pencil::X, Pencil::Y, x, y1);
    if (world_rank() != 0) c.wait();
    std::vector<std::vector<Cplx>> ys(3, std::vector<Cplx>(y1.size()));
    const std::vector<const Cplx*> ins(3, x.data());
    const std::vector<Cplx*> outs{ys[0].data(), ys[1].data(), ys[2].data()};
    p.transpose_many(Pencil::X, Pencil::Y, ins, x.size(), outs, y1.size());
    if (world_rank() == 0) c.wait();
    EXPECT_TRUE(all_ranks(ys[0] == y1 && ys[2] == y1)) << transport;
  }
}

// ---- batch counts beyond memory ---------------------------------------------------------

TEST(Batch, CountBeyondTheBuffers) {
  Fixture s;
  const std::size_t most = std::numeric_limits<std::size_t>::max();
  // Counts whose bytes overflow: OutOfMemory ("cannot be addressed"); counts that fit an
  // address but not the buffers: InvalidArgument naming both sizes. Never std::bad_alloc.
  for (std::size_t nv : {most, most / 2, std::size_t{1} << 40, std::size_t{2}}) {
    const bool overflows = nv > most / s.plan.inplace_bytes();
    const ErrorCode kind = overflows ? ErrorCode::OutOfMemory : ErrorCode::InvalidArgument;
    const std::string needle = std::to_string(nv) + " fields of";
    expect_error([&] { forward_batch(s.plan, nv, s.in.data(), s.in.size(), s.a.data(), s.a.size()); }, kind,
                 needle);
    expect_error([&] { backward_batch(s.plan, nv, s.ref.data(), s.ref.size(), s.in.data(), s.in.size()); }, kind,
                 needle);
    std::vector<Cplx> io(s.plan.inplace_bytes() / sizeof(Cplx) + 1);
    expect_error([&] { forward_batch_bytes(s.plan, nv, io.data(), s.plan.inplace_bytes(), io.data(),
                                           s.plan.inplace_bytes()); },
                 kind, overflows ? needle : "the in-place buffer has");
  }
  // One rank's buffers short: every rank fails with its message.
  const std::size_t have = world_rank() == world_size() - 1 ? s.in.size() : 2 * s.in.size();
  std::vector<double> two(2 * s.in.size());
  std::vector<Cplx> out(2 * s.a.size());
  expect_error([&] { forward_batch(s.plan, 2, two.data(), have, out.data(), out.size()); },
               ErrorCode::InvalidArgument, "the input buffer has");
  forward_batch(s.plan, 1, s.in.data(), s.in.size(), s.b.data(), s.b.size());
  EXPECT_TRUE(all_ranks(s.b == s.ref));
}

// ---- wavenumber box lengths ---------------------------------------------------------------

TEST(Wavenumbers, LengthMustBePositiveAndFinite) {
  Fixture s;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (double bad : {inf, -inf, nan, -1.0, 0.0, -0.0, 1e-320})
    for (int d = 0; d < 3; ++d) {
      std::array<double, 3> L{1.0, 2.0, 3.0};
      L[d] = bad;
      expect_error([&] { wavenumbers(s.plan, L); }, ErrorCode::InvalidArgument, "length[" + std::to_string(d) + "]");
    }
  const auto k = wavenumbers(s.plan, {1e300, 1e-300, 2.0});
  bool finite = true;
  for (const auto& axis : k)
    for (double v : axis) finite = finite && std::isfinite(v);
  EXPECT_TRUE(finite);
}

// ---- grids too large to address ---------------------------------------------------------

TEST(Grids, HugeGridNamesTheGridNotPadding) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  for (const Grid& n : {Grid{big, 1, 1}, Grid{1, big, 1}, Grid{1, 1, big}, Grid{big, big, big},
                        Grid{(std::int64_t{1} << 62) + 1, 2, 2}, Grid{3000000, 3000000, 3000000}}) {
    expect_error([&] { Plan(MPI_COMM_WORLD, n, quick()); }, ErrorCode::OutOfMemory, "cannot be addressed", "padding");
    Options c = quick();
    c.transform = TransformKind::C2C;
    expect_error([&] { Plan(MPI_COMM_WORLD, n, c); }, ErrorCode::OutOfMemory, "cannot be addressed", "padding");
  }
  // Padding the user asked for is named as such.
  Options p = quick();
  p.padding = {2.0, 1.0, 1.0};
  expect_error([&] { Plan(MPI_COMM_WORLD, {(std::int64_t{1} << 62) - 1, 2, 2}, p); }, ErrorCode::InvalidArgument,
               "padding 2 along x");
}

// User boxes whose bounds overflow int64: lo + n wrapped below the grid's end and a
// product of huge extents wrapped to 0 points ("empty"), so such boxes passed the checks.
TEST(Grids, UserBoxBoundsThatOverflow) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  const Grid n{8, 8, 8};
  const int P = world_size(), r = world_rank();
  Box3 slab{{0, 0, 8 * r / P}, {8, 8, 8 * (r + 1) / P - 8 * r / P}};  // z-slabs tile the grid
  Box3 far = slab;
  if (r == 0) far.lo[0] = big - 3;
  expect_error([&] { Plan(MPI_COMM_WORLD, n, far, std::nullopt, quick()); }, ErrorCode::InvalidArgument,
               "out of range along x");
  Box3 wide = slab;
  if (r == P - 1) wide.n = {std::int64_t{1} << 32, std::int64_t{1} << 32, 1};  // 2^64 points: count() is 0
  expect_error([&] { Plan(MPI_COMM_WORLD, n, wide, std::nullopt, quick()); }, ErrorCode::InvalidArgument,
               "out of range along x");
  const Plan ok(MPI_COMM_WORLD, n, slab, std::nullopt, quick());
  EXPECT_EQ(ok.in_box(), slab);
}

TEST(Grids, HugeGridWithTuningFailsBeforeTheTrials) {
  Options o = quick();
  o.tune = TuneEffort::Quick;
  o.tune_budget = 5;
  expect_error([&] { Plan(MPI_COMM_WORLD, {3000000, 3000000, 3000000}, o); }, ErrorCode::OutOfMemory,
               "cannot be addressed", "padding");
}

}  // namespace
}  // namespace nbfft::fft::test
