// Pencils (nbfft/fft/transpose.hpp): every transpose of every process-grid shape on uneven
// grids, element sizes 1..24 bytes, several transports, blocking / start-wait / batches,
// each checked point by point against the pencil cut from the global array; and the
// errors every rank must report together.
#include "nbfft/fft/transpose.hpp"

#include "nbfft/error.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

using nbfft::fft::Box3;
using nbfft::fft::Pencil;
using nbfft::fft::Pencils;

namespace {

int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}
int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Byte b of the element at global (x, y, z), for field f: distinct across points and bytes.
unsigned char value(std::int64_t x, std::int64_t y, std::int64_t z, std::size_t b, int f) {
  const std::uint64_t h = (static_cast<std::uint64_t>(x) * 73856093u) ^ (static_cast<std::uint64_t>(y) * 19349663u) ^
                          (static_cast<std::uint64_t>(z) * 83492791u) ^ (b * 2654435761u) ^ (f * 40503u);
  return static_cast<unsigned char>((h >> 7) ^ (h >> 17) ^ h);
}

// This rank's pencil of the global field, x fastest, then y, then z.
std::vector<unsigned char> cut(const Box3& box, std::size_t elem, int f = 0) {
  std::vector<unsigned char> v(static_cast<std::size_t>(box.count()) * elem);
  for (std::int64_t z = box.lo[2]; z < box.lo[2] + box.n[2]; ++z)
    for (std::int64_t y = box.lo[1]; y < box.lo[1] + box.n[1]; ++y)
      for (std::int64_t x = box.lo[0]; x < box.lo[0] + box.n[0]; ++x)
        for (std::size_t b = 0; b < elem; ++b)
          v[static_cast<std::size_t>(box.index(x, y, z)) * elem + b] = value(x, y, z, b, f);
  return v;
}

// Every rank agrees that its array equals its cut (a failure anywhere fails everywhere).
bool all_equal(const std::vector<unsigned char>& got, const Box3& box, std::size_t elem, int f = 0) {
  const auto want = cut(box, elem, f);
  int ok = std::equal(want.begin(), want.end(), got.begin()) ? 1 : 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

std::vector<std::pair<int, int>> grids(int p) {
  std::vector<std::pair<int, int>> g;
  for (int m1 = 1; m1 <= p; ++m1)
    if (p % m1 == 0) g.emplace_back(m1, p / m1);
  return g;
}

const std::vector<std::array<std::int64_t, 3>> kSizes = {{10, 7, 5}, {3, 4, 9}, {2, 1, 3}};

// Every transpose this grid has, one field, blocking and start/wait.
void round_trip(const Pencils& p, std::size_t elem, const std::string& what) {
  const Pencil X = Pencil::X, Y = Pencil::Y, Z = Pencil::Z;
  std::vector<std::pair<Pencil, Pencil>> moves = {{X, Y}, {Y, Z}, {Z, Y}, {Y, X}};
  if (p.can_transpose(X, Z)) {
    moves.emplace_back(X, Z);
    moves.emplace_back(Z, X);
  }
  for (auto [a, b] : moves) {
    const auto in = cut(p.box(a), elem);
    std::vector<unsigned char> out(static_cast<std::size_t>(p.count(b)) * elem + 3, 0);
    p.transpose_bytes(a, b, in.data(), in.size(), out.data(), out.size(), elem);
    EXPECT_TRUE(all_equal(out, p.box(b), elem)) << what << " blocking " << name(a) << "->" << name(b);
    std::fill(out.begin(), out.end(), 0);
    auto pend = p.start_bytes(a, b, in.data(), in.size(), out.data(), out.size(), elem);
    EXPECT_TRUE(pend.active());
    while (!pend.test()) {
    }
    pend.wait();
    EXPECT_FALSE(pend.active());
    EXPECT_TRUE(all_equal(out, p.box(b), elem)) << what << " start/wait " << name(a) << "->" << name(b);
  }
}

}  // namespace

