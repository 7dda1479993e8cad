// io/checksum.hpp: the per-word terms of both methods and their sum over a block. v2 has an
// AVX2 path chosen at run time (the library is built for any x86-64) and a portable one that
// gives the same value.
#include "checksum.hpp"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NBFFT_CHECKSUM_AVX2 1
#endif

namespace nbfft::io::detail {

namespace {

constexpr std::uint64_t kPhi = 0x9E3779B97F4A7C15ull;  // the key's Weyl step: q*phi
constexpr std::uint64_t kC1 = 0xD6E8FEB9ull, kC2 = 0x94D049BBull;  // v2's odd 32-bit multipliers

// v1: one 64x64 -> 128-bit multiply of the keyed word, its halves folded (wyhash's core).
inline std::uint64_t mix_v1(std::uint64_t q, std::uint64_t w) {
  const unsigned __int128 p = static_cast<unsigned __int128>(w ^ (q * kPhi)) * 0xD6E8FEB86659FD93ull;
  return static_cast<std::uint64_t>(p) ^ static_cast<std::uint64_t>(p >> 64);
}

inline std::uint64_t mix_v2(std::uint64_t key, std::uint64_t w) {
  const std::uint64_t x = w ^ key;
  const std::uint64_t a = (x & 0xFFFFFFFFull) * kC1, b = (x >> 32) * kC2;
  return a ^ (b << 32 | b >> 32);
}

template <typename W>
inline std::uint64_t word(const unsigned char* p, std::int64_t k) {
  W w;
  std::memcpy(&w, p + k * std::int64_t(sizeof(W)), sizeof(W));
  return std::uint64_t(w);
}

template <typename W>
std::uint64_t row_v1(std::uint64_t q0, const unsigned char* p, std::int64_t words) {
  std::uint64_t s = 0;
  for (std::int64_t k = 0; k < words; ++k) s += mix_v1(q0 + std::uint64_t(k), word<W>(p, k));
  return s;
}

// Four lanes, each its own sum (the order does not matter mod 2^64), keys stepped by
// addition: what the compiler can keep in vector registers on any target.
template <typename W>
std::uint64_t row_v2_portable(std::uint64_t q0, const unsigned char* p, std::int64_t words) {
  std::uint64_t s[4] = {0, 0, 0, 0};
  std::uint64_t key[4] = {q0 * kPhi, (q0 + 1) * kPhi, (q0 + 2) * kPhi, (q0 + 3) * kPhi};
  std::int64_t k = 0;
  for (; k + 4 <= words; k += 4)
    for (int l = 0; l < 4; ++l) {
      s[l] += mix_v2(key[l], word<W>(p, k + l));
      key[l] += 4 * kPhi;
    }
  std::uint64_t t = s[0] + s[1] + s[2] + s[3];
  for (; k < words; ++k) t += mix_v2((q0 + std::uint64_t(k)) * kPhi, word<W>(p, k));
  return t;
}

#ifdef NBFFT_CHECKSUM_AVX2
// Four words from p + k, as 64-bit lanes (32-bit words zero-extended).
template <typename W>
__attribute__((target("avx2"))) inline __m256i load4(const unsigned char* p, std::int64_t k) {
  if constexpr (sizeof(W) == 8)
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 8 * k));
  else
    return _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 4 * k)));
}

// mix_v2 of four lanes.
__attribute__((target("avx2"))) inline __m256i term4(__m256i w, __m256i key, __m256i c1, __m256i c2) {
  const __m256i x = _mm256_xor_si256(w, key);
  const __m256i a = _mm256_mul_epu32(x, c1), b = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), c2);
  return _mm256_xor_si256(a, _mm256_or_si256(_mm256_slli_epi64(b, 32), _mm256_srli_epi64(b, 32)));
}

// Eight words per iteration in two independent accumulators. The tail goes the portable
// way (the same terms).
template <typename W>
__attribute__((target("avx2"))) std::uint64_t row_v2_avx2(std::uint64_t q0, const unsigned char* p,
                                                          std::int64_t words) {
  const __m256i step = _mm256_set1_epi64x(static_cast<long long>(4 * kPhi));
  const __m256i c1 = _mm256_set1_epi64x(static_cast<long long>(kC1)), c2 = _mm256_set1_epi64x(static_cast<long long>(kC2));
  __m256i key = _mm256_set_epi64x(static_cast<long long>((q0 + 3) * kPhi), static_cast<long long>((q0 + 2) * kPhi),
                                  static_cast<long long>((q0 + 1) * kPhi), static_cast<long long>(q0 * kPhi));
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  std::int64_t k = 0;
  for (; k + 8 <= words; k += 8) {
    s0 = _mm256_add_epi64(s0, term4(load4<W>(p, k), key, c1, c2));
    key = _mm256_add_epi64(key, step);
    s1 = _mm256_add_epi64(s1, term4(load4<W>(p, k + 4), key, c1, c2));
    key = _mm256_add_epi64(key, step);
  }
  alignas(32) std::uint64_t l[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(l), _mm256_add_epi64(s0, s1));
  return l[0] + l[1] + l[2] + l[3] + row_v2_portable<W>(q0 + std::uint64_t(k), p + k * std::int64_t(sizeof(W)), words - k);
}

bool have_avx2() {
  static const bool v = __builtin_cpu_supports("avx2");
  return v;
}
#endif

template <typename W>
std::uint64_t row_sum(ChecksumMethod m, std::uint64_t q0, const unsigned char* p, std::int64_t words) {
  if (m == ChecksumMethod::V1) return row_v1<W>(q0, p, words);
#ifdef NBFFT_CHECKSUM_AVX2
  if (have_avx2()) return row_v2_avx2<W>(q0, p, words);
#endif
  return row_v2_portable<W>(q0, p, words);
}

}  // namespace

const char* name(ChecksumMethod m) { return m == ChecksumMethod::V1 ? "nbfft-sum64-v1" : "nbfft-sum64-v2"; }

bool checksum_method_of(const std::string& s, ChecksumMethod& m) {
  for (ChecksumMethod c : {ChecksumMethod::V1, ChecksumMethod::V2})
    if (s == name(c)) {
      m = c;
      return true;
    }
  return false;
}

std::uint64_t block_checksum(std::size_t d, const std::int64_t* start, const std::int64_t* count,
                             const std::int64_t* dims, Dtype dtype, const void* block, ChecksumMethod method) {
  const bool cplx = dtype == Dtype::Complex128 || dtype == Dtype::Complex64;
  const bool wide = dtype == Dtype::Float64 || dtype == Dtype::Complex128;
  const std::int64_t per = cplx ? 2 : 1;  // words per element
  const std::int64_t es = per * (wide ? 8 : 4);
  const auto* p = static_cast<const unsigned char*>(block);
  std::uint64_t s = 0;
  // Whole trailing axes are one run of words in the file and in the block: summed in one go.
  for_each_run(d, start, count, dims, [&](std::int64_t g, std::int64_t b, std::int64_t n) {
    s += wide ? row_sum<std::uint64_t>(method, std::uint64_t(g * per), p + b * es, n * per)
              : row_sum<std::uint32_t>(method, std::uint64_t(g * per), p + b * es, n * per);
  });
  return s;
}

}  // namespace nbfft::io::detail
