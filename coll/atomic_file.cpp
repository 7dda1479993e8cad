// Atomic file replacement (nbfft/atomic_file.hpp): temp name, write, fsync, rename.
#include "nbfft/atomic_file.hpp"

#include "nbfft/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nbfft {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw Error("cannot write '" + path + "': " + what + (err ? std::string(": ") + std::strerror(err) : ""),
              ErrorCode::Io);
}

// Closes and unlinks the temporary unless it was renamed.
struct TempFile {
  std::string name;
  int fd = -1;
  bool keep = false;
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!keep && !name.empty()) ::unlink(name.c_str());
  }
};


std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// The checks before any byte is written: a path that names something to replace, and a
// temporary beside it, created in `tmp`.
void open_temp(const std::string& path, TempFile& tmp) {
  if (path.empty()) fail(path, "the path is empty", 0);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    fail(path, "it exists and is not a regular file (refusing to replace it)", 0);
  // Same directory as the target; pid + a counter keep concurrent writers apart.
  static int counter = 0;
  for (int attempt = 0; attempt < 100 && tmp.fd < 0; ++attempt) {
    tmp.name = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    tmp.fd = ::open(tmp.name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (tmp.fd < 0 && errno != EEXIST) {
      const int err = errno;
      tmp.name.clear();
      fail(path, "cannot create a temporary file in '" + directory_of(path) + "'", err);
    }
  }
  if (tmp.fd < 0) fail(path, "cannot find a free temporary name", EEXIST);
}

}  // namespace

void check_writable(const std::string& path) {
  TempFile probe;  // removed again on the way out
  open_temp(path, probe);
}

void write_file_atomic(const std::string& path, const std::string& contents, bool sync) {
  TempFile tmp;
  open_temp(path, tmp);
  const std::string dir = directory_of(path);

  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(tmp.fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "writing the data failed", n < 0 ? errno : ENOSPC);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  // Delayed allocation (NFS, some quotas) reports a full disk only at fsync or close.
  if (sync && ::fsync(tmp.fd) != 0 && errno != EINVAL && errno != EROFS) fail(path, "flushing the data failed", errno);
  const int fd = tmp.fd;
  tmp.fd = -1;
  if (::close(fd) != 0) fail(path, "closing the file failed", errno);
  if (::rename(tmp.name.c_str(), path.c_str()) != 0) fail(path, "renaming the temporary over it failed", errno);
  tmp.keep = true;
  if (!sync) return;
  // Make the rename itself durable (best effort: some file systems refuse a directory fsync).
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace nbfft
