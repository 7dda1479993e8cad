// Bad input to the N-D plans (nbfft/nd/plan.hpp, nbfft/nd/field.hpp) and the public pencil
// transposes (nbfft/fft/transpose.hpp), as a new user gives it, at 1-4 ranks: sizes whose
// products overflow or cannot be allocated, moved-from objects, and collective calls whose
// arguments differ between ranks. Every case must end, within the ctest timeout, with the
// same nbfft::Error kind on every rank and a message naming the problem.
#include "nbfft/error.hpp"
#include "nbfft/fft/transpose.hpp"
#include "nbfft/nd/field.hpp"
#include "nbfft/nd/plan.hpp"
#include "../fft/fft_test_util.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using cplx = std::complex<double>;
using cplxf = std::complex<float>;
using Shape = std::vector<std::int64_t>;
using nbfft::ErrorCode;
using nbfft::fft::test::world_rank;
using nbfft::fft::test::world_size;

// The objects under test.
using nbfft::fft::Pencil;
using nbfft::fft::Pencils;
using nbfft::nd::Box, nbfft::nd::Options, nbfft::nd::Plan;

// f() throws an nbfft::Error of `code` whose message holds `words`; returns the message.
std::string expect_error(const std::function<void()>& f, ErrorCode code, const std::string& words) {
  try {
    f();
  } catch (const nbfft::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    return e.message();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an nbfft::Error: " << e.what() << " (expected: " << words << ")";
    return "";
  }
  ADD_FAILURE() << "no error (expected: " << words << ")";
  return "";
}

constexpr std::int64_t k2p(int e) { return std::int64_t{1} << e; }

// ---- Sizes -------------------------------------------------------------------------------

// Shapes whose element counts overflow, or pass what a plan can address, are refused before
// anything is allocated (they asked FFTW's allocator or ours for a wrapped size: an abort,
// or 16 TiB), with one message naming the shape on every rank, through every way in: the
// plain plan, a batch axis, user boxes, the tuner, and the 3-D option (a 3-D array over all
// axes, whose 3-D plan had its own message).
TEST(NdSizes, OverflowingShapesAreRefusedByName) {
  const auto inv = ErrorCode::InvalidArgument;
  expect_error([] { Plan(MPI_COMM_WORLD, {k2p(40), k2p(40)}); }, inv,
               "shape 1099511627776x1099511627776: 2^80 elements overflow a 64-bit count");
  Options c2c;
  c2c.kind = nbfft::nd::Kind::C2C;
  expect_error([&] { Plan(MPI_COMM_WORLD, {k2p(32), k2p(32)}, {0, 1}, c2c); }, inv, "2^64 elements overflow");
  expect_error([] { Plan(MPI_COMM_WORLD, {k2p(62), 2}, {1}); }, inv, "2^63 elements overflow");
  expect_error([] { Plan(MPI_COMM_WORLD, {k2p(32), 3, k2p(32)}, {1}); }, inv, "about 2^65.5 elements overflow");
  // In range of int64, but not addressable: 2^60 elements of up to 16 bytes in several arrays.
  expect_error([] { Plan(MPI_COMM_WORLD, {k2p(20), k2p(20), k2p(20)}, {0, 1}); }, inv,
               "1152921504606846976 elements are more than a plan can address");
  // A batch of many small fields.
  Options batch;
  batch.batch_axis = 0;
  expect_error([&] { Plan(MPI_COMM_WORLD, {k2p(50), k2p(4), k2p(4)}, {1, 2}, batch); }, inv,
               "shape 1125899906842624x16x16 (batch axis 0): 288230376151711744 elements are more than a plan can address");
  // 3-D over all axes: the same message with and without the 3-D plan.
  Options nd_steps;
  nd_steps.use_3d_plan = false;
  const Shape big3 = {k2p(31), k2p(31), 4};
  const std::string via_3d = expect_error([&] { Plan(MPI_COMM_WORLD, big3); }, inv, "2^64 elements overflow");
  const std::string via_nd = expect_error([&] { Plan(MPI_COMM_WORLD, big3, {0, 1, 2}, nd_steps); }, inv, "2^64");
  EXPECT_EQ(via_3d, via_nd);
  // Tuned: the tuner's first plan is the caller's, refused alike.
  Options tuned;
  tuned.tune = nbfft::fft::TuneEffort::Quick;
  expect_error([&] { Plan(MPI_COMM_WORLD, {k2p(40), k2p(40)}, {0, 1}, tuned); }, inv, "2^80 elements overflow");
  // User boxes with extents that would wrap lo + n.
  const Shape s = {8, 6};
  Box b{{0, 0}, {8, 6}, {}};
  if (world_rank() != 0) b.n = {0, 0};
  if (world_rank() == 0) b.lo[1] = 3, b.n[1] = INT64_MAX;
  expect_error([&] { Plan(MPI_COMM_WORLD, s, {0, 1}, b, std::nullopt); }, inv,
               "in_box of rank 0 spans lo 3 n 9223372036854775807 along axis 1, outside the array's [0, 6)");
}

