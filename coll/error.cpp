#include "coll/error.hpp"

namespace nbfft {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<size_t>(len)));
}

}  // namespace nbfft
