// What a reader needs of a dataset nbfft wrote (io/hdf5.cpp's read, io/planes.cpp's
// read_plane and read_subsampled): the dataset itself, its element type, its checksum, and
// the check of the checksum against what the ranks read. Defined in io/hdf5.cpp.
#pragma once

#include "checksum.hpp"
#include "h5util.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/io/hdf5.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>

namespace nbfft::io::detail {

// Opens /<field>/<step> of `file` (at `path`), or throws InvalidArgument naming what the
// file has instead: its fields, or the field's steps. `op` starts the message.
h5::Id open_step(hid_t file, const std::string& path, const std::string& field, std::int64_t step, const char* op);

// Which of nbfft's four element types a dataset's type is; false, with `why`, when none.
bool dtype_of_file(hid_t type, Dtype& out, std::string& why);

// The dataset's checksum and its method: false when it carries none (written before
// checksums, or by another tool); an Io error naming `where` for a method this nbfft does
// not know.
bool stored_checksum(hid_t dset, const std::string& where, const char* op, std::uint64_t& sum, ChecksumMethod& method);

// What is wrong with a field name ("" when it is one: not empty, no '/', not '.' or '..'),
// and with a step's time ("" when finite).
std::string check_field_name(const std::string& field);
std::string check_time(double time);

// The plan's process grid ("2x3"), agreed by every write and read with the shape: plans of
// one grid give boxes that tile the array, so ranks passing plans of different grids are
// told so (RanksDisagree) instead of writing overlapping boxes, or reading them back as
// "damaged".
inline std::string process_grid(const fft::Plan& plan) {
  const auto& d = plan.decomposition();
  return std::to_string(d.m1) + "x" + std::to_string(d.m2);
}

// Why a stored spectrum is not this plan's although its shape and type are: it was computed
// with other r2r kinds or another norm (the attributes kinds and norm), so reading it into
// this plan would give wrong values without a word. "" when they match, when `space` is
// physical (the field is the same under any kinds and norm), or when the dataset predates
// those attributes.
std::string spectrum_mismatch(hid_t dset, const fft::Plan& plan, Space space);
// The same for any layout: its kinds and norm attributes (none: nothing to compare).
std::string spectrum_mismatch(hid_t dset, const Layout& layout);

// Adds every rank's checksum terms `mine` and compares the sum with `stored`: a mismatch is
// the same Io error on every rank, naming `where` (collective over comm).
void verify_checksum(MPI_Comm comm, std::uint64_t mine, std::uint64_t stored, const std::string& where,
                     const char* op);

}  // namespace nbfft::io::detail
