// The C boundary: every C entry point runs its body inside guard(), which turns whatever the
// C++ side throws into an nbfft_status and this thread's last-error message. Nothing
// escapes: nbfft::Error keeps its kind (the numbers are the same), std::bad_alloc becomes
// NBFFT_OUT_OF_MEMORY, anything else NBFFT_INTERNAL (a bug: nbfft throws only Error).
#pragma once

#include "nbfft/error.hpp"
#include "nbfft/nbfft.h"

#include <mpi.h>

#include <exception>
#include <new>
#include <string>

namespace nbfft::capi {

void set_last_error(std::string message) noexcept;

// A Fortran communicator handle as MPI_Comm; a handle that names no communicator is an Mpi
// Error naming `what` (MPI_Comm_f2c answers MPI_COMM_NULL for it under Open MPI).
MPI_Comm comm_of_fortran(const char* what, MPI_Fint comm);

template <typename F>
nbfft_status guard(const char* function, F&& body) noexcept {
  try {
    body();
    return NBFFT_SUCCESS;
  } catch (const Error& e) {
    set_last_error(std::string(function) + ": " + e.message());
    return static_cast<nbfft_status>(static_cast<int>(e.code()));
  } catch (const std::bad_alloc&) {
    set_last_error(std::string(function) + ": out of memory");
    return NBFFT_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(std::string(function) + ": internal error (please report): " + e.what());
    return NBFFT_INTERNAL;
  } catch (...) {
    set_last_error(std::string(function) + ": internal error (please report): unknown exception");
    return NBFFT_INTERNAL;
  }
}

}  // namespace nbfft::capi
