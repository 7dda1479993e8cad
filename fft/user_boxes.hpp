// User boxes: every rank's box of a plan side, agreed across ranks and checked to tile the
// grid (docs/fft.md "Your own layout: boxes in and out").
//
// agree_boxes() allgathers each rank's box (lo, n, order) and checks, on the gathered list
// (so every rank reaches the same verdict and throws the same Error), in this order:
//   - each box: n >= 0, lo >= 0 where n > 0, lo + n <= the grid, order a permutation of
//     {0, 1, 2};
//   - no two non-empty boxes overlap (the first pair by rank names both boxes);
//   - the boxes cover the grid (their points add up to it; the message names a point no
//     rank holds when the ranks are few enough to look for one cheaply).
// Empty boxes (any n of 0) are allowed anywhere; their lo is ignored.
#pragma once

#include "nbfft/fft/box.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nbfft::fft {

// what: the side's name in messages ("in_box"); grid: its global extent (x, y, z);
// grid_what: how to name that extent ("the physical grid 24x16x12").
// Collective over comm; returns the boxes by rank (empty boxes normalized to n = 0, 0, 0).
std::vector<Box3> agree_boxes(MPI_Comm comm, const Box3& mine, const std::array<std::int64_t, 3>& grid,
                              const std::string& what, const std::string& grid_what);

// The same checks on a given list (no communication): "" or the message.
std::string boxes_problem(const std::vector<Box3>& boxes, const std::array<std::int64_t, 3>& grid,
                          const std::string& what, const std::string& grid_what);

}  // namespace nbfft::fft