// A shape the plan can address but no rank can allocate (each rank's work arrays beyond the
// address space) is OutOfMemory on every rank, naming the size: nbfft's error, never
// std::bad_alloc or an abort in FFTW's allocator.
TEST(NdSizes, AnAllocationThatFailsIsOutOfMemoryOnEveryRank) {
  Options c2c;
  c2c.kind = nbfft::nd::Kind::C2C;
  expect_error([&] { Plan(MPI_COMM_WORLD, {k2p(46), 2}, {1}, c2c); }, ErrorCode::OutOfMemory, "cannot allocate");
}

// The transposes: an element size whose pencils' bytes overflow, on one rank or all.
TEST(PencilsSizes, ElementSizesThatOverflowAreRefused) {
  Pencils p(MPI_COMM_WORLD, {6, 5, 4});
  std::vector<unsigned char> a(1024), b(1024);
  const std::size_t huge = std::size_t{1} << 62;
  expect_error([&] { p.transpose_bytes(Pencil::X, Pencil::Y, a.data(), a.size(), b.data(), b.size(), huge); },
               ErrorCode::InvalidArgument, "element size 4611686018427387904 bytes");
  expect_error([&] { p.start_bytes(Pencil::Y, Pencil::Z, a.data(), a.size(), b.data(), b.size(), SIZE_MAX).wait(); },
               ErrorCode::InvalidArgument, "element size 18446744073709551615 bytes");
  std::vector<const void*> in{a.data()};
  std::vector<void*> out{b.data()};
  expect_error([&] { p.transpose_many_bytes(Pencil::Y, Pencil::X, 1, in.data(), 1024, out.data(), 1024, huge); },
               ErrorCode::InvalidArgument, "cannot be addressed");
  expect_error([&] { p.reserve_bytes(Pencil::X, Pencil::Y, huge, 1); }, ErrorCode::InvalidArgument, "element size");
}

// Transpose buffers that cannot be allocated: OutOfMemory on every rank, agreed before any
// rank binds them (binding is collective).
TEST(PencilsSizes, BuffersThatCannotBeAllocatedAreOutOfMemory) {
  Pencils p(MPI_COMM_WORLD, {k2p(20), k2p(20), k2p(10)});
  expect_error([&] { p.reserve_bytes(Pencil::X, Pencil::Y, 1, 1); }, ErrorCode::OutOfMemory,
               "transpose buffers");
  EXPECT_EQ(p.free_buffers(Pencil::X, Pencil::Y, 1), 0u);
}

// ---- Moved-from objects ------------------------------------------------------------------

template <typename F>
void expect_moved(const char* member, F&& f, const std::string& words) {
  SCOPED_TRACE(member);
  expect_error(std::forward<F>(f), ErrorCode::InvalidState, words);
}

