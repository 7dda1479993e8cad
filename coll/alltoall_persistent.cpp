// `persistent`: MPI-4's persistent collective MPI_Alltoall_init / MPI_Alltoallv_init
// (Open MPI 4.x ships it as MPIX_Alltoall(v)_init in its pcollreq extension), created at
// build time and started with MPI_Start: the library may precompute its schedule once,
// as nbfft does for its own. Where the MPI has neither form the algorithm reports itself
// unavailable — no silent fallback to another algorithm.
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/error.hpp"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#if MPI_VERSION >= 4
#define NBFFT_ALLTOALL_INIT(...) MPI_Alltoall_init(__VA_ARGS__)
#define NBFFT_ALLTOALLV_INIT(...) MPI_Alltoallv_init(__VA_ARGS__)
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define NBFFT_ALLTOALL_INIT(...) MPIX_Alltoall_init(__VA_ARGS__)
#define NBFFT_ALLTOALLV_INIT(...) MPIX_Alltoallv_init(__VA_ARGS__)
#endif

namespace nbfft::coll::algorithms {

const char* persistent_unavailable() {
#ifdef NBFFT_ALLTOALL_INIT
  return nullptr;
#else
  return "this MPI has neither MPI-4's MPI_Alltoall_init nor Open MPI's MPIX_Alltoall_init";
#endif
}

Built persistent(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
#ifdef NBFFT_ALLTOALL_INIT
  ScheduleBuilder b(comm);
  const MpiHandoff h = hand_to_mpi(b, comm, a, "persistent");
  auto req = std::shared_ptr<MPI_Request>(new MPI_Request(MPI_REQUEST_NULL), [](MPI_Request* r) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin && *r != MPI_REQUEST_NULL) MPI_Request_free(r);
    delete r;
  });
  const MpiVector& mv = *h.v;
  if (a.uniform) {
    const int n = mv.sendcounts.empty() ? 0 : mv.sendcounts[0];
    check_mpi(NBFFT_ALLTOALL_INIT(a.sendbuf, n, mv.type, a.recvbuf, n, mv.type, h.comm, MPI_INFO_NULL, req.get()),
              "MPI_Alltoall_init");
  } else {
    check_mpi(NBFFT_ALLTOALLV_INIT(a.sendbuf, mv.sendcounts.data(), mv.sdispls.data(), mv.type, a.recvbuf,
                                   mv.recvcounts.data(), mv.rdispls.data(), mv.type, h.comm, MPI_INFO_NULL, req.get()),
              "MPI_Alltoallv_init");
  }
  // Kept after the communicator and datatype: resources are released in reverse order
  // of keep(), and the request must go before them.
  b.keep(req);
  MPI_Request* preq = req.get();
  b.request([preq](MPI_Request* out) {
    *out = *preq;  // MPI_Testall leaves a completed persistent request inactive, not freed
    return MPI_Start(out);
  });
  return b.build(describe("persistent (MPI_Alltoall_init)", comm, a));
#else
  (void)comm;
  (void)a;
  throw Error(std::string("algorithm 'persistent' is unavailable: ") + persistent_unavailable(), ErrorCode::Unavailable);
#endif
}

}  // namespace nbfft::coll::algorithms
