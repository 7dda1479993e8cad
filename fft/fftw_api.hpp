// FftwApi<T>: the fftw_* / fftwf_* entry points nbfft uses, selected by precision, so the
// rest of the FFT layer is written once as a template on double / float.
#pragma once

#include <fftw3.h>

#include <complex>
#include <cstddef>

namespace nbfft::fft {

template <typename T>
struct FftwApi;

template <>
struct FftwApi<double> {
  using plan = fftw_plan;
  using cplx = fftw_complex;
  using iodim = fftw_iodim64;
  static plan dft(int rank, const iodim* dims, int hr, const iodim* hd, cplx* in, cplx* out,
                  int sign, unsigned flags) {
    return fftw_plan_guru64_dft(rank, dims, hr, hd, in, out, sign, flags);
  }
  static plan r2c(int rank, const iodim* dims, int hr, const iodim* hd, double* in, cplx* out,
                  unsigned flags) {
    return fftw_plan_guru64_dft_r2c(rank, dims, hr, hd, in, out, flags);
  }
  static plan c2r(int rank, const iodim* dims, int hr, const iodim* hd, cplx* in, double* out,
                  unsigned flags) {
    return fftw_plan_guru64_dft_c2r(rank, dims, hr, hd, in, out, flags);
  }
  static void exec_dft(plan p, cplx* in, cplx* out) { fftw_execute_dft(p, in, out); }
  static plan r2r(int rank, const iodim* dims, int hr, const iodim* hd, double* in, double* out,
                  const fftw_r2r_kind* kind, unsigned flags) {
    return fftw_plan_guru64_r2r(rank, dims, hr, hd, in, out, kind, flags);
  }
  static void exec_r2r(plan p, double* in, double* out) { fftw_execute_r2r(p, in, out); }
  static void exec_r2c(plan p, double* in, cplx* out) { fftw_execute_dft_r2c(p, in, out); }
  static void exec_c2r(plan p, cplx* in, double* out) { fftw_execute_dft_c2r(p, in, out); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static int alignment_of(double* p) { return fftw_alignment_of(p); }
  static void* malloc(std::size_t bytes) { return fftw_malloc(bytes); }
  static void free(void* p) { fftw_free(p); }
  static char* export_wisdom() { return fftw_export_wisdom_to_string(); }
  static int import_wisdom(const char* s) { return fftw_import_wisdom_from_string(s); }
};

template <>
struct FftwApi<float> {
  using plan = fftwf_plan;
  using cplx = fftwf_complex;
  using iodim = fftwf_iodim64;
  static plan dft(int rank, const iodim* dims, int hr, const iodim* hd, cplx* in, cplx* out,
                  int sign, unsigned flags) {
    return fftwf_plan_guru64_dft(rank, dims, hr, hd, in, out, sign, flags);
  }
  static plan r2c(int rank, const iodim* dims, int hr, const iodim* hd, float* in, cplx* out,
                  unsigned flags) {
    return fftwf_plan_guru64_dft_r2c(rank, dims, hr, hd, in, out, flags);
  }
  static plan c2r(int rank, const iodim* dims, int hr, const iodim* hd, cplx* in, float* out,
                  unsigned flags) {
    return fftwf_plan_guru64_dft_c2r(rank, dims, hr, hd, in, out, flags);
  }
  static void exec_dft(plan p, cplx* in, cplx* out) { fftwf_execute_dft(p, in, out); }
  static plan r2r(int rank, const iodim* dims, int hr, const iodim* hd, float* in, float* out,
                  const fftw_r2r_kind* kind, unsigned flags) {
    return fftwf_plan_guru64_r2r(rank, dims, hr, hd, in, out, kind, flags);
  }
  static void exec_r2r(plan p, float* in, float* out) { fftwf_execute_r2r(p, in, out); }
  static void exec_r2c(plan p, float* in, cplx* out) { fftwf_execute_dft_r2c(p, in, out); }
  static void exec_c2r(plan p, cplx* in, float* out) { fftwf_execute_dft_c2r(p, in, out); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static int alignment_of(float* p) { return fftwf_alignment_of(p); }
  static void* malloc(std::size_t bytes) { return fftwf_malloc(bytes); }
  static void free(void* p) { fftwf_free(p); }
  static char* export_wisdom() { return fftwf_export_wisdom_to_string(); }
  static int import_wisdom(const char* s) { return fftwf_import_wisdom_from_string(s); }
};

}  // namespace nbfft::fft
