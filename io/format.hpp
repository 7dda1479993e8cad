// The file format under H5File's fields (io/hdf5.cpp, io/planes.cpp): the few operations
// a collective write or read of a stored array needs, whatever holds the bytes. HDF5 is
// the one format (io/format_hdf5.cpp); this header includes none of it. An array is a
// field's step, /<field>/<step>: a global array of a shape and element type, with named
// attributes beside it, which every rank writes or reads a block of.
//
// What still talks to HDF5 itself: opening, creating and closing the file (and its root
// attributes nbfft_format, nbfft_version) in io/hdf5.cpp, the run attributes and catalog
// in io/series.cpp, and the attribute helpers of io/h5util.hpp under both.
//
// Every call is collective or made identically on every rank (the file is opened with
// collective metadata), so the ranks see the same results; failures are Io errors (or
// InvalidArgument where the file lacks what was asked for) that callers agree on.
#pragma once

#include "nbfft/io/layout.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nbfft::io::format {

// An open file as the format names it (HDF5's hid_t: io/format_hdf5.cpp checks that they
// are one type).
using FileId = std::int64_t;

// One stored array, open; closed when destroyed (close() to hear how that went).
class Array {
 public:
  Array();
  ~Array();
  Array(Array&&) noexcept;
  Array& operator=(Array&&) noexcept;

  std::vector<std::int64_t> shape() const;
  // Which of nbfft's element types the array holds; false, with `why`, when none.
  bool dtype(Dtype& out, std::string& why) const;
  // Bytes of one element as stored.
  std::size_t stored_element_size() const;

  bool has(const char* key) const;
  std::string text(const char* key) const;  // "" when absent or not text
  // The attribute's values when it holds exactly n numbers, else empty.
  std::vector<std::int64_t> int64s(const char* key, std::size_t n) const;
  std::vector<double> doubles(const char* key, std::size_t n) const;
  std::uint64_t uint64(const char* key, const std::string& what) const;  // the attribute must exist
  void put_text(const char* key, const std::string& value);
  void put_int64s(const char* key, const std::vector<std::int64_t>& value);
  void put_double(const char* key, double value);
  void put_uint64(const char* key, std::uint64_t value);

  // This rank's block (offset and extent per axis, in the array's C order) from or to
  // `data`, a block in C order of `count`; collective: a rank whose block is empty (an
  // extent 0) moves nothing and still takes part. `what` starts the error message.
  void write(const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& count, Dtype dtype,
             const void* data, const std::string& what);
  void read(const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& count, Dtype dtype, void* data,
            const std::string& what);

  // Where a contiguous array's elements (C order, the stored element type) start in the
  // file, for writers that place the bytes themselves (H5File's own runs and background
  // writes); an Io error after `what` when the format gives none.
  std::uint64_t byte_offset(const std::string& what) const;

  // Closes the array (and what holds it open); "" or why closing failed.
  std::string close();

  struct State;  // the format's own (io/format_hdf5.cpp)
  explicit Array(std::unique_ptr<State> s);

 private:
  std::unique_ptr<State> s_;
};

// Makes /<field>/<step> of `shape` and `dtype` in `file` (at `path`: messages), allocated
// at once and never filled (every element is written next); `chunk`: empty for a
// contiguous array, else the chunk shape (one extent per axis, cut to the shape). The step
// must not be there yet (InvalidArgument). `op` starts the messages.
Array create(FileId file, const std::string& path, const std::string& field, std::int64_t step,
             const std::vector<std::int64_t>& shape, Dtype dtype, const std::vector<std::int64_t>& chunk,
             const std::string& op);
// Opens /<field>/<step>, or throws InvalidArgument naming what the file has instead: its
// fields, or the field's steps.
Array open(FileId file, const std::string& path, const std::string& field, std::int64_t step, const std::string& op);

// The file's fields in name order, and a field's steps ascending (InvalidArgument when
// there is no such field).
std::vector<std::string> fields(FileId file);
std::vector<std::int64_t> steps(FileId file, const std::string& path, const std::string& field, const std::string& op);

}  // namespace nbfft::io::format
