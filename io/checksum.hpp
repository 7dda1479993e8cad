// The checksum of a dataset (issue 23): one number that says whether the bytes read are the
// bytes written, whatever the decomposition of the writer and of the reader.
//
// It is the sum mod 2^64, over every real word of the global array (one per real element,
// two per complex one: r then i), of mix(q, w): q the word's index in the file's natural
// order, w its bit pattern (a float's 32 bits zero-extended). A sum does not depend on the
// order it is taken in, so each rank adds up its own box, in any pieces, and one
// MPI_Allreduce makes the global value: a file written at 4 ranks verifies when read at 3
// or 1. mix is one 64x64 -> 128-bit multiply of the keyed word, folded: a changed word
// changes its term unless the fold collides (chance about 2^-64), and q enters the key so
// that a moved or swapped block is a change too. Not a defence against a forger: it finds
// damage (a flipped bit, a lost or shifted block, a stale page), not an adversary.
#pragma once

#include "nbfft/io/hdf5.hpp"

#include <cstdint>

namespace nbfft::io::detail {

// What the attribute checksum_method names (a reader checks it before comparing).
inline constexpr const char* kChecksumMethod = "nbfft-sum64-v1";

// The checksum terms of a contiguous block of the global array in its natural (z, y, x)
// order: `count` elements per axis starting at `start`, of a global array of extent `dims`
// (all (z, y, x)), laid out in `block` with x fastest. Add up the parts, mod 2^64.
std::uint64_t block_checksum(const std::int64_t start[3], const std::int64_t count[3], const std::int64_t dims[3],
                             Dtype dtype, const void* block);

}  // namespace nbfft::io::detail
