// `rma`: one-sided alltoall (the one-sided column of seed 000 Table II), built so that it
// never needs a collective synchronization call — fences would force every rank to
// complete outstanding collectives in the same order, which non-blocking use cannot promise.
//
// Build (collective): a window over recvbuf on a private communicator, opened for passive
// target access by everyone (MPI_Win_lock_all), and an exchange of where each rank wants
// each peer's block (its rdispls).
//
//   round 0:  copy own block | send "ready" token to every peer, receive theirs
//             (a peer is ready when it has started: its recvbuf may be overwritten)
//   round 1:  MPI_Put each block into its peer's window, MPI_Win_flush_all (remote
//             completion) | send "done" token to every peer, receive theirs
//   round 2:  MPI_Win_sync (the peers' puts become visible to this rank)
//
// Cost: 2 token rounds (2α each, P-1 tiny messages) plus the puts, (P-1)·n·β. The flush
// blocks whoever drives round 1, so with the caller engine that work lands in a test call.
#include "coll/alltoall_algorithms.hpp"
#include "coll/comm.hpp"
#include "coll/error.hpp"

namespace nbfft::coll::algorithms {

namespace {
struct Window {
  MPI_Win win = MPI_WIN_NULL;
  ~Window() {
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin || win == MPI_WIN_NULL) return;
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
};
}  // namespace

Built rma(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
  ScheduleBuilder b(comm);
  const int P = b.size(), me = b.rank();
  if (P == 1) {  // nothing to put; no window (some MPIs cannot open one on a lone process)
    b.copy(a.recvbuf + a.recvoffs[0], a.sendbuf + a.sendoffs[0], a.recvbytes[0]);
    return b.build(describe("rma (MPI_Put)", comm, a));
  }
  auto c = comm.private_duplicate();
  b.keep(c);

  // Where does my block go in each peer's recvbuf? Each rank tells each peer its rdispl.
  std::vector<unsigned long long> mine(a.recvoffs.begin(), a.recvoffs.end()), theirs(static_cast<std::size_t>(P));
  check_mpi(MPI_Alltoall(mine.data(), 1, MPI_UNSIGNED_LONG_LONG, theirs.data(), 1, MPI_UNSIGNED_LONG_LONG, *c),
            "MPI_Alltoall (rma displacements)");

  auto w = std::make_shared<Window>();
  const int rc = MPI_Win_create(a.recvbuf, static_cast<MPI_Aint>(a.recv_extent()), 1, MPI_INFO_NULL, *c, &w->win);
  if (rc != MPI_SUCCESS)
    throw Error("algorithm 'rma': this MPI cannot create an RMA window over the receive buffer here (Open MPI 4.1, "
                "for one, has no one-sided component for TCP under MPI_THREAD_MULTIPLE); use another algorithm");
  check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win), "MPI_Win_lock_all");
  b.keep(w);

  std::vector<int> peers;
  for (int i = 1; i < P; ++i) peers.push_back((me + i) % P);
  char* tokens = static_cast<char*>(b.scratch(static_cast<std::size_t>(P)));
  std::vector<void*> token_slots;
  for (int p : peers) token_slots.push_back(tokens + p);

  b.copy(a.recvbuf + a.recvoffs[me], a.sendbuf + a.sendoffs[me], a.recvbytes[me]);
  b.multi_send(tokens + me, 1, peers);
  b.multi_recv(token_slots, 1, peers);
  b.next_round();

  struct Put {
    const char* src;
    int count;
    int peer;
    MPI_Aint disp;
  };
  auto puts = std::make_shared<std::vector<Put>>();
  for (int p : peers) {
    // MPI_Put takes an int count: larger blocks are put in 1 GiB pieces.
    constexpr std::size_t kPiece = std::size_t{1} << 30;
    for (std::size_t off = 0; off < a.sendbytes[p]; off += kPiece)
      puts->push_back({a.sendbuf + a.sendoffs[p] + off, static_cast<int>(std::min(kPiece, a.sendbytes[p] - off)), p,
                       static_cast<MPI_Aint>(theirs[p] + off)});
  }
  b.keep(puts);
  const MPI_Win win = w->win;
  const std::vector<Put>* plist = puts.get();
  b.action([win, plist] {
    for (const Put& x : *plist)
      check_mpi(MPI_Put(x.src, x.count, MPI_BYTE, x.peer, x.disp, x.count, MPI_BYTE, win), "MPI_Put");
    check_mpi(MPI_Win_flush_all(win), "MPI_Win_flush_all");
  });
  b.multi_send(tokens + me, 1, peers);
  b.multi_recv(token_slots, 1, peers);
  // Every peer's puts are remotely complete; make them visible to this rank's loads.
  b.next_round();
  b.action([win] { check_mpi(MPI_Win_sync(win), "MPI_Win_sync"); });
  return b.build(describe("rma (MPI_Put)", comm, a));
}

}  // namespace nbfft::coll::algorithms
