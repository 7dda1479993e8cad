#include "bench/sine/nbfft_runner.hpp"

#include "bench/sine/device_runner.hpp"
#include "nbfft/fft/field.hpp"

#include <algorithm>
#include <cmath>

namespace nbfft::sine {

namespace {

// nbfft's transform of the sine field through one Plan: nv fields, field v = (v+1) * sine.
template <typename T>
class NbfftRunner final : public Runner {
  using C = std::complex<T>;

 public:
  NbfftRunner(MPI_Comm comm, const SineArgs& a, const fft::Options& o, std::string name)
      // A padded plan (--padding) transforms the field sampled on its physical grid; the
      // sine field is band-limited, so the round trip through the n modes returns it.
      // The plan first: it refuses a grid too large to address before the field's tables
      // (a few vectors of n points each) are made for it.
      : name_(std::move(name)), plan_(comm, a.n, o), field_(fft::padded_size(a.n, o.padding)), nv_(a.fields) {
    const fft::Box3& b = plan_.in_box();
    const bool r2c = a.transform == fft::TransformKind::R2C;
    const std::size_t count = static_cast<std::size_t>(b.count());
    std::size_t data = 0;
    if (plan_.lean_workspace()) {
      // In place (a lean plan's only way): one array per field, the round trip returns to it.
      inplace_.assign(nv_, std::vector<C>((plan_.inplace_bytes() + sizeof(C) - 1) / sizeof(C)));
      data = nv_ * inplace_[0].size() * sizeof(C);
      for (auto& u : inplace_) {
        cplx_ptr_.push_back(u.data());
        real_ptr_.push_back(reinterpret_cast<T*>(u.data()));
      }
    } else if (r2c) {
      real_in_.assign(nv_, std::vector<T>(count));
      real_out_.assign(nv_, std::vector<T>(count));
      data = nv_ * (2 * count * sizeof(T));
    } else {
      cplx_in_.assign(nv_, std::vector<C>(count));
      cplx_out_.assign(nv_, std::vector<C>(count));
      data = nv_ * (2 * count * sizeof(C));
    }
    if (!plan_.lean_workspace()) {
      spec_.assign(nv_, std::vector<C>(static_cast<std::size_t>(plan_.out_count())));
      data += nv_ * spec_[0].size() * sizeof(C);
    }
    each_point([&](int v, std::size_t k, std::complex<double> exact) {
      if (!inplace_.empty() && r2c)
        reinterpret_cast<T*>(inplace_[v].data())[k] = static_cast<T>(exact.real());
      else if (!inplace_.empty())
        inplace_[v][k] = C(static_cast<T>(exact.real()), static_cast<T>(exact.imag()));
      else if (r2c)
        real_in_[v][k] = static_cast<T>(exact.real());
      else
        cplx_in_[v][k] = C(static_cast<T>(exact.real()), static_cast<T>(exact.imag()));
    });
    unsigned long long mine[2] = {data, plan_.workspace_bytes()}, most[2] = {0, 0};
    MPI_Allreduce(mine, most, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    data_bytes_ = most[0];
    workspace_bytes_ = most[1];
  }

  std::string transport() const override { return name_; }
  std::string proc_grid() const override {
    return std::to_string(plan_.m1()) + "x" + std::to_string(plan_.m2());
  }
  std::string local_fft() const override { return fft::backends_str(plan_.options().backends); }
  std::string config() const override {
    std::ostringstream os;
    os << plan_ << "\n  fields: " << nv_;
    return os.str();
  }
  bool has_phases() const override { return true; }

  std::size_t data_bytes() const override { return data_bytes_; }
  std::size_t workspace_bytes() const override { return workspace_bytes_; }

  void iterate(fft::Timings& t) override {
    fwd_ = bwd_ = fft::Timings{};
    const std::size_t n = inplace_.empty() ? 0 : inplace_[0].size();
    if (fft::real_spectrum(plan_.options())) {
      // Every axis r2r on real data (--kinds): real in, real out; the spectrum's arrays are
      // the complex ones seen as reals (twice what it needs).
      std::vector<T*> spec;
      for (auto& s : spec_) spec.push_back(reinterpret_cast<T*>(s.data()));
      if (!inplace_.empty()) {
        plan_.forward_many(real_ptr_, 2 * n, real_ptr_, 2 * n, &fwd_);
        plan_.backward_many(real_ptr_, 2 * n, real_ptr_, 2 * n, &bwd_);
      } else {
        std::vector<const T*> in;
        for (auto& u : real_in_) in.push_back(u.data());
        std::vector<T*> out;
        for (auto& u : real_out_) out.push_back(u.data());
        const std::size_t c = real_in_[0].size(), sc = 2 * spec_[0].size();
        plan_.forward_many(in, c, spec, sc, &fwd_);
        plan_.backward_many(std::vector<const T*>(spec.begin(), spec.end()), sc, out, c, &bwd_);
      }
    } else if (!inplace_.empty() && plan_.options().transform == fft::TransformKind::R2C) {
      plan_.forward_many(real_ptr_, 2 * n, cplx_ptr_, n, &fwd_);
      plan_.backward_many(cplx_ptr_, n, real_ptr_, 2 * n, &bwd_);
    } else if (!inplace_.empty()) {
      plan_.forward_many(cplx_ptr_, n, cplx_ptr_, n, &fwd_);
      plan_.backward_many(cplx_ptr_, n, cplx_ptr_, n, &bwd_);
    } else if (plan_.options().transform == fft::TransformKind::R2C) {
      plan_.forward_many(real_in_, spec_, &fwd_);
      plan_.backward_many(spec_, real_out_, &bwd_);
    } else {
      plan_.forward_many(cplx_in_, spec_, &fwd_);
      plan_.backward_many(spec_, cplx_out_, &bwd_);
    }
    t += fwd_;
    t += bwd_;
  }
  bool exchange_only(int exchange, fft::Direction d, fft::Timings& t) override {
    plan_.exchange_only(exchange, d, &t);
    return true;
  }
  bool directions(fft::Timings& f, fft::Timings& b) const override {
    f = fwd_;
    b = bwd_;
    return true;
  }

  double local_error() const override {
    double e = 0;
    const bool r2c = plan_.options().transform == fft::TransformKind::R2C;
    each_point([&](int v, std::size_t k, std::complex<double> exact) {
      std::complex<double> got;
      if (!inplace_.empty() && r2c)
        got = reinterpret_cast<const T*>(inplace_[v].data())[k];
      else if (!inplace_.empty())
        got = {inplace_[v][k].real(), inplace_[v][k].imag()};
      else if (r2c)
        got = real_out_[v][k];
      else
        got = {cplx_out_[v][k].real(), cplx_out_[v][k].imag()};
      e = std::max(e, std::abs(got - exact) / (v + 1));
    });
    return e;
  }

 private:
  // fn(v, k, exact) for every field v and point k of the input box: exact = (v+1) x the
  // sine field (imaginary part 0 for r2c).
  template <typename F>
  void each_point(F&& fn) const {
    const fft::Box3& b = plan_.in_box();
    const bool r2c = plan_.options().transform == fft::TransformKind::R2C;
    for (int v = 0; v < nv_; ++v) {
      const double s = v + 1;
      fft::for_each_point(b, [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
        fn(v, static_cast<std::size_t>(at), s * std::complex<double>(field_.re(x, y, z), r2c ? 0.0 : field_.im(x, y, z)));
      });
    }
  }

  std::string name_;
  fft::Plan plan_;
  SineField field_;
  int nv_;
  std::vector<std::vector<T>> real_in_, real_out_;
  std::vector<std::vector<C>> cplx_in_, cplx_out_, spec_;
  std::vector<std::vector<C>> inplace_;  // lean plans: one in-place array per field
  std::vector<C*> cplx_ptr_;  // the in-place arrays as complex and as real elements
  std::vector<T*> real_ptr_;
  std::size_t data_bytes_ = 0, workspace_bytes_ = 0;
  fft::Timings fwd_, bwd_;
};

}  // namespace

std::unique_ptr<Runner> make_nbfft(MPI_Comm comm, const SineArgs& a, const fft::Options& o, std::string label) {
  if (o.device != fft::Device::Host) return make_device_nbfft(comm, a, o, std::move(label));
  if (a.precision == fft::Precision::Double) return std::make_unique<NbfftRunner<double>>(comm, a, o, std::move(label));
  return std::make_unique<NbfftRunner<float>>(comm, a, o, std::move(label));
}

}  // namespace nbfft::sine
