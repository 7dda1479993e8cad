// The CUDA device (gpu/device.hpp): cudaMalloc'd memory, one stream per Queue, events, the
// copy kernels, cuFFT and (device_exchange=nccl) NCCL. The only file that names CUDA.
#include "gpu/device.hpp"

#include "nbfft/error.hpp"

#include <cuda_runtime.h>
#include <cufft.h>

#if NBFFT_WITH_NCCL
#include <dlfcn.h>
#include <nccl.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace nbfft::gpu {
namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  const ErrorCode code = e == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::Unavailable;
  throw Error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")", code);
}

const char* cufft_name(cufftResult r) {
  switch (r) {
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "cuFFT error";
  }
}

void check(cufftResult r, const char* what) {
  if (r == CUFFT_SUCCESS) return;
  throw Error(std::string(what) + ": " + cufft_name(r) + " (" + std::to_string(static_cast<int>(r)) + ")",
              r == CUFFT_ALLOC_FAILED ? ErrorCode::OutOfMemory : ErrorCode::Unavailable);
}

// ---- kernels ------------------------------------------------------------------------------

// Strides as kernels take them (std::array's operator[] is host code).
struct S3 {
  Index x, y, z;
};
S3 s3(const Strides& s) { return {s[0], s[1], s[2]}; }

// One thread per element along x (blocks of 256), grid-stride over y and z: the pack,
// unpack and permutation of every exchange. Reads and writes are coalesced where the side
// they touch has x contiguous.
template <typename E, typename R>
__global__ void move_kernel(E* dst, S3 ds, const E* src, S3 ss, Index nx, Index ny, Index nz, R f,
                            bool scaled) {
  for (Index z = blockIdx.z; z < nz; z += gridDim.z)
    for (Index y = blockIdx.y; y < ny; y += gridDim.y)
      for (Index x = blockIdx.x * blockDim.x + threadIdx.x; x < nx; x += static_cast<Index>(gridDim.x) * blockDim.x) {
        E v = src[x * ss.x + y * ss.y + z * ss.z];
        if (scaled) {
          v.x *= f;
          v.y *= f;
        }
        dst[x * ds.x + y * ds.y + z * ds.z] = v;
      }
}

// Tiled for moves whose destination has x contiguous but whose source has y contiguous (the
// exchanges' transposes): 32 x 32 tiles through shared memory, so both sides are coalesced.
template <typename E, typename R>
__global__ void transpose_kernel(E* dst, S3 ds, const E* src, S3 ss, Index nx, Index ny, Index nz, R f,
                                 bool scaled) {
  __shared__ E tile[32][33];
  const Index x0 = static_cast<Index>(blockIdx.x) * 32, y0 = static_cast<Index>(blockIdx.y) * 32;
  for (Index z = blockIdx.z; z < nz; z += gridDim.z) {
    // read: threadIdx.x walks y (contiguous in the source)
    for (int j = threadIdx.y; j < 32; j += blockDim.y) {
      const Index x = x0 + j, y = y0 + threadIdx.x;
      if (x < nx && y < ny) tile[j][threadIdx.x] = src[x * ss.x + y * ss.y + z * ss.z];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < 32; j += blockDim.y) {
      const Index y = y0 + j, x = x0 + threadIdx.x;
      if (x < nx && y < ny) {
        E v = tile[threadIdx.x][j];
        if (scaled) {
          v.x *= f;
          v.y *= f;
        }
        dst[x * ds.x + y * ds.y + z * ds.z] = v;
      }
    }
    __syncthreads();
  }
}

template <typename R>
__global__ void scale_kernel(R* p, Index n, R f) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<Index>(gridDim.x) * blockDim.x)
    p[i] *= f;
}

unsigned grid_dim(Index n, Index cap) { return static_cast<unsigned>(std::max<Index>(1, std::min(n, cap))); }

