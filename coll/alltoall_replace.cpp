// `replace`: seed 002's first redistribution kernel. Step s = 1..P-1 passes one block
// through MPI_Sendrecv_replace with rank+s (send) and rank-s (receive), all in one buffer:
//
//   step s:  stage <- my block for rank+s | Sendrecv_replace(stage, n) | block of rank-s <- stage
//
// Both ends of a Sendrecv_replace use one count, so every step moves the largest block of
// the whole exchange over all ranks (n, agreed by one MPI_Allreduce when the collective is
// built; no padding on even grids). Blocking, like `blocking`: start() returns when done.
//
// Cost: (P-1)(α + n_max β) + 2 copies of every block through the staging buffer; the
// least memory of any algorithm (one block), the most synchronization (P-1 rendezvous).
#include "local/move.hpp"
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/error.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace nbfft::coll::algorithms {

Built replace(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
  ScheduleBuilder b(comm);
  const int P = b.size(), me = b.rank();
  auto dup = comm.private_duplicate();
  b.keep(dup);
  const MPI_Comm mc = *dup;
  std::int64_t mine = 0;
  for (int p = 0; p < P; ++p)
    if (p != me) mine = std::max<std::int64_t>({mine, static_cast<std::int64_t>(a.sendbytes[p]),
                                                static_cast<std::int64_t>(a.recvbytes[p])});
  std::int64_t n = 0;
  check_mpi(MPI_Allreduce(&mine, &n, 1, MPI_INT64_T, MPI_MAX, mc), "MPI_Allreduce");
  if (n > INT_MAX)
    throw Error("algorithm 'replace': a block of " + std::to_string(n) +
                " bytes exceeds MPI's int range; use pairwise, linear or bruck, which split large messages");
  b.mark_blocks_on_peers();
  char* stage = static_cast<char*>(b.scratch(static_cast<std::size_t>(n)));
  const char* s = a.sendbuf;
  char* r = a.recvbuf;
  const auto sb = a.sendbytes, so = a.sendoffs, rb = a.recvbytes, ro = a.recvoffs;
  b.action([=] {
    local::copy_bytes(r + ro[me], s + so[me], rb[me]);  // the own block
    if (n == 0) return;
    for (int step = 1; step < P; ++step) {
      const int to = (me + step) % P, from = (me - step + P) % P;
      local::copy_bytes(stage, s + so[to], sb[to]);
      check_mpi(MPI_Sendrecv_replace(stage, static_cast<int>(n), MPI_BYTE, to, step, from, step, mc, MPI_STATUS_IGNORE),
                "MPI_Sendrecv_replace");
      local::copy_bytes(r + ro[from], stage, rb[from]);
    }
  });
  const std::string what = "replace (MPI_Sendrecv_replace, blocks padded to " + std::to_string(n) + " B)";
  return b.build(describe(what.c_str(), comm, a));
}

}  // namespace nbfft::coll::algorithms
