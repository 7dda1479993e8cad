#include "coll/coll.hpp"
#include <gtest/gtest.h>
using namespace nbfft::coll;
TEST(Smoke, Pairwise) {
  Comm comm(MPI_COMM_WORLD);
  int P = comm.size(), me = comm.rank();
  std::vector<int> s(P * 3), r(P * 3, -1), ref(P * 3);
  for (int i = 0; i < P * 3; ++i) s[i] = me * 1000 + i;
  MPI_Alltoall(s.data(), 3, MPI_INT, ref.data(), 3, MPI_INT, MPI_COMM_WORLD);
  for (const auto& a : alltoall_algorithms()) {
    for (auto e : {EngineKind::Caller, EngineKind::Thread, EngineKind::Native}) {
      Comm c(MPI_COMM_WORLD, e);
      std::fill(r.begin(), r.end(), -1);
      auto col = alltoall(c, s.data(), r.data(), 3, sizeof(int), AlgorithmSpec{a.name, 2});
      col.start().wait();
      EXPECT_EQ(r, ref) << a.name << " " << engine_name(e);
    }
  }
}
