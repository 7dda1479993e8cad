// Fields to disk and back: one HDF5 file, written and read collectively by every rank of a
// plan, that restarts at any rank count and that serial h5py reads as numpy arrays.
//
//   nbfft::io::H5File out(comm, "run.h5", nbfft::io::H5File::Mode::Create);
//   out.write(plan, nbfft::io::Space::Physical, "u", step, t, u.data(), u.size());
//   out.write(plan, nbfft::io::Space::Spectral, "U", step, t, U.data(), U.size());
//   out.close();   // flushed, closed, then renamed over run.h5
//
//   nbfft::io::H5File in(comm2, "run.h5");             // any rank count, slab or pencil
//   in.read(plan2, nbfft::io::Space::Physical, "u", step, u2.data(), u2.size());
//
// Each rank passes its box of the plan in the plan's own memory order: the X-pencil
// in_box() for Space::Physical, the Z-pencil out_box() for Space::Spectral. In the file
// every field and step is one global dataset /<field>/<step> in numpy's natural order:
// physical (z, y, x), spectral (kz, ky, kx) with kx halved to nx/2+1 for r2c. Reals are
// IEEE little-endian floats; complex numbers are the compound {r, i} that h5py reads as
// numpy complex. Every dataset carries its description as attributes (docs/io.md):
// space, transform, precision, norm, grid, halved_axis, axes, step, time.
//
// Collective: every call below is made by every rank of comm, in the same order, with the
// same field, step and time. Failures (a missing field or step, another grid or dtype, a
// file that is not nbfft's, an unwritable folder) are an nbfft::Error on every rank with
// the same message. Mode::Create writes to "<path>.nbfft-tmp" beside the target and
// renames it over `path` in close() only after every rank has written and the file is
// closed: a run that fails or is killed before then leaves the previous file at `path`
// as it was. Mode::Append adds fields and steps to an existing file in place (no such
// guarantee). A build without parallel HDF5 (NBFFT_WITH_HDF5=OFF, or not found) throws
// ErrorCode::Unavailable from the constructor; hdf5_available() says which it is.
//
// HDF5 1.10 as Debian builds it is not thread-safe: one thread of a process at a time.
#pragma once

#include "nbfft/fft/plan.hpp"

#include <mpi.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace nbfft::io {

// Whether this nbfft was built with parallel HDF5.
bool hdf5_available() noexcept;
// "parallel HDF5 1.10.8 (hdf5-openmpi)" or why it is missing.
std::string hdf5_info();

enum class Space { Physical, Spectral };
const char* name(Space s);  // "physical", "spectral"

// The element type of a field in memory (and in the file: no conversion on the way).
enum class Dtype { Float64, Float32, Complex128, Complex64 };
const char* name(Dtype d);  // numpy's names: "float64", "float32", "complex128", "complex64"

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

// How the file lays out what is written (the same on every rank; reading needs none).
struct H5Options {
  // Objects of at least align_threshold bytes start at a multiple of `alignment` bytes in
  // the file (0 = HDF5's packing): set it to the file system's stripe or block size (Lustre
  // stripes, 1 MiB) so that ranks' writes do not share one.
  std::uint64_t alignment = 0;
  std::uint64_t align_threshold = 0;
  // Chunk shape in the file's (z, y, x) order, each entry clipped to the dataset's extent;
  // all 0 = contiguous datasets (the default, and the fastest for whole-field writes). A
  // chunk equal to a rank's block keeps each rank's write to whole chunks.
  std::array<std::uint64_t, 3> chunk{0, 0, 0};
  // Create: close() fsyncs the finished file before renaming it, so that a crash of the
  // machine (not only of the run) finds the old or the new checkpoint whole. false skips
  // the fsync: the rename still happens only after every rank finished, and the kernel
  // writes the bytes back later (faster on local disks; what the other writers measured in
  // docs/performance.md do).
  bool sync = true;
};

class H5File {
 public:
  enum class Mode { Create, Append, Read };

  // Collective over comm (the communicator the plans passed to write/read were made on, or
  // one with the same ranks in the same order).
  H5File(MPI_Comm comm, const std::string& path, Mode mode = Mode::Read, const H5Options& options = {});
  // An open Create file that was never close()d is discarded: the temporary is removed and
  // the file at `path` stays as it was. Collective, like close().
  ~H5File();
  H5File(H5File&&) noexcept;
  H5File& operator=(H5File&&) noexcept;

  // Writes this rank's box of a field (n elements, at least the box's count) as dataset
  // /<field>/<step> with physical time `time`. The type must be the plan's: real of its
  // precision for Physical r2c, complex otherwise. A step already in the file is an error.
  template <typename T>
  void write(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
             const T* data, std::size_t n) {
    write_bytes(plan, space, field, step, time, dtype_of<T>(), data, n * sizeof(T));
  }
  template <typename T>
  void write(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
             const std::vector<T>& data) {
    write(plan, space, field, step, time, data.data(), data.size());
  }
  // Reads this rank's box of /<field>/<step> into data (the plan's memory order). The
  // dataset must hold this plan's global grid, space and element type.
  template <typename T>
  void read(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, T* data,
            std::size_t n) const {
    read_bytes(plan, space, field, step, dtype_of<T>(), data, n * sizeof(T));
  }
  template <typename T>
  void read(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
            std::vector<T>& data) const {
    read(plan, space, field, step, data.data(), data.size());
  }

  std::vector<std::string> fields() const;                  // sorted
  std::vector<std::int64_t> steps(const std::string& field) const;  // ascending
  double time(const std::string& field, std::int64_t step) const;

  // Collective. Create: every rank's data is written, the file is closed and renamed over
  // `path`. Then the object is closed; a second close() does nothing.
  void close();
  bool is_open() const;
  const std::string& path() const;

  void write_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
                   Dtype dtype, const void* data, std::size_t bytes);
  void read_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, Dtype dtype,
                  void* data, std::size_t bytes) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbfft::io
