// Which GPU a rank takes (Options::device_id = -1): its node-local index modulo the GPUs it
// sees, so that the ranks of a node spread over the node's GPUs instead of all opening GPU 0;
// and whether the MPI library takes GPU memory (device_exchange=mpi).
#include "gpu/transform.hpp"

#include "nbfft/error.hpp"

#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_Query_cuda_support
#endif

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

std::shared_ptr<Device> open_device(const fft::Options& o, MPI_Comm comm) {
  if (o.device == fft::Device::Emulated) return host_emulation();
  const int local = o.device_id < 0 ? node_local_rank(comm) : 0;  // (collective: before any error)
  std::string why;
  const int count = cuda_device_count(&why);
  if (count == 0) throw Error("device=cuda: no usable GPU on this rank (" + why + ")", ErrorCode::Unavailable);
  return cuda_device(o.device_id < 0 ? local % count : o.device_id);
}

std::string mpi_cuda_support() {
  // Asked at run time: the library loaded may not be the one compiled against.
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  if (MPIX_Query_cuda_support() == 1) return "";
  return "this Open MPI does not take GPU memory (MPIX_Query_cuda_support() = 0)";
#elif defined(MPIX_GPU_SUPPORT_CUDA)
  int yes = 0;
  if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS && yes) return "";
  return "this MPICH does not take GPU memory (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA) = 0)";
#else
  return "this MPI library has no query for GPU memory support (MPIX_Query_cuda_support, MPIX_GPU_query_support)";
#endif
}

}  // namespace nbfft::gpu
