// The seed-003 primitives and the collectives composed from them, on every engine,
// against MPI's own Bcast / Allreduce and against a timing property for Barrier.
#include "coll_test_util.hpp"

#include <chrono>
#include <thread>

using namespace nbfft::coll;
using namespace nbfft::coll::testing;

namespace {

// CLOCK_MONOTONIC is one clock for every process on a machine; MPI_Wtime need not be.
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

TEST(Primitives, BcastFromEveryRoot) {
  const int me = world_rank(), P = world_size();
  for (EngineKind e : all_engines()) {
    Comm comm(MPI_COMM_WORLD, e);
    for (int root = 0; root < P; ++root)
      for (std::int64_t n : {0, 1, 1000}) {
        std::vector<double> buf(static_cast<std::size_t>(n), -1.0);
        for (std::int64_t i = 0; me == root && i < n; ++i) buf[i] = root * 1e6 + static_cast<double>(i);
        bcast(comm, buf.data(), n, sizeof(double), root).start().wait();
        for (std::int64_t i = 0; i < n; ++i)
          ASSERT_EQ(buf[i], root * 1e6 + static_cast<double>(i)) << engine_name(e) << " root " << root;
      }
  }
}

TEST(Primitives, AllreduceMatchesMpi) {
  const int me = world_rank();
  for (EngineKind e : all_engines()) {
    Comm comm(MPI_COMM_WORLD, e);
    for (std::int64_t n : {0, 1, 777}) {
      std::vector<double> in(static_cast<std::size_t>(n)), out(in.size(), -1), ref(in.size());
      std::vector<std::int64_t> iin(in.size()), iout(in.size()), iref(in.size());
      for (std::int64_t i = 0; i < n; ++i) {
        in[i] = static_cast<double>((me + 1) * (i + 3) % 101);
        iin[i] = (me * 31 + i) % 17 - 8;
      }
      MPI_Allreduce(in.data(), ref.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(iin.data(), iref.data(), static_cast<int>(n), MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
      allreduce(comm, in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM).start().wait();
      allreduce(comm, iin.data(), iout.data(), n, MPI_INT64_T, MPI_MAX).start().wait();
      EXPECT_EQ(out, ref) << engine_name(e);  // small integers in doubles: exact in any order
      EXPECT_EQ(iout, iref) << engine_name(e);
    }
  }
}

TEST(Primitives, BarrierWaitsForTheLastArrival) {
  const int me = world_rank(), P = world_size();
  for (EngineKind e : all_engines()) {
    Comm comm(MPI_COMM_WORLD, e);
    Collective b = barrier(comm);
    MPI_Barrier(MPI_COMM_WORLD);
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * me));
    const double entered = now();
    b.start().wait();
    const double left = now();
    double last_entry = 0, first_exit = 0;
    MPI_Allreduce(&entered, &last_entry, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&left, &first_exit, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (P > 1) {
      EXPECT_LE(last_entry, first_exit) << engine_name(e);
    }
  }
}

TEST(Primitives, BuilderVerbsComposeAGatherAndAScatter) {
  // multi_recv gathers to rank 0, multi_send + recv_replicate fan a value out along a chain.
  const int me = world_rank(), P = world_size();
  Comm comm(MPI_COMM_WORLD, EngineKind::Caller);
  std::vector<int> gathered(static_cast<std::size_t>(P), -1);
  int mine = 10 * me + 1;
  ScheduleBuilder b(comm);
  if (me == 0) {
    std::vector<void*> slots;
    std::vector<int> peers;
    for (int p = 1; p < P; ++p) slots.push_back(&gathered[p]), peers.push_back(p);
    b.multi_recv(slots, sizeof(int), peers);
    b.copy(&gathered[0], &mine, sizeof(int));
  } else {
    b.multi_send(&mine, sizeof(int), {0});
  }
  Collective(comm, b.build("gather")).start().wait();
  for (int p = 0; me == 0 && p < P; ++p) EXPECT_EQ(gathered[p], 10 * p + 1);

  int token = me == 0 ? 4242 : 0;  // chain 0 -> 1 -> 2 ... with receive-replicate
  ScheduleBuilder c(comm);
  std::vector<int> next;
  if (me + 1 < P) next.push_back(me + 1);
  if (me == 0)
    c.multi_send(&token, sizeof(int), next);
  else
    c.recv_replicate(&token, sizeof(int), me - 1, next);
  Collective(comm, c.build("chain")).start().wait();
  EXPECT_EQ(token, 4242);

  double acc = me + 1.0;  // receive-reduce at rank 0 from all others
  double contribution = me + 1.0;
  ScheduleBuilder d(comm);
  if (me == 0) {
    std::vector<int> peers;
    for (int p = 1; p < P; ++p) peers.push_back(p);
    d.recv_reduce(&acc, 1, MPI_DOUBLE, MPI_SUM, peers);
  } else {
    d.send(0, &contribution, sizeof(double));
  }
  Collective(comm, d.build("reduce")).start().wait();
  if (me == 0) {
    EXPECT_EQ(acc, P * (P + 1) / 2.0);
  }
}

}  // namespace