template <typename E, typename R>
void launch_move(cudaStream_t s, void* dst, const Strides& ds, const void* src, const Strides& ss,
                 const std::array<Index, 3>& n, double factor) {
  const bool scaled = factor != 1.0;
  const R f = static_cast<R>(factor);
  E* d = static_cast<E*>(dst);
  const E* sp = static_cast<const E*>(src);
  if (ss[1] == 1 && ss[0] != 1 && ds[0] == 1) {
    const dim3 grid(grid_dim((n[0] + 31) / 32, 1 << 30), grid_dim((n[1] + 31) / 32, 65535), grid_dim(n[2], 65535));
    transpose_kernel<E, R><<<grid, dim3(32, 8), 0, s>>>(d, s3(ds), sp, s3(ss), n[0], n[1], n[2], f, scaled);
  } else {
    const dim3 grid(grid_dim((n[0] + 255) / 256, 1 << 30), grid_dim(n[1], 65535), grid_dim(n[2], 65535));
    move_kernel<E, R><<<grid, 256, 0, s>>>(d, s3(ds), sp, s3(ss), n[0], n[1], n[2], f, scaled);
  }
  check(cudaGetLastError(), "move kernel launch");
}

// ---- cuFFT --------------------------------------------------------------------------------

class CudaFft final : public Fft {
 public:
  cufftHandle h = 0;
  cufftType type = CUFFT_Z2Z;
  int sign = CUFFT_FORWARD;
  std::size_t work = 0;
  ~CudaFft() override {
    if (h) cufftDestroy(h);
  }
  std::size_t work_bytes() const override { return work; }
};

// local::Problem -> cufftPlanMany's advanced layout: dims row-major with the innermost stride
// istride and the others whole multiples of the one inside (inembed), one batch loop.
void layout(const std::vector<local::Dim>& dims, bool in, std::vector<long long>& embed, long long& stride) {
  const int r = static_cast<int>(dims.size());
  auto st = [&](int k) {
    const local::Dim& d = dims[static_cast<std::size_t>(k)];
    return static_cast<long long>(in ? d.is : d.os);
  };
  stride = st(r - 1);
  embed.assign(static_cast<std::size_t>(r), 0);
  embed[0] = dims[0].n;
  for (int k = r - 1; k >= 1; --k) {
    const long long inner = st(k), outer = st(k - 1);
    if (inner <= 0 || outer % inner != 0)
      throw Error("cuFFT cannot lay out strides " + std::to_string(outer) + " over " + std::to_string(inner),
                  ErrorCode::Unavailable);
    embed[static_cast<std::size_t>(k)] = outer / inner;
  }
}

