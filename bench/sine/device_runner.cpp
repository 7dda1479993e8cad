// nbfft-sine on the GPU: a device plan's runs (--device cuda|emulated) and cuFFT's own
// single-GPU 3-D transform as the baseline (--baseline cufft), as FFTW-MPI is for CPUs.
//
// The fields live in device memory; an iteration is forward_many + backward_many of all of
// them (the plan's scaling is its normalization) with no Timings, so the fields pipeline as
// they do in a user's code: only the total is measured (the device plan's phases need its
// timed, field-by-field mode; nbfft-gpu-bench reports those). The result is copied back and
// checked against the analytic field after each iteration, outside the timed part.
#include "bench/sine/device_runner.hpp"

#include "gpu/device.hpp"
#include "gpu/transform.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/field.hpp"
#include "nbfft/fft/timings.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <sstream>

namespace nbfft::sine {

namespace {

// The fields of a device run: the input (the sine field, set once), the spectrum and the
// result in device memory, and host copies to fill and check them.
template <typename T>
struct DeviceFields {
  using C = std::complex<T>;
  gpu::Device& dev;
  std::unique_ptr<gpu::Queue> q;
  std::vector<void*> in, spec, out;
  std::size_t in_b = 0, spec_b = 0, data = 0;
  fft::Box3 box;
  bool r2c = true;

