#include "fft/axis_fft.hpp"

#include "nbfft/error.hpp"

#include <cstdlib>

namespace nbfft::fft {

local::R2r r2r_of(AxisKind kind) {
  switch (kind) {
    case AxisKind::Dct1: return local::R2r::Dct1;
    case AxisKind::Dct2: return local::R2r::Dct2;
    case AxisKind::Dct3: return local::R2r::Dct3;
    case AxisKind::Dct4: return local::R2r::Dct4;
    case AxisKind::Dst1: return local::R2r::Dst1;
    case AxisKind::Dst2: return local::R2r::Dst2;
    case AxisKind::Dst3: return local::R2r::Dst3;
    case AxisKind::Dst4: return local::R2r::Dst4;
    case AxisKind::Periodic: break;
  }
  throw Error("periodic is not a real-to-real kind", ErrorCode::Internal);
}

namespace {
local::Backend local_of(Backend b) { return b == Backend::Mkl ? local::Backend::Mkl : local::Backend::Fftw; }
}  // namespace

Backend public_backend(local::Backend b) { return b == local::Backend::Mkl ? Backend::Mkl : Backend::Fftw; }

local::Backend resolve_backend(Backend asked, bool r2r) {
  local::Backend b;
  if (asked != Backend::Auto) {
    b = local_of(asked);
    local::require_built(b);
  } else if (r2r) {
    b = local::built(local::Backend::Fftw) ? local::Backend::Fftw : local::default_backend();
  } else {
    // NBFFT_LOCAL_BACKEND: what Auto picks for periodic transforms (a deployment and test knob).
    const char* env = std::getenv("NBFFT_LOCAL_BACKEND");
    const Backend e = env && *env ? parse_backend(env) : Backend::Auto;
    b = e == Backend::Auto ? local::default_backend() : local_of(e);
    local::require_built(b);
  }
  return b;  // one without native r2r runs them through its DFT (local/r2r_by_dft.cpp)
}

local::Effort local_effort(Effort e) {
  switch (e) {
    case Effort::Estimate: return local::Effort::Estimate;
    case Effort::Measure: return local::Effort::Measure;
    case Effort::Patient: return local::Effort::Patient;
    case Effort::Exhaustive: return local::Effort::Exhaustive;
  }
  return local::Effort::Estimate;
}

template <typename T>
local::Transform<T> axis_fft(const LocalChoice& how, AxisKind kind, bool forward, local::Kind periodic,
                             bool complex_elems, local::Dim dim, std::vector<local::Dim> batch, void* in, void* out,
                             local::Input input) {
  local::Problem p;
  p.input = input;
  if (!is_r2r(kind)) {
    p.kind = periodic;
    p.dims = {dim};
    p.loops = std::move(batch);
    return local::Transform<T>(how.backend, p, in, out, how.effort);
  }
  if (complex_elems) {
    dim.is *= 2;
    dim.os *= 2;
    for (auto& b : batch) {
      b.is *= 2;
      b.os *= 2;
    }
    batch.push_back({2, 1, 1});
  }
  p.kind = local::Kind::R2R;
  p.dims = {dim};
  p.loops = std::move(batch);
  p.r2r = {r2r_of(forward ? kind : inverse(kind))};
  return local::Transform<T>(how.backend, p, in, out, how.effort);
}

template local::Transform<double> axis_fft<double>(const LocalChoice&, AxisKind, bool, local::Kind, bool, local::Dim,
                                                   std::vector<local::Dim>, void*, void*, local::Input);
template local::Transform<float> axis_fft<float>(const LocalChoice&, AxisKind, bool, local::Kind, bool, local::Dim,
                                                 std::vector<local::Dim>, void*, void*, local::Input);

}  // namespace nbfft::fft
