// axis_fft: the local FFT of one axis of a stage, chosen by the axis's kind
// (nbfft/fft/r2r_kinds.hpp), so that the stages plan one local::Transform whatever the kind.
//
//   periodic  the DFT the stage gives (`periodic`: Forward/Backward c2c, or R2C/C2R on x of
//             real data), strides in the stage's elements, as before kinds existed;
//   r2r       the axis's real-to-real kind (backward: its inverse kind). On real elements
//             the strides are used as given. On complex elements (interleaved re, im) the
//             r2r transforms the real and the imaginary part alike: the strides double (in
//             reals) and a loop of 2 with stride 1 runs over the two parts, so one plan
//             does both.
#pragma once

#include "local/transform.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/r2r_kinds.hpp"

#include <string>

#include <vector>

namespace nbfft::fft {

// Which backend plans a stage's FFTs, and how hard.
struct LocalChoice {
  local::Backend backend = local::Backend::Fftw;
  local::Effort effort = local::Effort::Measure;
};

template <typename T>
local::Transform<T> axis_fft(const LocalChoice& how, AxisKind kind, bool forward, local::Kind periodic,
                             bool complex_elems, local::Dim dim, std::vector<local::Dim> batch, void* in, void* out,
                             local::Input input = local::Input::Any);

// The backend that runs a transform of the option `asked` (Auto: NBFFT_LOCAL_BACKEND or
// the build's default; for r2r transforms FFTW where built, whose r2r is native). Throws
// Unavailable when the backend is not built.
local::Backend resolve_backend(Backend asked, bool r2r);
Backend public_backend(local::Backend b);

// The local layer's r2r kind of an axis kind (not Periodic).
local::R2r r2r_of(AxisKind kind);

// The local layer's planning effort of the option.
local::Effort local_effort(Effort e);

}  // namespace nbfft::fft
