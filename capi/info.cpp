// The C API's version and build description (nbfft.h, "Status and version"): thin wrappers
// over nbfft::version() and nbfft::build_info(), kept apart from the plan entry points.
#include "nbfft/nbfft.h"

#include "capi/guard.hpp"
#include "nbfft/build_info.hpp"

#include <cstring>
#include <string>

extern "C" {

nbfft_status nbfft_version_numbers(int* major, int* minor, int* patch) {
  return nbfft::capi::guard("nbfft_version_numbers", [&] {
    const auto v = nbfft::version();
    if (major) *major = v[0];
    if (minor) *minor = v[1];
    if (patch) *patch = v[2];
  });
}

// The buffer contract of nbfft_options_string: *needed = length + 1; at most `size` bytes
// written, the last of them a NUL; size 0 writes nothing (a size query).
nbfft_status nbfft_build_info(char* buffer, size_t size, size_t* needed) {
  return nbfft::capi::guard("nbfft_build_info", [&] {
    const std::string s = nbfft::build_info();
    if (needed) *needed = s.size() + 1;
    if (size == 0) return;
    if (buffer == nullptr) throw nbfft::Error("buffer is NULL but size is " + std::to_string(size));
    const std::size_t k = s.size() < size - 1 ? s.size() : size - 1;
    std::memcpy(buffer, s.data(), k);
    buffer[k] = '\0';
  });
}

}  // extern "C"
