// axis_fft: the local FFT of one axis of a stage, chosen by the axis's kind
// (nbfft/fft/r2r_kinds.hpp), so that the stages call one LocalFft whatever the kind.
//
//   periodic  the DFT the stage gives (`periodic`: Forward/Backward c2c, or R2C/C2R on x of
//             real data), strides in the stage's elements, as before kinds existed;
//   r2r       FFTW's r2r kind of the axis (backward: its inverse kind). On real elements
//             the strides are used as given. On complex elements (interleaved re, im) the
//             r2r transforms the real and the imaginary part alike: the strides double (in
//             reals) and a loop of 2 with stride 1 runs over the two parts, so one plan
//             does both.
#pragma once

#include "fft/local_fft.hpp"
#include "nbfft/fft/r2r_kinds.hpp"

#include <vector>

namespace nbfft::fft {

template <typename T>
LocalFft<T> axis_fft(AxisKind kind, bool forward, FftKind periodic, bool complex_elems, FftDim dim,
                     std::vector<FftDim> batch, void* in, void* out, unsigned flags);

// FFTW's fftw_r2r_kind value of an r2r kind (forward), as an int.
int fftw_r2r_kind_of(AxisKind kind);

}  // namespace nbfft::fft