class CudaQueue final : public Queue {
 public:
  explicit CudaQueue(int dev) : dev_(dev) {
    check(cudaSetDevice(dev_), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~CudaQueue() override {
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  cudaStream_t stream() const { return s_; }
  void copy(void* dst, const void* src, std::size_t bytes) override {
    if (bytes) check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s_), "cudaMemcpyAsync");
  }
  void move(void* dst, const Strides& ds, const void* src, const Strides& ss, const std::array<Index, 3>& n,
            std::size_t elem, double factor) override {
    if (n[0] <= 0 || n[1] <= 0 || n[2] <= 0) return;
    if (elem == sizeof(double2))
      launch_move<double2, double>(s_, dst, ds, src, ss, n, factor);
    else if (elem == sizeof(float2))
      launch_move<float2, float>(s_, dst, ds, src, ss, n, factor);
    else
      throw Error("move: element of " + std::to_string(elem) + " bytes", ErrorCode::Internal);
  }
  void scale(void* p, Index count, std::size_t real_bytes, double factor) override {
    if (count <= 0 || factor == 1.0) return;
    const unsigned grid = grid_dim((count + 255) / 256, 1 << 16);
    if (real_bytes == sizeof(double))
      scale_kernel<double><<<grid, 256, 0, s_>>>(static_cast<double*>(p), count, factor);
    else
      scale_kernel<float><<<grid, 256, 0, s_>>>(static_cast<float*>(p), count, static_cast<float>(factor));
    check(cudaGetLastError(), "scale kernel launch");
  }
  void fft(const Fft& f, void* in, void* out, void* work) override {
    const auto& c = static_cast<const CudaFft&>(f);
    if (!c.h) return;
    check(cufftSetStream(c.h, s_), "cufftSetStream");
    if (c.work) check(cufftSetWorkArea(c.h, work), "cufftSetWorkArea");
    switch (c.type) {
      case CUFFT_Z2Z:
        check(cufftExecZ2Z(c.h, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out), c.sign),
              "cufftExecZ2Z");
        break;
      case CUFFT_C2C:
        check(cufftExecC2C(c.h, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), c.sign),
              "cufftExecC2C");
        break;
      case CUFFT_D2Z:
        check(cufftExecD2Z(c.h, static_cast<double*>(in), static_cast<cufftDoubleComplex*>(out)), "cufftExecD2Z");
        break;
      case CUFFT_R2C:
        check(cufftExecR2C(c.h, static_cast<float*>(in), static_cast<cufftComplex*>(out)), "cufftExecR2C");
        break;
      case CUFFT_Z2D:
        check(cufftExecZ2D(c.h, static_cast<cufftDoubleComplex*>(in), static_cast<double*>(out)), "cufftExecZ2D");
        break;
      case CUFFT_C2R:
        check(cufftExecC2R(c.h, static_cast<cufftComplex*>(in), static_cast<float*>(out)), "cufftExecC2R");
        break;
      default: throw Error("cuFFT: unknown type", ErrorCode::Internal);
    }
  }
  void record(Event& e) override;
  void wait(Event& e) override;
  void sync() override { check(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

 private:
  int dev_;
  cudaStream_t s_ = nullptr;
};

class CudaEvent final : public Event {
 public:
  CudaEvent() { check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate"); }
  ~CudaEvent() override { cudaEventDestroy(e); }
  bool ready() override {
    const cudaError_t r = cudaEventQuery(e);
    if (r == cudaErrorNotReady) return false;
    check(r, "cudaEventQuery");
    return true;
  }
  void wait() override { check(cudaEventSynchronize(e), "cudaEventSynchronize"); }
  cudaEvent_t e = nullptr;
};

void CudaQueue::record(Event& e) { check(cudaEventRecord(static_cast<CudaEvent&>(e).e, s_), "cudaEventRecord"); }
void CudaQueue::wait(Event& e) {
  check(cudaStreamWaitEvent(s_, static_cast<CudaEvent&>(e).e, 0), "cudaStreamWaitEvent");
}

#if NBFFT_WITH_NCCL
// NCCL, loaded when a plan first asks for device_exchange=nccl, so that nbfft needs it only
// then: $NBFFT_NCCL_LIBRARY, else the one nbfft was built beside (the PyPI wheel), else
// libnccl.so.2 on the loader's path.
struct Nccl {
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) init_rank = nullptr;
  decltype(&ncclCommDestroy) destroy = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  std::string problem;  // why it is not usable; "" when loaded
};

const Nccl& nccl() {
  static const Nccl api = [] {
    Nccl a;
    std::vector<std::string> names;
    if (const char* e = std::getenv("NBFFT_NCCL_LIBRARY")) names.push_back(e);
#ifdef NBFFT_NCCL_HINT
    names.push_back(NBFFT_NCCL_HINT);
#endif
    names.push_back("libnccl.so.2");
    std::string tried;
    void* lib = nullptr;
    for (const std::string& n : names) {
      if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + n + ": " + (why ? why : "not found");
    }
    if (!lib) {
      a.problem = "NCCL could not be loaded (" + tried +
                  "); install it (pip install nvidia-nccl-cu13) and set NBFFT_NCCL_LIBRARY to its libnccl.so.2";
      return a;
    }
    auto sym = [&](auto& f, const char* name) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
      if (!f && a.problem.empty()) a.problem = std::string("the NCCL library loaded has no ") + name;
    };
    sym(a.get_unique_id, "ncclGetUniqueId");
    sym(a.init_rank, "ncclCommInitRank");
    sym(a.destroy, "ncclCommDestroy");
    sym(a.group_start, "ncclGroupStart");
    sym(a.group_end, "ncclGroupEnd");
    sym(a.send, "ncclSend");
    sym(a.recv, "ncclRecv");
    sym(a.error_string, "ncclGetErrorString");
    return a;
  }();
  return api;
}

