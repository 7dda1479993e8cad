// nbfft::Error — the one exception type the library throws, and its kinds.
//
// Every message names the problem in the caller's terms ("alltoallv: sendcounts[3] is
// negative (-2)"), so a user can act on it without a debugger. Every error also carries a
// kind, code(), that callers and tests branch on and that the C, Fortran and Python front
// ends map one to one onto their status codes and exception classes. The numeric values
// are part of the C ABI (nbfft_status): never renumber them, only append.
//
// MPI return codes become Errors of kind Mpi with MPI's own error string attached.
// When a failure on one rank is shared with the others (nbfft/agree.hpp), every rank
// throws the failing rank's kind and message, with the rank named.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace nbfft {

enum class ErrorCode : int {
  InvalidArgument = 1,  // a value the caller passed is malformed, out of range, or too small
  RanksDisagree = 2,    // ranks passed different values for something that must agree
  Unavailable = 3,      // valid, but this MPI / build / thread level cannot do it here
  Mpi = 4,              // an MPI call failed
  OutOfMemory = 5,      // an allocation failed or a size cannot be addressed
  Io = 6,               // a file could not be read, written or parsed
  InvalidState = 7,     // misuse of an object: moved-from, freed, concurrent, MPI not running
  Internal = 8,         // a bug in nbfft (please report it)
};

// "invalid argument", "ranks disagree", "unavailable", "mpi", "out of memory", "io",
// "invalid state", "internal"; "unknown" for anything else.
const char* error_code_name(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ErrorCode code = ErrorCode::InvalidArgument)
      : std::runtime_error("nbfft: " + message), code_(code), message_(message) {}
  Error(ErrorCode code, const std::string& message) : Error(message, code) {}

  ErrorCode code() const noexcept { return code_; }
  // The message without the "nbfft: " prefix of what().
  const std::string& message() const noexcept { return message_; }

 private:
  ErrorCode code_;
  std::string message_;
};

// Throws an Error of kind Mpi naming `call` if an MPI function did not return MPI_SUCCESS.
void check_mpi(int rc, const char* call);

// Throws an Error of kind InvalidState unless MPI is initialized and not yet finalized;
// `what` names the caller ("Plan", "Comm").
void check_mpi_running(const char* what);

}  // namespace nbfft
