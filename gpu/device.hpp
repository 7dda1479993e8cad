// The device layer: memory, queues, copies, moves and local FFTs of an accelerator, behind
// one interface, so that the device plan (gpu/transform.hpp) is written once.
//
// Two devices implement it: CUDA (gpu/cuda_device.cu: cudaMalloc, streams and events,
// copy kernels, cuFFT), built with NBFFT_WITH_CUDA, and the host emulation
// (gpu/host_device.cpp: host memory, every call done when it returns, the local FFT layer),
// always built, so the device plan's schedule, exchange geometry, staging and pipelining are
// tested on every machine against the CPU plan, and a GPU run checks only the kernels.
//
// Everything a Queue is asked to do runs in the queue's order and asynchronously to the
// host; an Event recorded on a queue says when what was queued before it has finished.
#pragma once

#include "local/transform.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nbfft::gpu {

using Index = std::int64_t;
using Strides = std::array<Index, 3>;  // elements between neighbours along x, y, z

// A local FFT planned on the device (the device's own library), run by Queue::fft.
class Fft {
 public:
  virtual ~Fft() = default;
  virtual std::size_t work_bytes() const = 0;  // scratch each run needs (Queue::fft's work)
};

class Event {
 public:
  virtual ~Event() = default;
  virtual bool ready() = 0;  // whether what was queued before the last record has finished
  virtual void wait() = 0;   // blocks the host until then
};

class Queue {
 public:
  virtual ~Queue() = default;
  // bytes from src to dst, both device or pinned host memory (any direction).
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  // Moves the box of n[0] x n[1] x n[2] elements of `elem` bytes (8: complex<float>, 16:
  // complex<double>) between two strided layouts, multiplying by `factor` unless it is 1:
  //   dst[x*ds[0] + y*ds[1] + z*ds[2]] = factor * src[x*ss[0] + y*ss[1] + z*ss[2]]
  // (the exchanges' pack and unpack, the output order's permutation and the scaling).
  virtual void move(void* dst, const Strides& ds, const void* src, const Strides& ss, const std::array<Index, 3>& n,
                    std::size_t elem, double factor) = 0;
  // count reals of `real_bytes` (4 or 8) times factor, in place.
  virtual void scale(void* p, Index count, std::size_t real_bytes, double factor) = 0;
  // Runs `f` (planned by Device::plan) on in and out, with work_bytes() of scratch at work.
  virtual void fft(const Fft& f, void* in, void* out, void* work) = 0;
  virtual void record(Event& e) = 0;
  virtual void wait(Event& e) = 0;  // later work on this queue waits for e (other queues)
  virtual void sync() = 0;          // blocks the host until everything queued has finished
};

// Exchanges between processes queued on device queues (device_exchange=nccl): blocks move
// between device buffers in the queue's order, progressed by the device, not the host.
class QueueComm {
 public:
  virtual ~QueueComm() = default;
  // Queues on q: sc[p] elements of `elem` bytes from send + sd[p] elements to rank p, and
  // rc[p] from rank p into recv + rd[p] (one entry per rank of the communicator; the rank's
  // own counts 0). Every rank queues the exchanges of one QueueComm in the same order.
  virtual void alltoallv(Queue& q, const void* send, const std::vector<std::int64_t>& sc,
                         const std::vector<std::int64_t>& sd, void* recv, const std::vector<std::int64_t>& rc,
                         const std::vector<std::int64_t>& rd, std::size_t elem) = 0;
};

// Device bytes allocated by a device and their high-water mark (the plan's memory report).
struct DeviceMemory {
  std::size_t bytes = 0, peak = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;  // "NVIDIA H200 (device 0 of 1), CUDA 13.0, cuFFT 12.0"
  virtual bool emulated() const = 0;     // host memory standing in for a device
  // Throw Error(OutOfMemory) naming `what` and the size; free(nullptr) does nothing.
  virtual void* alloc(std::size_t bytes, const char* what) = 0;
  virtual void free(void* p) = 0;
  // Page-locked host memory for staging copies.
  virtual void* alloc_host(std::size_t bytes, const char* what) = 0;
  virtual void free_host(void* p) = 0;
  virtual std::unique_ptr<Queue> make_queue() = 0;
  // Blocks until everything the process queued on the device has finished (the caller's own
  // streams too): a transform's arrays are then ready whatever stream wrote them.
  virtual void synchronize() = 0;
  virtual std::unique_ptr<Event> make_event() = 0;
  // Plans p (local/transform.hpp's description; transforms of up to 3 dims, one batch loop)
  // in double or single precision, in place (in == out) or not; throws Error(Unavailable)
  // naming what cannot be planned.
  virtual std::unique_ptr<Fft> plan(const local::Problem& p, bool single, bool in_place) = 0;
  // Whether p points into memory this device's kernels can read (device or managed memory):
  // the plan's check that the caller passed device arrays.
  virtual bool is_device_pointer(const void* p) const = 0;
  virtual DeviceMemory memory() const = 0;
  // Inter-process access to device memory (ranks sharing a GPU, or GPUs that reach each
  // other): a handle of an allocation made by alloc(), and another process's allocation
  // opened from its handle. Throw Error(Unavailable) where the device has none.
  virtual std::string ipc_handle(void* p) = 0;
  virtual void* ipc_open(const std::string& handle) = 0;
  virtual void ipc_close(void* p) = 0;
  // Queue communicators: "" when this process can make one (local: the library is there),
  // else why not; agree on it over the ranks before make_queue_comm, which is collective
  // over comm and throws Error(Unavailable) naming why (e.g. ranks sharing a GPU: NCCL
  // takes one GPU per rank). The host emulation's runs MPI_Alltoallv when queued.
  virtual std::string queue_comm_problem() = 0;
  virtual std::unique_ptr<QueueComm> make_queue_comm(MPI_Comm comm) = 0;
};

// The host emulation (gpu/host_device.cpp).
std::unique_ptr<Device> host_emulation();

// The CUDA device `id` (gpu/cuda_device.cu); throws Error(Unavailable) naming why when this
// nbfft was built without CUDA, no GPU or driver is there, or id is out of range.
std::unique_ptr<Device> cuda_device(int id);
// How many CUDA devices this process sees (0 without CUDA, a driver or a GPU), and why none.
int cuda_device_count(std::string* why_none = nullptr);
bool cuda_built();
std::string cuda_version();  // "CUDA runtime 13.5, cuFFT 12.4" or "not built"

}  // namespace nbfft::gpu
