#include "nbfft/error.hpp"

namespace nbfft {

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::RanksDisagree: return "ranks disagree";
    case ErrorCode::Unavailable: return "unavailable";
    case ErrorCode::Mpi: return "mpi";
    case ErrorCode::OutOfMemory: return "out of memory";
    case ErrorCode::Io: return "io";
    case ErrorCode::InvalidState: return "invalid state";
    case ErrorCode::Internal: return "internal";
  }
  return "unknown";
}

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<size_t>(len)), ErrorCode::Mpi);
}

void check_mpi_running(const char* what) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (fin) throw Error(std::string(what) + ": MPI has already been finalized", ErrorCode::InvalidState);
  if (!init)
    throw Error(std::string(what) + ": MPI is not initialized (call MPI_Init_thread first)", ErrorCode::InvalidState);
}

}  // namespace nbfft
