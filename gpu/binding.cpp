// Which GPU a rank takes (Options::device_id = -1): its node-local index modulo the GPUs it
// sees, so that the ranks of a node spread over the node's GPUs instead of all opening GPU 0.
#include "gpu/transform.hpp"

#include "nbfft/error.hpp"

namespace nbfft::gpu {

int node_local_rank(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    throw Error("MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed", ErrorCode::Mpi);
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

}  // namespace nbfft::gpu
