// Executing a schedule: the state machine every engine drives.
//
// Receives are checked against what arrived: a peer that sent more than this rank expects
// (MPI_ERR_TRUNCATE) or less (a short count) means the ranks passed different counts to
// the same alltoallv. Such a receive is recorded, not thrown at once: the rest of the
// schedule still posts every send and receive, so the peers complete instead of waiting
// forever on this rank, and the request then fails naming the peer and both counts.
// Every send and receive posts at least one message (zero-byte ones too, see
// ScheduleBuilder), so a count of 0 against a count of n is seen like any other mismatch.
#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"

#include <cstring>
#include <string>

namespace nbfft::coll {

namespace {

int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

}  // namespace

RequestState::Step RequestState::advance() {
  Step step = Step::Pending;
  auto note = [&](const Op& op, const std::string& what) {
    if (!mismatch.empty()) return;  // the first one is what the user needs
    int me = -1;
    MPI_Comm_rank(comm, &me);
    mismatch = "'" + sched->description + "' on rank " + std::to_string(me) + ": " + what +
               " (the ranks passed different send/receive counts for the same exchange; every rank's " +
               "sendcounts[p] must equal rank p's recvcounts for it)";
    (void)op;
  };
  auto check_recv = [&](std::size_t k, const MPI_Status& s) {
    const Op* op = req_ops[k];
    req_ops[k] = nullptr;
    if (!op || op->kind != Op::Kind::Recv) return;
    int got = 0;
    if (MPI_Get_count(&s, MPI_BYTE, &got) == MPI_SUCCESS && got != MPI_UNDEFINED &&
        static_cast<std::size_t>(got) != op->bytes)
      note(*op, "rank " + std::to_string(op->peer) + " sent " + std::to_string(got) + " bytes, but this rank expected " +
                    std::to_string(op->bytes));
  };
  auto truncated = [&](std::size_t k) {
    const Op* op = req_ops[k];
    req_ops[k] = nullptr;
    reqs[k] = MPI_REQUEST_NULL;  // completed (in error) and freed by MPI
    note(*op, "rank " + std::to_string(op->peer) + " sent more than the " + std::to_string(op->bytes) +
                  " bytes this rank expected (the message was truncated)");
  };
  for (;;) {
    if (!reqs.empty()) {
      // Each request goes through its own MPI_Test, in order, stopping at the first still
      // pending: an error of a multi-request call (MPI_Testall) is raised by MPICH on
      // MPI_COMM_WORLD's handler, which aborts, while a single request's error goes to its
      // communicator's (MPI_ERRORS_RETURN on our duplicates). MPI_Test also sidesteps
      // MPICH 4.0.2's MPI_Testall failing on a completed persistent collective request.
      int flag = 1;
      for (std::size_t k = 0; k < reqs.size() && flag; ++k) {
        if (reqs[k] == MPI_REQUEST_NULL && !req_ops[k]) continue;  // done in an earlier pass
        MPI_Status s;
        const int rc = MPI_Test(&reqs[k], &flag, &s);
        if (rc != MPI_SUCCESS && req_ops[k] && req_ops[k]->kind == Op::Kind::Recv &&
            error_class(rc) == MPI_ERR_TRUNCATE) {
          truncated(k);
          flag = 1;
        } else {
          check_mpi(rc, "MPI_Test");
          if (flag) check_recv(k, s);
        }
      }
      if (!flag) return step;
      reqs.clear();
      req_ops.clear();
    }
    ++round;
    step = Step::Advanced;
    if (round >= static_cast<long>(sched->rounds.size())) {
      if (!mismatch.empty()) throw Error(mismatch, ErrorCode::RanksDisagree);
      return Step::Done;
    }
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
      req_ops.push_back(&op);
    }
  }
}

}  // namespace nbfft::coll
