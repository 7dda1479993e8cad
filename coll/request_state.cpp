// Executing a schedule: the state machine every engine drives.
#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"

#include <cstring>

namespace nbfft::coll {

RequestState::Step RequestState::advance() {
  Step step = Step::Pending;
  for (;;) {
    if (!reqs.empty()) {
      int flag = 0;
      // One request (the native/persistent algorithms' whole round) goes through MPI_Test:
      // MPICH 4.0.2's MPI_Testall fails on a persistent collective request with
      // MPI_ERR_IN_STATUS although the request completed fine.
      if (reqs.size() == 1)
        check_mpi(MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE), "MPI_Test");
      else
        check_mpi(MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag, MPI_STATUSES_IGNORE),
                  "MPI_Testall");
      if (!flag) return step;
      reqs.clear();
    }
    ++round;
    step = Step::Advanced;
    if (round >= static_cast<long>(sched->rounds.size())) return Step::Done;
    const Round& r = sched->rounds[static_cast<std::size_t>(round)];
    // Local work first: it consumes what the previous round received.
    for (const Op& op : r.ops) {
      switch (op.kind) {
        case Op::Kind::Copy: std::memcpy(op.dst, op.src, op.bytes); break;
        case Op::Kind::Reduce:
          check_mpi(MPI_Reduce_local(op.src, op.dst, op.count, op.type, op.op), "MPI_Reduce_local");
          break;
        case Op::Kind::Action: op.run(); break;
        default: break;
      }
    }
    for (const Op& op : r.ops) {
      MPI_Request req = MPI_REQUEST_NULL;
      switch (op.kind) {
        case Op::Kind::Send:
          check_mpi(MPI_Isend(op.src, static_cast<int>(op.bytes), MPI_BYTE, op.peer, tag, comm, &req), "MPI_Isend");
          break;
        case Op::Kind::Recv:
          check_mpi(MPI_Irecv(op.dst, static_cast<int>(op.bytes), MPI_BYTE, op.peer, tag, comm, &req), "MPI_Irecv");
          break;
        case Op::Kind::Request: check_mpi(op.post(&req), "posting an MPI request"); break;
        default: continue;
      }
      reqs.push_back(req);
    }
  }
}

}  // namespace nbfft::coll
