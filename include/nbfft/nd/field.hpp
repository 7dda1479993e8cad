// Field helpers of an N-D plan (docs/nd.md "Gather / scatter and wavenumbers"): whole arrays
// to and from one rank, and the wavenumbers of this rank's spectrum block. The C and Fortran
// front ends call these; the semantics are Python's NdPlan.gather / scatter / wavenumbers.
//
//   std::vector<double> kx = nbfft::nd::wavenumbers(p, 2, Lx);   // along axis 2 of out_box()
//   nbfft::nd::scatter_bytes(p, comm, Layout::Input, g, g_bytes, u, u_bytes, 0);
//   nbfft::nd::gather_bytes(p, comm, Layout::Output, uh, uh_bytes, G, G_bytes, kEveryRank);
//
// The global array is C order (axis 0 slowest) of shape() (Layout::Input) or out_shape()
// (Layout::Output: the whole rfftn / fftn, natural order even when the plan's spectrum
// blocks are transposed); a rank's block is its box in the box's memory order, as the
// transforms read and write it.
#pragma once

#include "nbfft/fft/field.hpp"
#include "nbfft/nd/plan.hpp"

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace nbfft::nd {

using fft::Layout;

// gather_bytes' root for "every rank": each rank receives the whole array.
constexpr int kEveryRank = -1;

// Bytes of one element of the input (real for r2c, complex for c2c) or of the spectrum
// (complex, or real when real_spectrum()); float or double by precision.
std::size_t element_bytes(const Plan& plan, Layout layout);

// The axis an r2c plan halves to n/2+1 (the last listed periodic axis); -1 when none does
// (c2c, or every listed axis r2r).
int half_axis(const Plan& plan);

// Wavenumbers of this rank's spectrum block along `axis` (numpy order, negative from the
// end), which must be transformed: k[m] belongs to global index out_box().lo[axis] + m.
// Periodic axes 2*pi/length times numpy's fftfreq(n)*n (rfftfreq on the halved axis), r2r
// axes pi/length times k, k+1 or k+1/2 by kind (nbfft/fft/r2r_kinds.hpp); length 2*pi gives
// the integers. -k^2 is d^2/dx^2's eigenvalue either way. Local.
std::vector<double> wavenumbers(const Plan& plan, int axis, double length = fft::kTwoPi);

// The whole array on `root` (kEveryRank: on every rank) from every rank's block, and a
// rank's block from the whole array on root. comm has the plan's ranks in the plan's order.
// local_bytes must be exactly this rank's box, global_bytes exactly the whole array where
// it matters (root, or every rank with kEveryRank; elsewhere global is ignored). Any bad
// argument on any rank (a size, a NULL buffer, a root, a layout) fails every rank, naming
// it. Collective.
void gather_bytes(const Plan& plan, MPI_Comm comm, Layout layout, const void* local, std::size_t local_bytes,
                  void* global, std::size_t global_bytes, int root = 0);
void scatter_bytes(const Plan& plan, MPI_Comm comm, Layout layout, const void* global, std::size_t global_bytes,
                   void* local, std::size_t local_bytes, int root = 0);

}  // namespace nbfft::nd
