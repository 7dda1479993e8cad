// What a reader needs of an array nbfft wrote (io/hdf5.cpp's read, io/planes.cpp's
// read_plane and read_subsampled), over io/format.hpp: its checksum, the check of the
// checksum against what the ranks read, and whether a spectrum is this plan's. Defined in
// io/hdf5.cpp.
#pragma once

#include "checksum.hpp"
#include "format.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/io/hdf5.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>

namespace nbfft::io::detail {

// The array's checksum and its method: false when it carries none (written before
// checksums, or by another tool); an Io error naming `where` for a method this nbfft does
// not know.
bool stored_checksum(const format::Array& array, const std::string& where, const char* op, std::uint64_t& sum, ChecksumMethod& method);

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
std::string spectrum_mismatch(const format::Array& array, const fft::Plan& plan, Space space);
// The same for any layout: its kinds and norm attributes (none: nothing to compare).
std::string spectrum_mismatch(const format::Array& array, const Layout& layout);

// Adds every rank's checksum terms `mine` and compares the sum with `stored`: a mismatch is
// the same Io error on every rank, naming `where` (collective over comm).
void verify_checksum(MPI_Comm comm, std::uint64_t mine, std::uint64_t stored, const std::string& where,
                     const char* op);

}  // namespace nbfft::io::detail
