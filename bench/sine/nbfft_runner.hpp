// nbfft's side of nbfft-sine: the sine field through one Plan, nv fields at a time
// (field v = (v+1) * sine) with forward_many / backward_many.
#pragma once

#include "bench/sine/options.hpp"
#include "bench/sine/runner.hpp"
#include "nbfft/fft/fft.hpp"

#include <complex>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace nbfft::sine {

std::unique_ptr<Runner> make_nbfft(MPI_Comm comm, const SineArgs& a, int m1, int m2, const coll::Transport& t,
                                   std::string label, int progress_chunks, int chunk_planes);

}  // namespace nbfft::sine
