// What an H5File keeps beside its datasets for time series and pictures: the run's
// attributes (grid, box lengths, plan options, nbfft's version) and a catalog of every
// dataset written, from which the XDMF file beside the .h5 is written (io/xdmf.cpp).
// Internal to nbfft_io; io/hdf5.cpp calls the hooks, io/planes.cpp writes reduced fields.
#pragma once

#include "nbfft/io/hdf5.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nbfft::io::detail {

// One dataset /<field>/<step> as the XDMF describes it. Arrays in the file's (z, y, x)
// order; start and stride place a plane or subsample in its full grid.
struct Entry {
  std::string field;
  std::int64_t step = 0;
  double time = 0;
  Space space = Space::Physical;
  Dtype dtype = Dtype::Float64;
  std::string kind = "field";                     // "field", "plane", "subsampled"
  std::array<std::int64_t, 3> dims{};             // the dataset's shape (a 2-D one: 1 first)
  int rank = 3;                                   // the dataset's own number of axes: 2 or 3
  std::array<std::int64_t, 3> start{0, 0, 0};
  std::array<std::int64_t, 3> stride{1, 1, 1};
  std::array<std::int64_t, 3> physical_grid{};    // (mz, my, mx): the spacing of physical data
  // Where a contiguous dataset's bytes start in the file: XDMF reads the real and imaginary
  // parts of a complex one there (HDF5's compound type is beyond XDMF's HDF reader).
  bool contiguous = false;
  std::uint64_t offset = 0;
};

// The XDMF 2 document describing `entries` of the HDF5 file `h5_name` (relative to the
// XDMF's folder); lengths are the box lengths (Lz, Ly, Lx).
std::string xdmf_text(const std::vector<Entry>& entries, const std::string& h5_name,
                      const std::array<double, 3>& lengths);

// "run.h5" -> "run.xmf" (also .hdf5, .hdf, .he5; any other name gets ".xmf" appended).
std::string xdmf_path_for(const std::string& h5_path);

// What a file's run attributes record of the plan of its first write: taken when a write
// starts, so a background write needs no plan at its wait (the caller may have destroyed it).
struct RunStamp {
  std::array<std::int64_t, 3> grid{}, physical_grid{};  // (z, y, x)
  std::string plan_options;
  static RunStamp of(const fft::Plan& plan);
  static RunStamp of(const Layout& layout);  // its run_* fields (none: nothing stamped)
  bool empty() const { return plan_options.empty(); }
};

class Series {
 public:
  // Collective, after the file is open and stamped: Create stamps box_lengths on the root;
  // Append reads them (and checks those given) and catalogs what the file holds.
  Series(MPI_Comm comm, hid_t file, const std::string& path, H5File::Mode mode, const H5Options& options);

  // Collective, after /<field>/<step> was written and closed: the run's attributes on the
  // first write, the catalog entry, and (Append) the XDMF rewritten.
  void wrote(const RunStamp& run, const std::string& field, std::int64_t step);
  // Collective, after close() (and Create's rename): the XDMF written.
  void closed();

  std::array<double, 3> lengths_xyz() const { return {lengths_[2], lengths_[1], lengths_[0]}; }
  std::string xdmf_path() const { return xdmf_ ? xdmf_path_for(path_) : ""; }

 private:
  void catalog(const std::string& field, std::int64_t step);
  void publish();

  MPI_Comm comm_;
  hid_t file_;
  std::string path_;
  H5File::Mode mode_;
  bool xdmf_;
  bool sync_;  // H5Options::sync: the XDMF fsync'ed like the .h5, or not
  std::array<double, 3> lengths_{};  // (Lz, Ly, Lx)
  bool run_stamped_ = false;
  std::vector<Entry> entries_;
};

// What io/planes.cpp and io/series.cpp need of an open H5File (defined in io/hdf5.cpp).
struct Handle {
  MPI_Comm comm;
  hid_t file;
  const std::string& path;
  H5File::Mode mode;
  Series* series;
};
Handle handle_of(const H5File::Impl& m);

}  // namespace nbfft::io::detail
