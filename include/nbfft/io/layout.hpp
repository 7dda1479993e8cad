// nbfft::io::Layout: what a collective write or read of a distributed array needs to know,
// whatever made the array: the global shape, this rank's block of it (offset, extent and
// memory order) and the element type, plus the description the file records beside it.
// H5File (nbfft/io/hdf5.hpp) writes and reads any layout; the factories below give the
// layouts of nbfft's own arrays, so that a 3-D plan's, an N-D plan's and a transpose's
// pencils are written and restarted through the same call.
//
//   nbfft::nd::Plan p(comm, {8, 6, 5, 4}, {1, 2, 3}, o);           // a 4-D batch plan
//   out.write(nbfft::io::Layout::of(p, nbfft::io::Space::Spectral), "U", step, t, uh);
//   nbfft::io::Layout mine({64, 64}, box, nbfft::io::Dtype::Float64);  // a user's own block
//
// Conventions are numpy's (nd::Box's): axes slowest first, and the dataset in the file is
// the global array in C order of `shape`. A 3-D plan's layout is (z, y, x), as its files
// always were. Boxes list lo and n per axis; order lists the axes in memory, slowest
// first (empty: C order). A block in another memory order is written and read in order
// through a staging copy.
#pragma once

#include "nbfft/nd/plan.hpp"

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace nbfft::fft {
class Plan;
class Pencils;
enum class Pencil;
}  // namespace nbfft::fft

namespace nbfft::io {

// Which side of a transform a field is: the input's (physical) or the spectrum's.
enum class Space { Physical, Spectral };
const char* name(Space s);  // "physical", "spectral"

// The element type of a field in memory (and in the file: no conversion on the way).
enum class Dtype { Float64, Float32, Complex128, Complex64 };
const char* name(Dtype d);  // numpy's names: "float64", "float32", "complex128", "complex64"
std::size_t size_of(Dtype d);  // bytes of one element

template <typename T>
constexpr Dtype dtype_of() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, std::complex<double>> ||
                    std::is_same_v<T, std::complex<float>>,
                "nbfft::io: fields are double, float or their std::complex");
  if constexpr (std::is_same_v<T, double>) return Dtype::Float64;
  else if constexpr (std::is_same_v<T, float>) return Dtype::Float32;
  else if constexpr (std::is_same_v<T, std::complex<double>>) return Dtype::Complex128;
  else return Dtype::Complex64;
}

struct Layout {
  std::vector<std::int64_t> shape;  // the global array, axis 0 slowest (at least one axis)
  nd::Box box;                      // this rank's block of it (empty blocks allowed)
  Dtype dtype = Dtype::Float64;

  // ---- The description the file records (each dataset's attributes, docs/io.md) ---------
  // Physical or spectral side of a transform: written as the attribute space; a read
  // checks it when the layout has one (a field written without one is then refused, saying so).
  // unset: a user's array (no space), which reads any field of its shape and dtype.
  bool has_space = false;
  Space space = Space::Physical;
  // Further string attributes, written as given (transform, precision, norm, kinds, axes,
  // halved_axis, ...). A read of a spectrum checks kinds and norm against the file's.
  std::vector<std::pair<std::string, std::string>> text;
  // Integer attributes (grid, physical_grid of a 3-D plan).
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> numbers;
  // How the boxes were cut ("2x3"; "" for a user's layout): agreed by every rank of a write
  // or read, so that ranks passing plans of different process grids are told so
  // (RanksDisagree) instead of writing overlapping boxes.
  std::string process_grid;
  // The communicator the boxes were cut for (ranks, this rank), checked against the file's
  // (0: not checked).
  int ranks = 0, rank = -1;
  // The file's run attributes (grid, physical_grid, plan_options), stamped by the first
  // write that has them (a 3-D plan's); empty: none.
  std::vector<std::int64_t> run_grid, run_physical_grid;
  std::string run_options;

  Layout() = default;
  // A user's layout: no description beyond the shape. Checked when used (check()).
  Layout(std::vector<std::int64_t> shape, nd::Box box, Dtype dtype);

  // A 3-D plan's field: Physical = in_box() on the (padded) physical grid (z, y, x), of
  // real (r2c, r2r) or complex elements; Spectral = out_box() on (kz, ky, kx), kx halved for
  // r2c. The attributes nbfft always wrote for them.
  static Layout of(const fft::Plan& plan, Space space);
  // An N-D plan's input (Physical: in_box() of shape()) or spectrum (Spectral: out_box()
  // of out_shape(), in its memory order), element types as its calls take them.
  static Layout of(const nd::Plan& plan, Space space);
  // A pencil of a transpose, (nz, ny, nx), of elements of `dtype`.
  static Layout of(const fft::Pencils& pencils, fft::Pencil pencil, Dtype dtype);

  std::int64_t count() const { return box.count(); }  // this rank's elements
  // What is wrong with this layout ("" when nothing): no axes, a negative or overflowing
  // extent, a box of another number of axes or outside the shape, an order that is not a
  // permutation of the axes. Local; H5File agrees on it before any collective step.
  std::string check() const;
  // The attribute `key` of text ("" when absent).
  std::string attribute(const std::string& key) const;
};

// "4x6x5" (the shape, axis 0 first).
std::string shape_text(const std::vector<std::int64_t>& shape);

}  // namespace nbfft::io
