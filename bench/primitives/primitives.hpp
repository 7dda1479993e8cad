#pragma once
#include "bench/common/cli.hpp"
#include <mpi.h>
namespace nbfft::bench {
int run_primitives(const Args& args, MPI_Comm world);
extern const char* const kPrimitivesHelp;
}  // namespace nbfft::bench
