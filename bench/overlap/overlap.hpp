#pragma once
#include "bench/common/cli.hpp"
#include <mpi.h>
namespace nbfft::bench {
int run_overlap(const Args& args, MPI_Comm world);
extern const char* const kOverlapHelp;
}  // namespace nbfft::bench
