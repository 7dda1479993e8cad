// The decomposition of an N-D plan (pure: no MPI, no FFTW): which ranks hold which part of
// the array at each stage, which axes each local FFT covers, and which exchange moves the
// ranks from one axis to another in between.
#pragma once

#include "nbfft/nd/plan.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace nbfft::nd::detail {

// The array between two steps: its extents (the r2c axis halved once transformed) and, per
// axis, the grid dimension spread over it (-1: whole on every rank).
struct Stage {
  std::vector<std::int64_t> ext;
  std::vector<int> dist;
};

// A local FFT over `axes` (all whole here; with r2c the r2c axis first), or an exchange of
// grid dimension g from axis `from` (whole afterwards) to axis `to` (whole before).
struct Step {
  bool fft = true;
  std::vector<int> axes;
  bool r2c = false;
  int g = -1, from = -1, to = -1;
};

struct Schedule {
  std::vector<int> ranks;     // per grid dimension (the input grid's axes of more than one rank, in axis order)
  std::vector<Stage> stage;   // stage[k] is the array before step[k]; stage.back() the output
  std::vector<Step> step;
  int exchanges() const;
  std::vector<int> grid(std::size_t k) const;  // ranks per axis at stage k
};

// Builds the schedule of an input grid (ranks per axis, validated by the caller); returns
// "" or why it cannot be made. axes: non-negative, distinct, the r2c axis last.
std::string build_schedule(const std::vector<std::int64_t>& shape, const std::vector<int>& axes, bool r2c,
                           const std::vector<int>& grid, Schedule& out);

// The grid for `ranks` ranks: ranks on untransformed axes first (no exchange), then the
// fewest exchanges, the fewest distributed axes, the slowest axes. Empty (and `why` set)
// when no grid can be made.
std::vector<int> choose_grid(const std::vector<std::int64_t>& shape, const std::vector<int>& axes, bool r2c,
                             int ranks, std::string& why);

// This rank's coordinate along each grid dimension (the last one fastest, as MPI_Cart).
std::vector<int> coords_of(const std::vector<int>& ranks, int rank);

// Rank `coords`'s box at a stage.
Box box_at(const Stage& s, const std::vector<int>& ranks, const std::vector<int>& coords);

}  // namespace nbfft::nd::detail
