// Host-driven engines: `caller` (progress inside test/wait/progress, libNBC's test-driven
// mode) and `native` (nbfft makes no progress calls of its own between start and wait;
// only the MPI library's own progress moves data — e.g. MPICH's async progress thread).
//
// Not thread-safe: use a host-driven engine from one thread at a time, as with libNBC.
#include "coll/caller_engine.hpp"

#include "coll/engine_detail.hpp"

#include <algorithm>
#include <thread>

namespace nbfft::coll {

void HostEngine::post(std::shared_ptr<RequestState> st) {
  if (st->sched->blocks_on_peers) quiesce_all();
  // Post round 0 right away: the data starts moving at start(), not at the first test.
  if (detail::drive(*st) != RequestState::Step::Done) active_.push_back(std::move(st));
}

bool HostEngine::settle() {
  for (auto& st : active_)
    if (!st->done.load(std::memory_order_relaxed)) detail::drive(*st);
  forget_done();
  return active_.empty();
}

void HostEngine::progress() {
  if (kind_ == EngineKind::Caller) advance_all();
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
  if (kind_ == EngineKind::Caller) {
    advance_all();  // a test call progresses every outstanding collective, as in libNBC
  } else {
    detail::drive(st);
    if (active_.size() > 64) forget_done();  // native keeps its list only for settle()
  }
  return st.done.load(std::memory_order_acquire);
}

void HostEngine::wait(RequestState& st) {
  while (!test(st)) std::this_thread::yield();
}

}  // namespace nbfft::coll
