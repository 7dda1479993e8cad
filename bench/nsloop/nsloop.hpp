#pragma once

#include "bench/common/cli.hpp"

namespace nbfft::bench {
extern const char* const kNsloopHelp;
int run_nsloop(const Args& args, MPI_Comm world);
}  // namespace nbfft::bench
