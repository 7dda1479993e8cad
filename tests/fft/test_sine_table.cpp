// nbfft-sine's Table II arithmetic (bench/sine/table2.hpp) on numbers worked by hand.
#include "bench/sine/table2.hpp"

#include <gtest/gtest.h>

namespace nbfft::sine {
namespace {

TEST(SineTable, DirectionBoundIsComputeOrExchangeBound) {
  EXPECT_DOUBLE_EQ(direction_bound(4, 1.0, 2.0), 9.0);   // network bound: 4*2 + 1
  EXPECT_DOUBLE_EQ(direction_bound(4, 3.0, 1.0), 12.0);  // CPU bound: 4*3
  EXPECT_DOUBLE_EQ(direction_bound(1, 1.0, 2.0), 3.0);   // one field: C + T
}

TEST(SineTable, RowFromExchangesAlone) {
  BlockingRun b;
  b.time_s = 30.0;
  b.work[0] = 2.0;
  b.work[1] = 1.0;
  b.compute[0] = b.compute[1] = 99.0;  // not used when the exchanges alone are known
  Alone al;
  al.valid = true;
  al.row[0] = 0.5;
  al.row[1] = 1.0;
  al.col[0] = 3.0;
  al.col[1] = 1.0;
  // Forward: C = 2.5, T = 3 -> max(10, 14.5) = 14.5; backward: C = 2, T = 1 -> max(8, 6) = 8.
  const TableRow t = table_row(25.0, b, 4, al);
  EXPECT_DOUBLE_EQ(t.bound_s, 22.5);
  EXPECT_DOUBLE_EQ(t.compute_s, 4.5);
  EXPECT_DOUBLE_EQ(t.exchange_s, 4.0);
  EXPECT_DOUBLE_EQ(t.improvement_pct, 100.0 * 5.0 / 30.0);
  ASSERT_TRUE(t.has_gap);
  EXPECT_DOUBLE_EQ(t.gap_closed, 5.0 / 7.5);
}

TEST(SineTable, RowFromTheBlockingIterationWithoutCalibration) {
  BlockingRun b;
  b.time_s = 10.0;
  b.compute[0] = b.compute[1] = 2.0;
  b.exchange[0] = b.exchange[1] = 0.5;
  const TableRow t = table_row(10.0, b, 2, Alone{});
  EXPECT_DOUBLE_EQ(t.bound_s, 8.0);  // 2 * max(4, 3)
  EXPECT_DOUBLE_EQ(t.improvement_pct, 0.0);
  EXPECT_DOUBLE_EQ(t.gap_closed, 0.0);
  // Blocking already at or below the bound: no gap to close.
  b.time_s = 7.0;
  EXPECT_FALSE(table_row(7.0, b, 2, Alone{}).has_gap);
}

}  // namespace
}  // namespace nbfft::sine
