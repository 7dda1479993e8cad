// The host emulation of a device (gpu/device.hpp): host memory, every queued call done when
// it returns, the FFTs through the local-transform layer. It lets the device plan's logic
// (schedule, exchange geometry, staging, pipelining, the output order) run and be checked
// against the CPU plan on machines without a GPU; it is not meant to be fast.
#include "gpu/device.hpp"

#include "local/memory.hpp"
#include "nbfft/error.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

namespace nbfft::gpu {
namespace {

// device_exchange=nccl's stand-in on host memory: the emulated queue runs everything when it
// is queued, so the exchange is a blocking MPI_Alltoallv then (in the order every rank
// queues them, as NCCL needs).
class HostQueueComm final : public QueueComm {
 public:
  explicit HostQueueComm(MPI_Comm comm) : comm_(comm) {}
  void alltoallv(Queue&, const void* send, const std::vector<std::int64_t>& sc, const std::vector<std::int64_t>& sd,
                 void* recv, const std::vector<std::int64_t>& rc, const std::vector<std::int64_t>& rd,
                 std::size_t elem) override {
    MPI_Datatype t;
    MPI_Type_contiguous(static_cast<int>(elem), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    auto ints = [](const std::vector<std::int64_t>& v) {
      std::vector<int> r;
      for (std::int64_t x : v) {
        if (x > std::numeric_limits<int>::max())
          throw Error("device=emulated: an exchange of more than 2^31 elements", ErrorCode::Unavailable);
        r.push_back(static_cast<int>(x));
      }
      return r;
    };
    const auto isc = ints(sc), isd = ints(sd), irc = ints(rc), ird = ints(rd);
    const int e = MPI_Alltoallv(send, isc.data(), isd.data(), t, recv, irc.data(), ird.data(), t, comm_);
    MPI_Type_free(&t);
    if (e != MPI_SUCCESS) throw Error("device=emulated: MPI_Alltoallv failed", ErrorCode::Internal);
  }

 private:
  MPI_Comm comm_;
};

template <typename C>
void move_as(void* dst, const Strides& ds, const void* src, const Strides& ss, const std::array<Index, 3>& n,
             double factor) {
  C* d = static_cast<C*>(dst);
  const C* s = static_cast<const C*>(src);
  using R = typename C::value_type;
  const R f = static_cast<R>(factor);
  for (Index z = 0; z < n[2]; ++z)
    for (Index y = 0; y < n[1]; ++y)
      for (Index x = 0; x < n[0]; ++x) {
        const C v = s[x * ss[0] + y * ss[1] + z * ss[2]];
        d[x * ds[0] + y * ds[1] + z * ds[2]] = factor == 1.0 ? v : v * f;
      }
}

// Elements a layout reaches: 1 + sum (n - 1) * stride.
Index reach(const local::Problem& p, bool in) {
  Index r = 1;
  for (const auto* v : {&p.dims, &p.loops})
    for (const auto& d : *v) r += (d.n - 1) * (in ? d.is : d.os);
  return r;
}

class HostFft final : public Fft {
 public:
  local::Transform<double> d;
  local::Transform<float> f;
  bool single = false;
  std::size_t work_bytes() const override { return 0; }
};

class HostQueue final : public Queue {
 public:
  void copy(void* dst, const void* src, std::size_t bytes) override {
    if (bytes) std::memmove(dst, src, bytes);
  }
  void move(void* dst, const Strides& ds, const void* src, const Strides& ss, const std::array<Index, 3>& n,
            std::size_t elem, double factor) override {
    if (elem == sizeof(std::complex<double>))
      move_as<std::complex<double>>(dst, ds, src, ss, n, factor);
    else
      move_as<std::complex<float>>(dst, ds, src, ss, n, factor);
  }
  void scale(void* p, Index count, std::size_t real_bytes, double factor) override {
    if (factor == 1.0) return;
    if (real_bytes == sizeof(double))
      for (Index i = 0; i < count; ++i) static_cast<double*>(p)[i] *= factor;
    else
      for (Index i = 0; i < count; ++i) static_cast<float*>(p)[i] *= static_cast<float>(factor);
  }
  void fft(const Fft& f, void* in, void* out, void*) override {
    const auto& h = static_cast<const HostFft&>(f);
    if (h.single)
      h.f.execute(in, out);
    else
      h.d.execute(in, out);
  }
  void record(Event&) override {}
  void wait(Event&) override {}
  void sync() override {}
};

class HostEvent final : public Event {
 public:
  bool ready() override { return true; }
  void wait() override {}
};

class HostDevice final : public Device {
  [[noreturn]] static void no_ipc() {
    throw Error("the emulated device has no inter-process memory (device_exchange=ipc needs device=cuda)",
                ErrorCode::Unavailable);
  }

