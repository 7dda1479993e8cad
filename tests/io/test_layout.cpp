// nbfft/io/layout.hpp under real MPI: an N-D plan's fields (2-D, and a 4-D batch with its
// spectrum in transposed order), a transpose's pencils, a 3-D plan's field and a user's own
// blocks, written through H5File's layout calls at one rank count and read back element by
// element at another (every k <= P from a write at P, and P from a write at P - 1); a 3-D
// plan's file through the plan calls and the layout calls both ways; bad layouts the same
// clear error on every rank.
#include "nbfft/error.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/fft/transpose.hpp"
#include "nbfft/io/hdf5.hpp"
#include "nbfft/io/layout.hpp"
#include "nbfft/nd/plan.hpp"

#include "tests/io/io_test_util.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <functional>
#include <string>
#include <vector>

namespace nbfft::io {
namespace {

using test::expect_error;
using test::on_first_ranks;
using test::world_rank;
using test::world_size;

std::string temp_path(const std::string& tag) { return test::temp_path("nbfft-layout-", tag); }

// The value at global point g of `shape` (axis 0 slowest): its C-order index plus a salt,
// exact in float for the small shapes here; complex: (v, -v - 1).
template <typename T>
T element_at(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& g, int salt) {
  std::int64_t q = 0;
  for (std::size_t a = 0; a < shape.size(); ++a) q = q * shape[a] + g[a];
  const double v = double(q) + 0.25 * salt;
  if constexpr (std::is_floating_point_v<T>) return T(v);
  else return T(typename T::value_type(v), typename T::value_type(-v - 1));
}

// Calls f(g, offset) for every point of the layout's box, offset in its memory order.
void each_point(const Layout& l, const std::function<void(const std::vector<std::int64_t>&, std::size_t)>& f) {
  if (l.box.empty()) return;
  std::vector<std::int64_t> g = l.box.lo;
  for (;;) {
    f(g, std::size_t(l.box.index(g)));
    std::size_t a = g.size();
    for (;;) {
      if (a == 0) return;
      --a;
      if (++g[a] < l.box.lo[a] + l.box.n[a]) break;
      g[a] = l.box.lo[a];
    }
  }
}

template <typename T>
std::vector<T> fill(const Layout& l, int salt) {
  std::vector<T> v(std::size_t(l.count()));
  each_point(l, [&](const std::vector<std::int64_t>& g, std::size_t at) { v[at] = element_at<T>(l.shape, g, salt); });
  return v;
}

template <typename T>
int mismatches(const Layout& l, const std::vector<T>& v, int salt) {
  int bad = 0;
  each_point(l, [&](const std::vector<std::int64_t>& g, std::size_t at) {
    bad += v[at] != element_at<T>(l.shape, g, salt);
  });
  return bad;
}

// Writes the field of `layout_at(comm)` on the first `writers` ranks, then reads it back on
// the first k ranks for every k in `readers`, each reader's layout its own.
template <typename T>
void restart(const std::string& tag, int writers, const std::vector<int>& readers,
             const std::function<Layout(MPI_Comm)>& layout_at) {
  const std::string path = temp_path(tag);
  on_first_ranks(writers, [&](MPI_Comm c) {
    const Layout l = layout_at(c);
    H5File f(c, path, H5File::Mode::Create);
    f.write(l, "u", 3, 0.5, fill<T>(l, 1));
    f.close();
  });
  // The file itself: the whole array in C order, read by one rank through a plain layout
  // (a writer's staging that put elements in the wrong places would read back right
  // through its own layout, and its checksum would agree).
  on_first_ranks(1, [&](MPI_Comm c) {
    const Layout written = layout_at(c);
    const Layout whole(written.shape, nd::Box{std::vector<std::int64_t>(written.shape.size(), 0), written.shape, {}},
                       written.dtype);
    std::vector<T> back(std::size_t(whole.count()));
    H5File f(c, path);
    f.read(whole, "u", 3, back);
    EXPECT_EQ(mismatches(whole, back, 1), 0) << tag << " written at " << writers << " ranks: the file's C order";
  });
  for (int k : readers)
    on_first_ranks(k, [&](MPI_Comm c) {
      const Layout l = layout_at(c);
      std::vector<T> back(std::size_t(l.count()), T(-7));
      H5File f(c, path);
      f.read(l, "u", 3, back);
      EXPECT_EQ(mismatches(l, back, 1), 0) << tag << " written at " << writers << " ranks, read at " << k << " on "
                                           << l.box;
    });
  test::remove_file(path);
}

// Every k <= P from a write at P, and P from a write at P - 1 (3 -> 2 and 3 -> 4 at 4 ranks).
template <typename T>
void at_other_rank_counts(const std::string& tag, const std::function<Layout(MPI_Comm)>& layout_at) {
  const int p = world_size();
  std::vector<int> fewer;
  for (int k = 1; k <= p; ++k) fewer.push_back(k);
  restart<T>(tag, p, fewer, layout_at);
  if (p > 1) restart<T>(tag + "-up", p - 1, {p}, layout_at);
}

TEST(Layout, NdPlan2dBothSidesRestart) {
  nd::Options o;
  o.kind = nd::Kind::R2C;
  o.output_order = fft::OutputOrder::Transposed;  // the spectrum staged through reorder
  const auto plan_at = [o](MPI_Comm c) { return nd::Plan(c, {9, 7}, {0, 1}, o); };
  at_other_rank_counts<double>("nd2-in", [&](MPI_Comm c) { return Layout::of(plan_at(c), Space::Physical); });
  at_other_rank_counts<std::complex<double>>("nd2-out", [&](MPI_Comm c) {
    const Layout l = Layout::of(plan_at(c), Space::Spectral);
    EXPECT_EQ(l.shape, (std::vector<std::int64_t>{9, 4}));  // axis 1 halved
    EXPECT_FALSE(l.box.natural());                           // [k1][k0] in memory
    return l;
  });
}

TEST(Layout, NdPlan4dBatchRestart) {
  nd::Options o;
  o.kind = nd::Kind::C2C;
  o.precision = fft::Precision::Single;
  o.batch_axis = 0;
  o.output_order = fft::OutputOrder::Transposed;
  const auto plan_at = [o](MPI_Comm c) { return nd::Plan(c, {3, 6, 5, 4}, {1, 2, 3}, o); };
  at_other_rank_counts<std::complex<float>>("nd4-in",
                                            [&](MPI_Comm c) { return Layout::of(plan_at(c), Space::Physical); });
  at_other_rank_counts<std::complex<float>>("nd4-out",
                                            [&](MPI_Comm c) { return Layout::of(plan_at(c), Space::Spectral); });
}

TEST(Layout, PencilsRestartOnAnotherPencil) {
  // Written as X-pencils, read back as Y- and Z-pencils: one global array in the file.
  for (fft::Pencil read_as : {fft::Pencil::Y, fft::Pencil::Z}) {
    const std::string path = temp_path(std::string("pencils-") + fft::name(read_as));
    const std::array<std::int64_t, 3> n{7, 5, 6};
    {
      fft::Pencils p(MPI_COMM_WORLD, n);
      const Layout l = Layout::of(p, fft::Pencil::X, Dtype::Complex128);
      H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
      const auto u = fill<std::complex<double>>(l, 2);
      f.write_start(l, "w", 0, 0.0, u).wait();  // the background path on N-D placements
      f.close();
    }
    for (int k = 1; k <= world_size(); ++k)
      on_first_ranks(k, [&](MPI_Comm c) {
        fft::Pencils p(c, n);
        const Layout l = Layout::of(p, read_as, Dtype::Complex128);
        EXPECT_EQ(l.shape, (std::vector<std::int64_t>{6, 5, 7}));  // (z, y, x)
        std::vector<std::complex<double>> back(std::size_t(l.count()));
        H5File f(c, path);
        f.read(l, "w", 0, back);
        EXPECT_EQ(mismatches(l, back, 2), 0) << "read at " << k << " as " << fft::name(read_as);
      });
    test::remove_file(path);
  }
}

// A user's own blocks: slabs of a 3-D array along its middle axis (never a plan's).
Layout middle_slabs(MPI_Comm c, const std::vector<std::int64_t>& shape, Dtype dtype) {
  int r = 0, s = 1;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &s);
  const fft::Range y = fft::split(shape[1], s, r);
  nd::Box b;
  b.lo = {0, y.lo, 0};
  b.n = {shape[0], y.n, shape[2]};
  b.order = {1, 0, 2};  // a memory order of the user's: y slowest
  return Layout(shape, b, dtype);
}

TEST(Layout, PlanFileThroughLayoutsAndBack) {
  const std::array<std::int64_t, 3> n{8, 6, 5};
  fft::Options o;
  o.effort = fft::Effort::Estimate;
  const std::string path = temp_path("plan-cross");
  {
    fft::Plan plan(MPI_COMM_WORLD, n, o);
    const Layout in = Layout::of(plan, Space::Physical), out = Layout::of(plan, Space::Spectral);
    EXPECT_EQ(in.shape, (std::vector<std::int64_t>{5, 6, 8}));
    EXPECT_EQ(out.shape, (std::vector<std::int64_t>{5, 6, 5}));  // kx halved
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "u", 0, 0.0, fill<double>(in, 3));              // the plan call
    f.write(out, "U", 0, 0.0, fill<std::complex<double>>(out, 4));                 // the layout call
    f.close();
  }
  for (int k = 1; k <= world_size(); ++k)
    on_first_ranks(k, [&](MPI_Comm c) {
      fft::Plan plan(c, n, o);
      H5File f(c, path);
      const Layout in = Layout::of(plan, Space::Physical), out = Layout::of(plan, Space::Spectral);
      std::vector<double> u(std::size_t(in.count()));
      f.read(in, "u", 0, u);
      EXPECT_EQ(mismatches(in, u, 3), 0) << "plan write, layout read at " << k;
      std::vector<std::complex<double>> uh(std::size_t(out.count()));
      f.read(plan, Space::Spectral, "U", 0, uh);
      EXPECT_EQ(mismatches(out, uh, 4), 0) << "layout write, plan read at " << k;
      // A user's layout of the same array reads it too (no space: any field of its shape).
      const Layout mine = middle_slabs(c, in.shape, Dtype::Float64);
      std::vector<double> v(std::size_t(mine.count()));
      f.read(mine, "u", 0, v);
      EXPECT_EQ(mismatches(mine, v, 3), 0) << "plan write, user layout read at " << k;
    });
  test::remove_file(path);
}

