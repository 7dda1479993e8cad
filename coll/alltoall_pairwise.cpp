// Pairwise exchange with a communication window (seed 000 Fig. 6), and `linear`.
//
// Step i = 1..P-1 exchanges one block with one peer: with a power-of-two P the peer is
// rank XOR i (both directions with the same partner); otherwise rank sends to rank+i and
// receives from rank-i (mod P). Steps are grouped W at a time into rounds, so at most W
// exchanges are in flight and the next W are posted only when the previous W completed:
//
//   round 0:  copy own block | post steps 1..W        (send+recv each)
//   round 1:  post steps W+1..2W                      (after round 0 completed)
//   ...
//
// Cost: ceil((P-1)/W) · (α + W·n·β). A small W limits contention and buffer pressure; a
// large W keeps more bytes in flight. `linear` is W = P-1: one round, everything posted at
// once — the cheapest schedule to progress, and the most contention on the network.
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"

namespace nbfft::coll::algorithms {

namespace {
Built build_windowed(const Comm& comm, const AlltoallvArgs& a, int window, const std::string& name) {
  ScheduleBuilder b(comm);
  const int P = b.size(), me = b.rank();
  const bool pow2 = (P & (P - 1)) == 0;
  b.copy(a.recvbuf + a.recvoffs[me], a.sendbuf + a.sendoffs[me], a.recvbytes[me]);
  for (int i = 1; i < P; ++i) {
    if (i > 1 && (i - 1) % window == 0) b.next_round();
    const int to = pow2 ? me ^ i : (me + i) % P;
    const int from = pow2 ? me ^ i : (me - i + P) % P;
    // Send first: over Open MPI's TCP transport a send posted ahead of its receive moved
    // 2 MB each way in 18-20 ms against 25-27 ms the other way round (netcluster, 2gbit).
    b.send(to, a.sendbuf + a.sendoffs[to], a.sendbytes[to]);
    b.recv(from, a.recvbuf + a.recvoffs[from], a.recvbytes[from]);
  }
  return b.build(describe(name.c_str(), comm, a));
}
}  // namespace

Built pairwise(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec& spec) {
  return build_windowed(comm, a, spec.window, "pairwise window=" + std::to_string(spec.window));
}

Built linear(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
  return build_windowed(comm, a, std::max(1, comm.size() - 1), "linear");
}

}  // namespace nbfft::coll::algorithms
