// io/checksum.hpp: the per-word mix and its sum over a block.
#include "checksum.hpp"

#include <cstring>

namespace nbfft::io::detail {

namespace {

// One 64x64 -> 128-bit multiply by an odd constant, its halves folded by xor (the core of
// wyhash): every input bit reaches most output bits, one multiply per word. The word is
// first keyed by its index through an odd Weyl step, so that the same value at two places
// contributes two unrelated terms.
inline std::uint64_t mix(std::uint64_t q, std::uint64_t w) {
  const unsigned __int128 p = static_cast<unsigned __int128>(w ^ (q * 0x9E3779B97F4A7C15ull)) * 0xD6E8FEB86659FD93ull;
  return static_cast<std::uint64_t>(p) ^ static_cast<std::uint64_t>(p >> 64);
}

template <typename W>
std::uint64_t row_sum(std::uint64_t q0, const unsigned char* p, std::int64_t words) {
  std::uint64_t s = 0;
  for (std::int64_t k = 0; k < words; ++k) {
    W w;
    std::memcpy(&w, p + k * std::int64_t(sizeof(W)), sizeof(W));
    s += mix(q0 + std::uint64_t(k), std::uint64_t(w));
  }
  return s;
}

}  // namespace

std::uint64_t block_checksum(const std::int64_t start[3], const std::int64_t count[3], const std::int64_t dims[3],
                             Dtype dtype, const void* block) {
  const bool cplx = dtype == Dtype::Complex128 || dtype == Dtype::Complex64;
  const bool wide = dtype == Dtype::Float64 || dtype == Dtype::Complex128;
  const std::int64_t per = cplx ? 2 : 1;       // words per element
  const std::int64_t wb = wide ? 8 : 4;        // bytes per word
  const std::int64_t row = count[2] * per;     // words per x row of the block
  const auto* p = static_cast<const unsigned char*>(block);
  std::uint64_t s = 0;
  for (std::int64_t z = 0; z < count[0]; ++z)
    for (std::int64_t y = 0; y < count[1]; ++y) {
      const std::int64_t g = ((start[0] + z) * dims[1] + start[1] + y) * dims[2] + start[2];  // element index
      const unsigned char* r = p + ((z * count[1] + y) * row) * wb;
      s += wide ? row_sum<std::uint64_t>(std::uint64_t(g * per), r, row)
                : row_sum<std::uint32_t>(std::uint64_t(g * per), r, row);
    }
  return s;
}

}  // namespace nbfft::io::detail