TEST(Layout, UserLayoutRestarts) {
  at_other_rank_counts<float>("user", [](MPI_Comm c) { return middle_slabs(c, {4, 7, 3}, Dtype::Float32); });
}

TEST(Layout, BadLayoutsAreTheSameErrorOnEveryRank) {
  const std::string path = temp_path("bad");
  const std::vector<std::int64_t> shape{4, 7, 3};
  const Layout good = middle_slabs(MPI_COMM_WORLD, shape, Dtype::Float64);
  const auto u = fill<double>(good, 0);
  const bool last = world_rank() == world_size() - 1;
  const std::string tag = world_size() == 1 ? "" : " [rank " + std::to_string(world_size() - 1) + "]";
  H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
  // A box outside the shape on one rank only: every rank hears of it, naming that rank.
  Layout outside = good;
  if (last) outside.box.lo[2] = 1;
  expect_error([&] { f.write(outside, "u", 0, 0.0, u); }, ErrorCode::InvalidArgument,
               "lies outside its shape (4, 7, 3) along axis 2");
  if (!tag.empty()) expect_error([&] { f.write(outside, "u", 0, 0.0, u); }, ErrorCode::InvalidArgument, tag);
  Layout axes = good;
  axes.box.lo.pop_back();
  axes.box.n.pop_back();
  expect_error([&] { f.write(axes, "u", 0, 0.0, u); }, ErrorCode::InvalidArgument,
               "the layout's box has 2 offsets and 2 extents; its shape (4, 7, 3) has 3 axes");
  Layout order = good;
  order.box.order = {1, 1, 2};
  expect_error([&] { f.write(order, "u", 0, 0.0, u); }, ErrorCode::InvalidArgument,
               "the layout's box order (1, 1, 2) is not a permutation of its 3 axes");
  const std::vector<float> single(u.size());
  expect_error([&] { f.write(good, "u", 0, 0.0, single); }, ErrorCode::InvalidArgument,
               "the layout's field is float64, the data passed is float32");
  Layout none;
  expect_error([&] { f.write(none, "u", 0, 0.0, u); }, ErrorCode::InvalidArgument, "the layout's shape has no axes");
  if (world_size() > 1) {  // every rank's box the whole array: they overlap
    const Layout whole(shape, nd::Box{{0, 0, 0}, shape, {}}, Dtype::Float64);
    const auto w = fill<double>(whole, 0);
    expect_error([&] { f.write(whole, "u", 0, 0.0, w); }, ErrorCode::InvalidArgument,
                 "the ranks' boxes hold " + std::to_string(84 * world_size()) + " elements together");
  }
  f.write(good, "u", 0, 0.0, u);  // nothing was made by the failed calls
  f.close();
  H5File in(MPI_COMM_WORLD, path);
  const Layout flat({84}, nd::Box{{0}, {world_rank() == 0 ? 84 : 0}, {}}, Dtype::Float64);
  std::vector<double> back(84);
  expect_error([&] { in.read(flat, "u", 0, back); }, ErrorCode::InvalidArgument,
               "is a 4x7x3 array; the layout's shape is 84 (another grid)");
  test::remove_file(path);
}

}  // namespace
}  // namespace nbfft::io