class NcclComm final : public QueueComm {
 public:
  explicit NcclComm(ncclComm_t c) : c_(c) {}
  ~NcclComm() override { nccl().destroy(c_); }
  void alltoallv(Queue& q, const void* send, const std::vector<std::int64_t>& sc, const std::vector<std::int64_t>& sd,
                 void* recv, const std::vector<std::int64_t>& rc, const std::vector<std::int64_t>& rd,
                 std::size_t elem) override {
    const Nccl& n = nccl();
    cudaStream_t s = static_cast<CudaQueue&>(q).stream();
    const char* from = static_cast<const char*>(send);
    char* to = static_cast<char*>(recv);
    ncclResult_t r = n.group_start();
    const char* what = "ncclGroupStart";
    for (std::size_t p = 0; p < sc.size() && r == ncclSuccess; ++p) {
      const int peer = static_cast<int>(p);
      if (sc[p] > 0) {
        r = n.send(from + sd[p] * elem, static_cast<std::size_t>(sc[p]) * elem, ncclInt8, peer, c_, s);
        what = "ncclSend";
      }
      if (r == ncclSuccess && rc[p] > 0) {
        r = n.recv(to + rd[p] * elem, static_cast<std::size_t>(rc[p]) * elem, ncclInt8, peer, c_, s);
        what = "ncclRecv";
      }
    }
    const ncclResult_t end = n.group_end();  // (closes the group whatever happened in it)
    if (r == ncclSuccess && end != ncclSuccess) {
      r = end;
      what = "ncclGroupEnd";
    }
    if (r != ncclSuccess) throw Error(std::string(what) + ": " + n.error_string(r), ErrorCode::Internal);
  }

