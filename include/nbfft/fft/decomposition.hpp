// Decomposition: which part of each pencil a rank owns, for a process grid M1 x M2.
//
// Rank r sits at row coordinate i = r % M1 and column coordinate j = r / M1; the ROW
// communicator groups the M1 ranks with the same j (consecutive ranks, so usually one node,
// as P3DFFT intends), the COL communicator the M2 ranks with the same i.
//
//   X-pencil (input)   x: all nx          y: part i of ny over M1    z: part j of nz over M2
//   Y-pencil           x: part i of xc    y: all ny                  z: part j of nz over M2
//   Z-pencil (output)  x: part i of xc    y: part j of ny over M2    z: all nz
//
// The input X-pencil is stored x fastest, then y, then z; the output Z-pencil x fastest,
// then z, then y (order {x, z, y}: each y is one contiguous z-x plane, the layout of FFTW's
// transposed-out order). That plane is what the z FFT works on, in cache, and what the
// COL exchange delivers as a few large blocks per peer (see fft/exchange.hpp).
//
// xc is the number of complex points along x: nx/2+1 for r2c (Hermitian symmetry drops
// the rest), nx for c2c. Forward = FFT x, ROW exchange (X->Y pencil), FFT y, COL exchange
// (Y->Z pencil), FFT z (seed 000 Fig. 2). M1 = 1 gives slabs: only the COL exchange runs;
// M2 = 1 gives the other slab orientation: only the ROW exchange runs.
//
// Padded plans (Options::padding) have a physical grid m >= n per axis and the spectrum's
// n: each axis is physical (m) before its FFT and spectral (n) after it, so the pencils
// mix the two by stage (x is transformed first, then y, then z):
//
//   X-pencil (input)   x: all mx          y: part i of my over M1    z: part j of mz over M2
//   ROW side 1         x: part i of xc    y: all my                  z: part j of mz
//   COL side 0         x: part i of xc    y: all ny                  z: part j of mz
//   COL side 1         x: part i of xc    y: part j of ny            z: all mz
//   Z-pencil (output)  x: part i of xc    y: part j of ny over M2    z: all nz
//
// xc counts the spectrum's x points (nx/2+1 or nx). No exchange carries a padded axis
// that is already transformed; y_pencil is the ROW side (y all my).
#pragma once

#include "nbfft/fft/box.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <utility>

namespace nbfft::fft {

struct Decomposition {
  std::array<std::int64_t, 3> n{0, 0, 0};  // global logical grid nx, ny, nz (the spectrum's)
  std::array<std::int64_t, 3> m{0, 0, 0};  // physical grid mx, my, mz (= n unless padded)
  std::int64_t xc = 0;                     // complex points along x
  bool r2c = true;
  int m1 = 1, m2 = 1;  // process grid: ROW size, COL size
  int rank = 0, i = 0, j = 0;

  Box3 x_pencil;    // input box (real for r2c); x holds all nx points
  Box3 xc_pencil;   // the same box after the x FFT (x holds xc points)
  Box3 y_pencil;
  Box3 z_pencil;    // output box (complex), order {x, z, y}

  // The parts of ROW peer p / COL peer q.
  Range row_y(int p) const { return split(m[1], m1, p); }   // y of X-pencils (physical)
  Range row_x(int p) const { return split(xc, m1, p); }     // x of Y/Z-pencils
  Range col_z(int q) const { return split(m[2], m2, q); }   // z of X/Y-pencils (physical)
  Range col_y(int q) const { return split(n[1], m2, q); }   // y of Z-pencils
  bool padded() const { return m != n; }

  // Validates everything and throws nbfft::Error naming the problem: non-positive sizes,
  // M1*M2 != nranks, and (unless allow_empty) grids that leave some rank without points.
  // phys: the physical grid of a padded plan (each entry >= n's; zeros: phys = n).
  static Decomposition make(std::array<std::int64_t, 3> n, bool r2c, int m1, int m2, int nranks,
                            int rank, bool allow_empty, std::array<std::int64_t, 3> phys = {0, 0, 0});
  // The same decomposition as seen by another rank of the grid.
  Decomposition of_rank(int r) const { return make(n, r2c, m1, m2, m1 * m2, r, true, m); }

  // The process grid nbfft picks for nranks ranks: a slab (1 x P) when it leaves no rank
  // empty, else the factorization M1 <= M2 closest to square with no empty rank, else the
  // slab anyway (empty ranks are allowed then).
  static std::pair<int, int> choose_grid(std::array<std::int64_t, 3> n, bool r2c, int nranks);

  // Why (m1, m2) leaves some rank without points, or "" if every rank owns points.
  static std::string empty_reason(std::array<std::int64_t, 3> n, bool r2c, int m1, int m2);
};

}  // namespace nbfft::fft
