// Moving an N-D array between two decompositions: every rank holds one block (a Box, in its
// own memory order) of the array in each, and the blocks of each tile the array. One
// MPI_Alltoallv: each rank sends every other the part of its source block that lies in the
// other's destination block. nd::Plan's user boxes (nbfft/nd/plan.hpp) run on it: the
// caller's blocks to the plan's before a transform, the plan's to the caller's after.
#pragma once

#include "nbfft/nd/plan.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace nbfft::nd::detail {

// Whether every rank's box (lo, n with one entry per axis; order ignored) lies inside
// `shape` and the boxes together cover it exactly once; "" or what is wrong, naming the
// rank(s) (`what`: "in_box", "out_box").
std::string check_tiling(const std::vector<Box>& boxes, const std::vector<std::int64_t>& shape, const std::string& what);

class Reshape {
 public:
  // src[r], dst[r]: rank r's blocks (each in its own memory order); elem: bytes per element.
  // Local; throws InvalidArgument when this rank would move more than MPI's int counts.
  Reshape(MPI_Comm comm, const std::vector<Box>& src, const std::vector<Box>& dst, std::size_t elem);
  // Bytes of the send and receive buffers run() takes.
  std::size_t scratch_bytes() const { return sbytes_ + rbytes_; }
  // Collective over comm: `from` holds this rank's src block, `to` gets its dst block;
  // scratch: scratch_bytes() bytes (made by the caller, before it agrees on the call).
  void run(const void* from, void* to, unsigned char* scratch) const;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  std::size_t elem_;
  Box src_, dst_;
  std::vector<Box> sends_, recvs_;  // per peer: the part of my src in its dst; of its src in my dst
  std::vector<int> scount_, sdispl_, rcount_, rdispl_;  // in elements
  std::size_t sbytes_ = 0, rbytes_ = 0;
};

}  // namespace nbfft::nd::detail