 public:
  std::string name() const override { return "host emulation"; }
  bool emulated() const override { return true; }
  void* alloc(std::size_t bytes, const char* what) override {
    local::Bytes b(std::max<std::size_t>(bytes, 1), what);
    void* p = b.get();
    std::lock_guard<std::mutex> g(m_);
    mem_.bytes += bytes;
    mem_.peak = std::max(mem_.peak, mem_.bytes);
    live_.emplace(p, std::move(b));
    return p;
  }
  void free(void* p) override {
    if (!p) return;
    std::lock_guard<std::mutex> g(m_);
    auto it = live_.find(p);
    if (it == live_.end()) return;
    mem_.bytes -= std::min(mem_.bytes, it->second.bytes());
    live_.erase(it);
  }
  void* alloc_host(std::size_t bytes, const char* what) override {
    local::Bytes b(std::max<std::size_t>(bytes, 1), what);
    void* p = b.get();
    std::lock_guard<std::mutex> g(m_);
    host_.emplace(p, std::move(b));
    return p;
  }
  void free_host(void* p) override {
    std::lock_guard<std::mutex> g(m_);
    host_.erase(p);
  }
  std::unique_ptr<Queue> make_queue() override { return std::make_unique<HostQueue>(); }
  void synchronize() override {}
  std::unique_ptr<Event> make_event() override { return std::make_unique<HostEvent>(); }
  std::unique_ptr<Fft> plan(const local::Problem& p, bool single, bool in_place) override {
    auto f = std::make_unique<HostFft>();
    f->single = single;
    for (const auto* v : {&p.dims, &p.loops})
      for (const auto& d : *v)
        if (d.n <= 0) return f;
    // Sample arrays as large as the layouts reach (an estimating planner does not touch them).
    const std::size_t real = single ? sizeof(float) : sizeof(double);
    auto elem = [&](bool in) {
      const bool is_real = (in && p.kind == local::Kind::R2C) || (!in && p.kind == local::Kind::C2R);
      return is_real ? real : 2 * real;
    };
    const std::size_t bi = static_cast<std::size_t>(reach(p, true)) * elem(true);
    const std::size_t bo = static_cast<std::size_t>(reach(p, false)) * elem(false);
    local::Bytes a(std::max(bi, in_place ? bo : bi), "emulated FFT plan");
    local::Bytes b(in_place ? 1 : bo, "emulated FFT plan");
    void* out = in_place ? a.get() : b.get();
    const local::Backend be = local::default_backend();
    if (single)
      f->f = local::Transform<float>(be, p, a.get(), out, local::Effort::Estimate);
    else
      f->d = local::Transform<double>(be, p, a.get(), out, local::Effort::Estimate);
    return f;
  }
  bool is_device_pointer(const void* p) const override {
    // Any host pointer may stand for device memory here, except null.
    return p != nullptr;
  }
  std::string ipc_handle(void*) override { no_ipc(); }
  void* ipc_open(const std::string&) override { no_ipc(); }
  void ipc_close(void*) override {}
  std::string queue_comm_problem() override { return ""; }
  std::unique_ptr<QueueComm> make_queue_comm(MPI_Comm comm) override { return std::make_unique<HostQueueComm>(comm); }
  DeviceMemory memory() const override {
    std::lock_guard<std::mutex> g(m_);
    return mem_;
  }

 private:
  mutable std::mutex m_;
  std::map<void*, local::Bytes> live_, host_;
  DeviceMemory mem_;
};

}  // namespace

std::unique_ptr<Device> host_emulation() { return std::make_unique<HostDevice>(); }

}  // namespace nbfft::gpu
