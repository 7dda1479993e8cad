// The messages of a whole-field gather or scatter, shared by the 3-D plan's
// (nbfft/fft/field.hpp) and the N-D plan's (nbfft/nd/field.hpp): rank r's part is counts[r]
// elements of `elem` bytes; the root hands every part to the global array (gather,
// to_root) or takes it from there (scatter) through copy(r, part), part being rank r's
// block in its own memory order. One message per rank, not Gatherv / Scatterv: their int
// displacements overflow for big grids. The caller has checked sizes and the root on
// every rank (each count fits an int); collective over comm.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace nbfft::fft::detail {

void move_parts(MPI_Comm comm, int root, bool to_root, std::size_t elem, const std::vector<std::int64_t>& counts,
                const void* local_in, void* local_out, const std::function<void(int, char*)>& copy);
// The same with the root's buffer for one part given (part_bytes(counts, elem) bytes on the
// root; ignored elsewhere), so that a caller can allocate it before agreeing on the call: an
// allocation that fails on the root then fails every rank instead of leaving them waiting.
void move_parts(MPI_Comm comm, int root, bool to_root, std::size_t elem, const std::vector<std::int64_t>& counts,
                const void* local_in, void* local_out, const std::function<void(int, char*)>& copy, char* part);
std::size_t part_bytes(const std::vector<std::int64_t>& counts, std::size_t elem);

}  // namespace nbfft::fft::detail
