// Reproducible field values for benchmarks that check their results: the same index gives
// the same value on every rank and in every run (a splitmix64 hash mapped to [-1, 1)).
#pragma once

#include <cstdint>

namespace nbfft::bench {

inline double reproducible_value(std::uint64_t i) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

}  // namespace nbfft::bench
