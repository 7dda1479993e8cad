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

// One run with the plan options `o` (plan_options() or a tuner's choice), labelled `label`.
std::unique_ptr<Runner> make_nbfft(MPI_Comm comm, const SineArgs& a, const fft::Options& o, std::string label);

}  // namespace nbfft::sine
