#include "fft/axis_fft.hpp"

#include <fftw3.h>

namespace nbfft::fft {

int fftw_r2r_kind_of(AxisKind kind) {
  switch (kind) {
    case AxisKind::Dct1: return FFTW_REDFT00;
    case AxisKind::Dct2: return FFTW_REDFT10;
    case AxisKind::Dct3: return FFTW_REDFT01;
    case AxisKind::Dct4: return FFTW_REDFT11;
    case AxisKind::Dst1: return FFTW_RODFT00;
    case AxisKind::Dst2: return FFTW_RODFT10;
    case AxisKind::Dst3: return FFTW_RODFT01;
    case AxisKind::Dst4: return FFTW_RODFT11;
    case AxisKind::Periodic: break;
  }
  return -1;  // not an r2r kind: never planned as one
}

template <typename T>
LocalFft<T> axis_fft(AxisKind kind, bool forward, FftKind periodic, bool complex_elems, FftDim dim,
                     std::vector<FftDim> batch, void* in, void* out, unsigned flags) {
  if (!is_r2r(kind)) return LocalFft<T>(periodic, dim, std::move(batch), in, out, flags);
  if (complex_elems) {
    dim.is *= 2;
    dim.os *= 2;
    for (auto& b : batch) {
      b.is *= 2;
      b.os *= 2;
    }
    batch.push_back({2, 1, 1});
  }
  const AxisKind k = forward ? kind : inverse(kind);
  return LocalFft<T>(FftKind::R2R, dim, std::move(batch), in, out, flags, fftw_r2r_kind_of(k));
}

template LocalFft<double> axis_fft<double>(AxisKind, bool, FftKind, bool, FftDim, std::vector<FftDim>, void*, void*,
                                           unsigned);
template LocalFft<float> axis_fft<float>(AxisKind, bool, FftKind, bool, FftDim, std::vector<FftDim>, void*, void*,
                                         unsigned);

}  // namespace nbfft::fft
