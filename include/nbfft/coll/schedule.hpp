// Schedule: a collective compiled into rounds of operations (libNBC's schedule,
// ConnectX-2's task list). Built once, started many times: starting costs only posting.
//
//   round 0:  local ops (copy, reduce, blocking action) | then post sends/recvs/MPI requests
//   round 1:  ... runs when every request of round 0 has completed ...
//
// Within a round, local operations run first (they may consume what the previous round
// received), then the communication operations are posted together. A round ends when all
// of its requests complete. Buffers are bound at build time, as in MPI persistent
// collectives; scratch space the algorithm needs is owned by the schedule.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nbfft::coll {

class Comm;

struct Op {
  enum class Kind {
    Send,      // MPI_Isend of `bytes` from `src` to `peer`, tag of the start
    Recv,      // MPI_Irecv of `bytes` into `dst` from `peer`, tag of the start
    Copy,      // memcpy(dst, src, bytes)
    Reduce,    // MPI_Reduce_local(src -> dst, count, type, op)
    Request,   // post(MPI_Request*) starts one MPI request (MPI_Ialltoall, MPI_Start, ...)
    Action,    // run(): a local action that may block (MPI_Alltoall, MPI_Win_flush_all, ...)
  };
  explicit Op(Kind k) : kind(k) {}
  Kind kind;
  int peer = -1;
  const void* src = nullptr;
  void* dst = nullptr;
  std::size_t bytes = 0;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  std::function<int(MPI_Request*)> post;  // Kind::Request; returns an MPI error code
  std::function<void()> run;              // Kind::Action

  bool is_local() const { return kind == Kind::Copy || kind == Kind::Reduce || kind == Kind::Action; }
};

struct Round {
  std::vector<Op> ops;
};

class Schedule {
 public:
  Schedule() = default;
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;
  // Resources go in reverse order of acquisition (a persistent request before its communicator).
  ~Schedule() {
    while (!resources.empty()) resources.pop_back();
  }
  std::vector<Round> rounds;
  std::string description;                      // "alltoall pairwise window=4, 8 ranks, 1024 B/peer"
  std::vector<std::shared_ptr<void>> resources;  // scratch memory, windows, persistent requests
  // Contains a call that blocks until every rank joins (MPI_Alltoall). Engines run it only
  // after every collective started before it has completed; otherwise a rank blocked in it
  // could starve a peer that waits on an earlier schedule this rank has yet to advance.
  bool blocks_on_peers = false;
  std::size_t max_requests_per_round() const;
};

// Builds a Schedule round by round. The collective primitives of seed 003 are here so
// that every algorithm composes from the same few verbs.
class ScheduleBuilder {
 public:
  explicit ScheduleBuilder(const Comm& comm);

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Starts a new round; later operations go into it.
  ScheduleBuilder& next_round();

  // Point-to-point and local verbs. Messages larger than 1 GiB are split, so byte counts
  // beyond INT_MAX work. A zero-byte send or receive still posts one (empty) message, so
  // that ranks passing different counts (0 against n) get an error naming the peer
  // instead of one side waiting forever. (A mismatch in a message above 1 GiB changes
  // the number of pieces and is not detected.)
  void send(int peer, const void* buf, std::size_t bytes);
  void recv(int peer, void* buf, std::size_t bytes);
  void copy(void* dst, const void* src, std::size_t bytes);
  void reduce(void* inout, const void* in, int count, MPI_Datatype type, MPI_Op op);
  void request(std::function<int(MPI_Request*)> post);
  void action(std::function<void()> run);
  void mark_blocks_on_peers();

  // Memory owned by the schedule (zeroed, 64-byte aligned), alive as long as it is.
  void* scratch(std::size_t bytes);
  void keep(std::shared_ptr<void> resource);

  // Seed 003 primitives. Each posts in the current round; the two-step ones
  // (recv_reduce, recv_replicate) put their second step in the next round and leave
  // the builder there.
  void multi_send(const void* buf, std::size_t bytes, const std::vector<int>& peers);
  void multi_recv(const std::vector<void*>& bufs, std::size_t bytes, const std::vector<int>& peers);
  void recv_reduce(void* acc, int count, MPI_Datatype type, MPI_Op op, const std::vector<int>& peers);
  void recv_replicate(void* buf, std::size_t bytes, int from, const std::vector<int>& to);

  std::shared_ptr<const Schedule> build(std::string description);

 private:
  Round& current();
  std::shared_ptr<Schedule> sched_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace nbfft::coll
