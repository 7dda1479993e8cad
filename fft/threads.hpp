// Threads inside a rank (Options::threads, docs/fft.md "Threads inside each rank").
//
// A stage of the 3D transform is a loop over independent units (z or y planes): each unit is
// copied to a plane in cache, transformed, and packed into the exchange's buffer at the
// unit's own place. LanePool shares such a loop's units among lanes; lane k runs on its
// own plane buffer (Workspace::P(k)), lane 0 on the calling thread, lanes
// 1..T-1 on the pool's workers. The units' results do not depend on which lane ran them (the
// same FFTW plan, new-array execute, which FFTW allows from several threads at once), so any
// number of threads gives bitwise the same transform as one. Workers never call MPI: only
// the calling thread does (coll::progress_all between its own pieces), so a threaded plan
// needs MPI_THREAD_FUNNELED (required_thread_level).
//
// Measured against FFTW's own threaded plans of the same per-plane FFTs (docs/performance.md
// "Threads inside each rank"): a plane is too small a job for FFTW's fork/join on every
// execute, and the partition also threads the pack and unpack copies, which FFTW cannot.
#pragma once

#include "geometry/reshape.hpp"
#include "nbfft/fft/options.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace nbfft::fft {

// Threads a plan runs with when Options::threads is 0: NBFFT_THREADS if set, else
// OMP_NUM_THREADS (its first entry) if set, else 1 (today's behaviour). A set variable that
// is not an integer in [1, 1024] is an error naming it.
int threads_from_environment();
// Options::threads resolved (0: threads_from_environment()).
int resolve_threads(int asked);
// resolve_threads(asked), no more than rank_cpus() when read from the environment (asked
// = 0), checked against the MPI thread level (MPI must be running): more than one thread
// needs MPI_THREAD_FUNNELED; throws an Error saying so otherwise.
int checked_threads(int asked);
// CPUs this process may run on (sched_getaffinity; hardware_concurrency elsewhere).
int rank_cpus();
// Compute threads beside the thread engine's agent (Options::engine_own_core): `threads`,
// or with own_core and an engine thread no more than rank_cpus() - 1 (at least 1), so that
// the agent and the compute threads together do not outnumber the rank's CPUs.
int compute_threads(int threads, bool engine_thread, bool own_core);
// Whether a plan of `o` runs the thread engine's agent thread (either exchange's engine).
bool uses_engine_thread(const Options& o);
// The units per range of a copy of `units` units of `unit_bytes` each shared among `lanes`
// threads: four ranges per thread, none under 256 KiB (smaller ones cost more to hand out
// than to copy). nd's copies and the pencil transposes' pack and unpack take it.
inline std::int64_t copy_grain(int lanes, std::int64_t units, std::size_t unit_bytes) {
  if (lanes <= 1 || units <= 1) return units;
  const std::int64_t by_threads = (units + 4 * lanes - 1) / (4 * lanes);
  const auto by_size = static_cast<std::int64_t>((std::size_t{256} << 10) / std::max<std::size_t>(1, unit_bytes));
  return std::max<std::int64_t>(1, std::max(by_threads, by_size));
}

class LanePool {
 public:
  // lanes >= 1: lanes - 1 worker threads (started here, joined by the destructor).
  explicit LanePool(int lanes);
  ~LanePool();
  LanePool(const LanePool&) = delete;
  LanePool& operator=(const LanePool&) = delete;
  int lanes() const { return lanes_; }

  // body(lane, a, b) on ranges [a, b) of at most `grain` units that together cover
  // [u0, u1) once: lane 0 on this thread, the others on the workers, each lane taking the
  // next range as it finishes one (so a lane slowed by another process on its core takes
  // fewer), returning when all are done. Runs every range on lane 0, in order, when there
  // is one lane, one unit, or the pool is already running another caller's loop (two
  // transforms on different workspaces from two threads). An exception from any lane is
  // rethrown here, after every lane has stopped.
  template <typename F>
  void for_units(std::int64_t u0, std::int64_t u1, std::int64_t grain, F&& body) {
    if (grain < 1) grain = 1;
    if (lanes_ == 1 || u1 - u0 <= 1 || !acquire()) {
      for (std::int64_t a = u0; a < u1; a += grain) body(0, a, a + grain < u1 ? a + grain : u1);
      return;
    }
    struct Ctx {
      F* body;
      std::int64_t u1, grain;
      std::atomic<std::int64_t> next;
    } c{&body, u1, grain, {u0}};
    run([](void* p, int lane) {
      auto& x = *static_cast<Ctx*>(p);
      for (;;) {
        const std::int64_t a = x.next.fetch_add(x.grain, std::memory_order_relaxed);
        if (a >= x.u1) return;
        (*x.body)(lane, a, a + x.grain < x.u1 ? a + x.grain : x.u1);
      }
    }, &c);
  }

 private:
  struct State;
  bool acquire();                          // false: busy with another caller
  void run(void (*fn)(void*, int), void* ctx);  // fn on every lane; releases what acquire() took
  void stop_workers();
  int lanes_;
  std::unique_ptr<State> s_;
};

// The reshapes' share function over `pool` (the user boxes' reshapes of both plans): a copy
// of `units` units of `unit_bytes` each, in copy_grain ranges on its lanes; empty (the
// calling thread) without a pool or with one lane.
inline geometry::Reshape::Share copy_share(LanePool* pool) {
  if (!pool || pool->lanes() <= 1) return {};
  return [pool](std::int64_t units, std::size_t unit_bytes, const geometry::Reshape::Body& f) {
    pool->for_units(0, units, copy_grain(pool->lanes(), units, unit_bytes),
                    [&](int, std::int64_t a, std::int64_t b) { f(a, b); });
  };
}

}  // namespace nbfft::fft
