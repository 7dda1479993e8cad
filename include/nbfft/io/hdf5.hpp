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
#include "nbfft/io/layout.hpp"
#include "nbfft/request.hpp"

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

// An axis of the grid, for a plane (H5File::write_plane): the plane z = index, y = index or x = index.
enum class Axis { X, Y, Z };
const char* name(Axis a);  // "x", "y", "z"

// How the file lays out what is written (the same on every rank; reading needs none).
struct H5Options {
  // Objects of at least align_threshold bytes start at a multiple of `alignment` bytes in
  // the file (0 = HDF5's packing): set it to the file system's stripe or block size (Lustre
  // stripes, 1 MiB) so that ranks' writes do not share one. At most 4 GiB.
  std::uint64_t alignment = 0;
  std::uint64_t align_threshold = 0;
  // Chunk shape in the file's (z, y, x) order, each entry clipped to the dataset's extent;
  // all 0 = contiguous datasets (the default, and the fastest for whole-field writes). A
  // chunk equal to a rank's block keeps each rank's write to whole chunks.
  std::array<std::uint64_t, 3> chunk{0, 0, 0};
  // The physical size of the periodic box along x, y, z (the run attribute box_lengths and
  // the XDMF grid's spacing, io/series.cpp). 0 = the file's own (Append) or 2*pi (Create).
  std::array<double, 3> box_lengths{0, 0, 0};
  // Keep an XDMF file beside the .h5 (run.h5 -> run.xmf) that ParaView and VisIt open as a
  // time series (docs/io.md "Time series and pictures"). Ignored when reading.
  bool xdmf = true;
  // Create: close() fsyncs the finished file before renaming it, so that a crash of the
  // machine (not only of the run) finds the old or the new checkpoint whole. false skips
  // the fsync: the rename still happens only after every rank finished, and the kernel
  // writes the bytes back later (faster on local disks; what the other writers measured in
  // docs/performance.md do). The XDMF beside the file is fsync'ed or not alike.
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

  // Any layout (nbfft/io/layout.hpp): this rank's block of `layout.shape`, in its memory
  // order, written as dataset /<field>/<step> in C order of the shape with the layout's
  // description as attributes; read back into a layout of any rank count whose blocks
  // the reader chooses. A write's blocks must tile the array (their counts add up to its
  // size); the element type must be layout.dtype. The plan overloads below are these calls
  // on Layout::of(plan, space).
  template <typename T>
  void write(const Layout& layout, const std::string& field, std::int64_t step, double time, const T* data,
             std::size_t n) {
    write_bytes(layout, field, step, time, dtype_of<T>(), data, n * sizeof(T));
  }
  template <typename T>
  void write(const Layout& layout, const std::string& field, std::int64_t step, double time,
             const std::vector<T>& data) {
    write(layout, field, step, time, data.data(), data.size());
  }
  template <typename T>
  void read(const Layout& layout, const std::string& field, std::int64_t step, T* data, std::size_t n) const {
    read_bytes(layout, field, step, dtype_of<T>(), data, n * sizeof(T));
  }
  template <typename T>
  void read(const Layout& layout, const std::string& field, std::int64_t step, std::vector<T>& data) const {
    read(layout, field, step, data.data(), data.size());
  }
  void write_bytes(const Layout& layout, const std::string& field, std::int64_t step, double time, Dtype dtype,
                   const void* data, std::size_t bytes);
  void read_bytes(const Layout& layout, const std::string& field, std::int64_t step, Dtype dtype, void* data,
                  std::size_t bytes) const;

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

