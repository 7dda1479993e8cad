// Every registered algorithm × every engine gives the same bytes as MPI_Alltoall(v):
// uniform blocks of several sizes (zero included), uneven counts with zero blocks and
// gaps, restarts of a persistent collective, and 1–16 collectives outstanding at once.
#include "coll_test_util.hpp"
#include "nbfft/coll/transport.hpp"

#include <algorithm>
#include <numeric>

using namespace nbfft::coll;
using namespace nbfft::coll::testing;

namespace {

std::string name_of(const AlgorithmInfo& a, EngineKind e) { return std::string(a.name) + "@" + engine_name(e); }

class EveryTransport : public ::testing::Test {
 protected:
  void for_each(const std::function<void(const AlgorithmInfo&, EngineKind, const Comm&)>& fn) {
    for (EngineKind e : all_engines()) {
      Comm comm(MPI_COMM_WORLD, e);
      for (const auto& a : alltoall_algorithms()) {
        if (!algorithm_available(a)) {  // must say so, not fall back silently
          int x = 0;
          EXPECT_NE(error_of([&] { alltoall(comm, &x, &x, 0, 4, {a.name, 1}); }).find("unavailable"),
                    std::string::npos);
          continue;
        }
        SCOPED_TRACE(name_of(a, e));
        fn(a, e, comm);
      }
    }
  }
};

TEST_F(EveryTransport, UniformMatchesMpiAlltoall) {
  const int me = world_rank(), P = world_size();
  for_each([&](const AlgorithmInfo& a, EngineKind, const Comm& comm) {
    for (std::int64_t n : {0, 1, 7, 1000}) {
      std::vector<std::int32_t> send(static_cast<std::size_t>(n * P)), recv(send.size(), -1), ref(send.size(), -2);
      for (int p = 0; p < P; ++p)
        for (std::int64_t i = 0; i < n; ++i) send[p * n + i] = pattern(me, p, i, 1);
      MPI_Alltoall(send.data(), static_cast<int>(n), MPI_INT32_T, ref.data(), static_cast<int>(n), MPI_INT32_T,
                   MPI_COMM_WORLD);
      for (int window : {1, 2, 5}) {
        std::fill(recv.begin(), recv.end(), -1);
        Collective c = alltoall(comm, send.data(), recv.data(), n, sizeof(std::int32_t), {a.name, window});
        c.start().wait();
        ASSERT_EQ(recv, ref) << "n=" << n << " window=" << window;
        if (!a.takes_window) break;
      }
    }
  });
}

TEST_F(EveryTransport, UnevenCountsWithZeroBlocksAndGaps) {
  const int me = world_rank(), P = world_size();
  auto count = [](int s, int d) -> std::int64_t { return (s * 7 + d * 3) % 5 == 0 ? 0 : (s * 5 + d * 11) % 37; };
  for_each([&](const AlgorithmInfo& a, EngineKind, const Comm& comm) {
    Exchange x(me, P, count, 3, /*gap=*/2);
    if (a.uniform_only) {
      EXPECT_NE(error_of([&] { x.build(comm, {a.name, 2}); }).find("same count"), std::string::npos);
      return;
    }
    // The reference: MPI_Alltoallv on a copy of the same buffers.
    std::vector<int> sc(P), sd(P), rc(P), rd(P);
    for (int p = 0; p < P; ++p) {
      sc[p] = static_cast<int>(x.scounts[p]);
      sd[p] = static_cast<int>(x.sdispls[p]);
      rc[p] = static_cast<int>(x.rcounts[p]);
      rd[p] = static_cast<int>(x.rdispls[p]);
    }
    std::vector<std::int32_t> ref = x.recv;
    MPI_Alltoallv(x.send.data(), sc.data(), sd.data(), MPI_INT32_T, ref.data(), rc.data(), rd.data(), MPI_INT32_T,
                  MPI_COMM_WORLD);
    ASSERT_EQ(ref, x.expect);  // the pattern itself is right
    Collective c = x.build(comm, {a.name, 2});
    for (int seq = 3; seq < 6; ++seq) {  // persistent: start the same schedule again
      x.reseed(me, seq);
      c.start().wait();
      ASSERT_EQ(x.recv, x.expect) << "start " << seq - 2;
    }
  });
}

TEST_F(EveryTransport, ManyOutstandingOnOneCommunicator) {
  const int me = world_rank(), P = world_size();
  // 16 outstanding for every algorithm and engine, and one of 1, 2, 5 in turn (all three
  // for each cost ~25% more under MPICH's busy-polling, for paths 16 already takes).
  int turn = 0;
  for_each([&](const AlgorithmInfo& a, EngineKind, const Comm& comm) {
    const int fewer[] = {1, 2, 5};
    for (int k : {fewer[turn++ % 3], 16}) {
      std::vector<Exchange> xs;
      for (int j = 0; j < k; ++j) {
        if (a.uniform_only)
          xs.push_back(Exchange::uniform(me, P, 3 + j, 100 + j));
        else
          xs.emplace_back(me, P, [j](int s, int d) -> std::int64_t { return (s + 2 * d + j) % 4 * (j + 1); }, 100 + j);
      }
      std::vector<Collective> cs;
      for (auto& x : xs) cs.push_back(x.build(comm, {a.name, 3}));
      std::vector<Request> rs;
      for (auto& c : cs) rs.push_back(c.start());
      // Complete in an order that differs between ranks: reverse on odd ranks, tests first on even.
      if (me % 2) {
        for (int j = k - 1; j >= 0; --j) rs[j].wait();
      } else {
        std::vector<bool> done(k, false);
        int left = k;
        while (left)
          for (int j = 0; j < k; ++j)
            if (!done[j] && rs[j].test()) done[j] = true, --left;
      }
      for (int j = 0; j < k; ++j) ASSERT_EQ(xs[j].recv, xs[j].expect) << "collective " << j << " of " << k;
    }
  });
}

TEST(Alltoall, OutstandingAcrossEnginesAndCommunicators) {
  const int me = world_rank(), P = world_size();
  std::vector<Comm> comms;
  for (EngineKind e : all_engines()) comms.emplace_back(MPI_COMM_WORLD, e);
  std::vector<Exchange> xs;
  std::vector<Collective> cs;
  for (int seq = 0; seq < 3 * static_cast<int>(comms.size()); ++seq)
    xs.emplace_back(me, P, [seq](int s, int d) -> std::int64_t { return (s + d + seq) % 3 * 50; }, seq);
  for (std::size_t i = 0; i < xs.size(); ++i)
    cs.push_back(xs[i].build(comms[i / 3], {i % 3 == 0 ? "pairwise" : i % 3 == 1 ? "linear" : "native", 2}));
  std::vector<Request> rs;
  for (auto& c : cs) rs.push_back(c.start());
  Request::wait_all(rs);
  for (auto& x : xs) EXPECT_EQ(x.recv, x.expect);
}

TEST(Alltoall, RegistryListsEveryAlgorithmOnce) {
  std::vector<std::string> names;
  for (const auto& a : alltoall_algorithms()) names.push_back(a.name);
  for (const char* want : {"pairwise", "linear", "bruck", "native", "persistent", "rma", "blocking"})
    EXPECT_EQ(std::count(names.begin(), names.end(), want), 1) << want;
}

// The tuners' candidate transports come from the registry's `tune` entries: the quick and
// thorough lists as the tuners have always searched them (cheap, likely winners first), the
// thread engine only with MPI_THREAD_MULTIPLE, linear only for small exchanges, and every
// name one that parses back to an algorithm of the registry.
TEST(Alltoall, TunersTryTheRegistrysCandidates) {
  using V = std::vector<std::string>;
  EXPECT_EQ(tuning_transports(false, 4, true), (V{"blocking@caller", "pairwise:2@caller", "native@native",
                                                 "pairwise:4@thread"}));
  EXPECT_EQ(tuning_transports(false, 4, false), (V{"blocking@caller", "pairwise:2@caller", "native@native"}));
  EXPECT_EQ(tuning_transports(true, 8, true),
            (V{"blocking@caller", "pairwise:2@caller", "native@native", "pairwise:1@caller", "pairwise:4@caller",
               "linear@caller", "pairwise:4@thread", "pairwise:2@thread"}));
  const V many = tuning_transports(true, 9, false);
  EXPECT_EQ(std::count(many.begin(), many.end(), "linear@caller"), 0);
  for (const std::string& t : tuning_transports(true, 2, true))
    EXPECT_NO_THROW(find_alltoall_algorithm(Transport::parse(t).algorithm.name)) << t;
}

}  // namespace
