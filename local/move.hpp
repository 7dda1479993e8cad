// The loops that move a stage's data between buffers: row copies, scaling, zeroing,
// strided element runs, transposes. Every stage of both engines and the collectives' own
// blocks move data through these, so a memory kind other than host memory (device memory,
// the GPU-resident fields of a later issue) replaces these bodies (strided async copies,
// kernels on the stage's stream) without touching the stages. Host memory: inline, so
// the hot loops compile as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace nbfft::local {

// `rows` rows of `len` elements from src (rows src_ld elements apart) to dst (dst_ld apart);
// one copy when both are contiguous.
template <typename C>
inline void copy_rows(C* dst, std::int64_t dst_ld, const C* src, std::int64_t src_ld, std::int64_t rows,
                      std::int64_t len) {
  if (rows <= 0 || len <= 0) return;
  if (dst_ld == len && src_ld == len) {
    std::memcpy(dst, src, sizeof(C) * static_cast<std::size_t>(rows * len));
    return;
  }
  for (std::int64_t r = 0; r < rows; ++r)
    std::memcpy(dst + r * dst_ld, src + r * src_ld, sizeof(C) * static_cast<std::size_t>(len));
}

// The same, each element times s (C complex or real, S its real type).
template <typename C, typename S>
inline void copy_rows_scaled(C* dst, std::int64_t dst_ld, const C* src, std::int64_t src_ld, std::int64_t rows,
                             std::int64_t len, S s) {
  if (s == S(1)) return copy_rows(dst, dst_ld, src, src_ld, rows, len);
  for (std::int64_t r = 0; r < rows; ++r) {
    C* d = dst + r * dst_ld;
    const C* p = src + r * src_ld;
    for (std::int64_t x = 0; x < len; ++x) d[x] = p[x] * s;
  }
}

// In place: `rows` rows of `len` elements, ld apart, times s.
template <typename C, typename S>
inline void scale_rows(C* first, std::int64_t rows, std::int64_t ld, std::int64_t len, S s) {
  if (s == S(1)) return;
  for (std::int64_t r = 0; r < rows; ++r) {
    C* p = first + r * ld;
    for (std::int64_t x = 0; x < len; ++x) p[x] *= s;
  }
}

// `rows` rows of `len` zero elements, ld apart.
template <typename C>
inline void zero_rows(C* first, std::int64_t rows, std::int64_t ld, std::int64_t len) {
  if (rows <= 0 || len <= 0) return;
  if (ld == len) {
    std::memset(static_cast<void*>(first), 0, sizeof(C) * static_cast<std::size_t>(rows * len));
    return;
  }
  for (std::int64_t r = 0; r < rows; ++r)
    std::memset(static_cast<void*>(first + r * ld), 0, sizeof(C) * static_cast<std::size_t>(len));
}

// `rows` rows of `len` elements, ld apart, from row `from` to row `to` of one array; the
// regions may overlap (rows are moved in the order that reads each before it is written).
template <typename C>
inline void move_rows(C* base, std::int64_t ld, std::int64_t to, std::int64_t from, std::int64_t rows,
                      std::int64_t len) {
  if (rows <= 0 || len <= 0 || to == from) return;
  if (ld == len) {
    std::memmove(base + to * ld, base + from * ld, sizeof(C) * static_cast<std::size_t>(rows * len));
    return;
  }
  const auto bytes = sizeof(C) * static_cast<std::size_t>(len);
  if (to > from)
    for (std::int64_t k = rows - 1; k >= 0; --k) std::memmove(base + (to + k) * ld, base + (from + k) * ld, bytes);
  else
    for (std::int64_t k = 0; k < rows; ++k) std::memmove(base + (to + k) * ld, base + (from + k) * ld, bytes);
}

// `bytes` contiguous bytes (a collective's own block, a field's staged copy).
inline void copy_bytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes) std::memcpy(dst, src, bytes);
}

namespace detail {
template <std::size_t E>
struct Elem {
  unsigned char b[E];
};
template <std::size_t E>
inline void strided(unsigned char* d, std::int64_t ds, const unsigned char* s, std::int64_t ss, std::int64_t len) {
  auto* dd = reinterpret_cast<Elem<E>*>(d);
  const auto* sp = reinterpret_cast<const Elem<E>*>(s);
  for (std::int64_t i = 0; i < len; ++i) std::memcpy(dd + i * ds, sp + i * ss, E);
}
}  // namespace detail

// `len` elements of `elem` bytes from src (src_stride elements apart) to dst (dst_stride
// apart): one copy when both are unit-stride; the common element sizes as constants, so
// each element's copy is one move.
inline void copy_strided(void* dst, std::int64_t dst_stride, const void* src, std::int64_t src_stride,
                         std::int64_t len, std::size_t elem) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (len <= 0) return;
  if (dst_stride == 1 && src_stride == 1) {
    std::memcpy(d, s, static_cast<std::size_t>(len) * elem);
    return;
  }
  switch (elem) {
    case 4: return detail::strided<4>(d, dst_stride, s, src_stride, len);
    case 8: return detail::strided<8>(d, dst_stride, s, src_stride, len);
    case 16: return detail::strided<16>(d, dst_stride, s, src_stride, len);
    default:
      for (std::int64_t i = 0; i < len; ++i)
        std::memcpy(d + static_cast<std::size_t>(i * dst_stride) * elem, s + static_cast<std::size_t>(i * src_stride) * elem,
                    elem);
  }
}

// dst[j][i] = src[i][j] for i < rows, j < cols: elements of `elem` bytes, rows sld elements
// apart in src and dld apart in dst, cache-blocked (local/move.cpp says how); stream: the
// stores bypass the caches (the caller knows the result is too large to stay in them).
void transpose(unsigned char* dst, std::int64_t dld, const unsigned char* src, std::int64_t sld, std::int64_t rows,
               std::int64_t cols, std::size_t elem, bool stream);

}  // namespace nbfft::local
