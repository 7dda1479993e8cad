// Planning wisdom for nbfft plans: measure once, reuse in later runs. It is what the local
// FFT backends learn while planning (the FFTW backend's wisdom; MKL has no planner).
//
// Ranks of an uneven grid plan different local transforms, so saving gathers every rank's
// wisdom (double and single precision) into one file written by rank 0, and loading reads
// it on rank 0 and broadcasts it, as FFTW-MPI's wisdom gather and broadcast do. Load before
// creating plans; save after. Both are collective over comm.
#pragma once

#include <mpi.h>

#include <string>

namespace nbfft::fft {

// Writes atomically (nbfft/atomic_file.hpp): on failure every rank throws an Error of kind
// Io and an older file at `path` is left intact.
void save_wisdom(MPI_Comm comm, const std::string& path);

// Returns false (on every rank) if the file does not exist; throws nbfft::Error of kind Io,
// on every rank alike, if it cannot be read, is not a regular file (a directory, a FIFO,
// /dev/zero), is larger than 64 MiB, or is not an nbfft wisdom file. Rank 0 reads it
// without blocking and with bounded memory.
bool load_wisdom(MPI_Comm comm, const std::string& path);

}  // namespace nbfft::fft
