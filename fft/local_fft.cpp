#include "fft/local_fft.hpp"

#include "nbfft/error.hpp"
#include "fft/fftw_api.hpp"

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

namespace nbfft::fft {

unsigned fftw_effort_flags(int effort) {
  switch (effort) {
    case 0: return FFTW_ESTIMATE;
    case 1: return FFTW_MEASURE;
    case 2: return FFTW_PATIENT;
    default: return FFTW_EXHAUSTIVE;
  }
}

namespace {

template <typename T>
void* make_plan(FftKind kind, const FftDim& dim, const std::vector<FftDim>& batch, void* in,
                void* out, unsigned flags, int r2r_kind) {
  using Api = FftwApi<T>;
  typename Api::iodim d{dim.n, dim.is, dim.os};
  std::vector<typename Api::iodim> hd;
  for (const auto& b : batch) hd.push_back({b.n, b.is, b.os});
  const int hr = static_cast<int>(hd.size());
  typename Api::plan p = nullptr;
  switch (kind) {
    case FftKind::Forward:
    case FftKind::Backward:
      p = Api::dft(1, &d, hr, hd.data(), static_cast<typename Api::cplx*>(in),
                   static_cast<typename Api::cplx*>(out),
                   kind == FftKind::Forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
      break;
    case FftKind::R2C:
      p = Api::r2c(1, &d, hr, hd.data(), static_cast<T*>(in),
                   static_cast<typename Api::cplx*>(out), flags);
      break;
    case FftKind::C2R:
      p = Api::c2r(1, &d, hr, hd.data(), static_cast<typename Api::cplx*>(in),
                   static_cast<T*>(out), flags);
      break;
    case FftKind::R2R: {
      const auto k = static_cast<fftw_r2r_kind>(r2r_kind);
      p = Api::r2r(1, &d, hr, hd.data(), static_cast<T*>(in), static_cast<T*>(out), &k, flags);
      break;
    }
  }
  if (!p)
    throw Error("FFTW could not plan a length-" + std::to_string(dim.n) +
                " transform (strides " + std::to_string(dim.is) + "/" + std::to_string(dim.os) +
                ")", ErrorCode::Unavailable);
  return static_cast<void*>(p);
}

}  // namespace

template <typename T>
LocalFft<T>::LocalFft(FftKind kind, FftDim dim, std::vector<FftDim> batch, void* plan_in,
                      void* plan_out, unsigned flags, int r2r_kind)
    : kind_(kind), in_place_(plan_in == plan_out) {
  if (dim.n <= 0) return;
  for (const auto& b : batch)
    if (b.n <= 0) return;  // nothing to transform on this rank: stays empty
  // FFTW's guru64 interface takes ptrdiff_t lengths and strides; the furthest element a
  // loop touches, sum of (n - 1) * |stride|, must be addressable. Decomposition::make
  // bounds the pencils, so this only fires on a bug or a hand-made FftDim.
  std::int64_t reach_in = 0, reach_out = 0;
  auto add = [&](const FftDim& d) {
    std::int64_t a = 0, b = 0;
    const std::int64_t is = d.is < 0 ? -d.is : d.is, os = d.os < 0 ? -d.os : d.os;
    if (__builtin_mul_overflow(d.n - 1, is, &a) || __builtin_mul_overflow(d.n - 1, os, &b) ||
        __builtin_add_overflow(reach_in, a, &reach_in) || __builtin_add_overflow(reach_out, b, &reach_out))
      throw Error("local FFT of length " + std::to_string(dim.n) + ": a loop of " + std::to_string(d.n) +
                      " with strides " + std::to_string(d.is) + "/" + std::to_string(d.os) +
                      " reaches beyond the address space",
                  ErrorCode::OutOfMemory);
  };
  add(dim);
  for (const auto& b : batch) add(b);
  // Single precision c2c: FFTW's SIMD codelets take unit-stride columns four at a time (AVX)
  // and apply only when the loop's count is a multiple of that, so 65 columns of a plane
  // (r2c's nx/2 + 1 at nx = 128) ran scalar: 12.1 us a 128-point plane against 4.4 us for
  // 64 columns (+0.14 us for one). The last n % 4 columns get a plan of their own.
  // Columns are independent, so the result is the same whatever the split. Double
  // precision measured the same either way (5.9 us / 5.6 + 0.16 us) and is left whole.
  if constexpr (std::is_same_v<T, float>) {
    if (kind == FftKind::Forward || kind == FftKind::Backward)
      for (std::size_t i = 0; i < batch.size(); ++i)
        if (batch[i].is == 1 && batch[i].os == 1 && batch[i].n > 4 && batch[i].n % 4 != 0) {
          const std::int64_t rest = batch[i].n % 4;
          tail_in_ = tail_out_ = static_cast<std::int64_t>(sizeof(std::complex<T>)) * (batch[i].n - rest);
          std::vector<FftDim> tb = batch;
          tb[i].n = rest;
          tail_ = std::make_unique<LocalFft>(kind, dim, std::move(tb), static_cast<char*>(plan_in) + tail_in_,
                                             static_cast<char*>(plan_out) + tail_out_, flags, r2r_kind);
          batch[i].n -= rest;
          break;
        }
  }
  align_in_ = FftwApi<T>::alignment_of(static_cast<T*>(plan_in));
  align_out_ = FftwApi<T>::alignment_of(static_cast<T*>(plan_out));
  aligned_ = make_plan<T>(kind, dim, batch, plan_in, plan_out, flags, r2r_kind);
  // Estimate-only planning never touches the arrays, so this is safe after measuring.
  const unsigned effort = FFTW_MEASURE | FFTW_PATIENT | FFTW_EXHAUSTIVE | FFTW_ESTIMATE;
  unaligned_ = make_plan<T>(kind, dim, batch, plan_in, plan_out,
                            (flags & ~effort) | FFTW_ESTIMATE | FFTW_UNALIGNED, r2r_kind);
}

template <typename T>
void LocalFft<T>::reset() {
  using Api = FftwApi<T>;
  if (aligned_) Api::destroy(static_cast<typename Api::plan>(aligned_));
  if (unaligned_) Api::destroy(static_cast<typename Api::plan>(unaligned_));
  aligned_ = unaligned_ = nullptr;
  tail_.reset();
}

template <typename T>
LocalFft<T>::~LocalFft() {
  reset();
}

template <typename T>
LocalFft<T>::LocalFft(LocalFft&& o) noexcept
    : kind_(o.kind_),
      aligned_(std::exchange(o.aligned_, nullptr)),
      unaligned_(std::exchange(o.unaligned_, nullptr)),
      align_in_(o.align_in_),
      align_out_(o.align_out_),
      in_place_(o.in_place_),
      tail_(std::move(o.tail_)),
      tail_in_(o.tail_in_),
      tail_out_(o.tail_out_) {}

template <typename T>
LocalFft<T>& LocalFft<T>::operator=(LocalFft&& o) noexcept {
  if (this != &o) {
    reset();
    kind_ = o.kind_;
    aligned_ = std::exchange(o.aligned_, nullptr);
    unaligned_ = std::exchange(o.unaligned_, nullptr);
    align_in_ = o.align_in_;
    align_out_ = o.align_out_;
    in_place_ = o.in_place_;
    tail_ = std::move(o.tail_);
    tail_in_ = o.tail_in_;
    tail_out_ = o.tail_out_;
  }
  return *this;
}

template <typename T>
void LocalFft<T>::execute(void* in, void* out) const {
  using Api = FftwApi<T>;
  if (!aligned_) return;
  const bool same = Api::alignment_of(static_cast<T*>(in)) == align_in_ &&
                    Api::alignment_of(static_cast<T*>(out)) == align_out_;
  auto p = static_cast<typename Api::plan>(same ? aligned_ : unaligned_);
  switch (kind_) {
    case FftKind::Forward:
    case FftKind::Backward:
      Api::exec_dft(p, static_cast<typename Api::cplx*>(in), static_cast<typename Api::cplx*>(out));
      break;
    case FftKind::R2C:
      Api::exec_r2c(p, static_cast<T*>(in), static_cast<typename Api::cplx*>(out));
      break;
    case FftKind::C2R:
      Api::exec_c2r(p, static_cast<typename Api::cplx*>(in), static_cast<T*>(out));
      break;
    case FftKind::R2R:
      Api::exec_r2r(p, static_cast<T*>(in), static_cast<T*>(out));
      break;
  }
  if (tail_) tail_->execute(static_cast<char*>(in) + tail_in_, static_cast<char*>(out) + tail_out_);
}

template class LocalFft<double>;
template class LocalFft<float>;

}  // namespace nbfft::fft
