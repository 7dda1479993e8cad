// Collectives composed from the seed-003 primitives (multi-send, multi-receive,
// receive-reduce, receive-replicate; see ScheduleBuilder). They run on any engine.
//
//   bcast      binomial tree: each non-root receive-replicates from its parent to its
//              children; ceil(log2 P) rounds, (log P)(α + nβ).
//   barrier    dissemination: in round k, multi-send to rank+2^k, receive from rank-2^k;
//              ceil(log2 P) rounds of 1-byte messages.
//   allreduce  binomial receive-reduce to rank 0, then the bcast tree; 2 log P rounds.
#pragma once

#include "nbfft/coll/request.hpp"

#include <cstdint>

namespace nbfft::coll {

Collective bcast(const Comm& comm, void* buf, std::int64_t count, std::size_t elem_size, int root);
Collective barrier(const Comm& comm);
Collective allreduce(const Comm& comm, const void* sendbuf, void* recvbuf, std::int64_t count,
                     MPI_Datatype type, MPI_Op op);

}  // namespace nbfft::coll
