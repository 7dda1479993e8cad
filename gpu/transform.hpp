// The device plan: the slab/pencil 3-D FFT on arrays in device memory (Options::device).
//
// Written once over gpu/device.hpp, so the CUDA device runs it and the host emulation checks
// its logic on every machine. Per direction it is a path of local FFT stages and exchanges:
//
//   forward   A: the FFT over the axes the input pencil holds whole (x; x and y on slabs;
//             all three on one rank: one cuFFT call over the whole array), input -> buffer A
//             ROW (M1 > 1): A [z][y][xc] -> Y [z][x][y], then the y FFT (y contiguous)
//             COL (M2 > 1; with M2 = 1 after ROW, the rank's own permutation on the
//             device): A or Y -> Z [z][y][x], then the z FFT (one strided batched call)
//             output: Z in numpy's order (OutputOrder::Natural) written by the z FFT, or
//             permuted into the CPU plan's transposed order [y][z][x]
//   backward  the same path reversed; its first move copies the spectrum into Z, scaled, so
//             the input is left untouched (cuFFT's c2r overwrites its input).
//
// Each stage's FFT is one batched call (not one per plane: a GPU needs the whole pencil in
// one launch). Each exchange packs every peer's block with one move kernel, copies it to
// pinned host memory, runs the engine's alltoallv (any algorithm and engine of coll/) and
// copies and unpacks what arrived (device_exchange=ipc instead reads the peers' packed
// blocks from their device memory; mpi hands the packed device buffers to MPI; nccl queues
// NCCL sends and receives on the field's queue); the rank's own block moves on the device. Blocks whose
// layout is already the wire's skip the pack. An exchange runs in chunks of z planes (side
// 0's, as fft/exchange.hpp), so chunk k's MPI runs while chunk k+1 is copied to the host and
// chunk k-1 back to the device.
//
// Several fields (forward_many) run on one queue per workspace: field j's FFTs and copies are
// queued while field j-1's exchange is on the wire. Split-phase starts (start()) run on
// workspaces of make_work(). Every field in progress, of a plain call or a start, is in one
// flight of the plan, and collectives start in one order on every rank (field by field in
// the order of the calls, exchange by exchange, chunk by chunk): their tags are reserved at
// the start, and readiness differs between ranks.
#pragma once

#include "gpu/device.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/fft/direction.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/timings.hpp"

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>

namespace nbfft::gpu {

// The buffers, queue and bound collectives one transform in flight runs on (a workspace).
class DeviceWork {
 public:
  virtual ~DeviceWork() = default;
  virtual std::size_t bytes() const = 0;  // device bytes it holds
};

// A split-phase transform in progress (DeviceTransform::start).
class DeviceRun {
 public:
  virtual ~DeviceRun() = default;
  // One pass: queues the local work whose inputs are ready and starts the exchanges whose
  // turn it is, for this transform and every other of the plan in flight; true once all
  // of this transform is queued (the device may still be running it).
  virtual bool advance() = 0;
  // Advances until all of it is queued, then waits for the device: the output is written.
  // Collective where the plan exchanges (other ranks' transforms must advance too).
  virtual void finish() = 0;
};

class DeviceTransform {
 public:
  virtual ~DeviceTransform() = default;
  // nv fields: in[f] and out[f] device arrays of the plan's input and output sizes, read
  // after everything queued on the device before the call has finished (any stream), and
  // written when the call returns. With
  // timings, the fields run one after the other and every step waits for the device before
  // the next, so that each phase's seconds are its own (fft_x: the first local stage, fft_y:
  // the y FFT, fft_z: the last stage; pack: an exchange's packs and copies to the host; row /
  // col: its MPI; unpack: its copies back to the device and unpacks).
  virtual void run(fft::Direction dir, int nv, const void* const* in, void* const* out, fft::Timings* t) const = 0;
  virtual std::string describe() const = 0;  // stages, exchanges and the device, one per line
  virtual std::size_t workspace_bytes() const = 0;  // device bytes the plan holds
  virtual Device& device() const = 0;
  // Collective over the plan's ranks, once after construction: device_exchange=ipc opens the
  // peers' staging buffers (their handles travel over each exchange's communicator).
  virtual void connect() = 0;
  // A workspace for split-phase transforms (local: allocates), then connect(w) (collective
  // as connect()).
  virtual std::unique_ptr<DeviceWork> make_work() const = 0;
  virtual void connect(DeviceWork& w) const = 0;
  // Starts one field's transform on w (free until the run finishes): queues what it can,
  // starts its first exchange if the device is there already, and returns. Collective and
  // in the same order on every rank; the run's exchanges start after those of every
  // transform started (or run) before it, on every rank alike.
  virtual std::unique_ptr<DeviceRun> start(fft::Direction dir, const void* in, void* out, DeviceWork& w) const = 0;
};

// What the device plan cannot do (yet), or "" when it can: the plan's error on every rank.
std::string device_limits(const fft::Decomposition& d, const fft::Options& o);

// This rank's index among the ranks of comm on its node (MPI_COMM_TYPE_SHARED; collective):
// the GPU a device plan picks when Options::device_id is -1 is this modulo the GPUs seen.
int node_local_rank(MPI_Comm comm);

// The device a plan of o runs on on this rank (Options::device, device_id; -1: the node-local
// index modulo the GPUs seen). Collective over comm for device=cuda with device_id -1 (every
// rank takes part before any throws); Error(Unavailable) naming why when there is no GPU.
// Plans, the tuner's trial arrays and the benchmarks take their device from here.
std::shared_ptr<Device> open_device(const fft::Options& o, MPI_Comm comm);

// Whether t's alltoall algorithm hands the buffers to MPI as they are, which
// device_exchange=mpi needs (the others copy blocks on the host): the plan's check and the
// tuner's choice of a transport for that exchange.
bool hands_buffers_to_mpi(const coll::Transport& t);

// "" when the MPI library takes CUDA device memory (device_exchange=mpi), else why not.
std::string mpi_cuda_support();

// row / col: the exchanges' communicators (empty when M1 / M2 is 1).
std::unique_ptr<DeviceTransform> make_device_transform(std::shared_ptr<Device> dev, const fft::Decomposition& d,
                                                       const fft::Options& o, const coll::Comm& row,
                                                       const coll::Comm& col);

}  // namespace nbfft::gpu