TEST(Transpose, EveryGridElementSizeAndShape) {
  for (const auto& n : kSizes)
    for (auto [m1, m2] : grids(world_size()))
      for (std::size_t elem : {1, 8, 16, 24}) {
        Pencils::Options o;
        o.m1 = m1;
        o.m2 = m2;
        Pencils p(MPI_COMM_WORLD, n, o);
        ASSERT_EQ(p.m1(), m1);
        const std::string what = std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]) +
                                 " on " + std::to_string(m1) + "x" + std::to_string(m2) + ", " +
                                 std::to_string(elem) + " bytes";
        round_trip(p, elem, what);
      }
}

TEST(Transpose, Transports) {
  for (const char* t : {"blocking", "pairwise:2@caller", "linear@caller", "thread", "native"})
    for (auto [m1, m2] : grids(world_size())) {
      Pencils::Options o;
      o.m1 = m1;
      o.m2 = m2;
      o.transport(t);
      Pencils p(MPI_COMM_WORLD, {10, 7, 5}, o);
      round_trip(p, 16, std::string(t) + " " + std::to_string(m1) + "x" + std::to_string(m2));
    }
}

TEST(Transpose, PencilsTileTheGridInTheDocumentedOrder) {
  Pencils p(MPI_COMM_WORLD, {10, 7, 5});
  EXPECT_EQ(p.m1() * p.m2(), world_size());
  EXPECT_EQ(p.row(), world_rank() % p.m1());
  EXPECT_EQ(p.col(), world_rank() / p.m1());
  for (Pencil q : {Pencil::X, Pencil::Y, Pencil::Z}) {
    std::int64_t total = 0;
    for (int r = 0; r < world_size(); ++r) total += p.box_of_rank(q, r).count();
    EXPECT_EQ(total, 10 * 7 * 5) << name(q);
    EXPECT_EQ(p.box_of_rank(q, world_rank()), p.box(q));
    EXPECT_EQ(p.box(q).order, (std::array<int, 3>{0, 1, 2}));
    for (int d = 0; d < 3; ++d) EXPECT_EQ(p.end(q)[d], p.start(q)[d] + p.size(q)[d]);
  }
  EXPECT_EQ(p.size(Pencil::X)[0], 10);
  EXPECT_EQ(p.size(Pencil::Y)[1], 7);
  EXPECT_EQ(p.size(Pencil::Z)[2], 5);
}

TEST(Transpose, TypedCallsAndInPlace) {
  struct Triple {
    double a, b, c;
  };
  static_assert(sizeof(Triple) == 24, "three doubles");
  Pencils p(MPI_COMM_WORLD, {10, 7, 5});
  const Box3 bx = p.box(Pencil::X), by = p.box(Pencil::Y);
  std::vector<Triple> ux(static_cast<std::size_t>(bx.count()));
  for (std::int64_t z = bx.lo[2]; z < bx.lo[2] + bx.n[2]; ++z)
    for (std::int64_t y = bx.lo[1]; y < bx.lo[1] + bx.n[1]; ++y)
      for (std::int64_t x = 0; x < 10; ++x)
        ux[static_cast<std::size_t>(bx.index(x, y, z))] = {double(x), double(y), double(z)};
  std::vector<Triple> uy(static_cast<std::size_t>(by.count()));
  p.transpose(Pencil::X, Pencil::Y, ux, uy);
  bool ok = true;
  for (std::int64_t z = by.lo[2]; z < by.lo[2] + by.n[2]; ++z)
    for (std::int64_t y = 0; y < 7; ++y)
      for (std::int64_t x = by.lo[0]; x < by.lo[0] + by.n[0]; ++x) {
        const Triple& t = uy[static_cast<std::size_t>(by.index(x, y, z))];
        ok = ok && t.a == x && t.b == y && t.c == z;
      }
  EXPECT_TRUE(ok);
  // In place: one array holding the larger pencil.
  const std::size_t big = static_cast<std::size_t>(std::max(bx.count(), by.count())) * sizeof(double);
  std::vector<unsigned char> buf(big);
  const auto in = cut(bx, 8);
  std::copy(in.begin(), in.end(), buf.begin());
  p.transpose_bytes(Pencil::X, Pencil::Y, buf.data(), buf.size(), buf.data(), buf.size(), 8);
  buf.resize(static_cast<std::size_t>(by.count()) * 8);
  EXPECT_TRUE(all_equal(buf, by, 8));
}

