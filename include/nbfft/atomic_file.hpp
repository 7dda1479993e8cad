// Files the project writes (benchmark JSON, FFTW wisdom, traces) are replaced atomically:
// a night's results are never lost to a full disk, a quota or a crash half-way.
//
//   write_file_atomic("results.json", text);
//
// The text goes to a temporary file in the same directory (so the rename cannot cross a
// file system), is flushed and fsync'ed, checked, and renamed over the target. On any
// failure the temporary is removed, the old file at `path` is left as it was, and an
// Error of kind Io names the path and the system's reason. A target that exists but is not
// a regular file (/dev/full, a directory, a FIFO) is refused rather than replaced.
// sync = false skips both fsyncs (the file's and the folder's): still atomic against a
// crashed process, not against a crashed machine, and about a millisecond cheaper.
#pragma once

#include <string>

namespace nbfft {

void write_file_atomic(const std::string& path, const std::string& contents, bool sync = true);

// Throws the Io Error write_file_atomic(path, ...) would throw before writing (a missing or
// read-only folder, a target that is not a regular file), by creating and removing a
// temporary beside it: for outputs a long run writes at its end (benchmark --json, --trace).
void check_writable(const std::string& path);

}  // namespace nbfft
