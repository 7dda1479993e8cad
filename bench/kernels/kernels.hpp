// nbfft-bench kernels: the five redistribution kernels of seed 002 §3 (replace, standard,
// overlap, oneplane, allplanes) as slab transposes of nbfft's 3D FFT, each verified
// against the plain transform and timed with the communication / computation breakdown
// of seed 002 Figs. 1-2.
#pragma once
#include "bench/common/cli.hpp"
#include <mpi.h>
namespace nbfft::bench {
int run_kernels(const Args& args, MPI_Comm world);
extern const char* const kKernelsHelp;
}  // namespace nbfft::bench