  DeviceFields(gpu::Device& d, const fft::Box3& b, std::size_t in_bytes, std::size_t spec_bytes, int nv, bool real,
               const SineField& f)
      : dev(d), q(d.make_queue()), in_b(in_bytes), spec_b(spec_bytes), box(b), r2c(real) {
    try {
      for (int v = 0; v < nv; ++v) {
        in.push_back(dev.alloc(in_b, "nbfft-sine input"));
        spec.push_back(dev.alloc(spec_b, "nbfft-sine spectrum"));
        out.push_back(dev.alloc(in_b, "nbfft-sine result"));
        const std::vector<C> h = host_field(f, v);
        q->copy(in.back(), h.data(), in_b);
        q->sync();
      }
    } catch (...) {
      release();
      throw;
    }
    data = static_cast<std::size_t>(nv) * (2 * in_b + spec_b);
  }
  ~DeviceFields() { release(); }
  void release() {
    for (auto* v : {&in, &spec, &out})
      for (void* p : *v) dev.free(p);
    in.clear();
    spec.clear();
    out.clear();
  }
  // Field v = (v + 1) x the sine field on this rank's box (reals packed for r2c).
  std::vector<C> host_field(const SineField& f, int v) const {
    std::vector<C> h((in_b + sizeof(C) - 1) / sizeof(C));
    T* re = reinterpret_cast<T*>(h.data());
    const double s = v + 1;
    fft::for_each_point(box, [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
      if (r2c)
        re[at] = static_cast<T>(s * f.re(x, y, z));
      else
        h[static_cast<std::size_t>(at)] = C(static_cast<T>(s * f.re(x, y, z)), static_cast<T>(s * f.im(x, y, z)));
    });
    return h;
  }
  // max |result - field| / (v + 1) over the fields, on this rank.
  double error(const SineField& f) const {
    double e = 0;
    std::vector<C> got((in_b + sizeof(C) - 1) / sizeof(C));
    for (std::size_t v = 0; v < out.size(); ++v) {
      q->copy(got.data(), out[v], in_b);
      q->sync();
      const std::vector<C> want = host_field(f, static_cast<int>(v));
      const std::size_t n = r2c ? in_b / sizeof(T) : in_b / sizeof(C);
      for (std::size_t k = 0; k < n; ++k) {
        const double d = r2c ? std::abs(static_cast<double>(reinterpret_cast<const T*>(got.data())[k]) -
                                        static_cast<double>(reinterpret_cast<const T*>(want.data())[k]))
                             : std::abs(std::complex<double>(got[k]) - std::complex<double>(want[k]));
        e = std::max(e, d / static_cast<double>(v + 1));
      }
    }
    return e;
  }
};

template <typename T>
class DeviceRunner final : public Runner {
 public:
  DeviceRunner(MPI_Comm comm, const SineArgs& a, const fft::Options& o, std::string name)
      : name_(std::move(name)), plan_(comm, a.n, o), dev_(gpu::open_device(o, comm)), field_(a.n),
        f_(*dev_, plan_.in_box(), plan_.in_bytes(), plan_.out_bytes(), a.fields,
           a.transform == fft::TransformKind::R2C, field_) {
    unsigned long long mine[2] = {f_.data, plan_.workspace_bytes()}, most[2] = {0, 0};
    MPI_Allreduce(mine, most, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    data_ = most[0];
    work_ = most[1];
  }
  std::string transport() const override {
    return name_ + " (device " + fft::name(plan_.options().device) + ", " +
           fft::name(plan_.options().device_exchange) + ")";
  }
  std::string proc_grid() const override { return std::to_string(plan_.m1()) + "x" + std::to_string(plan_.m2()); }
  std::string local_fft() const override { return plan_.options().device == fft::Device::Cuda ? "cufft" : "emulated"; }
  std::string config() const override {
    std::ostringstream os;
    os << plan_ << "\n  fields: " << f_.in.size() << " in device memory (" << dev_->name() << ")";
    return os.str();
  }
  bool has_phases() const override { return false; }
  std::size_t data_bytes() const override { return data_; }
  std::size_t workspace_bytes() const override { return work_; }
  void iterate(fft::Timings& t) override {
    const int nv = static_cast<int>(f_.in.size());
    std::vector<const void*> in(f_.in.begin(), f_.in.end()), spec(f_.spec.begin(), f_.spec.end());
    fft::PhaseClock clk(&t);
    plan_.transform_many_bytes(fft::Direction::Forward, nv, in.data(), f_.in_b, f_.spec.data(), f_.spec_b);
    plan_.transform_many_bytes(fft::Direction::Backward, nv, spec.data(), f_.spec_b, f_.out.data(), f_.in_b);
    clk.mark(&fft::Timings::total);  // (each call returns when its outputs are written)
    error_ = f_.error(field_);
  }
  double local_error() const override { return error_; }

 private:
  std::string name_;
  fft::Plan plan_;
  std::shared_ptr<gpu::Device> dev_;
  SineField field_;
  DeviceFields<T> f_;
  std::size_t data_ = 0, work_ = 0;
  double error_ = 0;
};

// cuFFT's own 3-D transform of the whole grid on one GPU (the device layer's plan of the
// 3-D problem: cufftMakePlanMany64 on CUDA, the local FFT layer on the emulated device):
// out of place, forward, scaled by 1/N, backward (which may overwrite the spectrum).
template <typename T>
class CufftRunner final : public Runner {
 public:
  CufftRunner(MPI_Comm comm, const SineArgs& a, const fft::Options& o)
      : n_(a.n), r2c_(a.transform == fft::TransformKind::R2C), dev_(gpu::open_device(o, comm)), field_(a.n),
        f_(*dev_, fft::Box3::from({0, a.n[0]}, {0, a.n[1]}, {0, a.n[2]}), bytes(a, false), bytes(a, true), a.fields,
           r2c_, field_),
        q_(dev_->make_queue()) {
    using local::Dim;
    using local::Kind;
    const std::int64_t nx = n_[0], ny = n_[1], nz = n_[2], xc = r2c_ ? nx / 2 + 1 : nx, xin = r2c_ ? nx : xc;
    const bool single = std::is_same_v<T, float>;
    for (int dir = 0; dir < 2; ++dir) {
      local::Problem p;
      p.kind = r2c_ ? (dir == 0 ? Kind::R2C : Kind::C2R) : (dir == 0 ? Kind::Forward : Kind::Backward);
      auto dim = [&](std::int64_t len, std::int64_t s_in, std::int64_t s_out) {
        return dir == 0 ? Dim{len, s_in, s_out} : Dim{len, s_out, s_in};
      };
      p.dims = {dim(nz, xin * ny, xc * ny), dim(ny, xin, xc), dim(nx, 1, 1)};
      fft_[dir] = dev_->plan(p, single, false);
    }
    const std::size_t w = std::max(fft_[0]->work_bytes(), fft_[1]->work_bytes());
    if (w) work_ = dev_->alloc(w, "cuFFT work area");
    spec_reals_ = static_cast<std::int64_t>(bytes(a, true) / sizeof(T));
    scale_ = 1.0 / (static_cast<double>(nx) * ny * nz);
  }
  ~CufftRunner() override {
    q_->sync();
    dev_->free(work_);
  }
  static std::size_t bytes(const SineArgs& a, bool spectrum) {
    const bool r2c = a.transform == fft::TransformKind::R2C;
    const std::size_t N = static_cast<std::size_t>(a.n[0]) * static_cast<std::size_t>(a.n[1]) *
                          static_cast<std::size_t>(a.n[2]);
    if (!spectrum) return N * (r2c ? sizeof(T) : 2 * sizeof(T));
    return static_cast<std::size_t>((r2c ? a.n[0] / 2 + 1 : a.n[0]) * a.n[1] * a.n[2]) * 2 * sizeof(T);
  }
  std::string transport() const override { return "cufft"; }
  std::string proc_grid() const override { return "1x1"; }
  std::string local_fft() const override { return dev_->emulated() ? "emulated" : "cufft"; }
  std::string config() const override {
    return "cuFFT's 3-D transform of the whole grid on one GPU (" + dev_->name() +
           "): out of place, forward, scaled by 1/N, backward";
  }
  bool has_phases() const override { return false; }
  std::size_t data_bytes() const override { return f_.data; }
  void iterate(fft::Timings& t) override {
    fft::PhaseClock clk(&t);
    for (std::size_t v = 0; v < f_.in.size(); ++v) {
      q_->fft(*fft_[0], f_.in[v], f_.spec[v], work_);
      q_->scale(f_.spec[v], spec_reals_, sizeof(T), scale_);
      q_->fft(*fft_[1], f_.spec[v], f_.out[v], work_);
    }
    q_->sync();
    clk.mark(&fft::Timings::total);
    error_ = f_.error(field_);
  }
  double local_error() const override { return error_; }