  // A quick look without gathering: the plane `axis` = index of a field (a dataset of
  // thickness 1 along that axis), or every stride-th point per axis from 0 (stride in x, y,
  // z order; the dataset has ceil(n/stride) points per axis). `data` is this rank's whole
  // box, as for write(); each rank writes only its points of the plane or subsample,
  // collectively, as /<field>/<step> with attributes kind ("plane", "subsampled"), start
  // and stride (z, y, x), and a checksum as write()'s datasets (read_plane and
  // read_subsampled below check it). Physical or spectral, as write().
  template <typename T>
  void write_plane(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
                   Axis axis, std::int64_t index, const T* data, std::size_t n) {
    write_plane_bytes(plan, space, field, step, time, axis, index, dtype_of<T>(), data, n * sizeof(T));
  }
  template <typename T>
  void write_plane(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
                   Axis axis, std::int64_t index, const std::vector<T>& data) {
    write_plane(plan, space, field, step, time, axis, index, data.data(), data.size());
  }
  template <typename T>
  void write_subsampled(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                        double time, std::array<std::int64_t, 3> stride, const T* data, std::size_t n) {
    write_subsampled_bytes(plan, space, field, step, time, stride, dtype_of<T>(), data, n * sizeof(T));
  }
  template <typename T>
  void write_subsampled(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                        double time, std::array<std::int64_t, 3> stride, const std::vector<T>& data) {
    write_subsampled(plan, space, field, step, time, stride, data.data(), data.size());
  }

  // Reads back what write_plane / write_subsampled wrote, with the same arguments: `data`
  // is this rank's whole box, as for read(); the points of the plane or subsample inside it
  // are set and the others left as they are (a rank whose box holds none reads nothing and
  // still takes part). The dataset must be that plane or subsample of this plan's grid,
  // space and element type, and its checksum is checked as read() checks a field's: a
  // mismatch is the same Io error on every rank.
  template <typename T>
  void read_plane(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, Axis axis,
                  std::int64_t index, T* data, std::size_t n) const {
    read_plane_bytes(plan, space, field, step, axis, index, dtype_of<T>(), data, n * sizeof(T));
  }
  template <typename T>
  void read_plane(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, Axis axis,
                  std::int64_t index, std::vector<T>& data) const {
    read_plane(plan, space, field, step, axis, index, data.data(), data.size());
  }
  template <typename T>
  void read_subsampled(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                       std::array<std::int64_t, 3> stride, T* data, std::size_t n) const {
    read_subsampled_bytes(plan, space, field, step, stride, dtype_of<T>(), data, n * sizeof(T));
  }
  template <typename T>
  void read_subsampled(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                       std::array<std::int64_t, 3> stride, std::vector<T>& data) const {
    read_subsampled(plan, space, field, step, stride, data.data(), data.size());
  }

