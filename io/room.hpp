// Disk space for a checkpoint, claimed before the bytes go out (issue 23, "checkpoints that
// cannot be lost").
//
// HDF5 1.10's parallel close is a sequence of collectives (a metadata flush with sync
// points, then MPI_File_close) in which a rank whose write failed takes another path than
// the others: a full disk in the middle of a collective write or of the flush hangs the
// job instead of failing it. So the writer asks for the room first, on one rank, where a
// failure is a plain error every rank can agree on: after a dataset is created (its space
// allocated in the file at once) the disk blocks for it, and a little more for the
// metadata written at close, are reserved beyond the file's end. After that no data or
// metadata write needs a new block. A file being discarded is emptied before HDF5 closes it,
// which gives back the space its flush needs on a disk that filled up anyway.
#pragma once

#include <cstdint>
#include <string>

namespace nbfft::io::detail {

// Reserves `bytes` of disk beyond the current end of `path` without changing its size (the
// new dataset and the metadata that HDF5 writes at close land there), after checking them
// against this process's file size limit (RLIMIT_FSIZE, `ulimit -f`), which reserving does
// not. "" on success or when the file system cannot preallocate (then nothing is claimed
// ahead), else why not.
std::string claim_room(const std::string& path, std::uint64_t bytes);

// What the background writes in flight on a file will still add to it once their bytes
// land. Rank 0 keeps it for the file (H5File::Impl): a write that starts while an earlier
// one's bytes are still on their way counts them against the free space, or both would pass
// the check and whichever landed last would fail (a full disk that surfaced at random: in
// the write of either field, or under MPICH, whose ROMIO reported no failure, at close()).
struct InFlight {
  std::uint64_t disk = 0;  // the file's allocated bytes then (st_blocks)
  std::uint64_t end = 0;   // its size then
};

// The same limits as claim_room, checked without claiming anything: the file system's free
// space (statvfs) and this process's file size limit, less what `pending` will still take.
// For background writes: fallocate takes the file's inode lock, which a buffered write in
// flight on the same file holds for the whole of its system call, so a claim made while
// one is in flight waits for it (a 256^3 write_start of three fields spent 0.9 s of its
// loop there). What this cannot foresee fails the write itself, which a background write
// reports at wait().
std::string check_room(const std::string& path, std::uint64_t bytes, const InFlight& pending = {});

// After check_room passed for a background write of `bytes` at file offset `offset`: its
// bytes are counted as on their way (with what the file holds now).
void promise_room(const std::string& path, std::uint64_t offset, std::uint64_t bytes, InFlight& pending);

// Truncates `path` to nothing (a file about to be discarded): its blocks are free again.
void give_back_room(const std::string& path);

}  // namespace nbfft::io::detail
