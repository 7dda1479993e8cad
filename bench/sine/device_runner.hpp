// nbfft-sine on the GPU (device_runner.cpp): device plans' runs and cuFFT's baseline.
#pragma once

#include "bench/sine/options.hpp"
#include "bench/sine/runner.hpp"
#include "nbfft/fft/fft.hpp"

#include <memory>
#include <string>

namespace nbfft::sine {

// A run of a device plan (Options::device other than Host): the fields in device memory.
std::unique_ptr<Runner> make_device_nbfft(MPI_Comm comm, const SineArgs& a, const fft::Options& o, std::string label);
// --baseline cufft: cuFFT's own 3-D transform of the whole grid on the device of `o` (one
// rank); Error when the runs are on the host or there are several ranks.
std::unique_ptr<Runner> make_cufft(MPI_Comm comm, const SineArgs& a, const fft::Options& o);

}  // namespace nbfft::sine
