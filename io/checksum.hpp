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

namespace nbfft::io::detail {

enum class ChecksumMethod { V1, V2 };

// What the attribute checksum_method names; new datasets get kChecksumMethod.
const char* name(ChecksumMethod m);
inline constexpr ChecksumMethod kChecksumMethod = ChecksumMethod::V2;
// The method a checksum_method attribute names; false if this nbfft does not know it.
bool checksum_method_of(const std::string& s, ChecksumMethod& m);

// The checksum terms of a contiguous block of the global array in its natural (z, y, x)
// order: `count` elements per axis starting at `start`, of a global array of extent `dims`
// (all (z, y, x)), laid out in `block` with x fastest. Add up the parts, mod 2^64.
std::uint64_t block_checksum(const std::int64_t start[3], const std::int64_t count[3], const std::int64_t dims[3],
                             Dtype dtype, const void* block, ChecksumMethod method = kChecksumMethod);

}  // namespace nbfft::io::detail
