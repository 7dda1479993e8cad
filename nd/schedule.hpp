// The decomposition of an N-D plan (pure: no MPI, no FFTW): which ranks hold which part of
// the array at each stage, which axes each local FFT covers, and which exchange moves the
// ranks from one axis to another in between.
#pragma once

#include "nbfft/nd/plan.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace nbfft::nd::detail {

// The array between two steps: its extents (the r2c axis halved once transformed), per
// axis the grid dimension spread over it (-1: whole on every rank), and its axes in memory
// order, slowest first (natural, until the swap of a transposed output order).
struct Stage {
  std::vector<std::int64_t> ext;
  std::vector<int> dist;
  std::vector<int> order;
};

// A local step: FFTs over `axes` (all whole here; with r2c the r2c axis first), or an
// exchange of grid dimension g from axis `from` (whole afterwards) to axis `to` (whole
// before). swap: the stage after the step has the output order's two axes traded (a
// transposed output order): an exchange between those two axes writes it as it unpacks; a
// local step with no axes is the swap alone (a copy).
// resize (a padded plan's, after the FFT step over those axes): forward truncates each axis
// listed from its physical extent to its spectrum's, backward zero-pads it back (fft/padding.hpp);
// a local step with no axes, like the swap.
struct Step {
  bool fft = true;
  std::vector<int> axes;
  bool r2c = false;
  int g = -1, from = -1, to = -1;
  bool swap = false;
  std::vector<int> resize;
  bool ffts() const { return fft && !swap && resize.empty(); }  // a step of local FFTs
};

struct Schedule {
  std::vector<int> ranks;     // per grid dimension (the input grid's axes of more than one rank, in axis order)
  std::vector<Stage> stage;   // stage[k] is the array before step[k]; stage.back() the output
  std::vector<Step> step;
  int exchanges() const;
  std::vector<int> grid(std::size_t k) const;  // ranks per axis at stage k
};

// Builds the schedule of an input grid (ranks per axis, validated by the caller); returns
// "" or why it cannot be made. shape: the input's (physical) extents; spectrum: a padded
// plan's spectral extents (empty: shape's), each transformed axis resized to it after its
// FFT step (a padded r2c axis in an r2c step of its own: its Nyquist column is split while
// the other axes are still physical, as on the 3-D plan). axes: non-negative, distinct, the r2c axis last. allow_empty:
// an axis may be split over more ranks than it has points (some ranks hold none of it);
// otherwise every split axis holds a point per rank at every stage. names: the number the
// why names each axis by (the user's, when a batch axis is taken out); empty: its own.
std::string build_schedule(const std::vector<std::int64_t>& shape, const std::vector<int>& axes, bool r2c,
                           const std::vector<int>& grid, Schedule& out, bool allow_empty = false,
                           const std::vector<int>& names = {}, const std::vector<std::int64_t>& spectrum = {});

// A transposed output order: axes p and q trade places in memory from the last exchange
// between them on, or from a swap step placed at the end (p's FFT, unless the r2c one,
// moved after it, where p is the faster of the two). No exchange sees a swapped stage.
void transpose_output(Schedule& s, int p, int q);

// Threads inside a rank share a local step's FFTs in chunks along an axis the step does not
// transform (nd/run.cpp). A step that transforms every axis of its stage longer than one
// point has no such axis, so it becomes two: the step without the slowest of its axes in
// memory (never the r2c axis), then that axis alone; each leaves the other's axes to chunk.
// The stage between them is the one after the step (FFTs other than the r2c change neither
// extents nor grid).
void split_for_lanes(Schedule& s);

// The grid for `ranks` ranks: ranks on untransformed axes first (no exchange), then the
// fewest exchanges, the fewest distributed axes, the slowest axes. Grids that leave no rank
// empty come first; with allow_empty, when there are none, the one that leaves the fewest
// ranks empty. Empty (and `why` set) when no grid can be made.
std::vector<int> choose_grid(const std::vector<std::int64_t>& shape, const std::vector<int>& axes, bool r2c,
                             int ranks, std::string& why, bool allow_empty = false, const std::vector<int>& names = {},
                             const std::vector<std::int64_t>& spectrum = {});

// This rank's coordinate along each grid dimension (the last one fastest, as MPI_Cart).
std::vector<int> coords_of(const std::vector<int>& ranks, int rank);

// Rank `coords`'s box at a stage.
Box box_at(const Stage& s, const std::vector<int>& ranks, const std::vector<int>& coords);

}  // namespace nbfft::nd::detail
