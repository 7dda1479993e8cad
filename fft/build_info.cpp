// nbfft::build_info(): one description of this nbfft for every front end (see the header).
// Everything comes from the registries and libraries themselves, so a new engine, preset or
// algorithm shows up here without an edit.
#include "nbfft/build_info.hpp"

#include "fft/build_config.hpp"
#include "nbfft/coll/alltoall.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/coll/transport.hpp"

#include "local/transform.hpp"
#include <mpi.h>

#include <sstream>

namespace nbfft {

namespace {

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "unknown";
  }
}

// MPI_Get_library_version and MPI_Get_version may be called at any time (MPI-3.1 8.7.1).
std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(len > 0 ? len : 0));
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == ' ' || s.back() == ',' || s.back() == '\0')) s.pop_back();
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  return s + " (MPI standard " + std::to_string(major) + "." + std::to_string(minor) + ")";
}

std::string thread_levels() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  std::string provided = "MPI not running";
  if (init && !fin) {
    int level = -1;
    if (MPI_Query_thread(&level) == MPI_SUCCESS) provided = level_name(level);
  }
  std::string required;
  for (const auto& e : coll::engines()) {
    required += required.empty() ? "" : ", ";
    required += std::string(e.name) + " engine " +
                (e.needs_thread_multiple ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_SINGLE");
  }
  return "provided " + provided + "; required: " + required;
}

}  // namespace

std::array<int, 3> version() { return {NBFFT_VERSION_MAJOR, NBFFT_VERSION_MINOR, NBFFT_VERSION_PATCH}; }

std::string build_info() {
  std::ostringstream os;
  os << "nbfft: " << NBFFT_VERSION_STRING << "\n";
  os << "MPI library: " << mpi_library() << "\n";
  os << "MPI thread level: " << thread_levels() << "\n";
  os << "local FFT backends:";
  for (local::Backend b : local::built_backends())
    os << (b == local::built_backends().front() ? " " : "; ") << local::name(b) << " (" << local::version(b) << ")";
  os << ", default " << local::name(local::default_backend()) << "\n";
  os << "build: "
     << (NBFFT_CFG_PYTHON ? "static, inside the Python extension" : NBFFT_CFG_SHARED ? "shared libraries" : "static libraries")
     << ", " << NBFFT_CFG_BUILD_TYPE << ", " << NBFFT_CFG_COMPILER << ", C++" << __cplusplus / 100 % 100
     << ", precisions double and single";
  // The extension carries neither the Fortran module nor the benchmarks: say nothing of them.
  if (!NBFFT_CFG_PYTHON)
    os << ", Fortran module " << (NBFFT_CFG_FORTRAN ? "yes" : "no") << ", FFTW-MPI baseline in nbfft-sine "
       << (NBFFT_CFG_MPI_BASELINE ? "yes" : "no");
  os << "\n";
  const char* sep = " ";
  os << "engines:";
  for (const auto& e : coll::engines()) {
    os << sep << e.name << (e.needs_thread_multiple ? " (needs MPI_THREAD_MULTIPLE)" : "");
    sep = ", ";
  }
  os << "\ntransports:";
  sep = " ";
  for (const auto& p : coll::transport_presets()) {
    os << sep << p.name << " = " << p.expansion;
    sep = ", ";
  }
  os << ", or ALGORITHM[:WINDOW]@ENGINE\nalgorithms:";
  sep = " ";
  for (const auto& a : coll::alltoall_algorithms()) {
    os << sep << a.name << (a.takes_window ? "[:W]" : "");
    if (a.unavailable != nullptr && a.unavailable() != nullptr) os << " (unavailable: " << a.unavailable() << ")";
    sep = ", ";
  }
  os << "\n";
  return os.str();
}

}  // namespace nbfft
