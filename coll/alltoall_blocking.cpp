// `blocking`: MPI_Alltoall / MPI_Alltoallv executed when the collective starts (on the
// engine's agent for the thread engine). The baseline every overlap is measured against:
// start() returns only when the exchange is done (caller and native engines).
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/error.hpp"

namespace nbfft::coll::algorithms {

Built blocking(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
  ScheduleBuilder b(comm);
  const MpiHandoff h = hand_to_mpi(b, comm, a, "blocking");
  b.mark_blocks_on_peers();
  const MpiVector* mv = h.v;
  const MPI_Comm mc = h.comm;
  const char* s = a.sendbuf;
  char* r = a.recvbuf;
  if (a.uniform) {
    const int n = mv->sendcounts.empty() ? 0 : mv->sendcounts[0];
    b.action([=] { check_mpi(MPI_Alltoall(s, n, mv->type, r, n, mv->type, mc), "MPI_Alltoall"); });
  } else {
    b.action([=] {
      check_mpi(MPI_Alltoallv(s, mv->sendcounts.data(), mv->sdispls.data(), mv->type, r, mv->recvcounts.data(),
                              mv->rdispls.data(), mv->type, mc),
                "MPI_Alltoallv");
    });
  }
  return b.build(describe("blocking (MPI_Alltoall)", comm, a));
}

}  // namespace nbfft::coll::algorithms
