// What the tuner remembers (fft/tune_detail.hpp): the key a choice is filed under, the
// choice as text, this process's memory and the wisdom file.
//
// The file is text: a magic line, then "KEY<TAB>VALUE" per choice. KEY names everything
// the choice depends on (grid, ranks, ranks per node, fields, the option rows the tuner
// does not choose, the MPI library, the host); VALUE holds the rows it chose and the
// time. Rank 0 reads and writes it (atomically: a failed write keeps the old file); the
// other ranks get its text by broadcast, so every rank takes the same branch.
#include "local/transform.hpp"
#include "fft/tune_detail.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/atomic_file.hpp"
#include "nbfft/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>

namespace nbfft::fft {

namespace {

constexpr const char* kMagic = "nbfft-tune 1";
constexpr std::size_t kMaxWisdomBytes = 16u << 20;

std::mutex memory_mutex;
std::map<std::string, std::string>& memory() {
  static std::map<std::string, std::string> m;
  return m;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::string host_signature() {
  std::string model = "unknown cpu";
  std::ifstream cpu("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpu, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = trim(line.substr(colon + 1));
      break;
    }
  return model + " x" + std::to_string(std::thread::hardware_concurrency());
}

std::string mpi_library() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  std::string s(v, static_cast<std::size_t>(std::max(0, len)));
  s = trim(s.substr(0, s.find_first_of("\n,")));
  return s;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// Why rank 0 could not replace `path` ("" = it could): the checks write_file_atomic makes,
// made before the trials by creating (and removing) a file beside it.
std::string unwritable_reason(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return "tuning wisdom '" + path + "' exists and is not a regular file";
  const std::string dir = directory_of(path);
  const std::string probe = path + ".probe." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 && errno != EEXIST)
    return "tuning wisdom '" + path + "' cannot be written: cannot create a file in '" + dir +
           "': " + std::strerror(errno);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
  return "";
}

}  // namespace

namespace detail {

bool tuned_row(const OptionRow& r) { return r.tuned; }
bool key_row(const OptionRow& r) { return !r.tuned && !r.tuning; }

std::string encode_choice(const Options& o, double seconds) {
  std::ostringstream s;
  for (const auto& [k, v] : option_values(o, tuned_row)) s << k << "=" << v << ";";
  s << "seconds=" << std::setprecision(17) << seconds;
  return s.str();
}

// Keys of rows the tuner does not choose, and `seconds`, are skipped.
Options decode_choice(const Options& base, const std::string& value, const std::string& where) {
  Options o = base;
  std::istringstream is(value);
  std::string item;
  try {
    while (std::getline(is, item, ';')) {
      const auto eq = item.find('=');
      if (eq == std::string::npos) throw Error("entry '" + item + "' has no '='");
      const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
      if (const OptionRow* r = find_option_row(k); r && r->tuned) set_option(o, k, v);
    }
  } catch (const std::exception& e) {
    throw Error("tuning wisdom " + where + ": cannot read '" + value + "': " + e.what(), ErrorCode::Io);
  }
  return o;
}

std::string recall(const std::string& key) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  auto it = memory().find(key);
  return it == memory().end() ? std::string() : it->second;
}

void remember(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(memory_mutex);
  memory()[key] = value;
}

std::map<std::string, std::string> read_tune_wisdom(MPI_Comm comm, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text, error;
  if (rank == 0) {
    // A FIFO would block the open (and every other rank with it), /dev/zero reads as empty.
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) error = "tuning wisdom '" + path + "' is not a regular file";
    std::ifstream in;
    if (exists && error.empty()) in.open(path, std::ios::binary);
    if (in.is_open()) {
      in.seekg(0, std::ios::end);
      const auto size = in.tellg();
      in.seekg(0);
      if (size < 0 || static_cast<std::size_t>(size) > kMaxWisdomBytes) {
        error = "tuning wisdom '" + path + "' is not a regular file of at most 16 MiB";
      } else {
        text.resize(static_cast<std::size_t>(size));
        if (!in.read(text.data(), size)) error = "cannot read tuning wisdom '" + path + "'";
      }
    }
  }
  agree_message(comm, error, ErrorCode::Io);
  bcast_string(comm, text);
  std::map<std::string, std::string> entries;
  if (text.empty()) return entries;
  std::istringstream is(text);
  std::string line;
  std::getline(is, line);
  if (trim(line) != kMagic)
    throw Error("'" + path + "' is not an nbfft tuning wisdom file (first line must be '" + kMagic + "')",
                ErrorCode::Io);
  while (std::getline(is, line)) {
    if (line.empty()) continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos)
      throw Error("tuning wisdom '" + path + "': malformed line '" + line + "'", ErrorCode::Io);
    entries[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return entries;
}

void check_tune_wisdom_writable(MPI_Comm comm, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  agree_message(comm, rank == 0 ? unwritable_reason(path) : std::string(), ErrorCode::Io);
}

void write_tune_wisdom(MPI_Comm comm, const std::string& path, const std::map<std::string, std::string>& entries) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  if (rank == 0) {
    std::ostringstream text;
    text << kMagic << "\n";
    for (const auto& [k, v] : entries) text << k << "\t" << v << "\n";
    try {
      write_file_atomic(path, text.str());  // a failed write never loses the old file
    } catch (const Error& e) {
      error = e.message();
    }
  }
  agree_message(comm, error, ErrorCode::Io);
}

}  // namespace detail

namespace {

// The most ranks of comm on one node (the same on every rank). Collective.
int most_per_node(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int per_node = 1, most = 1;
  MPI_Comm_size(node, &per_node);
  MPI_Comm_free(&node);
  check_mpi(MPI_Allreduce(&per_node, &most, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  return most;
}

// Rank 0's host signature on every rank. Collective.
std::string agreed_host(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string host = rank == 0 ? host_signature() : "";
  bcast_string(comm, host);
  return host;
}

std::string backends_built() {
  std::string s;
  for (local::Backend b : local::built_backends()) s += (s.empty() ? "" : ",") + std::string(local::name(b));
  return s;
}

// A key is one line of the wisdom file before its tab.
std::string one_line(std::string key) {
  for (auto& c : key)
    if (c == '\t' || c == '\n') c = ' ';
  return key;
}

}  // namespace

std::string tune_key(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& base, int fields) {
  int P = 1;
  check_mpi(MPI_Comm_size(comm, &P), "MPI_Comm_size");
  const int most = most_per_node(comm);
  const std::string host = agreed_host(comm);
  std::ostringstream k;
  k << "grid=" << n[0] << "x" << n[1] << "x" << n[2] << " ranks=" << P << " per_node=" << most
    << " fields=" << std::max(1, fields) << " fixed_grid=" << base.m1 << "x" << base.m2;
  // The backends asked for (a stage the caller fixed is not searched) and those this build
  // has: a choice made with MKL must not replay in a build without it, nor an FFTW-only
  // choice stand in a build that could try MKL.
  k << " backend=" << backends_str(base.backends) << " backends_built=" << backends_built();
  for (const auto& [key, v] : option_values(base, detail::key_row)) k << " " << key << "=" << v;
  k << " mpi=" << mpi_library() << " host=" << host;
  return one_line(k.str());
}

namespace detail {

std::string machine_key(MPI_Comm comm) {
  const int most = most_per_node(comm);
  return one_line("per_node=" + std::to_string(most) + " backends_built=" + backends_built() + " mpi=" + mpi_library() +
                  " host=" + agreed_host(comm));
}

}  // namespace detail

void forget_tuning() {
  std::lock_guard<std::mutex> lock(memory_mutex);
  memory().clear();
}

}  // namespace nbfft::fft