TEST(Transpose, BatchesPipeline) {
  for (int flight : {1, 2, 3})
    for (auto [m1, m2] : grids(world_size()))
      for (const char* t : {"blocking", "pairwise:2@caller", "thread"}) {
        Pencils::Options o;
        o.m1 = m1;
        o.m2 = m2;
        o.fields_in_flight = flight;
        o.transport(t);
        Pencils p(MPI_COMM_WORLD, {10, 7, 5}, o);
        const int nv = 4;
        for (auto [a, b] : {std::pair<Pencil, Pencil>{Pencil::X, Pencil::Y}, {Pencil::Y, Pencil::Z},
                            {Pencil::Z, Pencil::Y}, {Pencil::Y, Pencil::X}}) {
          std::vector<std::vector<unsigned char>> in, out;
          std::vector<const unsigned char*> pi;
          std::vector<unsigned char*> po;
          for (int f = 0; f < nv; ++f) {
            in.push_back(cut(p.box(a), 8, f));
            out.emplace_back(static_cast<std::size_t>(p.count(b)) * 8);
          }
          for (int f = 0; f < nv; ++f) {
            pi.push_back(in[f].data());
            po.push_back(out[f].data());
          }
          p.transpose_many_bytes(a, b, nv, reinterpret_cast<const void* const*>(pi.data()), in[0].size(),
                                 reinterpret_cast<void* const*>(po.data()), out[0].size(), 8);
          for (int f = 0; f < nv; ++f)
            EXPECT_TRUE(all_equal(out[f], p.box(b), 8, f))
                << t << " flight " << flight << " field " << f << " " << name(a) << "->" << name(b);
        }
      }
}

TEST(Transpose, SeveralInFlight) {
  Pencils p(MPI_COMM_WORLD, {10, 7, 5});
  const auto u = cut(p.box(Pencil::X), 8, 0), v = cut(p.box(Pencil::X), 8, 1);
  std::vector<unsigned char> uy(static_cast<std::size_t>(p.count(Pencil::Y)) * 8), vy(uy.size());
  auto a = p.start_bytes(Pencil::X, Pencil::Y, u.data(), u.size(), uy.data(), uy.size(), 8);
  auto b = p.start_bytes(Pencil::X, Pencil::Y, v.data(), v.size(), vy.data(), vy.size(), 8);
  b.wait();  // out of order: waits are local
  a.wait();
  EXPECT_TRUE(all_equal(uy, p.box(Pencil::Y), 8, 0));
  EXPECT_TRUE(all_equal(vy, p.box(Pencil::Y), 8, 1));
  EXPECT_THROW(a.wait(), nbfft::Error);
}

// Every rank throws, the same kind, with a message naming the problem.
template <typename F>
void expect_everywhere(F&& f, nbfft::ErrorCode code, const std::string& words) {
  std::string msg;
  nbfft::ErrorCode got = nbfft::ErrorCode::Internal;
  bool threw = false;
  try {
    f();
  } catch (const nbfft::Error& e) {
    threw = true;
    msg = e.what();
    got = e.code();
  }
  EXPECT_TRUE(threw) << words;
  EXPECT_EQ(got, code) << msg;
  EXPECT_NE(msg.find(words), std::string::npos) << msg;
}

