// The checksum of a dataset (issue 23): one number that says whether the bytes read are the
// bytes written, whatever the decomposition of the writer and of the reader.
//
// It is the sum mod 2^64, over every real word of the global array (one per real element,
// two per complex one: r then i), of a term mix(q, w): q the word's index in the file's
// natural order, w its bit pattern (a float's 32 bits zero-extended). A sum does not
// depend on the order it is taken in, so each rank adds up its own box, in any pieces and
// in any number of independent lanes, and one MPI_Allreduce makes the global value: a file
// written at 4 ranks verifies when read at 3 or 1. q keys the word, so a moved or swapped
// block is a change too. It finds damage (a flipped bit, a lost or shifted block, a stale
// page), not an adversary.
//
// Two methods, named by the dataset's checksum_method attribute; new files get v2, a reader
// checks either:
//   v1 "nbfft-sum64-v1"  x = w ^ q*phi; one 64x64 -> 128-bit multiply of x, halves folded by
//                        xor. A multiply chain per word: about half the memory's speed.
//   v2 "nbfft-sum64-v2"  x = w ^ q*phi; a = lo32(x)*C1, b = hi32(x)*C2 (32x32 -> 64-bit), the
//                        term a ^ rotl(b, 32). Four words per AVX2 instruction, so a pass
//                        runs at the memory's speed. A word whose one half changes always
//                        changes its term (each half's product is injective); both halves
//                        changing collide only if a's change equals b's rotated one.
#pragma once

#include "nbfft/io/hdf5.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace nbfft::io::detail {

enum class ChecksumMethod { V1, V2 };

// What the attribute checksum_method names; new datasets get kChecksumMethod.
const char* name(ChecksumMethod m);
inline constexpr ChecksumMethod kChecksumMethod = ChecksumMethod::V2;
// The method a checksum_method attribute names; false if this nbfft does not know it.
bool checksum_method_of(const std::string& s, ChecksumMethod& m);

// The runs of a block of a C-order array, each a stretch of consecutive elements in both
// the array and the block: the block's last axis, merged with the axes before it while
// the block holds them whole. `count` elements per axis starting at `start`, of an array
// of extent `dims` (d axes, slowest first). run_length: the elements of each run (0 for an
// empty block). for_each_run calls f(array_index, block_index, length) for each, in order.
inline std::int64_t run_length(std::size_t d, const std::int64_t* count, const std::int64_t* dims) {
  std::int64_t run = 1;
  std::size_t k = d;
  while (k > 0) {
    --k;
    run *= count[k];
    if (count[k] != dims[k]) break;
  }
  return run;
}
template <typename F>
void for_each_run(std::size_t d, const std::int64_t* start, const std::int64_t* count, const std::int64_t* dims,
                  F f) {
  for (std::size_t a = 0; a < d; ++a)
    if (count[a] == 0) return;
  std::size_t k = d - 1;  // the run spans axes k .. d-1
  while (k > 0 && count[k] == dims[k]) --k;
  const std::int64_t run = run_length(d, count, dims);
  std::vector<std::int64_t> at(k, 0);  // the run's index along the axes before k
  for (std::int64_t block = 0;; block += run) {
    std::int64_t g = 0;
    for (std::size_t a = 0; a < d; ++a) g = g * dims[a] + start[a] + (a < k ? at[a] : 0);
    f(g, block, run);
    std::size_t a = k;
    for (;;) {
      if (a == 0) return;
      --a;
      if (++at[a] < count[a]) break;
      at[a] = 0;
    }
  }
}

// The checksum terms of a contiguous block of the global array in its natural (C) order:
// `count` elements per axis starting at `start`, of a global array of extent `dims` (d
// axes, slowest first; a 3-D plan's (z, y, x)), laid out in `block` in C order. Add up the
// parts, mod 2^64.
std::uint64_t block_checksum(std::size_t d, const std::int64_t* start, const std::int64_t* count,
                             const std::int64_t* dims, Dtype dtype, const void* block,
                             ChecksumMethod method = kChecksumMethod);
inline std::uint64_t block_checksum(const std::int64_t start[3], const std::int64_t count[3],
                                    const std::int64_t dims[3], Dtype dtype, const void* block,
                                    ChecksumMethod method = kChecksumMethod) {
  return block_checksum(3, start, count, dims, dtype, block, method);
}

}  // namespace nbfft::io::detail
