// LocalFft<T>: one batched 1D FFT on strided data (FFTW guru64 interface), planned once.
//
// Each stage of the 3D transform transforms one dimension of a buffer, one unit (plane or
// row) at a time so the pack that follows finds the unit still in cache. A LocalFft is
// planned for one unit's shape and executed on many units through FFTW's new-array
// execute, which requires the arrays to have the alignment of the planning arrays; when
// they do not (a float plane at an odd offset, a user array from a plain allocator), the
// call falls back to a second plan made with FFTW_UNALIGNED. Both are built in the
// constructor, so execute() is const and allocation-free.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace nbfft::fft {

// Forward/Backward: c2c, sign -1/+1; R2R: FFTW's real-to-real kind r2r_kind (fft/axis_fft.hpp).
enum class FftKind { Forward, Backward, R2C, C2R, R2R };

struct FftDim {
  std::int64_t n;   // points (the transform length, or the loop count of a batch dim)
  std::int64_t is;  // input stride in input elements (T for r2c input, complex otherwise)
  std::int64_t os;  // output stride in output elements
};

// FFTW planner effort, as FFTW flags.
unsigned fftw_effort_flags(int effort);  // 0 estimate, 1 measure, 2 patient, 3 exhaustive

template <typename T>
class LocalFft {
 public:
  LocalFft() = default;
  // A 1D FFT along `dim` repeated over the loops in `batch`. Plans on plan_in / plan_out
  // (big enough for one unit; overwritten by measuring planners). For r2c, dim.n is the
  // real length and the output has n/2+1 points; for c2r the other way round.
  LocalFft(FftKind kind, FftDim dim, std::vector<FftDim> batch, void* plan_in, void* plan_out,
           unsigned flags, int r2r_kind = 0);
  ~LocalFft();
  LocalFft(LocalFft&& o) noexcept;
  LocalFft& operator=(LocalFft&& o) noexcept;
  LocalFft(const LocalFft&) = delete;
  LocalFft& operator=(const LocalFft&) = delete;

  // Runs on new arrays with the planned strides; in == out iff planned in place.
  void execute(void* in, void* out) const;
  bool empty() const { return aligned_ == nullptr; }
  bool in_place() const { return in_place_; }

 private:
  void reset();
  FftKind kind_ = FftKind::Forward;
  void* aligned_ = nullptr;    // FFTW plan for arrays aligned like the planning arrays
  void* unaligned_ = nullptr;  // FFTW_UNALIGNED | FFTW_ESTIMATE fallback
  int align_in_ = 0, align_out_ = 0;
  bool in_place_ = false;
  // Single precision: the last n % 4 columns of a unit-stride batch loop, planned apart
  // (the constructor says why); run after the main plan at these byte offsets.
  std::unique_ptr<LocalFft> tail_;
  std::int64_t tail_in_ = 0, tail_out_ = 0;
};

extern template class LocalFft<double>;
extern template class LocalFft<float>;

}  // namespace nbfft::fft