 private:
  std::array<std::int64_t, 3> n_;
  bool r2c_;
  std::shared_ptr<gpu::Device> dev_;
  SineField field_;
  DeviceFields<T> f_;
  std::unique_ptr<gpu::Queue> q_;
  std::unique_ptr<gpu::Fft> fft_[2];
  void* work_ = nullptr;
  std::int64_t spec_reals_ = 0;
  double scale_ = 1, error_ = 0;
};

}  // namespace

std::unique_ptr<Runner> make_device_nbfft(MPI_Comm comm, const SineArgs& a, const fft::Options& o, std::string label) {
  if (a.precision == fft::Precision::Double) return std::make_unique<DeviceRunner<double>>(comm, a, o, std::move(label));
  return std::make_unique<DeviceRunner<float>>(comm, a, o, std::move(label));
}

std::unique_ptr<Runner> make_cufft(MPI_Comm comm, const SineArgs& a, const fft::Options& o) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  if (ranks != 1)
    throw Error("--baseline cufft: cuFFT's own transform runs the whole grid on one GPU; run it on one rank (got " +
                std::to_string(ranks) + ")");
  if (o.device == fft::Device::Host)
    throw Error("--baseline cufft: the runs are on the host; add --device cuda (or emulated)");
  if (a.precision == fft::Precision::Double) return std::make_unique<CufftRunner<double>>(comm, a, o);
  return std::make_unique<CufftRunner<float>>(comm, a, o);
}

}  // namespace nbfft::sine
