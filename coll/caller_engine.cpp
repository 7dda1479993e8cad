// Host-driven engines: `caller` (progress inside test/wait/progress, libNBC's test-driven
// mode) and `native` (the progress hook is a no-op: between start and the application's
// own test/wait calls only the MPI library's progress moves data — e.g. MPICH's async
// progress thread; test and wait then behave as MPI_Test / MPI_Wait do).
//
// Not thread-safe: use a host-driven engine from one thread at a time, as with libNBC.
#include "coll/caller_engine.hpp"

#include "coll/engine_detail.hpp"
#include "nbfft/coll/trace.hpp"

#include <algorithm>
#include <thread>

namespace nbfft::coll {

void HostEngine::post(std::shared_ptr<RequestState> st) {
  if (st->sched->blocks_on_peers) quiesce_all();
  // Post round 0 right away: the data starts moving at start(), not at the first test.
  if (detail::drive(*st) != RequestState::Step::Done) active_.push_back(std::move(st));
}

bool HostEngine::settle() {
  advance_all();
  return active_.empty();
}

void HostEngine::progress() {
  if (kind_ != EngineKind::Caller || active_.empty()) return;  // nothing to drive (or trace)
  trace::Span span("host", "progress");
  advance_all();
}

void HostEngine::advance_all() {
  if (in_progress_) return;  // a blocking action inside a schedule may call back into us
  in_progress_ = true;
  for (auto& st : active_)
    if (!st->done.load(std::memory_order_relaxed)) detail::drive(*st);
  forget_done();
  in_progress_ = false;
}

void HostEngine::forget_done() {
  active_.erase(std::remove_if(active_.begin(), active_.end(),
                               [](const auto& st) { return st->done.load(std::memory_order_relaxed); }),
                active_.end());
}

bool HostEngine::test(RequestState& st) {
  if (st.done.load(std::memory_order_acquire)) return true;
  // A test progresses every outstanding host-driven collective, of both host engines, as
  // in libNBC — and as MPI's progress rule demands: if tests of one request moved only
  // some, ranks completing requests in different orders could wait on each other forever.
  settle_all();
  return st.done.load(std::memory_order_acquire);
}

void HostEngine::wait(RequestState& st) {
  while (!test(st)) std::this_thread::yield();
}

}  // namespace nbfft::coll
