// `standard`: seed 002's second redistribution kernel, blocking MPI_Send / MPI_Recv with
// each peer in turn. Step s = 1..P-1 sends to rank+s and receives from rank-s. The ranks
// of one cycle of the shift by s form a ring; if all sent first, a rendezvous MPI would
// deadlock, so the lowest rank of each cycle (rank < gcd(s, P)) receives first:
//
//   cycle 0 -> s -> 2s -> ... -> 0:   0 recv,send   s send,recv   2s send,recv ...
//
// Blocking like `blocking`: start() returns when done. Cost: (P-1)(2α + nβ) with each
// step serialized along its cycle (up to P/gcd hops of latency when messages rendezvous).
#include "local/move.hpp"
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/error.hpp"

#include <cstring>
#include <numeric>

namespace nbfft::coll::algorithms {

Built standard(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
  ScheduleBuilder b(comm);
  const int P = b.size(), me = b.rank();
  const MpiHandoff h = hand_to_mpi(b, comm, a, "standard");
  b.mark_blocks_on_peers();
  const MpiVector* mv = h.v;
  const MPI_Comm mc = h.comm;
  const char* s = a.sendbuf;
  char* r = a.recvbuf;
  const std::size_t elem = a.elem_size;
  b.action([=] {
    const auto& sc = mv->sendcounts;
    const auto& rc = mv->recvcounts;
    local::copy_bytes(r + static_cast<std::size_t>(mv->rdispls[me]) * elem,  // the own block
                      s + static_cast<std::size_t>(mv->sdispls[me]) * elem, static_cast<std::size_t>(rc[me]) * elem);
    for (int step = 1; step < P; ++step) {
      const int to = (me + step) % P, from = (me - step + P) % P;
      auto send = [&] {
        if (sc[to])
          check_mpi(MPI_Send(s + static_cast<std::size_t>(mv->sdispls[to]) * elem, sc[to], mv->type, to, step, mc),
                    "MPI_Send");
      };
      auto recv = [&] {
        if (rc[from])
          check_mpi(MPI_Recv(r + static_cast<std::size_t>(mv->rdispls[from]) * elem, rc[from], mv->type, from, step, mc,
                             MPI_STATUS_IGNORE),
                    "MPI_Recv");
      };
      if (me < std::gcd(step, P)) {
        recv();
        send();
      } else {
        send();
        recv();
      }
    }
  });
  return b.build(describe("standard (blocking MPI_Send/MPI_Recv pairs)", comm, a));
}

}  // namespace nbfft::coll::algorithms
