// Host memory's transpose (local/move.hpp): cache-blocked, with non-temporal stores when asked.
#include "local/move.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace nbfft::local {

namespace {

// One element from s to d (E bytes; E = 0: `elem` bytes), streamed when `stream` (d and the
// element size then multiples of 16, or 8-byte elements at 8).
template <std::size_t E>
inline void move_elem(unsigned char* d, const unsigned char* s, std::size_t elem, bool stream) {
#if defined(__SSE2__)
  if (stream) {
    const std::size_t e = E ? E : elem;
    if (e == 8) {
      long long v;
      std::memcpy(&v, s, 8);
      _mm_stream_si64(reinterpret_cast<long long*>(d), v);
      return;
    }
    for (std::size_t k = 0; k < e; k += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + k), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k)));
    return;
  }
#else
  (void)stream;
#endif
  std::memcpy(d, s, E ? E : elem);
}

// dst[j][i] = src[i][j] for i < rows, j < cols: elements of `elem` bytes, rows sld elements
// apart in src and dld apart in dst. In tiles of about 1 KiB per row, so that both sides
// of a tile stay in cache (a 16-byte element read along a column touches one cache line
// per element otherwise). When src's rows are a multiple of 4 KiB apart, a tile's column
// falls into one cache set and evicts itself: its rows are then copied into a small padded
// buffer first (8192^2 r2c's backward swap, rows 128 KiB apart: 316 -> 153 ms; the forward
// swap's 64 KiB + 16 B rows stay direct, 128 against 156 buffered).
template <std::size_t E>
void transpose_tiles(unsigned char* dst, std::int64_t dld, const unsigned char* src, std::int64_t sld, std::int64_t rows,
                     std::int64_t cols, std::size_t elem, bool stream) {
  const std::size_t e = E ? E : elem;
  const std::size_t need = e == 8 ? 8 : 16;  // a streamed element's alignment
  stream = stream && (e == 8 || e % 16 == 0) && reinterpret_cast<std::uintptr_t>(dst) % need == 0;
  const std::int64_t tile = std::max<std::int64_t>(1, std::min<std::int64_t>(64, 1024 / static_cast<std::int64_t>(e)));
  const bool buffered = (static_cast<std::size_t>(sld) * e) % 4096 == 0 && rows > 1;
  thread_local std::vector<unsigned char> buffer;
  const std::int64_t bl = tile + 1;  // the buffer's row, padded off the power of two
  if (buffered && buffer.size() < static_cast<std::size_t>(tile * bl) * e) buffer.resize(static_cast<std::size_t>(tile * bl) * e);
  for (std::int64_t i0 = 0; i0 < rows; i0 += tile)
    for (std::int64_t j0 = 0; j0 < cols; j0 += tile) {
      const std::int64_t i1 = std::min(rows, i0 + tile), j1 = std::min(cols, j0 + tile);
      if (buffered) {
        unsigned char* b = buffer.data();
        for (std::int64_t i = i0; i < i1; ++i)
          std::memcpy(b + static_cast<std::size_t>((i - i0) * bl) * e, src + static_cast<std::size_t>(i * sld + j0) * e,
                      static_cast<std::size_t>(j1 - j0) * e);
        for (std::int64_t j = j0; j < j1; ++j) {
          unsigned char* d = dst + static_cast<std::size_t>(j * dld + i0) * e;
          for (std::int64_t i = i0; i < i1; ++i)
            move_elem<E>(d + static_cast<std::size_t>(i - i0) * e, b + static_cast<std::size_t>((i - i0) * bl + (j - j0)) * e,
                         e, stream);
        }
        continue;
      }
      for (std::int64_t j = j0; j < j1; ++j) {
        unsigned char* d = dst + static_cast<std::size_t>(j * dld) * e;
        for (std::int64_t i = i0; i < i1; ++i)
          move_elem<E>(d + static_cast<std::size_t>(i) * e, src + static_cast<std::size_t>(i * sld + j) * e, e, stream);
      }
    }
#if defined(__SSE2__)
  if (stream) _mm_sfence();  // the streamed stores reach memory before anything reads them
#endif
}

}  // namespace

void transpose(unsigned char* dst, std::int64_t dld, const unsigned char* src, std::int64_t sld, std::int64_t rows, std::int64_t cols,
               std::size_t elem, bool stream) {
  switch (elem) {  // the common element sizes as constants: memcpy becomes a move
    case 4: return transpose_tiles<4>(dst, dld, src, sld, rows, cols, elem, false);
    case 8: return transpose_tiles<8>(dst, dld, src, sld, rows, cols, elem, stream);
    case 16: return transpose_tiles<16>(dst, dld, src, sld, rows, cols, elem, stream);
    default: return transpose_tiles<0>(dst, dld, src, sld, rows, cols, elem, stream);
  }
}


}  // namespace nbfft::local
