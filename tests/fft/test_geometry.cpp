// Boxes, splits and decompositions: pure functions, checked on every rank of every
// process grid without communication.
#include "nbfft/error.hpp"
#include "nbfft/fft/decomposition.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace nbfft::fft {
namespace {

TEST(Split, FirstRemainderPartsGetOneMore) {
  for (std::int64_t n = 0; n < 40; ++n)
    for (std::int64_t m = 1; m < 12; ++m) {
      std::int64_t next = 0;
      for (std::int64_t k = 0; k < m; ++k) {
        const Range r = split(n, m, k);
        EXPECT_EQ(r.lo, next);
        EXPECT_EQ(r.n, n / m + (k < n % m ? 1 : 0));
        next = r.hi();
      }
      EXPECT_EQ(next, n);
    }
}

TEST(Box3, IndexIsXFastest) {
  Box3 b{{2, 3, 4}, {5, 6, 7}};
  EXPECT_EQ(b.count(), 210);
  EXPECT_EQ(b.index(2, 3, 4), 0);
  EXPECT_EQ(b.index(3, 3, 4), 1);
  EXPECT_EQ(b.index(2, 4, 4), 5);
  EXPECT_EQ(b.index(2, 3, 5), 30);
  EXPECT_TRUE(b.contains(6, 8, 10));
  EXPECT_FALSE(b.contains(7, 8, 10));
}

TEST(Box3, IndexFollowsTheOrder) {
  Box3 b{{2, 3, 4}, {5, 6, 7}, {0, 2, 1}};  // x fastest, then z, then y (the output order)
  EXPECT_EQ(b.index(2, 3, 4), 0);
  EXPECT_EQ(b.index(3, 3, 4), 1);
  EXPECT_EQ(b.index(2, 3, 5), 5);
  EXPECT_EQ(b.index(2, 4, 4), 35);
  EXPECT_EQ(b.index(6, 8, 10), 209);
  EXPECT_NE(b, (Box3{{2, 3, 4}, {5, 6, 7}}));
}

TEST(Decomposition, OutputIsStoredXThenZThenY) {
  Decomposition d = Decomposition::make({16, 12, 10}, true, 2, 3, 6, 4, true);
  EXPECT_EQ(d.x_pencil.order, (std::array<int, 3>{0, 1, 2}));
  EXPECT_EQ(d.z_pencil.order, (std::array<int, 3>{0, 2, 1}));
  EXPECT_EQ(d.i, 0);
  EXPECT_EQ(d.j, 2);
  EXPECT_EQ(d.z_pencil.n[0], 5);  // 9 complex x-points over 2: 5 + 4
  EXPECT_EQ(d.z_pencil.lo[1], 8);  // 12 y-points over 3: third part starts at 8
}

// Every pencil of every rank, together, covers the global grid exactly once.
void expect_tiling(std::array<std::int64_t, 3> n, bool r2c, int m1, int m2) {
  const std::int64_t xc = r2c ? n[0] / 2 + 1 : n[0];
  std::vector<int> cover[4];
  const std::array<std::int64_t, 3> dims[4] = {n, {xc, n[1], n[2]}, {xc, n[1], n[2]}, {xc, n[1], n[2]}};
  for (int k = 0; k < 4; ++k) cover[k].assign(dims[k][0] * dims[k][1] * dims[k][2], 0);
  for (int r = 0; r < m1 * m2; ++r) {
    Decomposition d = Decomposition::make(n, r2c, m1, m2, m1 * m2, r, true);
    const Box3* boxes[4] = {&d.x_pencil, &d.xc_pencil, &d.y_pencil, &d.z_pencil};
    for (int k = 0; k < 4; ++k) {
      const Box3& b = *boxes[k];
      for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
        for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
          for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x)
            ++cover[k][x + dims[k][0] * (y + dims[k][1] * z)];
    }
    EXPECT_EQ(d.x_pencil.n[0], n[0]);
    EXPECT_EQ(d.y_pencil.n[1], n[1]);
    EXPECT_EQ(d.z_pencil.n[2], n[2]);
    EXPECT_EQ(d.i, r % m1);
    EXPECT_EQ(d.j, r / m1);
  }
  for (int k = 0; k < 4; ++k)
    for (int c : cover[k]) ASSERT_EQ(c, 1) << "pencil " << k << " grid " << n[0] << "x" << n[1] << "x" << n[2] << " on " << m1 << "x" << m2;
}

TEST(Decomposition, PencilsTileTheGrid) {
  for (auto n : std::vector<std::array<std::int64_t, 3>>{{17, 13, 11}, {8, 8, 8}, {1, 5, 7}, {9, 1, 4}, {6, 4, 1}, {3, 2, 2}})
    for (int m1 = 1; m1 <= 4; ++m1)
      for (int m2 = 1; m2 <= 4; ++m2)
        for (bool r2c : {true, false}) expect_tiling(n, r2c, m1, m2);
}

TEST(Decomposition, ChoosesSlabsWhenTheyFit) {
  EXPECT_EQ(Decomposition::choose_grid({64, 64, 64}, true, 8), std::make_pair(1, 8));
  // nz = 2 cannot hold 8 slabs: a pencil grid with no empty rank instead.
  auto g = Decomposition::choose_grid({64, 64, 2}, true, 8);
  EXPECT_EQ(g.first * g.second, 8);
  EXPECT_TRUE(Decomposition::empty_reason({64, 64, 2}, true, g.first, g.second).empty());
  // Thin in z: only M2 = 1 avoids empty ranks.
  EXPECT_EQ(Decomposition::choose_grid({16, 16, 1}, true, 4), std::make_pair(4, 1));
}

TEST(Decomposition, EmptyReasonNamesTheDimension) {
  EXPECT_NE(Decomposition::empty_reason({8, 3, 8}, true, 4, 1).find("ny = 3"), std::string::npos);
  EXPECT_NE(Decomposition::empty_reason({4, 8, 8}, true, 4, 1).find("complex x-points"), std::string::npos);
  EXPECT_NE(Decomposition::empty_reason({8, 8, 2}, true, 1, 4).find("nz = 2"), std::string::npos);
  EXPECT_TRUE(Decomposition::empty_reason({8, 8, 8}, true, 2, 4).empty());
}

}  // namespace
}  // namespace nbfft::fft
