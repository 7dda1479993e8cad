// FFTW wisdom for nbfft plans: measure once, reuse in later runs.
//
// Ranks of an uneven grid plan different local transforms, so saving gathers every rank's
// wisdom (double and single precision) into one file written by rank 0, and loading reads
// it on rank 0 and broadcasts it, as fftw_mpi_gather/broadcast_wisdom do. Load before
// creating plans; save after. Both are collective over comm.
#pragma once

#include <mpi.h>

#include <string>

namespace nbfft::fft {

void save_wisdom(MPI_Comm comm, const std::string& path);

// Returns false (on every rank) if the file does not exist; throws nbfft::Error if it
// cannot be read or is not an nbfft wisdom file.
bool load_wisdom(MPI_Comm comm, const std::string& path);

}  // namespace nbfft::fft
