// nbfft::Error — the one exception type the library throws.
//
// Every message names the problem in the caller's terms ("alltoallv: sendcounts[3] is
// negative (-2)"), so a user can act on it without a debugger. MPI return codes are
// turned into Errors with MPI's own error string attached.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace nbfft {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error("nbfft: " + what) {}
};

// Throws an Error naming `call` if an MPI function did not return MPI_SUCCESS.
void check_mpi(int rc, const char* call);

}  // namespace nbfft
