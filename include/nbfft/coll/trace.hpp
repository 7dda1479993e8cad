// Timelines: Chrome / Perfetto trace-event JSON of what each rank did when.
//
// One process per rank (pid = rank in MPI_COMM_WORLD), one lane (tid) per activity:
//   host       starts, test and wait calls, host progress calls (caller engine)
//   engine     the thread engine's agent advancing schedules
//   exchanges  each started collective from start until the host saw it complete (async)
//   fft        FFT stages, pack/unpack and exchanges as the plans time them (PhaseClock)
//
// Turn it on with the environment (NBFFT_TRACE=FILE: every rank writes FILE with ".<rank>"
// before its extension when it exits, `%r` in FILE is replaced by the rank instead) or with
// trace::start(FILE) and, collectively, trace::stop(comm), which gathers every rank's
// events into FILE on rank 0. Off, each hook costs one relaxed atomic load.
// Open the file at https://ui.perfetto.dev or chrome://tracing.
#pragma once

#include <mpi.h>

#include <atomic>
#include <string>

namespace nbfft::trace {

namespace detail {
extern std::atomic<bool> g_on;
}

inline bool enabled() noexcept { return detail::g_on.load(std::memory_order_relaxed); }

double now_us() noexcept;  // microseconds on the trace clock (steady)

// Records activity on `lane` from t0 to t1 (microseconds, now_us()). `name` may be dynamic.
void complete(const char* lane, const std::string& name, double t0_us, double t1_us);
// An interval that begins and ends in different calls (a collective in flight), by id.
void async_begin(const char* lane, const std::string& name, const void* id);
void async_end(const char* lane, const std::string& name, const void* id);  // the begin's name

// Starts recording into `path` (see above); replaces an NBFFT_TRACE setting.
void start(const std::string& path);
// Collective over `comm`: stops recording and writes every rank's events to the path on
// rank 0. Returns the number of events written (on rank 0; 0 elsewhere). A file that
// cannot be written is an Io Error on every rank.
long stop(MPI_Comm comm);

// Times a scope onto a lane when tracing is on.
class Span {
 public:
  Span(const char* lane, const char* name) : lane_(lane), name_(name), t0_(enabled() ? now_us() : -1) {}
  ~Span() {
    if (t0_ >= 0) complete(lane_, name_, t0_, now_us());
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

 private:
  const char* lane_;
  const char* name_;
  double t0_;
};

}  // namespace nbfft::trace
