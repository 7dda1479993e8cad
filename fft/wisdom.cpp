#include "nbfft/fft/wisdom.hpp"

#include "nbfft/agree.hpp"

#include "nbfft/atomic_file.hpp"
#include "nbfft/error.hpp"

#include "local/transform.hpp"

#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace nbfft::fft {

namespace {

// File format: a header line, then each precision's planning wisdom text (the FFTW backend's) with its length.
constexpr const char* kMagic = "nbfft-wisdom 1";
// Real wisdom is kilobytes; the bound keeps a wrong path (/dev/zero, a data file) cheap.
constexpr off_t kMaxBytes = off_t{64} << 20;

// The planning knowledge nbfft keeps is the FFTW backend's (the one backend with a planner
// that learns); a build without FFTW saves empty parts and loads none.
std::string knowledge(bool single) {
  return local::built(local::Backend::Fftw) ? local::export_knowledge(local::Backend::Fftw, single) : std::string();
}
bool learn(bool single, const std::string& text) {
  return !local::built(local::Backend::Fftw) || text.empty() ||
         local::import_knowledge(local::Backend::Fftw, single, text);
}

// Gathers strings to rank 0 (empty elsewhere).
std::vector<std::string> gather(MPI_Comm comm, const std::string& mine) {
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(size), displs(size);
  check_mpi(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  std::vector<char> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += lens[r];
    }
    all.resize(total);
  }
  check_mpi(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                        MPI_CHAR, 0, comm),
            "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank == 0)
    for (int r = 0; r < size; ++r) out.emplace_back(all.data() + displs[r], lens[r]);
  return out;
}

// Reads `path` on this rank: a regular file of at most kMaxBytes, opened without blocking
// (a FIFO must not hang rank 0 while the others wait in the broadcast). Returns "missing"
// when there is no such file, an error message otherwise, or "" and the text.
std::string read_bounded(const std::string& path, std::string& text) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return "missing";
    return "cannot read wisdom file '" + path + "': " + std::strerror(errno);
  }
  if (!S_ISREG(st.st_mode))
    return "wisdom file '" + path + "' is not a regular file";
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "cannot open wisdom file '" + path + "': " + std::strerror(errno);
  struct stat fst {};
  std::string why;
  if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
    why = "wisdom file '" + path + "' is not a regular file";
  } else if (fst.st_size > kMaxBytes) {
    why = "wisdom file '" + path + "' is " + std::to_string(fst.st_size) + " bytes, more than the " +
          std::to_string(kMaxBytes) + " a wisdom file can be";
  } else {
    // One byte more than the limit tells a file that grew while being read.
    text.resize(static_cast<std::size_t>(kMaxBytes) + 1);
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = "cannot read wisdom file '" + path + "': " + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    if (why.empty() && got > static_cast<std::size_t>(kMaxBytes))
      why = "wisdom file '" + path + "' is larger than " + std::to_string(kMaxBytes) + " bytes";
  }
  ::close(fd);
  return why;
}

// Strict parser of the format save_wisdom writes:
//   "nbfft-wisdom 1\ndouble <n>\n<n bytes>\nsingle <m>\n<m bytes>\n"
bool parse(const std::string& text, std::string& ds, std::string& fs) {
  std::size_t pos = 0;
  auto expect = [&](const std::string& lit) {
    if (text.compare(pos, lit.size(), lit) != 0) return false;
    pos += lit.size();
    return true;
  };
  auto part = [&](const char* tag, std::string& into) {
    if (!expect(std::string(tag) + " ")) return false;
    std::size_t len = 0, digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9' && digits < 10) {
      len = len * 10 + static_cast<std::size_t>(text[pos++] - '0');
      ++digits;
    }
    if (digits == 0 || !expect("\n") || len > text.size() - pos) return false;
    into = text.substr(pos, len);
    pos += len;
    // Backends read C strings: an embedded NUL would silently cut the wisdom short.
    return into.find('\0') == std::string::npos && expect("\n");
  };
  return expect(std::string(kMagic) + "\n") && part("double", ds) && part("single", fs) && pos == text.size();
}

void check_comm(MPI_Comm comm, const char* what) {
  check_mpi_running(what);
  if (comm == MPI_COMM_NULL) throw Error(std::string(what) + ": the communicator is MPI_COMM_NULL");
}

}  // namespace

void save_wisdom(MPI_Comm comm, const std::string& path) {
  check_comm(comm, "save_wisdom");
  // Rank 0 alone touches the file: a path that differs between ranks would be silently
  // ignored on the others.
  check_same(comm, "save_wisdom", {{"the wisdom file", path}});
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  auto d = gather(comm, knowledge(false));
  auto f = gather(comm, knowledge(true));
  std::string error;
  if (rank == 0) {
    for (auto& s : d) learn(false, s);
    for (auto& s : f) learn(true, s);
    const std::string ds = knowledge(false);
    const std::string fs = knowledge(true);
    const std::string text = std::string(kMagic) + "\ndouble " + std::to_string(ds.size()) + "\n" + ds +
                             "\nsingle " + std::to_string(fs.size()) + "\n" + fs + "\n";
    try {
      write_file_atomic(path, text);
    } catch (const Error& e) {
      error = "wisdom: " + e.message();
    }
  }
  bcast_string(comm, error);
  if (!error.empty()) throw Error(error, ErrorCode::Io);
}

bool load_wisdom(MPI_Comm comm, const std::string& path) {
  check_comm(comm, "load_wisdom");
  // Rank 0 alone touches the file: a path that differs between ranks would be silently
  // ignored on the others.
  check_same(comm, "load_wisdom", {{"the wisdom file", path}});
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  std::string status, ds, fs;  // status: "" ok, "missing", or an error
  if (rank == 0) {
    std::string text;
    status = read_bounded(path, text);
    if (status.empty() && !parse(text, ds, fs))
      status = "'" + path + "' is not an nbfft wisdom file (or it is truncated or corrupted)";
  }
  bcast_string(comm, status);
  if (status == "missing") return false;
  if (!status.empty()) throw Error(status, ErrorCode::Io);
  bcast_string(comm, ds);
  bcast_string(comm, fs);
  // Every rank imports the same text, so every rank reaches the same verdict.
  if (!learn(false, ds) || !learn(true, fs))
    throw Error("the FFTW backend rejected the planning wisdom in '" + path + "'", ErrorCode::Io);
  return true;
}

}  // namespace nbfft::fft