// Every public member of a moved-from nd::Plan (moved by construction or by assignment)
// throws InvalidState naming it, collective ones on every rank; so do the field helpers.
TEST(NdMovedFrom, EveryMemberThrowsInvalidState) {
  for (const bool by_assignment : {false, true}) {
    Plan p(MPI_COMM_WORLD, {6, 8});
    Plan q(MPI_COMM_WORLD, {4, 4});
    if (by_assignment)
      q = std::move(p);
    else
      Plan(std::move(p)).describe();
    const std::string w = "nd plan: used after being moved from";
    std::vector<double> r(64);
    std::vector<cplx> c(64);
    std::vector<float> rf(64);
    std::vector<cplxf> cf(64);
    expect_moved("shape", [&] { p.shape(); }, w);
    expect_moved("out_shape", [&] { p.out_shape(); }, w);
    expect_moved("axes", [&] { p.axes(); }, w);
    expect_moved("kind", [&] { p.kind(); }, w);
    expect_moved("precision", [&] { p.precision(); }, w);
    expect_moved("kinds", [&] { p.kinds(); }, w);
    expect_moved("real_spectrum", [&] { p.real_spectrum(); }, w);
    expect_moved("grid", [&] { p.grid(); }, w);
    expect_moved("out_grid", [&] { p.out_grid(); }, w);
    expect_moved("output_order", [&] { p.output_order(); }, w);
    expect_moved("out_order", [&] { p.out_order(); }, w);
    expect_moved("exchanges", [&] { p.exchanges(); }, w);
    expect_moved("size", [&] { p.size(); }, w);
    expect_moved("rank", [&] { p.rank(); }, w);
    expect_moved("in_box", [&] { p.in_box(); }, w);
    expect_moved("out_box", [&] { p.out_box(); }, w);
    expect_moved("user_boxes", [&] { p.user_boxes(); }, w);
    expect_moved("in_box_of_rank", [&] { p.in_box_of_rank(0); }, w);
    expect_moved("out_box_of_rank", [&] { p.out_box_of_rank(0); }, w);
    expect_moved("in_count", [&] { p.in_count(); }, w);
    expect_moved("out_count", [&] { p.out_count(); }, w);
    expect_moved("batch_axis", [&] { p.batch_axis(); }, w);
    expect_moved("batch", [&] { p.batch(); }, w);
    expect_moved("fields_in_flight", [&] { p.fields_in_flight(); }, w);
    expect_moved("workspace_bytes", [&] { p.workspace_bytes(); }, w);
    expect_moved("lean_workspace", [&] { p.lean_workspace(); }, w);
    expect_moved("inplace_bytes", [&] { p.inplace_bytes(); }, w);
    expect_moved("uses_3d_plan", [&] { p.uses_3d_plan(); }, w);
    expect_moved("options", [&] { p.options(); }, w);
    expect_moved("tune_report", [&] { p.tune_report(); }, w);
    expect_moved("describe", [&] { p.describe(); }, w);
    // The twelve typed calls, the multi-field and split-phase templates.
    expect_moved("forward r2c", [&] { p.forward(r.data(), 64, c.data(), 64); }, w);
    expect_moved("forward c2c", [&] { p.forward(c.data(), 64, c.data(), 64); }, w);
    expect_moved("backward c2r", [&] { p.backward(c.data(), 64, r.data(), 64); }, w);
    expect_moved("backward c2c", [&] { p.backward(c.data(), 64, c.data(), 64); }, w);
    expect_moved("forward r2r", [&] { p.forward(r.data(), 64, r.data(), 64); }, w);
    expect_moved("backward r2r", [&] { p.backward(r.data(), 64, r.data(), 64); }, w);
    expect_moved("forward r2c single", [&] { p.forward(rf.data(), 64, cf.data(), 64); }, w);
    expect_moved("forward c2c single", [&] { p.forward(cf.data(), 64, cf.data(), 64); }, w);
    expect_moved("backward c2r single", [&] { p.backward(cf.data(), 64, rf.data(), 64); }, w);
    expect_moved("backward c2c single", [&] { p.backward(cf.data(), 64, cf.data(), 64); }, w);
    expect_moved("forward r2r single", [&] { p.forward(rf.data(), 64, rf.data(), 64); }, w);
    expect_moved("backward r2r single", [&] { p.backward(rf.data(), 64, rf.data(), 64); }, w);
    const std::vector<double*> vr{r.data()};
    const std::vector<cplx*> vc{c.data()};
    expect_moved("forward_many", [&] { p.forward_many(vr, 64, vc, 64); }, w);
    expect_moved("backward_many", [&] { p.backward_many(vc, 64, vr, 64); }, w);
    expect_moved("forward_start", [&] { p.forward_start(r.data(), 64, c.data(), 64); }, w);
    expect_moved("backward_start", [&] { p.backward_start(c.data(), 64, r.data(), 64); }, w);
    // The field helpers; gather and scatter are collective: every rank fails in their agreement.
    expect_moved("element_bytes", [&] { nbfft::nd::element_bytes(p, nbfft::nd::Layout::Input); }, w);
    expect_moved("half_axis", [&] { nbfft::nd::half_axis(p); }, w);
    expect_moved("wavenumbers", [&] { nbfft::nd::wavenumbers(p, 0); }, w);
    expect_moved("gather_bytes",
                 [&] { nbfft::nd::gather_bytes(p, MPI_COMM_WORLD, nbfft::nd::Layout::Input, r.data(), 8, c.data(), 8); },
                 w);
    expect_moved("scatter_bytes",
                 [&] { nbfft::nd::scatter_bytes(p, MPI_COMM_WORLD, nbfft::nd::Layout::Input, c.data(), 8, r.data(), 8); },
                 w);
    // What it was moved to works, and the moved-from plan takes a new one.
    if (by_assignment) {
      EXPECT_EQ(q.shape(), (Shape{6, 8}));
    }
    p = Plan(MPI_COMM_WORLD, {4, 6});
    EXPECT_EQ(p.shape(), (Shape{4, 6}));
  }
}

