// The hooks between H5File (io/hdf5.cpp) and its background writes (io/background.cpp):
// one I/O thread per file that makes the HDF5 calls of queued writes, and the process-wide
// rule that keeps every other HDF5 call out while it does (HDF5 1.10 as Debian builds it
// is not thread-safe).
#pragma once

#include "nbfft/io/hdf5.hpp"

#include <memory>
#include <string>

namespace nbfft::io::detail {

struct Background;  // one file's I/O thread, its queue, the writes not yet waited for

// Throws InvalidState naming `op` while a background write is in flight in this process
// (started and not yet waited for). The I/O thread itself passes.
void background_guard(const char* op);

// Starts a write of `file` on its I/O thread (created on first use); collective.
std::shared_ptr<H5File::Pending::Impl> background_start(std::shared_ptr<Background>& bg, MPI_Comm comm,
                                                        const std::string& path, bool writable, H5File* file,
                                                        const fft::Plan& plan, Space space, const std::string& field,
                                                        std::int64_t step, double time, Dtype dtype, const void* data,
                                                        std::size_t bytes, H5File::Stage stage);

// Waits until the file's I/O thread has no write queued or running (before the file moves:
// a queued write names the H5File it writes through).
void background_idle(const std::shared_ptr<Background>& bg) noexcept;

// Completes every write of the file and ends its I/O thread; the writes nobody waited for
// count as waited. report: throws the first error no wait() reported (close()); discard:
// their wait() says the file was discarded (the destructor). Collective (frees a comm).
void background_settle(std::shared_ptr<Background>& bg, bool report, bool discard);

// Waits until no I/O thread of this process is inside HDF5: for destructors, which must
// close their file and cannot refuse.
void background_quiesce() noexcept;

}  // namespace nbfft::io::detail
