// `rma`: one-sided alltoall (the one-sided column of seed 000 Table II), built so that it
// never needs a collective synchronization call — fences, or a window freed per
// collective, would force every rank to finish outstanding collectives in one order,
// which non-blocking use cannot promise.
//
// Build (collective): attach recvbuf to the Comm's dynamic window (a local call) and
// exchange the absolute addresses where each rank wants each peer's block.
//
//   round 0:  copy own block | send "ready" token to every peer, receive theirs
//             (a peer is ready when it has started: its recvbuf may be overwritten)
//   round 1:  MPI_Put each block into its peer's recvbuf, MPI_Win_flush_all (remote
//             completion) | send "done" token to every peer, receive theirs
//   round 2:  MPI_Win_sync (the peers' puts become visible to this rank)
//
// Cost: 2 token rounds (2α each, P-1 one-byte messages) plus the puts, (P-1)·n·β. The
// flush blocks whoever drives round 1, so with the caller engine it lands in a test call.
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/error.hpp"

namespace nbfft::coll::algorithms {

Built rma(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
  ScheduleBuilder b(comm);
  const int P = b.size(), me = b.rank();
  b.copy(a.recvbuf + a.recvoffs[me], a.sendbuf + a.sendoffs[me], a.recvbytes[me]);
  if (P == 1) return b.build(describe("rma (MPI_Put)", comm, a));

  const MPI_Win win = comm.rma_window();
  const std::size_t extent = a.recv_extent();
  if (extent > 0) {
    check_mpi(MPI_Win_attach(win, a.recvbuf, static_cast<MPI_Aint>(extent)), "MPI_Win_attach");
    char* base = a.recvbuf;
    b.keep(std::shared_ptr<void>(base, [win](void* p) {
      int fin = 0;
      MPI_Finalized(&fin);
      if (!fin) MPI_Win_detach(win, p);
    }));
  }
  // Where does my block go in each peer's recvbuf? Every rank tells every peer.
  std::vector<MPI_Aint> mine(static_cast<std::size_t>(P)), theirs(static_cast<std::size_t>(P));
  for (int p = 0; p < P; ++p) check_mpi(MPI_Get_address(a.recvbuf + a.recvoffs[p], &mine[p]), "MPI_Get_address");
  quiesce_all();
  check_mpi(MPI_Alltoall(mine.data(), 1, MPI_AINT, theirs.data(), 1, MPI_AINT, comm.mpi()),
            "MPI_Alltoall (rma addresses)");

  std::vector<int> peers;
  for (int i = 1; i < P; ++i) peers.push_back((me + i) % P);
  char* tokens = static_cast<char*>(b.scratch(static_cast<std::size_t>(P)));
  std::vector<void*> token_slots;
  for (int p : peers) token_slots.push_back(tokens + p);
  b.multi_send(tokens + me, 1, peers);
  b.multi_recv(token_slots, 1, peers);
  b.next_round();

  struct Put {
    const char* src;
    int count;
    int peer;
    MPI_Aint addr;
  };
  auto puts = std::make_shared<std::vector<Put>>();
  for (int p : peers) {
    constexpr std::size_t kPiece = std::size_t{1} << 30;  // MPI_Put takes an int count
    for (std::size_t off = 0; off < a.sendbytes[p]; off += kPiece)
      puts->push_back({a.sendbuf + a.sendoffs[p] + off, static_cast<int>(std::min(kPiece, a.sendbytes[p] - off)), p,
                       MPI_Aint_add(theirs[p], static_cast<MPI_Aint>(off))});
  }
  b.keep(puts);
  const std::vector<Put>* plist = puts.get();
  b.action([win, plist] {
    for (const Put& x : *plist)
      check_mpi(MPI_Put(x.src, x.count, MPI_BYTE, x.peer, x.addr, x.count, MPI_BYTE, win), "MPI_Put");
    check_mpi(MPI_Win_flush_all(win), "MPI_Win_flush_all");
  });
  b.multi_send(tokens + me, 1, peers);
  b.multi_recv(token_slots, 1, peers);
  b.next_round();
  b.action([win] { check_mpi(MPI_Win_sync(win), "MPI_Win_sync"); });
  return b.build(describe("rma (MPI_Put)", comm, a));
}

}  // namespace nbfft::coll::algorithms