// A moved-from (or never started, or waited) nd Pending: InvalidState, naming it.
TEST(NdMovedFrom, PendingThrowsInvalidState) {
  Plan p(MPI_COMM_WORLD, {6, 8});
  std::vector<double> u(p.in_count(), 1.0);
  std::vector<cplx> uh(p.out_count());
  Plan::Pending t = p.forward_start(u.data(), u.size(), uh.data(), uh.size());
  Plan::Pending moved(std::move(t));
  EXPECT_FALSE(t.active());
  const std::string w = "not active (never started, moved from, or already waited for)";
  // Moved from: the handle holds no operation (nbfft::Request's own words).
  expect_moved("Pending::progress", [&] { t.progress(); }, "Request::progress: no operation in flight: " + w);
  expect_moved("Pending::test", [&] { t.test(); }, "Request::test: no operation in flight: " + w);
  expect_moved("Pending::wait", [&] { t.wait(); }, "Request::wait: no operation in flight: " + w);
  moved.wait();
  expect_moved("Pending::wait twice", [&] { moved.wait(); }, w);
}

// The same for Pencils and its Pending.
TEST(PencilsMovedFrom, EveryMemberThrowsInvalidState) {
  Pencils p(MPI_COMM_WORLD, {6, 5, 4});
  Pencils q(std::move(p));
  const std::string w = "Pencils: used after being moved from";
  std::vector<double> a(256), b(256);
  expect_moved("global_size", [&] { p.global_size(); }, w);
  expect_moved("m1", [&] { p.m1(); }, w);
  expect_moved("m2", [&] { p.m2(); }, w);
  expect_moved("row", [&] { p.row(); }, w);
  expect_moved("col", [&] { p.col(); }, w);
  expect_moved("box", [&] { p.box(Pencil::X); }, w);
  expect_moved("box_of_rank", [&] { p.box_of_rank(Pencil::X, 0); }, w);
  expect_moved("start", [&] { p.start(Pencil::Y); }, w);
  expect_moved("end", [&] { p.end(Pencil::Y); }, w);
  expect_moved("size", [&] { p.size(Pencil::Z); }, w);
  expect_moved("count", [&] { p.count(Pencil::Z); }, w);
  expect_moved("can_transpose", [&] { p.can_transpose(Pencil::X, Pencil::Y); }, w);
  expect_moved("comm", [&] { p.comm(); }, w);
  expect_moved("transpose", [&] { p.transpose(Pencil::X, Pencil::Y, a, b); }, w);
  expect_moved("transpose_bytes", [&] { p.transpose_bytes(Pencil::X, Pencil::Y, a.data(), 8, b.data(), 8, 8); }, w);
  expect_moved("start", [&] { p.start(Pencil::X, Pencil::Y, a, b); }, w);
  expect_moved("start_bytes", [&] { p.start_bytes(Pencil::X, Pencil::Y, a.data(), 8, b.data(), 8, 8); }, w);
  const std::vector<double*> va{a.data()}, vb{b.data()};
  expect_moved("transpose_many", [&] { p.transpose_many(Pencil::X, Pencil::Y, va, 256, vb, 256); }, w);
  expect_moved("free_buffers", [&] { p.free_buffers(Pencil::X, Pencil::Y, 8); }, w);
  expect_moved("reserve_bytes", [&] { p.reserve_bytes(Pencil::X, Pencil::Y, 8, 1); }, w);
  expect_moved("operator<<", [&] {
    std::ostringstream os;
    os << p;
  }, w);
  EXPECT_EQ(q.global_size()[0], 6);
  auto t = q.start(Pencil::X, Pencil::Y, a, b);
  Pencils::Pending moved(std::move(t));
  const std::string nw = "not active (never started, moved from, or already waited for)";
  expect_moved("Pending::progress", [&] { t.progress(); }, nw);
  expect_moved("Pending::test", [&] { t.test(); }, nw);
  expect_moved("Pending::wait", [&] { t.wait(); }, nw);
  moved.wait();
}

