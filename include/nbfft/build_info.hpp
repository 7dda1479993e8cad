// What this nbfft is and what it runs on: the one description that `nbfft-sine --version`,
// `python -m nbfft` and the C API's nbfft_build_info() all print, so a bug report or a
// benchmark record names the same facts whichever front end produced it.
#pragma once

#include "nbfft/version.h"

#include <array>
#include <string>

namespace nbfft {

// The library's version {major, minor, patch} (NBFFT_VERSION_* are the headers').
std::array<int, 3> version();

// A few "name: value" lines: nbfft's version; the MPI library (MPI_Get_library_version's
// first line) and standard; the thread level MPI provides (when it is running) and the
// levels nbfft's engines require; FFTW's version; the build (shared or static, build type,
// compiler, precisions, Fortran module, FFTW-MPI baseline); and the engines, transport
// presets and alltoall algorithms of the coll registry, with why any is unavailable.
// Local, not collective; callable before MPI_Init and after MPI_Finalize.
std::string build_info();

}  // namespace nbfft
