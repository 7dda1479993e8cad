// The real-to-real kinds through a backend's complex DFT, for backends without native r2r
// (local/r2r_by_dft.cpp says how and what it costs).
#pragma once

#include "local/transform.hpp"

#include <memory>

namespace nbfft::local::detail {

template <typename T>
std::unique_ptr<Executor<T>> r2r_by_dft(Backend b, const Problem& p);

}  // namespace nbfft::local::detail