// ---- Collective calls whose arguments differ between ranks --------------------------------

// Gather and scatter with a root (or a layout) that differs between ranks, each valid on its
// own: every rank waited for messages that another root never sent. Now RanksDisagree on
// every rank, naming the root; then the call in step works.
TEST(NdAgreed, GatherAndScatterRootsAndLayouts) {
  const int P = world_size(), me = world_rank();
  if (P < 2) GTEST_SKIP() << "needs two ranks to disagree";
  Plan p(MPI_COMM_WORLD, {5, 6});
  const auto in = nbfft::nd::Layout::Input;
  std::vector<double> u(p.in_count(), 1.0 + me), g(30);
  expect_error([&] { nbfft::nd::gather_bytes(p, MPI_COMM_WORLD, in, u.data(), u.size() * 8, g.data(), 240, me == 0 ? 0 : 1); },
               ErrorCode::RanksDisagree, "nd gather: ranks disagree on the root: rank 0 has '0', rank 1 has '1'");
  expect_error([&] { nbfft::nd::scatter_bytes(p, MPI_COMM_WORLD, in, g.data(), 240, u.data(), u.size() * 8, me == P - 1 ? 0 : P - 1); },
               ErrorCode::RanksDisagree, "nd scatter: ranks disagree on the root");
  expect_error([&] { nbfft::nd::gather_bytes(p, MPI_COMM_WORLD, me == 0 ? in : nbfft::nd::Layout::Output, u.data(), u.size() * 8, g.data(), 240, 0); },
               ErrorCode::RanksDisagree, "ranks disagree on the layout");
  nbfft::nd::gather_bytes(p, MPI_COMM_WORLD, in, u.data(), u.size() * 8, g.data(), 240, nbfft::nd::kEveryRank);
  EXPECT_EQ(g[0], 1.0);
  EXPECT_EQ(g[29], static_cast<double>(P));
}

// Split-phase waits out of step (each Pending's wait runs later exchanges): two Pendings
// waited in different orders, or one rank waiting while another starts, fail every rank
// with RanksDisagree; the transforms stay active and finish when waited for in step.
TEST(NdAgreed, WaitsOutOfStep) {
  const int P = world_size(), me = world_rank();
  if (P < 2) GTEST_SKIP() << "needs two ranks to disagree";
  Options o;
  o.batch_axis = 0;  // three fields: the wait starts the later ones' exchanges
  Plan p(MPI_COMM_WORLD, {3, 8, 10}, {1, 2}, o);
  std::vector<double> u(p.in_count()), v(p.in_count());
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = static_cast<double>((i * 7 + me) % 11);
  std::vector<cplx> a(p.out_count()), b(p.out_count()), ref(p.out_count());
  p.forward(u.data(), u.size(), ref.data(), ref.size());
  auto first = p.forward_start(u.data(), u.size(), a.data(), a.size());
  auto second = p.forward_start(u.data(), u.size(), b.data(), b.size());
  expect_error([&] { (me == 0 ? first : second).wait(); }, ErrorCode::RanksDisagree,
               "ranks disagree on the split-phase transform (in start order): rank 0 has 'number 1', rank 1 has 'number 2'");
  EXPECT_TRUE(first.active());
  EXPECT_TRUE(second.active());
  expect_error([&] {
    if (me == 0)
      first.wait();
    else
      p.backward_start(a.data(), a.size(), v.data(), v.size()).wait();
  }, ErrorCode::RanksDisagree, "rank 0 has 'forward wait', rank 1 has 'backward_start'");
  first.wait();
  second.wait();
  EXPECT_EQ(a, ref);
  EXPECT_EQ(b, ref);
}

