#include "fft/threads.hpp"

#include "nbfft/error.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#ifdef __linux__
#include <sched.h>
#endif

namespace nbfft::fft {

namespace {

// The integer a threads variable gives, 0 when unset or empty. OMP_NUM_THREADS may be a
// list per nesting level ("4,2"): its first entry is the outer level's.
int env_threads(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  std::string s(v);
  if (std::string(name) == "OMP_NUM_THREADS") s = s.substr(0, s.find(','));
  char* end = nullptr;
  const long x = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || x < 1 || x > 1024)
    throw Error(std::string("threads: ") + name + "='" + v + "' is not an integer in [1, 1024] (threads per rank)");
  return static_cast<int>(x);
}

}  // namespace

int threads_from_environment() {
  if (const int t = env_threads("NBFFT_THREADS")) return t;
  if (const int t = env_threads("OMP_NUM_THREADS")) return t;
  return 1;
}

int resolve_threads(int asked) { return asked > 0 ? asked : threads_from_environment(); }

int checked_threads(int asked) {
  int t = resolve_threads(asked);
  // From the environment: no more than the CPUs this rank may run on (OMP_NUM_THREADS=2
  // with every rank bound to one core would only make the threads take turns). An explicit
  // number is kept as asked (the results are the same; operator<< of the plan warns).
  if (asked == 0) t = std::min(t, rank_cpus());
  int provided = MPI_THREAD_SINGLE;
  check_mpi(MPI_Query_thread(&provided), "MPI_Query_thread");
  if (t > 1 && provided < MPI_THREAD_FUNNELED)
    throw Error("threads = " + std::to_string(t) + (asked > 0 ? "" : " (from NBFFT_THREADS / OMP_NUM_THREADS)") +
                    " needs MPI_THREAD_FUNNELED or higher (the plan's worker threads never call MPI), but MPI "
                    "provides MPI_THREAD_SINGLE: initialize MPI with MPI_Init_thread(..., "
                    "nbfft::fft::required_thread_level(options), ...), or use threads = 1",
                ErrorCode::Unavailable);
  return t;
}

int rank_cpus() {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

int compute_threads(int threads, bool engine_thread, bool own_core) {
  if (!engine_thread || !own_core) return threads;
  return std::max(1, std::min(threads, rank_cpus() - 1));
}

bool uses_engine_thread(const Options& o) {
  return o.row_transport.engine == coll::EngineKind::Thread || o.col_transport.engine == coll::EngineKind::Thread;
}

// One loop at a time: the caller publishes (fn, ctx, used) and bumps the generation under
// the mutex; each worker runs its lane once per generation and counts down `pending`.
// Workers spin (yielding) for 50 us before sleeping: the stages of one transform on one rank
// come back to back, and a condition-variable wake-up costs tens of microseconds; longer
// spins would take the core from the other ranks and the engine thread.
struct LanePool::State {
  std::mutex mu;
  std::condition_variable go, done;
  std::uint64_t gen = 0;                // guarded by mu
  std::atomic<std::uint64_t> seen_gen{0};  // gen, for the workers' spin
  void (*fn)(void*, int) = nullptr;
  void* ctx = nullptr;
  int pending = 0;  // workers yet to finish this generation
  bool stop = false;
  std::exception_ptr error;
  std::atomic<bool> busy{false};
  std::vector<std::thread> workers;

  void work(int lane) {
    std::uint64_t mine = 0;
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
      while (seen_gen.load(std::memory_order_acquire) == mine && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      std::unique_lock<std::mutex> lk(mu);
      go.wait(lk, [&] { return stop || gen != mine; });
      if (stop) return;
      mine = gen;
      void (*f)(void*, int) = fn;
      void* c = ctx;
      lk.unlock();
      std::exception_ptr e;
      try {
        f(c, lane);
      } catch (...) {
        e = std::current_exception();
      }
      lk.lock();
      if (e && !error) error = e;
      if (--pending == 0) done.notify_one();
    }
  }
};

LanePool::LanePool(int lanes) : lanes_(lanes < 1 ? 1 : lanes), s_(std::make_unique<State>()) {
  try {
    for (int k = 1; k < lanes_; ++k) s_->workers.emplace_back([st = s_.get(), k] { st->work(k); });
  } catch (const std::system_error& e) {
    stop_workers();  // joins the workers already started
    throw Error(std::string("threads: could not start ") + std::to_string(lanes_ - 1) + " worker threads (" +
                    e.what() + ")",
                ErrorCode::Unavailable);
  }
}

LanePool::~LanePool() { stop_workers(); }

void LanePool::stop_workers() {
  {
    std::lock_guard<std::mutex> lk(s_->mu);
    s_->stop = true;
  }
  s_->go.notify_all();
  for (auto& w : s_->workers)
    if (w.joinable()) w.join();
  s_->workers.clear();
}

bool LanePool::acquire() { return !s_->busy.exchange(true, std::memory_order_acquire); }

void LanePool::run(void (*fn)(void*, int), void* ctx) {
  State& s = *s_;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.fn = fn;
    s.ctx = ctx;
    s.pending = static_cast<int>(s.workers.size());
    s.error = nullptr;
    ++s.gen;
    s.seen_gen.store(s.gen, std::memory_order_release);
  }
  s.go.notify_all();
  std::exception_ptr mine;
  try {
    fn(ctx, 0);
  } catch (...) {
    mine = std::current_exception();
  }
  std::exception_ptr theirs;
  {
    std::unique_lock<std::mutex> lk(s.mu);
    s.done.wait(lk, [&] { return s.pending == 0; });
    theirs = s.error;
  }
  s.busy.store(false, std::memory_order_release);
  if (mine) std::rethrow_exception(mine);
  if (theirs) std::rethrow_exception(theirs);
}

}  // namespace nbfft::fft
