// The C++ field helpers (nbfft/fft/field.hpp) against serial references: wavenumbers
// against numpy's fftfreq/rfftfreq definition, every rank's box against what each rank
// reports, gather/scatter round trips and the gathered spectrum against serial FFTW,
// contiguous batches against nv single calls, the thread level options need; and the C
// boundary's mapping of exceptions to statuses (capi/guard.hpp).
#include "capi/guard.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/fft/field.hpp"
#include "../fft/fft_test_util.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <new>
#include <stdexcept>
#include <vector>

namespace nbfft::fft {
namespace {

using test::world_rank;
using test::world_size;

Options quick(TransformKind t = TransformKind::R2C) {
  Options o;
  o.transform = t;
  o.effort = Effort::Estimate;
  return o;
}

// numpy.fft.fftfreq(n) * n and rfftfreq(n) * n, written as numpy defines them.
std::vector<double> fftfreq(std::int64_t n) {
  std::vector<double> r;
  const std::int64_t N = (n - 1) / 2 + 1;
  for (std::int64_t i = 0; i < N; ++i) r.push_back(static_cast<double>(i));
  for (std::int64_t i = -(n / 2); i < 0; ++i) r.push_back(static_cast<double>(i));
  return r;
}
std::vector<double> rfftfreq(std::int64_t n) {
  std::vector<double> r;
  for (std::int64_t i = 0; i <= n / 2; ++i) r.push_back(static_cast<double>(i));
  return r;
}

const std::array<std::int64_t, 3> kGrids[] = {{8, 6, 5}, {7, 9, 4}, {6, 5, 12}};

TEST(Field, WavenumbersFollowNumpy) {
  for (auto n : kGrids)
    for (auto t : {TransformKind::R2C, TransformKind::C2C}) {
      Plan plan(MPI_COMM_WORLD, n, quick(t));
      const Box3& b = plan.out_box();
      const auto k = wavenumbers(plan);
      const std::array<double, 3> len{1.0, 3.0, 0.5};
      const auto ks = wavenumbers(plan, len);
      for (int d = 0; d < 3; ++d) {
        const auto ref = d == 0 && t == TransformKind::R2C ? rfftfreq(n[0]) : fftfreq(n[d]);
        ASSERT_EQ(k[d].size(), static_cast<std::size_t>(b.n[d]));
        for (std::int64_t m = 0; m < b.n[d]; ++m) {
          EXPECT_EQ(k[d][m], ref[b.lo[d] + m]) << "axis " << d << " index " << b.lo[d] + m << " n " << n[d];
          EXPECT_NEAR(ks[d][m], ref[b.lo[d] + m] * kTwoPi / len[d], 1e-12);
        }
      }
      try {
        wavenumbers(plan, {1.0, 0.0, 1.0});
        ADD_FAILURE() << "a zero length was accepted";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      }
    }
}

TEST(Field, ForEachPointWalksMemoryOrder) {
  Plan plan(MPI_COMM_WORLD, {7, 9, 4}, quick());
  for (const Box3& b : {plan.in_box(), plan.out_box()}) {
    std::int64_t expect = 0;
    for_each_point(b, [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
      EXPECT_EQ(at, expect++);
      EXPECT_TRUE(b.contains(x, y, z));
      EXPECT_EQ(b.index(x, y, z), at);
    });
    EXPECT_EQ(expect, b.count());
  }
}

TEST(Field, AllBoxesMatchWhatEachRankOwns) {
  for (auto n : kGrids) {
    Plan plan(MPI_COMM_WORLD, n, quick());
    for (Layout l : {Layout::Input, Layout::Output}) {
      const auto boxes = all_boxes(plan, l);
      ASSERT_EQ(static_cast<int>(boxes.size()), world_size());
      const Box3& mine = box(plan, l);
      std::int64_t v[9] = {mine.lo[0], mine.lo[1], mine.lo[2], mine.n[0], mine.n[1], mine.n[2],
                           mine.order[0], mine.order[1], mine.order[2]};
      std::vector<std::int64_t> all(9 * boxes.size());
      MPI_Allgather(v, 9, MPI_INT64_T, all.data(), 9, MPI_INT64_T, MPI_COMM_WORLD);
      std::int64_t total = 0;
      for (std::size_t r = 0; r < boxes.size(); ++r) {
        const std::int64_t* a = &all[9 * r];
        EXPECT_EQ(boxes[r], Box3({{a[0], a[1], a[2]}, {a[3], a[4], a[5]}, {int(a[6]), int(a[7]), int(a[8])}}));
        total += boxes[r].count();
      }
      EXPECT_EQ(total, global_count(plan, l));
    }
  }
}

TEST(Field, GatherScatterRoundTripAndSerialSpectrum) {
  for (auto n : kGrids)
    for (auto t : {TransformKind::R2C, TransformKind::C2C}) {
      Plan plan(MPI_COMM_WORLD, n, quick(t));
      const bool r2c = t == TransformKind::R2C;
      const int comps = r2c ? 1 : 2;
      const int root = world_size() - 1;  // not always rank 0
      const bool on_root = world_rank() == root;
      const std::size_t gin = static_cast<std::size_t>(global_count(plan, Layout::Input)) * comps;
      std::vector<double> global(on_root ? gin : 0);
      for (std::size_t i = 0; i < global.size(); ++i) global[i] = test::random_value(7, i);
      // scatter -> every local point equals the global value at its indices
      std::vector<double> local(static_cast<std::size_t>(plan.in_count()) * comps);
      scatter_bytes(MPI_COMM_WORLD, plan, Layout::Input, global.data(), global.size() * sizeof(double),
                    local.data(), local.size() * sizeof(double), root);
      const auto expect = test::random_box(plan.in_box(), n, comps, 7);
      EXPECT_EQ(local, expect);
      // gather -> the original
      std::vector<double> back(on_root ? gin : 0, -1.0);
      gather_bytes(MPI_COMM_WORLD, plan, Layout::Input, local.data(), local.size() * sizeof(double), back.data(),
                   back.size() * sizeof(double), root);
      if (on_root) {
        EXPECT_EQ(back, global);
      }
      // the gathered output layout (x, z, y boxes) is the serial spectrum in natural order
      std::vector<std::complex<double>> spec(plan.out_count());
      plan.forward_bytes(local.data(), local.size() * sizeof(double), spec.data(), spec.size() * 16);
      std::vector<std::complex<double>> gspec(on_root ? global_count(plan, Layout::Output) : 0);
      gather(MPI_COMM_WORLD, plan, Layout::Output, spec.data(), spec.size(), gspec.data(), gspec.size(), root);
      if (on_root) {
        const auto ref = test::serial_forward(global, n, r2c);
        std::vector<double> got(2 * gspec.size());
        std::memcpy(got.data(), gspec.data(), got.size() * sizeof(double));
        EXPECT_LT(test::rel_error(got, ref), 1e-12);
      }
      // and scattering it back gives every rank its own output box
      std::vector<std::complex<double>> spec2(plan.out_count());
      scatter(MPI_COMM_WORLD, plan, Layout::Output, gspec.data(), gspec.size(), spec2.data(), spec2.size(), root);
      EXPECT_EQ(spec2, spec);
    }
}

TEST(Field, GatherErrorsReachEveryRank) {
  Plan plan(MPI_COMM_WORLD, {8, 6, 5}, quick());
  std::vector<double> local(plan.in_count());
  std::vector<double> global(world_rank() == 0 ? global_count(plan, Layout::Input) : 0);
  auto kind = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::Internal;  // "no error": never what a test expects here
  };
  EXPECT_EQ(kind([&] { gather(MPI_COMM_WORLD, plan, Layout::Input, local.data(), local.size(), global.data(), global.size(), world_size()); }),
            ErrorCode::InvalidArgument);
  // short global buffer on the root only: every rank throws
  EXPECT_EQ(kind([&] { gather(MPI_COMM_WORLD, plan, Layout::Input, local.data(), local.size(), global.data(),
                              global.empty() ? 0 : global.size() - 1, 0); }),
            ErrorCode::InvalidArgument);
  // wrong element type for the layout (complex for r2c input)
  std::vector<std::complex<double>> c(plan.in_count());
  EXPECT_EQ(kind([&] { gather(MPI_COMM_WORLD, plan, Layout::Input, c.data(), c.size(), c.data(), c.size(), 0); }),
            ErrorCode::InvalidArgument);
}

TEST(Field, BatchEqualsSingleCalls) {
  const std::size_t nv = 3;
  for (auto t : {TransformKind::R2C, TransformKind::C2C}) {
    const std::array<std::int64_t, 3> n{7, 9, 4};
    Plan plan(MPI_COMM_WORLD, n, quick(t));
    const int comps = t == TransformKind::R2C ? 1 : 2;
    const std::size_t in_n = plan.in_count() * comps, out_n = plan.out_count();
    std::vector<double> in(nv * in_n);
    for (std::size_t v = 0; v < nv; ++v) {
      const auto f = test::random_box(plan.in_box(), n, comps, 100 + v);
      std::copy(f.begin(), f.end(), in.begin() + v * in_n);
    }
    std::vector<std::complex<double>> single(nv * out_n), batch(nv * out_n);
    for (std::size_t v = 0; v < nv; ++v)
      plan.forward_bytes(in.data() + v * in_n, in_n * 8, single.data() + v * out_n, out_n * 16);
    if (comps == 1)
      forward_batch(plan, nv, in.data(), in.size(), batch.data(), batch.size());
    else
      forward_batch(plan, nv, reinterpret_cast<const std::complex<double>*>(in.data()), in.size() / 2,
                    batch.data(), batch.size());
    EXPECT_EQ(batch, single);
    std::vector<double> back(nv * in_n), back1(nv * in_n);
    backward_batch_bytes(plan, nv, batch.data(), batch.size() * 16, back.data(), back.size() * 8);
    for (std::size_t v = 0; v < nv; ++v)
      plan.backward_bytes(single.data() + v * out_n, out_n * 16, back1.data() + v * in_n, in_n * 8);
    EXPECT_EQ(back, back1);
    // in place: every field takes inplace_bytes()
    const std::size_t stride = plan.inplace_bytes();
    std::vector<char> buf(nv * stride + 1);
    for (std::size_t v = 0; v < nv; ++v) std::memcpy(buf.data() + v * stride, in.data() + v * in_n, in_n * 8);
    forward_batch_bytes(plan, nv, buf.data(), nv * stride, buf.data(), nv * stride);
    for (std::size_t v = 0; v < nv; ++v)
      EXPECT_EQ(std::memcmp(buf.data() + v * stride, single.data() + v * out_n, out_n * 16), 0) << "field " << v;
    // a buffer one field short fails on every rank
    try {
      forward_batch_bytes(plan, nv, in.data(), (nv - 1) * in_n * 8, batch.data(), batch.size() * 16);
      ADD_FAILURE() << "a short batch buffer was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    }
  }
}

TEST(Field, RequiredThreadLevel) {
  Options o;
  EXPECT_EQ(required_thread_level(o), MPI_THREAD_SINGLE);
  o.transport("pairwise:4@caller");
  EXPECT_EQ(required_thread_level(o), MPI_THREAD_SINGLE);
  o.transport("thread");
  EXPECT_EQ(required_thread_level(o), MPI_THREAD_MULTIPLE);
  o.transport("blocking");
  o.col_transport = coll::Transport::parse("pairwise:2@thread");
  EXPECT_EQ(required_thread_level(o), MPI_THREAD_MULTIPLE);
  // One transport: its engine's need, for every engine of the registry.
  for (const auto& e : coll::engines()) {
    coll::Transport t = coll::Transport::parse("pairwise:2@caller");
    t.engine = e.kind;
    EXPECT_EQ(required_thread_level(t), e.needs_thread_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE) << e.name;
  }
}

// The C boundary maps every exception to a status; nothing escapes.
TEST(CBoundary, ExceptionsBecomeStatuses) {
  static_assert(NBFFT_INTERNAL == static_cast<int>(ErrorCode::Internal), "C and C++ codes agree");
  for (int c = 1; c <= 8; ++c) {
    const auto code = static_cast<ErrorCode>(c);
    EXPECT_EQ(static_cast<int>(capi::guard("t", [&] { throw Error("x", code); })), c);
    EXPECT_STREQ(nbfft_status_string(static_cast<nbfft_status>(c)), error_code_name(code));
  }
  EXPECT_EQ(capi::guard("t", [] { throw std::bad_alloc(); }), NBFFT_OUT_OF_MEMORY);
  EXPECT_EQ(capi::guard("t", [] { throw std::logic_error("boom"); }), NBFFT_INTERNAL);
  EXPECT_NE(std::string(nbfft_last_error()).find("boom"), std::string::npos);
  EXPECT_EQ(capi::guard("t", [] { throw 42; }), NBFFT_INTERNAL);
  EXPECT_EQ(capi::guard("t", [] {}), NBFFT_SUCCESS);
  EXPECT_STREQ(nbfft_status_string(static_cast<nbfft_status>(99)), "unknown status");
}

}  // namespace
}  // namespace nbfft::fft