 private:
  ncclComm_t c_;
};
#endif

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(int id) : id_(id) {
    check(cudaSetDevice(id_), "cudaSetDevice");
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, id_), "cudaGetDeviceProperties");
    int count = 0;
    cudaGetDeviceCount(&count);
    name_ = std::string(p.name) + " (device " + std::to_string(id_) + " of " + std::to_string(count) + "), " +
            cuda_version();
  }
  std::string name() const override { return name_; }
  bool emulated() const override { return false; }
  void* alloc(std::size_t bytes, const char* what) override {
    check(cudaSetDevice(id_), "cudaSetDevice");
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(bytes, 256));
    if (e != cudaSuccess) {
      cudaGetLastError();  // clear it
      std::size_t free_b = 0, total = 0;
      cudaMemGetInfo(&free_b, &total);
      throw Error(std::string(what) + ": cudaMalloc of " + std::to_string(bytes) + " bytes failed (" +
                      cudaGetErrorString(e) + "; " + std::to_string(free_b >> 20) + " MiB of " +
                      std::to_string(total >> 20) + " MiB free on " + name_ + ")",
                  ErrorCode::OutOfMemory);
    }
    std::lock_guard<std::mutex> g(m_);
    sizes_.push_back({p, bytes});
    mem_.bytes += bytes;
    mem_.peak = std::max(mem_.peak, mem_.bytes);
    return p;
  }
  void free(void* p) override {
    if (!p) return;
    {
      std::lock_guard<std::mutex> g(m_);
      auto it = std::find_if(sizes_.begin(), sizes_.end(), [&](const auto& s) { return s.first == p; });
      if (it != sizes_.end()) {
        mem_.bytes -= it->second;
        sizes_.erase(it);
      }
    }
    cudaFree(p);
  }
  void* alloc_host(std::size_t bytes, const char* what) override {
    void* p = nullptr;
    const cudaError_t e = cudaMallocHost(&p, std::max<std::size_t>(bytes, 64));
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw Error(std::string(what) + ": cudaMallocHost of " + std::to_string(bytes) + " bytes failed (" +
                      cudaGetErrorString(e) + ")",
                  ErrorCode::OutOfMemory);
    }
    return p;
  }
  void free_host(void* p) override {
    if (p) cudaFreeHost(p);
  }
  std::unique_ptr<Queue> make_queue() override { return std::make_unique<CudaQueue>(id_); }
  void synchronize() override {
    check(cudaSetDevice(id_), "cudaSetDevice");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  std::unique_ptr<Event> make_event() override { return std::make_unique<CudaEvent>(); }
  std::unique_ptr<Fft> plan(const local::Problem& p, bool single, bool /*in_place*/) override {
    auto f = std::make_unique<CudaFft>();
    for (const auto& d : p.dims)
      if (d.n <= 0) return f;
    for (const auto& d : p.loops)
      if (d.n <= 0) return f;
    if (p.dims.size() > 3 || p.loops.size() > 1 || p.kind == local::Kind::R2R)
      throw Error("cuFFT cannot run the " + local::describe(p) + " in one plan", ErrorCode::Unavailable);
    switch (p.kind) {
      case local::Kind::Forward: f->type = single ? CUFFT_C2C : CUFFT_Z2Z; f->sign = CUFFT_FORWARD; break;
      case local::Kind::Backward: f->type = single ? CUFFT_C2C : CUFFT_Z2Z; f->sign = CUFFT_INVERSE; break;
      case local::Kind::R2C: f->type = single ? CUFFT_R2C : CUFFT_D2Z; break;
      case local::Kind::C2R: f->type = single ? CUFFT_C2R : CUFFT_Z2D; break;
      default: break;
    }
    const int rank = static_cast<int>(p.dims.size());
    std::vector<long long> n(p.dims.size()), inembed, onembed;
    for (std::size_t k = 0; k < p.dims.size(); ++k) n[k] = p.dims[k].n;
    long long istride = 1, ostride = 1;
    layout(p.dims, true, inembed, istride);
    layout(p.dims, false, onembed, ostride);
    const long long batch = p.loops.empty() ? 1 : p.loops[0].n;
    // One transform (no loop): cuFFT still wants a distance, the layout's whole reach.
    const long long idist = p.loops.empty() ? p.dims[0].n * p.dims[0].is : p.loops[0].is;
    const long long odist = p.loops.empty() ? p.dims[0].n * p.dims[0].os : p.loops[0].os;
    check(cudaSetDevice(id_), "cudaSetDevice");
    check(cufftCreate(&f->h), "cufftCreate");
    check(cufftSetAutoAllocation(f->h, 0), "cufftSetAutoAllocation");
    std::size_t work = 0;
    const cufftResult r = cufftMakePlanMany64(f->h, rank, n.data(), inembed.data(), istride, idist, onembed.data(),
                                              ostride, odist, f->type, batch, &work);
    if (r != CUFFT_SUCCESS)
      throw Error(std::string("cuFFT could not plan the ") + local::describe(p) + ": " + cufft_name(r),
                  r == CUFFT_ALLOC_FAILED ? ErrorCode::OutOfMemory : ErrorCode::Unavailable);
    f->work = work;
    return f;
  }
  bool is_device_pointer(const void* p) const override {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
  }
  std::string ipc_handle(void* p) override {
    cudaIpcMemHandle_t h;
    check(cudaIpcGetMemHandle(&h, p), "cudaIpcGetMemHandle");
    return std::string(reinterpret_cast<const char*>(&h), sizeof(h));
  }
  void* ipc_open(const std::string& handle) override {
    cudaIpcMemHandle_t h;
    if (handle.size() != sizeof(h)) throw Error("cudaIpcOpenMemHandle: malformed handle", ErrorCode::Internal);
    std::memcpy(&h, handle.data(), sizeof(h));
    void* p = nullptr;
    check(cudaSetDevice(id_), "cudaSetDevice");
    check(cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess),
          "cudaIpcOpenMemHandle (device_exchange=ipc needs the ranks of an exchange on GPUs that reach each other)");
    return p;
  }
  void ipc_close(void* p) override {
    if (p) cudaIpcCloseMemHandle(p);
  }
