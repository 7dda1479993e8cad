// Bruck's alltoall (equal counts only): log2 P rounds instead of P-1, paying with
// copies — the choice for small messages, where latency dominates.
//
//   rotate:    tmp[i] = send block (rank+i) mod P
//   round k:   for each bit 2^k < P: pack the blocks whose index has that bit set, send them
//              to rank+2^k, receive the same set from rank-2^k and unpack into tmp
//   unrotate:  recv block (rank-i) mod P = tmp[i]
//
// Cost: ceil(log2 P) · (α + (P/2)·n·β) plus about (log2 P + 2)·P·n bytes of local copies.
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"

namespace nbfft::coll::algorithms {

Built bruck(const Comm& comm, const AlltoallvArgs& a, const AlgorithmSpec&) {
  ScheduleBuilder b(comm);
  const int P = b.size(), me = b.rank();
  const std::size_t n = a.sendbytes.empty() ? 0 : a.sendbytes[0];
  char* tmp = static_cast<char*>(b.scratch(n * static_cast<std::size_t>(P)));
  char* pack = static_cast<char*>(b.scratch(n * static_cast<std::size_t>((P + 1) / 2)));
  char* unpack = static_cast<char*>(b.scratch(n * static_cast<std::size_t>((P + 1) / 2)));
  for (int i = 0; i < P; ++i) b.copy(tmp + n * i, a.sendbuf + n * ((me + i) % P), n);
  std::vector<int> prev;  // block indices received in the previous round
  for (int k = 1; k < P; k <<= 1) {
    for (std::size_t j = 0; j < prev.size(); ++j) b.copy(tmp + n * prev[j], unpack + n * j, n);
    std::vector<int> blocks;
    for (int i = 1; i < P; ++i)
      if (i & k) blocks.push_back(i);
    for (std::size_t j = 0; j < blocks.size(); ++j) b.copy(pack + n * j, tmp + n * blocks[j], n);
    b.recv((me - k + P) % P, unpack, n * blocks.size());
    b.send((me + k) % P, pack, n * blocks.size());
    b.next_round();
    prev = std::move(blocks);
  }
  for (std::size_t j = 0; j < prev.size(); ++j) b.copy(tmp + n * prev[j], unpack + n * j, n);
  for (int i = 0; i < P; ++i) b.copy(a.recvbuf + n * ((me - i + P) % P), tmp + n * i, n);
  return b.build(describe("bruck", comm, a));
}

}  // namespace nbfft::coll::algorithms
