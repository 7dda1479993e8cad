// The five redistribution kernels of seed 002 §3 as ways to run the COL exchange (the slab
// transpose when M1 = 1), in plain MPI on a private duplicate of the COL communicator:
//
//   replace    MPI_Sendrecv_replace with each peer in turn, per plane: one buffer, P-1
//              calls per plane. Both sides of a call must agree on its count, so every
//              block of a chunk is padded to the largest block of that chunk over all
//              ranks (no padding on even grids); blocks go through a staging buffer.
//   standard   blocking MPI_Send and MPI_Recv with each peer, per plane: 2(P-1) calls.
//              Step s sends to rank+s and receives from rank-s; the lowest rank of each
//              cycle of that shift receives first, the others send first (no deadlock
//              whatever MPI buffers).
//   overlap    MPI_Isend / MPI_Irecv with every peer per plane; a plane's requests are
//              completed after the next plane has been transformed and posted.
//   oneplane   MPI_Alltoallv per plane.
//   allplanes  one MPI_Alltoallv of all planes (the plain transform's bulk exchange).
//
// Everything inside an MPI call is communication time (Timings::col); the copies into and
// out of the staging buffer of `replace` are packing. "Plane" means a chunk of
// Options::col_chunk_planes planes (default 1), laid out by ColChunks (transpose.hpp).
#pragma once

#include "nbfft/fft/options.hpp"
#include "nbfft/fft/timings.hpp"
#include "fft/transpose.hpp"

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace nbfft::fft {

class KernelExchange {
 public:
  // comm: a communicator no other traffic uses (collective to build: one MPI_Allreduce for
  // the replace kernel's padded counts). elem: bytes per element. chunk_counts: the counts
  // of every chunk of one direction (forward or backward), in elements.
  KernelExchange(ColKernel kind, std::shared_ptr<MPI_Comm> comm, std::size_t elem,
                 std::vector<ExchangeCounts> forward_chunks, std::vector<ExchangeCounts> backward_chunks);
  ~KernelExchange();
  KernelExchange(const KernelExchange&) = delete;
  KernelExchange& operator=(const KernelExchange&) = delete;

  ColKernel kind() const { return kind_; }
  // Exchanges chunk k of a direction (0 forward, 1 backward) from send to recv, with counts
  // and displacements (elements) as given at construction. Blocking kernels complete it
  // here; overlap posts it and completes the chunk before.
  void chunk(int dir, std::size_t k, const void* send, void* recv, Timings* t);
  // One whole exchange with the given counts (allplanes).
  void bulk(const ExchangeCounts& e, const void* send, void* recv, Timings* t);
  // Completes every posted chunk (overlap); a no-op for the others.
  void finish(Timings* t);

 private:
  void wait_pending();
  ColKernel kind_;
  std::shared_ptr<MPI_Comm> comm_;
  int me_ = 0, size_ = 1;
  std::size_t elem_;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;  // elem bytes, contiguous
  std::vector<ExchangeCounts> chunks_[2];
  std::vector<std::int64_t> padded_[2];  // replace: the largest block of each chunk, over all ranks
  std::vector<char> staging_;            // replace: one padded slot per step
  std::vector<MPI_Request> pending_;     // overlap: the requests of the last posted chunk
};

}  // namespace nbfft::fft