#if NBFFT_WITH_NCCL
  std::string queue_comm_problem() override { return nccl().problem; }
  std::unique_ptr<QueueComm> make_queue_comm(MPI_Comm comm) override {
    int P = 1, me = 0;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    // NCCL takes one GPU per rank; every rank sees the same table, so all refuse alike.
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, id_), "cudaGetDeviceProperties");
    constexpr int kUuid = sizeof(prop.uuid.bytes);
    std::vector<char> all(static_cast<std::size_t>(kUuid) * static_cast<std::size_t>(P));
    MPI_Allgather(prop.uuid.bytes, kUuid, MPI_BYTE, all.data(), kUuid, MPI_BYTE, comm);
    for (int a = 0; a < P; ++a)
      for (int b = a + 1; b < P; ++b)
        if (std::memcmp(&all[static_cast<std::size_t>(a) * kUuid], &all[static_cast<std::size_t>(b) * kUuid],
                        kUuid) == 0)
          throw Error("device_exchange=nccl: ranks " + std::to_string(a) + " and " + std::to_string(b) +
                          " of an exchange share one GPU, and NCCL takes one GPU per rank (use device_exchange=ipc "
                          "for ranks sharing a GPU, or staged)",
                      ErrorCode::Unavailable);
    const Nccl& n = nccl();
    struct {
      ncclUniqueId id;
      int status;
    } msg{};
    if (me == 0) msg.status = static_cast<int>(n.get_unique_id(&msg.id));
    MPI_Bcast(&msg, static_cast<int>(sizeof(msg)), MPI_BYTE, 0, comm);
    if (msg.status != ncclSuccess)
      throw Error(std::string("device_exchange=nccl: ncclGetUniqueId failed on rank 0: ") +
                      n.error_string(static_cast<ncclResult_t>(msg.status)),
                  ErrorCode::Unavailable);
    check(cudaSetDevice(id_), "cudaSetDevice");
    ncclComm_t c = nullptr;
    const ncclResult_t r = n.init_rank(&c, P, msg.id, me);
    if (r != ncclSuccess)
      throw Error(std::string("device_exchange=nccl: ncclCommInitRank: ") + n.error_string(r), ErrorCode::Unavailable);
    return std::make_unique<NcclComm>(c);
  }
#else
  std::string queue_comm_problem() override {
    return "this nbfft was built without NCCL (its header nccl.h was not found at configure time: pip install "
           "nvidia-nccl-cu13, or -DNBFFT_NCCL_INCLUDE_DIR=...)";
  }
  std::unique_ptr<QueueComm> make_queue_comm(MPI_Comm) override {
    throw Error("device_exchange=nccl: " + queue_comm_problem(), ErrorCode::Unavailable);
  }
#endif
  DeviceMemory memory() const override {
    std::lock_guard<std::mutex> g(m_);
    return mem_;
  }

 private:
  int id_;
  std::string name_;
  mutable std::mutex m_;
  std::vector<std::pair<void*, std::size_t>> sizes_;
  DeviceMemory mem_;
};

}  // namespace

bool cuda_built() { return true; }

std::string cuda_version() {
  int rt = 0, drv = 0, fft = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  cufftGetVersion(&fft);
  auto v = [](int x) { return std::to_string(x / 1000) + "." + std::to_string(x % 1000 / 10); };
  return "CUDA runtime " + v(rt) + ", driver " + (drv ? v(drv) : std::string("none")) + ", cuFFT " +
         std::to_string(fft / 10000) + "." + std::to_string(fft / 100 % 100) + "." + std::to_string(fft % 100);
}

int cuda_device_count(std::string* why_none) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why_none)
      *why_none = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    return 0;
  }
  if (n == 0 && why_none) *why_none = "the CUDA driver sees no GPU";
  return n;
}

std::unique_ptr<Device> cuda_device(int id) {
  std::string why;
  const int n = cuda_device_count(&why);
  if (n == 0) throw Error("device=cuda: no usable GPU here (" + why + ")", ErrorCode::Unavailable);
  if (id < 0 || id >= n)
    throw Error("device=cuda: GPU " + std::to_string(id) + " does not exist (this process sees " + std::to_string(n) +
                    ", 0.." + std::to_string(n - 1) + ")",
                ErrorCode::InvalidArgument);
  return std::make_unique<CudaDevice>(id);
}

}  // namespace nbfft::gpu
