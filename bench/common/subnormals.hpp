// --flush-subnormals: arithmetic that flushes subnormal results to zero and reads subnormal
// inputs as zero (x86 MXCSR's FTZ and DAZ bits), for this thread and every thread it starts
// afterwards (POSIX: a new thread inherits the floating-point environment), so FFTW's and
// nbfft's worker threads too. Called before any of them starts.
//
// Why a benchmark needs it: single-precision spectra of smooth fields (the sine field's zero
// modes, scaled by 1/N) fall into the subnormal range, where an Intel Xeon's arithmetic took
// 5x longer per FFT (docs/performance.md "Threads inside each rank"); codes compared on the
// same data pay it alike, but the time then measures the subnormals more than the FFT.
#pragma once

#include "nbfft/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace nbfft::bench {

inline void flush_subnormals() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ (bit 15) | DAZ (bit 6)
#else
  throw Error("--flush-subnormals: only on x86 (its MXCSR's FTZ and DAZ bits)", ErrorCode::Unavailable);
#endif
}

}  // namespace nbfft::bench
