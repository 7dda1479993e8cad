// What a reader needs of a dataset nbfft wrote (io/hdf5.cpp's read, io/planes.cpp's
// read_plane and read_subsampled): the dataset itself, its element type, its checksum, and
// the check of the checksum against what the ranks read. Defined in io/hdf5.cpp.
#pragma once

#include "checksum.hpp"
#include "h5util.hpp"

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

// Adds every rank's checksum terms `mine` and compares the sum with `stored`: a mismatch is
// the same Io error on every rank, naming `where` (collective over comm).
void verify_checksum(MPI_Comm comm, std::uint64_t mine, std::uint64_t stored, const std::string& where,
                     const char* op);

}  // namespace nbfft::io::detail
