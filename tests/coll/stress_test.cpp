// Randomized stress, after MPICH's nonblocking3: thousands of collectives with random
// algorithms, engines, sizes and shapes, up to 16 outstanding, completed in a random
// order that differs between ranks, with injected delays. The sequence of collectives
// comes from one seed shared by all ranks (NBFFT_STRESS_SEED, printed on failure), so a
// failure reproduces; the interleaving and delays come from a per-rank stream.
#include "coll_test_util.hpp"

#include <chrono>
#include <cstdio>
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
  // Default: 3000 per run; the suite runs it at 5 rank counts, 15,000 collectives in all.
  const long total = env_long("NBFFT_STRESS_COUNT", 3000);
  std::mt19937_64 shared(seed), local(seed * 7919 + static_cast<unsigned long>(me));

  std::vector<const AlgorithmInfo*> algos;
  // NBFFT_STRESS_ALGORITHMS=a,b narrows the mix when hunting a failure.
  const std::string only = std::getenv("NBFFT_STRESS_ALGORITHMS") ? std::getenv("NBFFT_STRESS_ALGORITHMS") : "";
  for (const auto& a : alltoall_algorithms())
    if (algorithm_available(a) && (only.empty() || ("," + only + ",").find(std::string(",") + a.name + ",") != std::string::npos))
      algos.push_back(&a);
  std::vector<Comm> comms;
  const std::string engines_only = std::getenv("NBFFT_STRESS_ENGINES") ? std::getenv("NBFFT_STRESS_ENGINES") : "";
  for (EngineKind e : all_engines())
    if (engines_only.empty() || engines_only.find(engine_name(e)) != std::string::npos) comms.emplace_back(MPI_COMM_WORLD, e);

  // NBFFT_STRESS_TRACE=DIR writes each rank's starts and completions to DIR/stress.RANK.
  std::FILE* trace = nullptr;
  if (const char* dir = std::getenv("NBFFT_STRESS_TRACE"))
    trace = std::fopen((std::string(dir) + "/stress." + std::to_string(me)).c_str(), "w");
  std::vector<Live> live;
  long started = 0, completed = 0;
  auto complete = [&](std::size_t i) {
    if (trace) std::fprintf(trace, "complete %s\n", live[i].what.c_str()), std::fflush(trace);
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
    auto count = [shape](int s, int d) -> std::int64_t {
      return static_cast<std::int64_t>((shape >> 8) + static_cast<std::uint64_t>(s * 13 + d * 5)) % 97 *
             ((s + d + static_cast<int>(shape)) % 4 != 0);
    };
    Live l;
    if (a.uniform_only || shape % 3 == 0)
      l.x = std::make_unique<Exchange>(Exchange::uniform(me, P, static_cast<std::int64_t>(shape % 64), seq));
    else
      l.x = std::make_unique<Exchange>(me, P, count, seq);
    l.what = "collective " + std::to_string(seq) + " " + a.name + ":" + std::to_string(window) + "@" +
             engine_name(comms[ci].engine_kind());
    l.c = l.x->build(comms[ci], {a.name, window});
    if (local() % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(local() % 300));
    if (trace) std::fprintf(trace, "start %s\n", l.what.c_str()), std::fflush(trace);
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
