// Progress engines: who moves a started schedule forward while the host computes.
//
//   caller  progress happens only inside test / wait / progress calls made by the host
//           (libNBC's test-driven mode; seed 000 Table I: overlap depends on how often).
//   thread  a dedicated agent thread executes posted schedules while the host computes —
//           the software stand-in for the ConnectX-2 task-list offload of seed 000. It sleeps
//           on a condition variable when nothing is posted, polls with back-off while work is
//           in flight, and reports the CPU time it used. Needs MPI_THREAD_MULTIPLE.
//   native  nbfft makes no progress calls between start and wait; whatever the MPI library
//           does by itself (an async progress thread, NIC offload) is all there is.
//
// The interface is what a hardware backend would implement: accept a posted schedule,
// report completion, and optionally use host progress opportunities. Callers see only
// Request and Comm, so a new backend is a new subclass plus one registry line.
#pragma once

#include "nbfft/coll/schedule.hpp"

#include <atomic>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nbfft::coll {

enum class EngineKind { Caller, Thread, Native };

struct EngineInfo {
  EngineKind kind;
  const char* name;
  const char* summary;
  bool needs_thread_multiple;
};
const std::vector<EngineInfo>& engines();
EngineKind parse_engine(std::string_view name);  // throws Error listing the known names
const char* engine_name(EngineKind kind);

// One started instance of a schedule. Owned jointly by the Request handle and the engine.
struct RequestState {
  // Owned by the Collective, which outlives every start of it: its resources (windows,
  // communicators) are freed by collective calls, so they must go in program order on the
  // host thread, never at whatever moment an engine drops a finished request.
  const Schedule* sched = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;  // the Comm's private duplicate
  int tag = 0;
  long round = -1;                 // last round whose operations were posted
  std::vector<MPI_Request> reqs;   // outstanding requests of that round
  std::vector<const Op*> req_ops;  // the operation of each (nullptr once checked)
  // A receive whose size did not match what the peer sent (ranks passed different counts).
  // The schedule still runs to its end, so no peer is left waiting on this rank; the
  // request then fails with this message (kind RanksDisagree).
  std::string mismatch;
  std::shared_ptr<std::atomic<bool>> collective_busy;  // cleared on completion
  std::exception_ptr error;        // written before `done` is released
  std::atomic<bool> done{false};

  enum class Step { Pending, Advanced, Done };
  // Moves the schedule forward as far as it can without blocking on the network.
  // Not thread-safe: exactly one engine drives a given state.
  Step advance();
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual EngineKind kind() const = 0;
  // Takes over execution of a freshly started schedule.
  virtual void post(std::shared_ptr<RequestState> state) = 0;
  // A host progress opportunity: the caller engine advances its posted schedules here.
  virtual void progress() = 0;
  virtual bool test(RequestState& state) = 0;
  virtual void wait(RequestState& state) = 0;
  // CPU seconds used by the engine's own agent (thread engine), 0 for host-driven engines.
  virtual double agent_cpu_seconds() const { return 0.0; }
  // Drives every outstanding request that only host calls can move, once; true when none
  // is left. quiesce_all() loops over all engines with it before the host blocks in a call
  // every rank must join (MPI_Comm_dup, MPI_Alltoall), so no peer starves waiting on us.
  virtual bool settle() { return true; }

  // The process-wide engine of a kind; it lives while any Comm uses it.
  static std::shared_ptr<Engine> get(EngineKind kind);
};

// Makes host progress on every live engine (what `--tests` calls between compute chunks).
void progress_all();
// One pass of settle() over every live engine; true when nothing host-driven is pending.
// Every host test/wait makes this pass: MPI's progress rule, applied to nbfft's schedules.
bool settle_all();
// Quiesces every live engine: call before the host blocks in a call all ranks must join.
void quiesce_all();

}  // namespace nbfft::coll