// A pencil that is no pencil on one rank (a C caller's enum): InvalidArgument on every rank
// (it threw on that rank alone, before the others' agreement).
TEST(PencilsAgreed, ABadPencilOnOneRank) {
  Pencils p(MPI_COMM_WORLD, {6, 5, 4});
  std::vector<double> a(p.count(Pencil::X) + p.count(Pencil::Y) + 1), b(a.size());
  const Pencil bad = world_rank() == 0 ? static_cast<Pencil>(7) : Pencil::X;
  expect_error([&] { p.transpose(bad, Pencil::Y, a, b); }, world_size() > 1 ? ErrorCode::RanksDisagree : ErrorCode::InvalidArgument,
               world_size() > 1 ? "ranks disagree on the collective call" : "pencil 7 is not X (0), Y (1) or Z (2)");
  const Pencil all_bad = static_cast<Pencil>(-1);
  expect_error([&] { p.transpose(Pencil::Y, all_bad, a, b); }, ErrorCode::InvalidArgument,
               "pencil -1 is not X (0), Y (1) or Z (2)");
}

// Waits are local: ranks that wait at different moments hold different numbers of transpose
// buffers, so a start that needs a new set on one rank only makes one on every rank (making
// one binds collectives: one rank alone hung). The results are the pencils', every time.
TEST(PencilsAgreed, WaitsAtDifferentMomentsOnDifferentRanks) {
  Pencils p(MPI_COMM_WORLD, {7, 6, 5});
  const auto fill = [&](std::vector<double>& v, int f) {
    const auto b = p.box(Pencil::X);
    v.assign(static_cast<std::size_t>(b.count()), 0);
    for (std::int64_t z = 0; z < b.n[2]; ++z)
      for (std::int64_t y = 0; y < b.n[1]; ++y)
        for (std::int64_t x = 0; x < b.n[0]; ++x)
          v[static_cast<std::size_t>(b.index(b.lo[0] + x, b.lo[1] + y, b.lo[2] + z))] =
              f * 1000 + (b.lo[0] + x) + 10 * (b.lo[1] + y) + 100 * (b.lo[2] + z);
  };
  const auto y = p.box(Pencil::Y);
  const auto check = [&](const std::vector<double>& v, int f) {
    for (std::int64_t z = 0; z < y.n[2]; ++z)
      for (std::int64_t yy = 0; yy < y.n[1]; ++yy)
        for (std::int64_t x = 0; x < y.n[0]; ++x)
          ASSERT_EQ(v[static_cast<std::size_t>(y.index(y.lo[0] + x, y.lo[1] + yy, y.lo[2] + z))],
                    f * 1000 + (y.lo[0] + x) + 10 * (y.lo[1] + yy) + 100 * (y.lo[2] + z));
  };
  std::vector<std::vector<double>> in(3), out(3, std::vector<double>(static_cast<std::size_t>(y.count())));
  for (int f = 0; f < 3; ++f) fill(in[static_cast<std::size_t>(f)], f);
  std::vector<Pencils::Pending> t;
  for (int f = 0; f < 3; ++f) {
    t.push_back(p.start(Pencil::X, Pencil::Y, in[static_cast<std::size_t>(f)], out[static_cast<std::size_t>(f)]));
    if (world_rank() == 0) t.back().wait();  // rank 0 frees its buffers at once, the others hold them
  }
  for (auto& q : t)
    if (q.active()) q.wait();
  for (int f = 0; f < 3; ++f) check(out[static_cast<std::size_t>(f)], f);
  // Every rank made as many sets: the most any rank held at once.
  int mine = static_cast<int>(p.free_buffers(Pencil::X, Pencil::Y, sizeof(double))), lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
  EXPECT_EQ(hi, world_size() > 1 ? 3 : 1);
}

}  // namespace