  // The run's box lengths along x, y, z (H5Options::box_lengths, or the file's).
  std::array<double, 3> box_lengths() const;
  // The XDMF file kept beside this one ("" when H5Options::xdmf is false or reading).
  std::string xdmf_path() const;
  // ---- Writing in the background (docs/io.md "Writing in the background") -------------
  //
  //   H5File::Pending w = out.write_start(plan, Space::Physical, "u", step, t, u);
  //   ... keep stepping (transforms, MPI, compute) ...
  //   w.wait();   // the write's error, if any, here on every rank
  //
  // HDF5 makes the dataset at the start, exactly as write() does (so write()'s errors are
  // the start's, on every rank); this rank's box then goes to the dataset's file offset by
  // non-blocking MPI-IO. Any MPI thread level. Contiguous datasets only (a file
  // with H5Options::chunk: an Unavailable error). Stage::Copy (the default) copies this
  // rank's box at start (one box of memory per write in flight; the buffer is free at
  // once); Stage::Borrow copies nothing (a spectrum is still staged into the file's order)
  // and the buffer must stay unchanged until wait(). The plan may be destroyed once
  // write_start returns. Any number of writes of one file may be in flight.
  //
  // The completion rule (the same in C, Fortran and Python): starts are collective, in
  // the same order on every rank. wait() is collective too, but the ranks may wait for
  // their writes in different orders: a wait settles, on every rank together, every write
  // started up to the latest one any rank is waiting for (each write's bytes complete on
  // every rank, its outcome is agreed, and its checksum attributes and series entry go
  // into the file in start order), and a wait whose write an earlier wait settled returns
  // at once without communicating. So the file holds each write whole, or, when any
  // rank's part failed, that write's wait throws the same error on every rank and a
  // Create file is never renamed over the previous one. Each rank waits for the same writes
  // as the others (in its own order), or drops the same ones, before its next write_start
  // or close(): a rank that starts a write while another waits is a RanksDisagree error on
  // both, and the file is never committed.
  // test() is local and drives the write (MPICH progresses it only inside MPI calls).
  // Until every write in flight is settled no H5File of this process may be used (an
  // InvalidState error saying so) except for more write_start calls on the same file and
  // close(), which settles them first (and throws the first error no wait() of this rank
  // reported). The destructor settles them and discards the file as ever; a Pending
  // destroyed without wait() completes this rank's part, and close() reports its error.
  enum class Stage { Copy, Borrow };
  // A background write in flight: nbfft::Request (nbfft/request.hpp). active(): started and
  // not yet settled (by a wait on any rank, or close()); valid(): holds a write not yet
  // waited for here; test(): whether the write has finished (wait() still needed), never
  // blocks; wait(): waits for the write and throws its error (the same on every rank).
  using Pending = nbfft::Request;
  template <typename T>
  Pending write_start(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
                      const T* data, std::size_t n, Stage stage = Stage::Copy) {
    return write_start_bytes(plan, space, field, step, time, dtype_of<T>(), data, n * sizeof(T), stage);
  }
  template <typename T>
  Pending write_start(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
                      const std::vector<T>& data, Stage stage = Stage::Copy) {
    return write_start(plan, space, field, step, time, data.data(), data.size(), stage);
  }
  Pending write_start_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                            double time, Dtype dtype, const void* data, std::size_t bytes, Stage stage = Stage::Copy);
  // The same on any layout (write(const Layout&, ...) above).
  template <typename T>
  Pending write_start(const Layout& layout, const std::string& field, std::int64_t step, double time, const T* data,
                      std::size_t n, Stage stage = Stage::Copy) {
    return write_start_bytes(layout, field, step, time, dtype_of<T>(), data, n * sizeof(T), stage);
  }
  template <typename T>
  Pending write_start(const Layout& layout, const std::string& field, std::int64_t step, double time,
                      const std::vector<T>& data, Stage stage = Stage::Copy) {
    return write_start(layout, field, step, time, data.data(), data.size(), stage);
  }
  Pending write_start_bytes(const Layout& layout, const std::string& field, std::int64_t step, double time,
                            Dtype dtype, const void* data, std::size_t bytes, Stage stage = Stage::Copy);
  // The staging buffers of Stage::Copy (and of a spectrum's reordering) outlive their file:
  // those the last closed file used wait for the next file's background writes, since a
  // checkpoint is a new file each time and a fresh buffer's first touch costs page faults.
  // This frees them (local; the next background write allocates anew).
  static void release_staging();

  std::vector<std::string> fields() const;                  // sorted
  std::vector<std::int64_t> steps(const std::string& field) const;  // ascending
  double time(const std::string& field, std::int64_t step) const;

  // Collective. Create: every rank's data is written, the file is closed and renamed over
  // `path`. Then the object is closed; a second close() does nothing.
  void close();
  bool is_open() const;

  // For language bindings: the first collective of a binding's call `call` ("write_start"),
  // before its own argument checks, so that a rank in that call meets a rank waiting for a
  // background write here and both fail (RanksDisagree; the file is then never committed)
  // instead of meeting in different collectives. local_error ("" = none): the binding's
  // checks of this rank, agreed as an InvalidArgument error. Collective; nothing on a closed
  // file (the call itself says so).
  void agree_call(const std::string& call, const std::string& local_error);
  const std::string& path() const;

  void write_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
                   Dtype dtype, const void* data, std::size_t bytes);
  void read_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, Dtype dtype,
                  void* data, std::size_t bytes) const;

  void write_plane_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
                         Axis axis, std::int64_t index, Dtype dtype, const void* data, std::size_t bytes);
  void write_subsampled_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                              double time, std::array<std::int64_t, 3> stride, Dtype dtype, const void* data,
                              std::size_t bytes);
  void read_plane_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, Axis axis,
                        std::int64_t index, Dtype dtype, void* data, std::size_t bytes) const;
  void read_subsampled_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step,
                             std::array<std::int64_t, 3> stride, Dtype dtype, void* data, std::size_t bytes) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbfft::io
