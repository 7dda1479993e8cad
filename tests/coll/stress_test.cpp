// Randomized stress, after MPICH's nonblocking3: thousands of collectives with random
// algorithms, engines, sizes and shapes, up to 16 outstanding, completed in a random
// order that differs between ranks, with injected delays. The sequence of collectives
// comes from one seed shared by all ranks (NBFFT_STRESS_SEED, printed on failure), so a
// failure reproduces; the interleaving and delays come from a per-rank stream.
#include "coll_test_util.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>

using namespace nbfft::coll;
using namespace nbfft::coll::testing;

namespace {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

struct Live {
  std::unique_ptr<Exchange> x;
  Collective c;
  Request r;
  std::string what;
};

TEST(Stress, RandomCollectivesOutstandingAndReordered) {
  const int me = world_rank(), P = world_size();
  const unsigned long seed = static_cast<unsigned long>(env_long("NBFFT_STRESS_SEED", 20261121));
  // Default total: 10,000 collectives spread over the rank counts the suite runs.
  const long total = env_long("NBFFT_STRESS_COUNT", 2000);
  std::mt19937_64 shared(seed), local(seed * 7919 + static_cast<unsigned long>(me));

  std::vector<const AlgorithmInfo*> algos;
  for (const auto& a : alltoall_algorithms())
    if (algorithm_available(a)) algos.push_back(&a);
  std::vector<Comm> comms;
  for (EngineKind e : all_engines()) comms.emplace_back(MPI_COMM_WORLD, e);

  std::vector<Live> live;
  long started = 0, completed = 0;
  auto complete = [&](std::size_t i) {
    if (local() % 2) {
      live[i].r.wait();
    } else {
      while (!live[i].r.test()) std::this_thread::yield();
    }
    ASSERT_EQ(live[i].x->recv, live[i].x->expect) << live[i].what << " (seed " << seed << ")";
    live.erase(live.begin() + static_cast<long>(i));
    ++completed;
  };
  while (started < total) {
    const std::size_t cap = 1 + local() % 16;
    if (live.size() >= cap) {
      complete(local() % live.size());
      if (HasFatalFailure()) return;
      continue;
    }
    // The next collective of the shared sequence.
    const AlgorithmInfo& a = *algos[shared() % algos.size()];
    const std::size_t ci = shared() % comms.size();
    const int window = 1 + static_cast<int>(shared() % 6);
    const std::uint64_t shape = shared();
    const int seq = static_cast<int>(started);
    auto count = [&a, shape](int s, int d) -> std::int64_t {
      if (a.uniform_only || shape % 3 == 0) return static_cast<std::int64_t>(shape % 64);
      return static_cast<std::int64_t>((shape >> 8) + static_cast<std::uint64_t>(s * 13 + d * 5)) % 97 *
             ((s + d + static_cast<int>(shape)) % 4 != 0);
    };
    Live l;
    l.x = std::make_unique<Exchange>(me, P, count, seq);
    l.what = "collective " + std::to_string(seq) + " " + a.name + ":" + std::to_string(window) + "@" +
             engine_name(comms[ci].engine_kind());
    l.c = l.x->build(comms[ci], {a.name, window});
    if (local() % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(local() % 300));
    l.r = l.c.start();
    live.push_back(std::move(l));
    ++started;
  }
  while (!live.empty()) {
    complete(local() % live.size());
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(completed, total);
}

}  // namespace