TEST(Transpose, ErrorsOnEveryRank) {
  const int last = world_size() - 1;
  Pencils p(MPI_COMM_WORLD, {10, 7, 5});
  std::vector<unsigned char> x(static_cast<std::size_t>(p.count(Pencil::X)) * 8),
      y(static_cast<std::size_t>(p.count(Pencil::Y)) * 8);
  // A short output array on the last rank only.
  expect_everywhere([&] {
    p.transpose_bytes(Pencil::X, Pencil::Y, x.data(), x.size(), y.data(), world_rank() == last ? y.size() - 1 : y.size(), 8);
  }, nbfft::ErrorCode::InvalidArgument, "output array has");
  // Ranks disagree on the element size; ranks in different calls.
  if (world_size() > 1)
    expect_everywhere([&] {
      p.transpose_bytes(Pencil::X, Pencil::Y, x.data(), x.size(), y.data(), y.size(), world_rank() == last ? 4 : 8);
    }, nbfft::ErrorCode::RanksDisagree, "element bytes");
  if (world_size() > 1)
    expect_everywhere([&] {
      if (world_rank() == last)
        p.transpose_bytes(Pencil::Y, Pencil::X, y.data(), y.size(), x.data(), x.size(), 8);
      else
        p.transpose_bytes(Pencil::X, Pencil::Y, x.data(), x.size(), y.data(), y.size(), 8);
    }, nbfft::ErrorCode::RanksDisagree, "collective call");
  expect_everywhere([&] { p.transpose_bytes(Pencil::X, Pencil::Y, x.data(), x.size(), y.data(), y.size(), 0); },
                    nbfft::ErrorCode::InvalidArgument, "element size is 0");
  expect_everywhere([&] { p.transpose_bytes(Pencil::Y, Pencil::Y, y.data(), y.size(), x.data(), x.size(), 8); },
                    nbfft::ErrorCode::InvalidArgument, "the same pencil");
  // Partly overlapping arrays.
  std::vector<unsigned char> both(x.size() + y.size() + 8);
  expect_everywhere([&] {
    p.transpose_bytes(Pencil::X, Pencil::Y, both.data(), x.size(), both.data() + (world_rank() == 0 ? 8 : x.size() + 8),
                      y.size(), 8);
  }, nbfft::ErrorCode::InvalidArgument, "overlap");
  // X<->Z on a grid that is not a slab.
  if (world_size() == 4) {
    Pencils::Options o;
    o.m1 = o.m2 = 2;
    Pencils q(MPI_COMM_WORLD, {10, 7, 5}, o);
    std::vector<unsigned char> z(static_cast<std::size_t>(q.count(Pencil::Z)) * 8);
    EXPECT_FALSE(q.can_transpose(Pencil::X, Pencil::Z));
    expect_everywhere([&] { q.transpose_bytes(Pencil::X, Pencil::Z, x.data(), x.size(), z.data(), z.size(), 8); },
                      nbfft::ErrorCode::InvalidArgument, "transpose through Y");
  }
  // Bad process grid, and ranks that disagree on the grid.
  if (world_size() > 1) {
    Pencils::Options o;
    o.m1 = world_size() + 1;
    o.m2 = 1;
    expect_everywhere([&] { Pencils q(MPI_COMM_WORLD, {10, 7, 5}, o); }, nbfft::ErrorCode::InvalidArgument,
                      "communicator size");
    expect_everywhere([&] { Pencils q(MPI_COMM_WORLD, {10, 7, world_rank() == last ? 6 : 5}); },
                      nbfft::ErrorCode::RanksDisagree, "grid");
  }
  expect_everywhere([&] { Pencils q(MPI_COMM_WORLD, {10, 0, 5}); }, nbfft::ErrorCode::InvalidArgument, "ny = 0");
  // The object is still usable after all of that.
  round_trip(p, 8, "after errors");
}
