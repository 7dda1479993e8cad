// `native`: the MPI library's own MPI_Ialltoall / MPI_Ialltoallv as one request.
//
// Cost: whatever the library's algorithm costs; progress is the library's (plus nbfft's
// test calls under the caller and thread engines). It runs on a private duplicate
// communicator per collective: MPI-level collectives must be issued in the same order on
// every rank, and a communicator of its own keeps this one independent of every other
// outstanding collective, whichever thread posts it.
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"

namespace nbfft::coll::algorithms {

Built native(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
  ScheduleBuilder b(comm);
  const MpiHandoff h = hand_to_mpi(b, comm, a, "native");
  const MpiVector* mv = h.v;
  const MPI_Comm mc = h.comm;
  const char* s = a.sendbuf;
  char* r = a.recvbuf;
  if (a.uniform) {
    const int n = mv->sendcounts.empty() ? 0 : mv->sendcounts[0];
    b.request([=](MPI_Request* req) { return MPI_Ialltoall(s, n, mv->type, r, n, mv->type, mc, req); });
  } else {
    b.request([=](MPI_Request* req) {
      return MPI_Ialltoallv(s, mv->sendcounts.data(), mv->sdispls.data(), mv->type, r, mv->recvcounts.data(),
                            mv->rdispls.data(), mv->type, mc, req);
    });
  }
  return b.build(describe("native (MPI_Ialltoall)", comm, a));
}

}  // namespace nbfft::coll::algorithms
