// The agent loop. While nothing is posted it sleeps on a condition variable (no CPU).
// While schedules are in flight it polls them with MPI_Testall — which is also what drives
// MPI's own progress for TCP and shared memory — and backs off when polls find nothing to
// do: `spin_polls` quick polls (yielding the core), then a sleep of `poll_sleep_us`
// between polls, woken early by a new post. Both are tunable through the environment
// (NBFFT_ENGINE_SPIN_POLLS, NBFFT_ENGINE_POLL_US) because the right trade between
// reaction time and stolen host CPU depends on the machine; agent_cpu_seconds() reports
// what it cost.
#include "coll/thread_engine.hpp"

#include "coll/engine_detail.hpp"
#include "nbfft/coll/trace.hpp"
#include "nbfft/error.hpp"

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace nbfft::coll {

namespace {
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0 || x > 1000000)
    throw Error(std::string(name) + "='" + v + "' is not an integer in [0, 1000000]");
  return static_cast<int>(x);
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}
}  // namespace

ThreadEngine::ThreadEngine()
    : spin_polls_(env_int("NBFFT_ENGINE_SPIN_POLLS", 200)), poll_sleep_us_(env_int("NBFFT_ENGINE_POLL_US", 20)) {
  int provided = MPI_THREAD_SINGLE;
  check_mpi(MPI_Query_thread(&provided), "MPI_Query_thread");
  if (provided < MPI_THREAD_MULTIPLE)
    throw Error(std::string("the thread progress engine needs MPI_THREAD_MULTIPLE, but MPI provides only ") +
                thread_level_name(provided) +
                ": initialize MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) "
                "(and an MPI built with thread support), or use the caller engine",
                ErrorCode::Unavailable);
  agent_ = std::thread([this] { run(); });
}

ThreadEngine::~ThreadEngine() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  agent_.join();
}

void ThreadEngine::post(std::shared_ptr<RequestState> st) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    incoming_.push_back(std::move(st));
  }
  work_cv_.notify_one();
}

// The agent needs no help, but a host inside test/wait must still move the host-driven
// engines' schedules (MPI's progress rule): a peer may be waiting on one of them before
// it can even start the collective this host is waiting for.
bool ThreadEngine::test(RequestState& st) {
  if (st.done.load(std::memory_order_acquire)) return true;
  settle_all();
  return st.done.load(std::memory_order_acquire);
}

void ThreadEngine::wait(RequestState& st) {
  while (!st.done.load(std::memory_order_acquire)) {
    if (!settle_all()) {  // host-driven work pending: keep driving it
      std::this_thread::yield();
      continue;
    }
    // Nothing host-driven is pending, and only this thread could add any: sleep.
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [&] { return st.done.load(std::memory_order_acquire); });
  }
}

double ThreadEngine::agent_cpu_seconds() const {
  clockid_t cid;
  timespec ts{};
  if (pthread_getcpuclockid(const_cast<std::thread&>(agent_).native_handle(), &cid) != 0) return 0.0;
  if (clock_gettime(cid, &ts) != 0) return 0.0;
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void ThreadEngine::run() {
  std::vector<std::shared_ptr<RequestState>> active;
  int idle_polls = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (active.empty()) {
        work_cv_.wait(lk, [&] { return stop_ || !incoming_.empty(); });
        idle_polls = 0;
      } else if (idle_polls > spin_polls_ && incoming_.empty()) {
        work_cv_.wait_for(lk, std::chrono::microseconds(poll_sleep_us_));
      }
      if (stop_ && active.empty() && incoming_.empty()) return;
      while (!incoming_.empty()) {
        active.push_back(std::move(incoming_.front()));
        incoming_.pop_front();
        idle_polls = 0;
      }
    }
    bool progressed = false, finished = false;
    const double t0 = trace::enabled() ? trace::now_us() : -1;
    for (std::size_t i = 0; i < active.size(); ++i) {
      RequestState& st = *active[i];
      if (st.done.load(std::memory_order_relaxed)) continue;
      if (st.sched->blocks_on_peers && i != 0) continue;  // `active` is in start order
      RequestState::Step s = detail::drive(st);
      progressed |= s != RequestState::Step::Pending;
      finished |= s == RequestState::Step::Done;
    }
    if (t0 >= 0 && progressed) trace::complete("engine", "advance", t0, trace::now_us());
    if (finished) {
      active.erase(std::remove_if(active.begin(), active.end(),
                                  [](const auto& st) { return st->done.load(std::memory_order_relaxed); }),
                   active.end());
      // Taking the lock orders the `done` stores before any waiter's predicate check.
      { std::lock_guard<std::mutex> lk(mu_); }
      done_cv_.notify_all();
    }
    if (progressed) {
      idle_polls = 0;
    } else if (++idle_polls <= spin_polls_) {
      std::this_thread::yield();
    }
  }
}

}  // namespace nbfft::coll
