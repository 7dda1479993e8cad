// Transform kinds per axis: periodic (the DFT) or one of FFTW's eight real-to-real kinds.
//
// Options::kinds holds one kind per axis x, y, z (the option row `kinds`, e.g.
// "periodic,periodic,dst2"). The kind given is the FORWARD transform; backward runs its
// inverse kind (dct2 <-> dct3, dst2 <-> dst3; dct1, dct4, dst1, dst4 are their own inverses),
// so forward then backward is the identity under every norm (below).
//
//   name      FFTW       grid points x_j (j = 0..n-1) on [0, L]     basis of mode k     walls
//   periodic  DFT        j L / n                                    exp(i 2 pi k' x / L) periodic
//   dct1      REDFT00    j L / (n-1)   (both walls; n >= 2)          cos(k pi x / L)     Neumann, Neumann
//   dct2      REDFT10    (j+1/2) L / n (cell centres)                cos(k pi x / L)     Neumann, Neumann
//   dct3      REDFT01    j L / n       (wall at 0, not at L)         cos((k+1/2) pi x/L) Neumann, Dirichlet
//   dct4      REDFT11    (j+1/2) L / n (cell centres)                cos((k+1/2) pi x/L) Neumann, Dirichlet
//   dst1      RODFT00    (j+1) L / (n+1) (interior points)           sin((k+1) pi x / L) Dirichlet, Dirichlet
//   dst2      RODFT10    (j+1/2) L / n (cell centres)                sin((k+1) pi x / L) Dirichlet, Dirichlet
//   dst3      RODFT01    (j+1) L / n   (wall at L, not at 0)         sin((k+1/2) pi x/L) Dirichlet, Neumann
//   dst4      RODFT11    (j+1/2) L / n (cell centres)                sin((k+1/2) pi x/L) Dirichlet, Neumann
//
// (k' = fftfreq(n)*n; the walls column is the boundary condition every basis function
// meets at x = 0 and x = L.) So spectral coefficient k of an r2r axis is the amplitude of a
// function with wavenumber wavenumber(kind, k, n, L) above, and d^2/dx^2 acts on it as
// -wavenumber^2: a Poisson solve divides by -(kx^2 + ky^2 + kz^2). dct1/dct2 hold the mean
// in mode 0 (wavenumber 0, as periodic's k = 0).
//
// Normalization: FFTW's r2r transforms are unnormalized: forward then backward multiplies
// by the logical size N of each axis: 2(n-1) for dct1, 2(n+1) for dst1, 2n for the others,
// n for periodic. A plan's norm option scales by 1/N (or 1/sqrt(N) each way, ortho) with N
// the product of the three axes' logical sizes, as for the all-periodic DFT.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace nbfft::fft {

enum class AxisKind { Periodic, Dct1, Dct2, Dct3, Dct4, Dst1, Dst2, Dst3, Dst4 };
using AxisKinds = std::array<AxisKind, 3>;  // x, y, z

const char* name(AxisKind k);       // "periodic", "dct1", ...
const char* redft_name(AxisKind k);  // "DFT", "REDFT00", ... (the classic names, FFTW's)
// Deprecated spelling of redft_name (before local backends other than FFTW).
[[deprecated("use nbfft::fft::redft_name")]] inline const char* fftw_name(AxisKind k) { return redft_name(k); }
// One kind: periodic, dct1..dct4, dst1..dst4 or the classic REDFT00..11 / RODFT00..11
// (case-insensitive); throws InvalidArgument listing them.
AxisKind parse_axis_kind(std::string_view s);
// "K,K,K" (x, y, z) or one K for all three axes; throws InvalidArgument naming the problem
// (an unknown kind, or not one or three kinds).
AxisKinds parse_axis_kinds(std::string_view s);
std::string kinds_str(const AxisKinds& k);  // "periodic,periodic,dct1"

inline bool is_r2r(AxisKind k) { return k != AxisKind::Periodic; }
inline bool all_r2r(const AxisKinds& k) { return is_r2r(k[0]) && is_r2r(k[1]) && is_r2r(k[2]); }
inline bool any_r2r(const AxisKinds& k) { return is_r2r(k[0]) || is_r2r(k[1]) || is_r2r(k[2]); }
AxisKind inverse(AxisKind k);  // the backward transform's kind

// The smallest length the kind is defined for (2 for dct1, 1 otherwise).
std::int64_t min_points(AxisKind k);
// FFTW's logical size N of an axis of n points (see above): forward then backward = N.
double logical_size(AxisKind k, std::int64_t n);
// Grid point j of n on an axis of length L (the table above).
double axis_point(AxisKind k, std::int64_t j, std::int64_t n, double length);
// The wavenumber of spectral index i of n on an axis of length L: periodic 2 pi/L *
// fftfreq(n)*n (half: rfftfreq, the r2c x axis), r2r pi/L times k, k+1 or k+1/2 (above).
// d^2/dx^2 has eigenvalue -wavenumber^2.
double wavenumber(AxisKind k, std::int64_t i, std::int64_t n, double length, bool half = false);

}  // namespace nbfft::fft
