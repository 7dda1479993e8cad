// The hooks between H5File (io/hdf5.cpp) and its background writes (io/background.cpp):
// the dataset made by HDF5 on the caller's thread, its bytes written by non-blocking
// MPI-IO at the dataset's file offset, and the process-wide rule that keeps
// every other H5File call out until they are waited for.
#pragma once

#include "nbfft/agree.hpp"
#include "nbfft/io/hdf5.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nbfft::io::detail {

struct RunStamp;    // io/series.hpp
struct Background;  // one file's MPI-IO handles and the writes not yet waited for

// Where a step's bytes go (H5File::Impl::place): a contiguous dataset at `offset` of
// `file`, global dims (slowest first: a 3-D field's (z, y, x)), this rank's part
// start/count in the same order.
struct Placement {
  std::string file;
  MPI_Offset offset = 0;
  std::vector<std::int64_t> dims, start, count;
  std::size_t es = 0, real_es = 0;  // bytes of an element, of its real part
  nd::Box box;           // this rank's box as the caller holds it
  bool natural = false;  // the box's memory order is the file's (C order)
  bool spare_core = false;  // this rank may run a second thread (stage_box's halves)
  Dtype dtype = Dtype::Float64;
};

// Copies this rank's box from its memory order into the file's C order at `dst` (or, dst
// null, leaves `src`, already in that order, where it is), a few slices along axis 0 (z
// planes) at a time,
// and returns the box's checksum terms (io/checksum.hpp), each piece summed while it is
// still in cache: one pass over memory where a copy then a sum made two.
std::uint64_t stage_box(const Placement& p, const void* src, void* dst);

// What every write does once the step's data is in the file (series, XDMF). Collective on
// the file's communicator.
void after_data(H5File::Impl& m, const RunStamp& run, const std::string& field, std::int64_t step);
// The dataset's checksum attributes (io/checksum.hpp) from every rank's terms `mine`, as
// write() puts them. Collective.
void put_checksum(H5File::Impl& m, const std::string& field, std::int64_t step, std::uint64_t mine);

// Throws InvalidState naming `op` while a background write is in flight in this process
// (started and not yet settled); background_busy gives that message ("" when none).
void background_guard(const char* op);
std::string background_busy(const char* op);
// The first agreement of an H5File call `op`: every rank is in the same call (`call`, as
// agree_call; RanksDisagree otherwise: a rank waiting for a background write meets it
// here), no background write is in flight (InvalidState), and no rank's local_error
// (InvalidArgument). Collective over comm.
void agree_entry(MPI_Comm comm, const char* op, const std::string& what, const ConfigFields& call,
                 const std::string& local_error);

// Starts a write of `file`: agreed checks, then place() (collective HDF5 calls making the
// dataset), the staging and the non-blocking MPI-IO requests. `after` runs at wait (collective);
// `failed` instead when the write failed (on every rank: the file then holds a hole).
H5File::Pending background_start(std::shared_ptr<Background>& bg, MPI_Comm comm,
                                                        const std::string& path, bool writable, bool chunked,
                                                        const std::string& field, std::int64_t step, const void* data,
                                                        H5File::Stage stage,
                                                        const std::function<Placement()>& place,
                                                        std::function<void(std::uint64_t)> after,
                                                        std::function<void()> failed);

// Settles every write of the file (the same collective calls as a wait's, so that one
// rank's close() or destructor meets another's wait) and closes its MPI-IO handles (which
// syncs them) before HDF5 closes the file. report: throws the first error no wait() of this
// rank reported (close()), after running the writes' `after` steps; discard: their wait()
// says the file was discarded (the destructor). Returns whether any rank discarded the file
// (so that close() discards it too, as that rank's destructor does). Collective.
bool background_settle(std::shared_ptr<Background>& bg, bool report, bool discard);

}  // namespace nbfft::io::detail
