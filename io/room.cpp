// io/room.hpp on Linux's fallocate (elsewhere only the file size limit is checked).
#include "room.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace nbfft::io::detail {

namespace {
bool unsupported(int e) { return e == EOPNOTSUPP || e == ENOSYS || e == EINVAL; }

// The file size limit against the file's end after `bytes` more ("" = within it).
std::string size_limit(const struct stat& st, std::uint64_t bytes) {
  const std::uint64_t end = std::uint64_t(st.st_size) + bytes;
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && end > std::uint64_t(lim.rlim_cur))
    return std::string(std::strerror(EFBIG)) + " (the file would reach " + std::to_string(end) +
           " bytes; this process's file size limit, ulimit -f, is " + std::to_string(lim.rlim_cur) + ")";
  return "";
}
}  // namespace

std::string claim_room(const std::string& path, std::uint64_t bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "cannot stat '" + path + "': " + std::strerror(errno);
  std::string why = size_limit(st, bytes);
  if (!why.empty()) return why;
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return "cannot open '" + path + "' to claim its space: " + std::strerror(errno);
#if defined(__linux__)
  if (bytes > 0 && ::fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, off_t(bytes)) != 0 && !unsupported(errno))
    why = std::strerror(errno);
#endif
  ::close(fd);
  return why;
}

std::string check_room(const std::string& path, std::uint64_t bytes, const InFlight& pending) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "cannot stat '" + path + "': " + std::strerror(errno);
  // Sizes as they will be once the writes in flight have landed.
  struct stat then = st;
  then.st_size = std::max<off_t>(st.st_size, off_t(pending.end));
  std::string why = size_limit(then, bytes);
  if (!why.empty()) return why;
  const std::uint64_t held = std::uint64_t(st.st_blocks) * 512, coming = pending.disk > held ? pending.disk - held : 0;
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) == 0) {
    const std::uint64_t free = std::uint64_t(fs.f_bavail) * std::uint64_t(fs.f_frsize);
    if (free < bytes + coming)
      return std::string(std::strerror(ENOSPC)) + " (" + std::to_string(free) + " bytes free" +
             (coming ? ", " + std::to_string(std::min(free, coming)) + " of them still to be taken by the writes in flight"
                     : std::string()) +
             ")";
  }
  return "";
}

void promise_room(const std::string& path, std::uint64_t offset, std::uint64_t bytes, InFlight& pending) {
  struct stat st {};
  const std::uint64_t held = ::stat(path.c_str(), &st) == 0 ? std::uint64_t(st.st_blocks) * 512 : 0;
  pending.disk = std::max(pending.disk, held) + bytes;
  pending.end = std::max(pending.end, offset + bytes);
}

void give_back_room(const std::string& path) {
  if (::truncate(path.c_str(), 0) != 0) {
    // Nothing to give back (the file is gone or was never made): the caller removes it anyway.
  }
}

}  // namespace nbfft::io::detail
