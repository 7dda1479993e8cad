// The thread engine: a dedicated agent thread executes posted schedules while the host
// computes — nbfft's software stand-in for a NIC that runs collective task lists (seed 000).
#pragma once

#include "nbfft/coll/engine.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace nbfft::coll {

class ThreadEngine final : public Engine {
 public:
  ThreadEngine();  // throws Error unless MPI provides MPI_THREAD_MULTIPLE
  ~ThreadEngine() override;
  EngineKind kind() const override { return EngineKind::Thread; }
  void post(std::shared_ptr<RequestState> st) override;
  void progress() override {}
  bool test(RequestState& st) override;
  void wait(RequestState& st) override;
  double agent_cpu_seconds() const override;

 private:
  void run();
  std::mutex mu_;
  std::condition_variable work_cv_;  // the agent sleeps here when idle or backing off
  std::condition_variable done_cv_;  // hosts in wait() sleep here
  std::deque<std::shared_ptr<RequestState>> incoming_;
  bool stop_ = false;
  int spin_polls_;    // polls without progress before the agent starts sleeping between polls
  int poll_sleep_us_;  // sleep between polls once backing off
  std::thread agent_;
};

}  // namespace nbfft::coll
