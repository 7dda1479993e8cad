// One thing nbfft-sine times: a forward transform of the sine field, normalization and a
// backward transform. nbfft plans and the FFTW-MPI baseline implement it alike, so the
// driver interleaves their iterations and reports them in one table.
#pragma once

#include "bench/common/sine_field.hpp"
#include "nbfft/fft/direction.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/timings.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

namespace nbfft::sine {

class Runner {
 public:
  virtual ~Runner() = default;
  virtual std::string transport() const = 0;  // "blocking", ..., or "fftw-mpi"
  virtual std::string proc_grid() const = 0;  // "M1xM2"
  // The local FFT library of the x,y,z stages ("fftw", "fftw,mkl,mkl"; the baseline "fftw").
  virtual std::string local_fft() const { return "fftw"; }
  virtual std::string config() const = 0;     // everything that produced the numbers
  virtual bool has_phases() const = 0;        // false: only the total is measured
  // forward + normalize + backward (of every field); phase times are added to t.
  virtual void iterate(fft::Timings& t) = 0;
  // The forward and backward parts of the last iterate(), when measured apart.
  virtual bool directions(fft::Timings& /*fwd*/, fft::Timings& /*bwd*/) const { return false; }
  // Runs one exchange alone (0 ROW, 1 COL; forward or backward direction), adding its time
  // to t.row / t.col; false when the runner cannot (the baseline).
  virtual bool exchange_only(int /*exchange*/, fft::Direction /*d*/, fft::Timings& /*t*/) { return false; }
  // max |result - sine field| on this rank after the last iterate().
  virtual double local_error() const = 0;
  // Bytes per rank (the most on any rank; 0 = not known): the user's arrays of all fields,
  // and what the transform holds besides them.
  virtual std::size_t data_bytes() const { return 0; }
  virtual std::size_t workspace_bytes() const { return 0; }
};

using bench::SineField;  // bench/common/sine_field.hpp

struct BaselineSpec {
  MPI_Comm comm;
  std::array<std::int64_t, 3> n;
  fft::Precision precision;
  fft::TransformKind transform;
  fft::Effort effort;
  int fields = 1;  // transforms per iteration (one after the other)
  // Every axis periodic, or (real data) every axis an r2r kind: FFTW-MPI's r2r transform.
  fft::AxisKinds kinds{fft::AxisKind::Periodic, fft::AxisKind::Periodic, fft::AxisKind::Periodic};
  int threads = 1;  // FFTW threads per rank (nbfft's threads option, resolved)
};

// FFTW's own MPI transform (fftw_mpi_plan_dft_r2c_3d with FFTW_MPI_TRANSPOSED_OUT forward,
// c2r with FFTW_MPI_TRANSPOSED_IN backward; c2c alike). Throws nbfft::Error when nbfft-sine
// was built without FFTW-MPI.
std::unique_ptr<Runner> make_fftw_mpi(const BaselineSpec& spec);
bool fftw_mpi_available();  // whether nbfft-sine was built with FFTW-MPI
void fftw_mpi_init();     // after MPI_Init; no-op without FFTW-MPI
void fftw_mpi_cleanup();  // before MPI_Finalize

}  // namespace nbfft::sine
