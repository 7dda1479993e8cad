// nbfft::nd::Plan: distributed FFTs of arrays of any number of dimensions along any subset
// of their axes (numpy's fftn / rfftn with `axes`), on the pencil transposes of
// nbfft/fft/transpose.hpp. The 3-D nbfft::fft::Plan is untouched by this layer.
//
//   nbfft::nd::Options o;                               // r2c, double, norm "backward"
//   nbfft::nd::Plan p(MPI_COMM_WORLD, {nz, ny, nx}, {0, 2}, o);   // a channel: x and z, not y
//   std::vector<double> u(p.in_count());  std::vector<std::complex<double>> uh(p.out_count());
//   p.forward(u.data(), u.size(), uh.data(), uh.size());
//   p.backward(uh.data(), uh.size(), u.data(), u.size());
//
// Single precision: Options::precision = Single and the float / std::complex<float>
// overloads (one Plan type, as the 3-D plan's Options::precision, so the C, Fortran and
// Python front ends keep one handle). Transform kinds: Options::kinds gives each listed axis
// periodic (the DFT) or an FFTW r2r kind (sine/cosine, nbfft/fft/r2r_kinds.hpp).
//
// Conventions are numpy's: shape and boxes list axes slowest first (axis 0 slowest), each
// rank's block is a C-order array of its box's extents (last axis fastest), and negative
// axes count from the end. r2c halves axes.back() (the last axis *as listed*, as rfftn
// does) to n/2+1; the other listed axes are c2c; axes not listed are carried along.
//
// Decomposition: the input is split over a process grid, `grid[a]` ranks along axis a
// (product = communicator size; Options::grid, or chosen). The plan is a sequence of
// local FFTW transforms over the axes that are whole on every rank, alternating with
// exchanges that move one grid dimension from an axis still to be transformed onto one
// already transformed (each a pencil transpose of nbfft::fft::Pencils over that grid
// dimension's ranks, the dims between the two axes moved aside by a local copy). The
// chosen grid puts the ranks on untransformed axes first: those never need an exchange
// (shape (nz, ny, nx), axes (0, 2) at ny >= ranks is purely local). Every distributed axis
// must hold at least one point per rank at every stage; a grid that cannot is an error.
#pragma once

#include "nbfft/fft/options.hpp"

#include <mpi.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace nbfft::nd {

enum class Kind { R2C, C2C };
const char* name(Kind k);  // "r2c", "c2c"

// A block of an N-D array: global offset and extent along each axis (axis 0 first),
// stored in C order (the last axis fastest).
struct Box {
  std::vector<std::int64_t> lo, n;
  std::int64_t count() const;
  bool empty() const { return count() == 0; }
  // Offset of global point g (one index per axis) inside this box's storage.
  std::int64_t index(const std::vector<std::int64_t>& g) const;
  friend bool operator==(const Box& a, const Box& b) { return a.lo == b.lo && a.n == b.n; }
};
std::ostream& operator<<(std::ostream& os, const Box& b);  // "[0:4, 2:5, 0:9]"

struct Options {
  Kind kind = Kind::R2C;
  fft::Precision precision = fft::Precision::Double;  // Single: the float overloads below
  // The forward transform of each listed axis, in the order of `axes` (empty: all periodic):
  // periodic, or an r2r kind (dct1..dct4, dst1..dst4; backward runs its inverse kind). With
  // real input (R2C) the halved axis is the last listed *periodic* axis; with no periodic
  // axis the spectrum is real (real in, real out: the real-to-real overloads). On complex
  // data an r2r kind transforms the real and imaginary parts alike. Norms use each axis's
  // logical size (2(n-1) for dct1, 2(n+1) for dst1, 2n for the other r2r kinds).
  std::vector<fft::AxisKind> kinds;
  fft::Norm norm = fft::Norm::Backward;  // as nbfft::fft::Options (1/N on backward)
  fft::Effort effort = fft::Effort::Estimate;
  // Ranks along each axis at the input (length = number of axes, product = communicator
  // size); empty: chosen (untransformed axes first, then the fewest exchanges).
  std::vector<int> grid;
  std::string transport = "blocking";  // every exchange's transport ("pairwise:4@thread", ...)
};

class Plan {
 public:
  // Collective over comm. Throws nbfft::Error on every rank for an axis out of range or
  // repeated, a non-positive extent, ranks that disagree on the shape, axes or options, a
  // grid of the wrong length or product, or a decomposition that cannot be made.
  Plan(MPI_Comm comm, std::vector<std::int64_t> shape, std::vector<int> axes, const Options& options = {});
  Plan(MPI_Comm comm, std::vector<std::int64_t> shape);  // every axis, default Options
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  const std::vector<std::int64_t>& shape() const;   // the real (r2c) or complex input's shape
  std::vector<std::int64_t> out_shape() const;      // the spectrum's (r2c: axes.back() halved)
  const std::vector<int>& axes() const;             // as given, made non-negative
  Kind kind() const;
  fft::Precision precision() const;
  const std::vector<fft::AxisKind>& kinds() const;  // one per entry of axes()
  bool real_spectrum() const;                       // every listed axis r2r on real input
  const std::vector<int>& grid() const;             // the input's grid (ranks per axis)
  const std::vector<int>& out_grid() const;         // the spectrum's grid
  int exchanges() const;                            // exchanges one transform makes
  int size() const;                                 // ranks
  int rank() const;

  const Box& in_box() const;
  const Box& out_box() const;
  Box in_box_of_rank(int r) const;
  Box out_box_of_rank(int r) const;
  std::size_t in_count() const;   // elements: real (r2c) or complex (c2c)
  std::size_t out_count() const;  // elements: complex, or real when real_spectrum()

  // Collective. Counts are elements of the arrays passed (at least in_count / out_count);
  // a short array is an error on every rank. The input is left unchanged.
  void forward(const double* in, std::size_t in_n, std::complex<double>* out, std::size_t out_n) const;
  void forward(const std::complex<double>* in, std::size_t in_n, std::complex<double>* out, std::size_t out_n) const;
  void backward(const std::complex<double>* in, std::size_t in_n, double* out, std::size_t out_n) const;
  void backward(const std::complex<double>* in, std::size_t in_n, std::complex<double>* out,
                std::size_t out_n) const;
  // real_spectrum() plans (every listed axis r2r on real data): real both ways.
  void forward(const double* in, std::size_t in_n, double* out, std::size_t out_n) const;
  void backward(const double* in, std::size_t in_n, double* out, std::size_t out_n) const;
  // Single precision (Options::precision = Single), the same calls on float data.
  void forward(const float* in, std::size_t in_n, std::complex<float>* out, std::size_t out_n) const;
  void forward(const std::complex<float>* in, std::size_t in_n, std::complex<float>* out, std::size_t out_n) const;
  void backward(const std::complex<float>* in, std::size_t in_n, float* out, std::size_t out_n) const;
  void backward(const std::complex<float>* in, std::size_t in_n, std::complex<float>* out,
                std::size_t out_n) const;
  void forward(const float* in, std::size_t in_n, float* out, std::size_t out_n) const;
  void backward(const float* in, std::size_t in_n, float* out, std::size_t out_n) const;

  // "nd r2c (6, 5, 8) axes (0, 2) grid 1x2x1 -> 1x2x1, 0 exchanges: fft(2,0)"; single
  // precision and r2r kinds are named ("nd r2c single ... kinds (periodic, dst2) ...")
  std::string describe() const;
  struct Impl;

 private:
  void call(bool fwd, Kind k, bool single, bool real_out, const void* in, std::size_t in_n, void* out,
            std::size_t out_n) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbfft::nd
