// nbfft/io/hdf5.hpp on the HDF5 C library's parallel build (MPI-IO driver).
//
// Every HDF5 call here is collective or made identically on every rank (the file is opened
// with collective metadata reads and writes), so the ranks see the same results and fail
// together; each step's outcome is still agreed (nbfft/agree.hpp) so that a local failure
// (a short buffer, a wrong plan) stops every rank before the next collective HDF5 call.
#include "local/memory.hpp"
#include "nbfft/io/hdf5.hpp"

#include "series.hpp"
#include "background.hpp"
#include "checksum.hpp"
#include "h5util.hpp"
#include "room.hpp"
#include "stored.hpp"
#include "format.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"
#include "nbfft/version.h"

#include <hdf5.h>

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <system_error>
#include <thread>

#if !H5_HAVE_PARALLEL
#error "nbfft's HDF5 I/O needs the parallel build of HDF5 (libhdf5-openmpi-dev or libhdf5-mpich-dev)"
#endif

namespace nbfft::io {

namespace {

constexpr const char* kFormat = "nbfft fields 1";  // root attribute nbfft_format
constexpr const char* kTmpSuffix = ".nbfft-tmp";
constexpr std::uint64_t kMaxAlignment = std::uint64_t(1) << 32;  // H5Options::alignment's limit
// Disk room claimed beyond a file's data for the metadata HDF5 writes when it closes.
constexpr std::uint64_t kMetadataRoom = std::uint64_t(256) << 10;

// HDF5's helpers (io/h5util.hpp): one copy for the whole io layer.
using h5::check;
using h5::get_string;
using h5::Id;
using h5::make;
using h5::put_string;
std::string hdf5_reason() { return h5::reason(); }

// HDF5 prints its error stack to stderr unless told not to; nbfft's errors say it instead.
void quiet_hdf5() {
  static const bool done = [] {
    H5open();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}


int comm_rank(MPI_Comm c) {
  int r = 0;
  check_mpi(MPI_Comm_rank(c, &r), "MPI_Comm_rank");
  return r;
}
int comm_size(MPI_Comm c) {
  int s = 0;
  check_mpi(MPI_Comm_size(c, &s), "MPI_Comm_size");
  return s;
}

std::size_t real_size(Dtype d) { return d == Dtype::Float64 || d == Dtype::Complex128 ? 8 : 4; }
std::size_t elem_size(Dtype d) { return size_of(d); }

bool natural_order(const nd::Box& b) { return b.natural(); }

// The space a write or read is agreed on: "physical", "spectral" or "none" (a user's array).
const char* space_text(const Layout& l) { return l.has_space ? name(l.space) : "none"; }

// " (z, y, x)" after a shape whose layout names its axes so (a 3-D plan's or a pencil's).
std::string axes_note(const Layout& l) {
  const std::string a = l.attribute("axes");
  return a == "z y x" || a == "kz ky kx" ? " (z, y, x)" : "";
}

// The elements of an array of this shape.
std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t c = 1;
  for (std::int64_t e : shape) c *= e;
  return c;
}

// The elements of one slice of a box along its axis 0 (the file's slowest axis): the unit
// in which boxes are staged, written and summed in pieces.
std::int64_t slice_count(const nd::Box& b) {
  std::int64_t c = 1;
  for (std::size_t a = 1; a < b.n.size(); ++a) c *= b.n[a];
  return c;
}

// The block of slices a0 .. a0+na of a box along axis 0 (offset and extent per axis).
void slices(const nd::Box& b, std::int64_t a0, std::int64_t na, std::vector<std::int64_t>& start,
            std::vector<std::int64_t>& count) {
  start = b.lo;
  count = b.n;
  start[0] += a0;
  count[0] = na;
}

// NBFFT_IO_OWN_WRITES=0 sends every write() through HDF5's collective transfer (tests,
// comparisons); otherwise a box of long runs is written by its rank itself (write_runs).
bool own_writes_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("NBFFT_IO_OWN_WRITES");
    return !(e && std::string(e) == "0");
  }();
  return on;
}

// Copies slices a0 .. a0+na (along axis 0) of a box between its memory order and the file's
// C order, a row of the last axis at a time when that axis is the fastest in memory (every
// pencil of nbfft's). A spectrum in another order ([y][z][x], an N-D plan's transposed
// output) needs this copy: an HDF5 memory selection cannot permute axes.
void reorder(const nd::Box& b, std::int64_t a0, std::int64_t na, std::size_t es, const char* src, char* dst,
             bool to_file) {
  const std::size_t d = b.n.size();
  // The memory stride of each axis.
  const auto ord = [&](std::size_t i) { return b.order.empty() ? i : std::size_t(b.order[i]); };
  std::vector<std::int64_t> stride(d, 1);
  for (std::size_t i = d; i-- > 1;) stride[ord(i - 1)] = stride[ord(i)] * b.n[ord(i)];
  std::vector<std::int64_t> start, count;
  slices(b, a0, na, start, count);
  for (std::size_t a = 0; a < d; ++a) start[a] -= b.lo[a];  // box-relative
  const std::int64_t row = count[d - 1], step = stride[d - 1];
  std::int64_t rows = row > 0 ? 1 : 0;  // in the file's order, an odometer over axes 0 .. d-2
  for (std::size_t a = 0; a + 1 < d; ++a) rows *= count[a];
  std::vector<std::int64_t> at(d, 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t mem = 0;
    for (std::size_t a = 0; a < d; ++a) mem += (start[a] + at[a]) * stride[a];
    const std::int64_t file_row = r * row;
    if (step == 1) {
      const char* s = src + es * std::size_t(to_file ? mem : file_row);
      char* t = dst + es * std::size_t(to_file ? file_row : mem);
      std::memcpy(t, s, es * std::size_t(row));
    } else {
      for (std::int64_t x = 0; x < row; ++x) {
        const std::int64_t m = mem + x * step, f = file_row + x;
        std::memcpy(dst + es * std::size_t(to_file ? f : m), src + es * std::size_t(to_file ? m : f), es);
      }
    }
    for (std::size_t a = d - 1; a-- > 0;) {  // the next row: the odometer over axes 0 .. d-2
      if (++at[a] < count[a]) break;
      at[a] = 0;
    }
  }
}

std::string hex(double v) {
  std::ostringstream os;
  os << std::hexfloat << v;
  return os.str();
}

bool spare_core_here(MPI_Comm comm);  // below, with the transfers
}  // namespace

bool hdf5_available() noexcept { return true; }

std::string hdf5_info() {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  return "parallel HDF5 " + std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel) + " (" +
         NBFFT_HDF5_PKG + ")";
}

struct H5File::Impl {
  MPI_Comm comm = MPI_COMM_NULL;  // our own duplicate: the agreements never meet the user's traffic
  std::string path, tmp;
  Mode mode = Mode::Read;
  H5Options options;
  Id file;
  std::unique_ptr<detail::Series> series;  // run attributes, catalog, XDMF (io/series.hpp)
  std::shared_ptr<detail::Background> bg;  // writes in the background (io/background.cpp)
  bool broken = false;  // a write failed after its dataset was made: a Create is not renamed
  bool tmp_created = false;  // rank 0 made the temporary (only then does a failed open remove it)
  detail::InFlight in_flight;  // rank 0: what the background writes still add (io/room.hpp)
  bool spare_core = false;  // this rank may run a second thread (spare_core_here): write's checksum

  std::string where() const { return "'" + path + "'"; }
  const std::string& target() const { return mode == Mode::Create ? tmp : path; }  // the file HDF5 writes
  detail::Placement place(const Layout& layout, const std::string& field, std::int64_t step,
                          double time, Dtype dtype, std::size_t bytes);

  // Closes the file; for Create renames the temporary over the target (or removes it when
  // `keep` is false). Collective; every rank ends with the same outcome: when any rank does
  // not keep the file (its destructor runs while the others close it), none does. Returns
  // whether the file was kept.
  bool finish(bool keep) {
    int kept = keep ? 1 : 0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &kept, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    keep = kept != 0;
    if (!keep && mode == Mode::Create) {
      // Emptied first: on a full disk HDF5's closing flush needs the space back, or the
      // ranks take different paths through it and hang (io/room.hpp).
      if (comm_rank(comm) == 0) detail::give_back_room(tmp);
      check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    }
    std::string err;
    if (file.get() >= 0 && file.reset() < 0) err = "closing " + where() + ": " + hdf5_reason();
    agree_message(comm, err, ErrorCode::Io);
    if (mode != Mode::Create) {
      if (keep && series) series->closed();
      return keep;
    }
    agree(comm, [&] {
      if (comm_rank(comm) != 0) return;
      if (!keep) {
        std::remove(tmp.c_str());
        return;
      }
      // The bytes reach the disk before the name does, so a crash never leaves a hollow file.
      const int fd = options.sync ? ::open(tmp.c_str(), O_RDONLY) : -1;
      if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
      }
      if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp.c_str());
        throw Error(ErrorCode::Io, "H5File: renaming the finished '" + tmp + "' over " + where() + ": " + why +
                                       " (the previous file is unchanged)");
      }
    });
    if (keep && series) series->closed();  // the XDMF names the renamed file
    return keep;
  }
};

detail::Handle detail::handle_of(const H5File::Impl& m) { return {m.comm, m.file, m.path, m.mode, m.series.get()}; }

H5File::H5File(MPI_Comm comm, const std::string& path, Mode mode, const H5Options& options)
    : impl_(std::make_unique<Impl>()) {
  check_mpi_running("H5File");
  detail::background_guard("H5File");
  quiet_hdf5();
  Impl& m = *impl_;
  check_mpi(MPI_Comm_dup(comm, &m.comm), "MPI_Comm_dup");
  m.spare_core = spare_core_here(m.comm);
  m.path = path;
  m.mode = mode;
  m.tmp = path + kTmpSuffix;
  m.options = options;
  try {
    const char* mode_name = mode == Mode::Create ? "create" : mode == Mode::Append ? "append" : "read";
    const auto& c = options.chunk;
    const bool some_chunk = c[0] || c[1] || c[2];
    std::string bad = path.empty() ? "H5File: the path is empty" : "";
    if (some_chunk && !(c[0] && c[1] && c[2]))
      bad = "H5File: H5Options::chunk must be all 0 (contiguous) or all positive, not " + std::to_string(c[0]) + "x" +
            std::to_string(c[1]) + "x" + std::to_string(c[2]);
    // Every object at least align_threshold bytes long starts at a multiple of the
    // alignment, so the file reaches several times it: past a few GiB no file system's
    // stripe or block asks for it, and HDF5 itself failed on one rank only (a crash at 16
    // TiB, a hang at 2^62).
    if (options.alignment > kMaxAlignment)
      bad = "H5File: H5Options::alignment is " + std::to_string(options.alignment) + " bytes; at most " +
            std::to_string(kMaxAlignment) + " (4 GiB, the largest stripe size of a parallel file system) is taken";
    nbfft::agree_call(m.comm, "H5File",
               {{"open", mode_name},
                {"path", path},
                {"alignment", std::to_string(options.alignment) + "/" + std::to_string(options.align_threshold)},
                {"chunk", std::to_string(c[0]) + "x" + std::to_string(c[1]) + "x" + std::to_string(c[2])},
                {"sync", options.sync ? "yes" : "no"},
                {"xdmf", options.xdmf || mode == Mode::Read ? "yes" : "no"}},
               bad, ErrorCode::InvalidArgument);
    // The target of a Create must be a file (or nothing): a directory is never replaced.
    agree(m.comm, [&] {
      if (comm_rank(m.comm) != 0 || mode != Mode::Create) return;
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw Error(ErrorCode::Io, "H5File: " + m.where() + " exists and is not a regular file; it is not replaced");
    });
    Id fapl = make(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "H5Pcreate");
    check(H5Pset_fapl_mpio(fapl, m.comm, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    check(H5Pset_all_coll_metadata_ops(fapl, true), "H5Pset_all_coll_metadata_ops");
    check(H5Pset_coll_metadata_write(fapl, true), "H5Pset_coll_metadata_write");
    if (options.alignment > 1)
      check(H5Pset_alignment(fapl, options.align_threshold, options.alignment), "H5File: H5Pset_alignment");
    // Every rank reaches the same verdict (HDF5 opens collectively); agree() keeps it so.
    // The temporary is ours alone: a leftover one (a killed run's file, or a symbolic link
    // someone left at its name) is removed, never written through, and the new one is
    // created exclusively before HDF5 opens it.
    agree(m.comm, [&] {
      if (comm_rank(m.comm) != 0 || mode != Mode::Create) return;
      struct stat st {};
      if (::lstat(m.tmp.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
          throw Error(ErrorCode::Io, "H5File: the temporary '" + m.tmp + "' (written first, then renamed to " +
                                         m.where() + ") exists and is a directory; it is not removed");
        if (::unlink(m.tmp.c_str()) != 0)
          throw Error(ErrorCode::Io, "H5File: cannot remove the leftover temporary '" + m.tmp +
                                         "': " + std::strerror(errno));
      }
      const int fd = ::open(m.tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd < 0)
        throw Error(ErrorCode::Io, "H5File: cannot create '" + m.tmp + "' (written first, then renamed to " +
                                       m.where() + "): " + std::strerror(errno));
      ::close(fd);
      m.tmp_created = true;
    });
    agree(m.comm, [&] {
      if (mode == Mode::Create) {
        const hid_t f = H5Fcreate(m.tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        if (f < 0) throw Error(ErrorCode::Io, "H5File: cannot create '" + m.tmp + "' (written first, then renamed to " +
                                                  m.where() + "): " + hdf5_reason());
        m.file = Id(f, H5Fclose);
      } else {
        const hid_t f = H5Fopen(path.c_str(), mode == Mode::Read ? H5F_ACC_RDONLY : H5F_ACC_RDWR, fapl);
        if (f < 0) throw Error(ErrorCode::Io, "H5File: cannot open " + m.where() + ": " + hdf5_reason());
        m.file = Id(f, H5Fclose);
      }
    });
    agree(m.comm, [&] {
      if (mode == Mode::Create) {
        put_string(m.file, "nbfft_format", kFormat);
        put_string(m.file, "nbfft_version", NBFFT_VERSION_STRING);
      } else {
        const std::string f = get_string(m.file, "nbfft_format");
        if (f.empty())
          throw Error(ErrorCode::Io, "H5File: " + m.where() + " is an HDF5 file but not nbfft's (no nbfft_format attribute)");
        if (f != kFormat)
          throw Error(ErrorCode::Io, "H5File: " + m.where() + " is in format '" + f + "'; this nbfft reads '" + kFormat + "'");
      }
    });
    m.series = std::make_unique<detail::Series>(m.comm, m.file, path, mode, options);
  } catch (...) {
    if (m.file.get() >= 0) {
      try {
        m.finish(false);
      } catch (...) {
      }
    } else if (m.tmp_created && comm_rank(m.comm) == 0) {
      ::unlink(m.tmp.c_str());  // ours: never a directory or a link left there by someone else
    }
    MPI_Comm_free(&m.comm);
    throw;
  }
}

H5File::~H5File() {
  if (!impl_) return;
  try {
    detail::background_settle(impl_->bg, false, true);  // its writes complete; the file is discarded below
  } catch (...) {
  }
  if (impl_->file.get() >= 0) {
    try {
      impl_->finish(false);  // never closed: the previous file stays
    } catch (...) {
    }
  }
  if (impl_->comm != MPI_COMM_NULL) MPI_Comm_free(&impl_->comm);
}

// A background write holds the Impl, never the H5File: the file may move with writes in flight.
H5File::H5File(H5File&& o) noexcept : impl_(std::move(o.impl_)) {}
H5File& H5File::operator=(H5File&& o) noexcept {
  if (this != &o) {
    H5File gone(std::move(*this));  // closes (discards) what this held
    impl_ = std::move(o.impl_);
  }
  return *this;
}

bool H5File::is_open() const { return impl_ && impl_->file.get() >= 0; }

void H5File::agree_call(const std::string& call, const std::string& local_error) {
  if (!is_open()) return;
  try {
    nbfft::agree_call(impl_->comm, "H5File", ConfigFields{{"call", call}}, local_error);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::RanksDisagree) impl_->broken = true;  // ranks parted: commit nothing
    throw;
  }
}

const std::string& H5File::path() const {
  if (!impl_) throw Error(ErrorCode::InvalidState, "H5File: used after being moved from");
  return impl_->path;
}

void H5File::close() {
  if (!is_open()) return;
  // A rank whose H5File is destroyed unclosed (an exception there) while the others close
  // it: every rank discards the file, as that rank's destructor does, and says so.
  const auto discarded_elsewhere = [&] {
    return Error(ErrorCode::InvalidState,
                 "H5File::close: another rank destroyed its H5File of " + impl_->where() +
                     " before close() (an exception there?), so the file is discarded on every rank" +
                     (impl_->mode == Mode::Create ? " and the previous one is unchanged" : ""));
  };
  // Every write in flight is in the file first.
  if (detail::background_settle(impl_->bg, true, false)) {
    impl_->finish(false);
    throw discarded_elsewhere();
  }
  detail::background_guard("H5File::close");
  // Background writes only checked their room (io/room.hpp); the metadata's is claimed now,
  // with nothing in flight, before HDF5's closing flush needs it.
  if (impl_->bg && !impl_->broken) {
    Impl& m = *impl_;
    try {
      agree(m.comm, [&] {
        if (comm_rank(m.comm) != 0) return;
        const std::string why = detail::claim_room(m.target(), kMetadataRoom);
        if (!why.empty())
          throw Error(ErrorCode::Io, "H5File::close: no room for the metadata of '" + m.target() + "': " + why);
      });
    } catch (...) {
      m.broken = true;
      m.finish(false);
      throw;
    }
  }
  if (impl_->broken && impl_->mode == Mode::Create) {
    impl_->finish(false);
    throw Error(ErrorCode::Io, "H5File::close: a write to '" + impl_->tmp + "' failed earlier; it is removed, and " +
                                   impl_->where() + " is unchanged");
  }
  if (!impl_->finish(true)) throw discarded_elsewhere();
}

H5File::Pending H5File::write_start_bytes(const fft::Plan& plan, Space space, const std::string& field,
                                          std::int64_t step, double time, Dtype dtype, const void* data,
                                          std::size_t bytes, Stage stage) {
  return write_start_bytes(Layout::of(plan, space), field, step, time, dtype, data, bytes, stage);
}

H5File::Pending H5File::write_start_bytes(const Layout& layout, const std::string& field, std::int64_t step,
                                          double time, Dtype dtype, const void* data, std::size_t bytes,
                                          Stage stage) {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::write_start: the file is closed");
  Impl& m = *impl_;
  H5File::Impl* mp = &m;  // stable while the file moves; the write's after step runs before it dies
  return detail::background_start(
      m.bg, m.comm, m.path, m.mode != Mode::Read, m.options.chunk[0] > 0, field, step, data, stage,
      [&] { return m.place(layout, field, step, time, dtype, bytes); },
      [mp, run = detail::RunStamp::of(layout), field, step](std::uint64_t mine) {
        detail::put_checksum(*mp, field, step, mine);
        detail::after_data(*mp, run, field, step);
      },
      [mp] { mp->broken = true; });
}

namespace {
// The checks every write and read starts with, the same on every rank: this rank's outcome.
std::string local_checks(const H5File::Impl* m, bool writing, const Layout& l, const std::string& field, Dtype dtype,
                         std::size_t bytes, MPI_Comm comm) {
  const char* op = writing ? "H5File::write" : "H5File::read";
  std::string e = detail::check_field_name(field);
  if (!e.empty()) return std::string(op) + ": " + e;
  if (writing && m->mode == H5File::Mode::Read)
    return std::string(op) + ": '" + m->path + "' was opened for reading";
  e = l.check();
  if (!e.empty()) return std::string(op) + ": " + e;
  if (l.ranks > 0 && (comm_size(comm) != l.ranks || comm_rank(comm) != l.rank))
    return std::string(op) + ": the plan was made on another communicator (its " + std::to_string(l.ranks) +
           " ranks, this rank " + std::to_string(l.rank) + ") than the file's (" + std::to_string(comm_size(comm)) +
           " ranks, this rank " + std::to_string(comm_rank(comm)) + ")";
  if (dtype != l.dtype)
    return std::string(op) + ": " + (l.has_space ? std::string("the plan's ") + name(l.space) : std::string("the layout's")) +
           " field is " + name(l.dtype) + ", the data passed is " + name(dtype);
  if (writing && l.shape.size() != 3 && m->options.chunk[0] > 0)
    return std::string(op) + ": H5Options::chunk gives chunks of 3-axis fields; this field has " +
           std::to_string(l.shape.size()) + " axes (open the file without chunks)";
  const std::size_t need = std::size_t(l.box.count()) * elem_size(dtype);
  if (bytes < need)
    return std::string(op) + ": the buffer holds " + std::to_string(bytes / elem_size(dtype)) +
           " elements, this rank's box " + std::to_string(l.box.count());
  return "";
}

// A box in another memory order than the file's moves through a staging buffer in pieces
// of whole slices along axis 0 (z planes of a 3-D field), at most this many bytes each (NBFFT_IO_STAGE_BYTES overrides it): the
// extra memory stays small and the copy of one piece is still in cache when HDF5 takes it.
std::int64_t stage_bytes() {
  static const std::int64_t v = [] {
    const char* e = std::getenv("NBFFT_IO_STAGE_BYTES");
    const long long x = e ? std::atoll(e) : 0;
    return x > 0 ? std::int64_t(x) : std::int64_t(8) << 20;
  }();
  return v;
}

// How many collective transfers a box takes: 1 in the file's order, else the most pieces
// any rank needs (every rank makes the same number of collective calls; collective).
std::int64_t staging_pieces(const nd::Box& b, std::size_t es, MPI_Comm comm) {
  std::int64_t mine = 1;
  if (!natural_order(b) && !b.empty()) {
    const std::int64_t plane = slice_count(b) * std::int64_t(es);
    const std::int64_t per = std::max<std::int64_t>(1, stage_bytes() / plane);
    mine = (b.n[0] + per - 1) / per;
  }
  std::int64_t most = 1;
  check_mpi(MPI_Allreduce(&mine, &most, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
  return most;
}

// Whether this rank can run a second thread without taking a core from another rank: its
// CPU set holds more than one CPU and its node more CPUs than the file's ranks on it.
// Collective (the node's ranks are counted); each rank's answer is its own.
bool spare_core_here(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int ranks = 1;
  MPI_Comm_size(node, &ranks);
  MPI_Comm_free(&node);
  cpu_set_t set;
  CPU_ZERO(&set);
  const int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return mine > 1 && online > ranks;
}

// This rank's checksum terms (io/checksum.hpp) of slices a0 .. a0+na of its box, laid out
// in the file's order in `block`.
std::uint64_t part_checksum(const Layout& l, std::int64_t a0, std::int64_t na, Dtype dtype, const void* block,
                            detail::ChecksumMethod method = detail::kChecksumMethod) {
  if (slice_count(l.box) * na == 0) return 0;
  std::vector<std::int64_t> start, count;
  slices(l.box, a0, na, start, count);
  return detail::block_checksum(l.shape.size(), start.data(), count.data(), l.shape.data(), dtype, block, method);
}

// Writes or reads this rank's box of the array in `pieces` collective transfers (see
// above); returns this rank's checksum terms of what it wrote or read.
std::uint64_t move_box(format::Array& array, const Layout& l, Dtype dtype, void* data, bool writing,
                       std::int64_t pieces, const std::string& what,
                       detail::ChecksumMethod method = detail::kChecksumMethod, bool spare_core = false) {
  const nd::Box& b = l.box;
  const std::size_t es = elem_size(dtype);
  std::vector<std::int64_t> start, count;
  if (natural_order(b)) {  // straight from (to) the caller's array
    slices(b, 0, b.n[0], start, count);
    if (!writing) {
      array.read(start, count, dtype, data, what);
      return part_checksum(l, 0, b.n[0], dtype, data, method);
    }
    // The checksum of the caller's array: by a second thread while HDF5 writes it when this
    // rank has a core to spare (both only read the array; the write is mostly the kernel's
    // copy, which one rank at a time makes on a local file system, under the file's lock),
    // else first, on this thread: measured (docs/performance.md "Fields to disk"), a
    // second thread on a node whose cores all run ranks slows the write more than it hides.
    std::uint64_t sum = 0;
    std::thread hasher;
    if (spare_core) {
      try {
        hasher = std::thread([&] { sum = part_checksum(l, 0, b.n[0], dtype, data); });
      } catch (const std::system_error&) {
        sum = part_checksum(l, 0, b.n[0], dtype, data);  // no thread to be had: in turn
      }
    } else {
      sum = part_checksum(l, 0, b.n[0], dtype, data);
    }
    try {
      array.write(start, count, dtype, data, what);
    } catch (...) {
      if (hasher.joinable()) hasher.join();
      throw;
    }
    if (hasher.joinable()) hasher.join();
    return sum;
  }
  std::uint64_t sum = 0;
  const fft::Range first = fft::split(b.n[0], pieces, 0);
  local::Bytes staging(std::size_t(std::max<std::int64_t>(1, first.n * slice_count(b))) * es, "the I/O staging buffer");
  char* const stage = reinterpret_cast<char*>(staging.get());
  for (std::int64_t k = 0; k < pieces; ++k) {
    const fft::Range zr = fft::split(b.n[0], pieces, k);
    slices(b, zr.lo, zr.n, start, count);
    if (writing) {
      reorder(b, zr.lo, zr.n, es, static_cast<const char*>(data), stage, true);
      sum += part_checksum(l, zr.lo, zr.n, dtype, stage);  // the piece is still in cache
      array.write(start, count, dtype, stage, what);
    } else {
      array.read(start, count, dtype, stage, what);
      sum += part_checksum(l, zr.lo, zr.n, dtype, stage, method);
      reorder(b, zr.lo, zr.n, es, stage, static_cast<char*>(data), false);
    }
  }
  return sum;
}

// Whether this rank's box of a contiguous dataset in natural order lies in the file as
// runs long enough to write them itself (write_runs): at least 64 KiB each
// (NBFFT_IO_RUN_BYTES overrides it: tests), at most kMaxRuns of them. Local; write()
// agrees on it.
constexpr std::int64_t kMaxRuns = 16384;
std::int64_t min_run_bytes() {
  static const std::int64_t v = [] {
    const char* e = std::getenv("NBFFT_IO_RUN_BYTES");
    return e ? std::atoll(e) : std::int64_t(64) << 10;
  }();
  return v;
}
bool long_runs(const Layout& l, std::size_t es) {
  const nd::Box& b = l.box;
  if (!natural_order(b)) return false;
  if (b.empty()) return true;
  const std::int64_t run = detail::run_length(l.shape.size(), b.n.data(), l.shape.data());
  const std::int64_t runs = b.count() / run;
  return run * std::int64_t(es) >= min_run_bytes() && runs <= kMaxRuns;
}

// write()'s transfer where every rank's box lies in long runs of a contiguous dataset at
// file byte `offset` (long_runs): each rank writes its own runs with pwrite on a
// descriptor of its own, a few planes at a time, taking each piece's checksum terms just
// before, while the piece is in cache: one pass over the array where the checksum then
// HDF5's collective write made two, and no exchange between the ranks (their runs are
// disjoint; the file system orders them). HDF5 never writes a contiguous dataset's bytes
// itself (no fill values), so its metadata and these bytes meet nowhere; close() fsyncs
// the file (H5Options::sync) before the rename. Returns this rank's checksum terms.
std::uint64_t write_runs(const std::string& file, haddr_t offset, const Layout& l, Dtype dtype, const void* data,
                         const std::string& what) {
  const nd::Box& b = l.box;
  if (b.empty()) return 0;
  const std::size_t es = elem_size(dtype);
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::Io, what + ": opening it: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const std::int64_t plane = slice_count(b);  // elements of one slice of the box along axis 0
  const std::int64_t per = std::max<std::int64_t>(1, (std::int64_t(2) << 20) / std::max<std::int64_t>(1, plane * std::int64_t(es)));
  const char* base = static_cast<const char*>(data);
  const auto put = [&](const char* from, std::size_t bytes, std::uint64_t at) {
    while (bytes > 0) {
      const ssize_t w = ::pwrite(fd, from, bytes, off_t(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        rlimit lim{};
        const bool past_limit = errno == EFBIG && getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY;
        throw Error(ErrorCode::Io, what + ": " + (w < 0 ? std::strerror(errno) : "nothing written") +
                                       (past_limit ? " (this process's file size limit, ulimit -f, is " +
                                                         std::to_string(std::uint64_t(lim.rlim_cur)) + " bytes)"
                                                   : ""));
      }
      from += w;
      at += std::uint64_t(w);
      bytes -= std::size_t(w);
    }
  };
  std::uint64_t sum = 0;
  std::vector<std::int64_t> start, count;
  for (std::int64_t z0 = 0; z0 < b.n[0]; z0 += per) {
    const std::int64_t nz = std::min(per, b.n[0] - z0);
    const char* piece = base + std::size_t(z0 * plane) * es;
    sum += part_checksum(l, z0, nz, dtype, piece);
    slices(b, z0, nz, start, count);
    detail::for_each_run(l.shape.size(), start.data(), count.data(), l.shape.data(),
                         [&](std::int64_t first, std::int64_t in_piece, std::int64_t run) {
                           put(piece + std::size_t(in_piece) * es, std::size_t(run) * es,
                               std::uint64_t(offset) + std::uint64_t(first) * es);
                         });
  }
  return sum;
}

// The global checksum: the sum of every rank's terms (collective).
std::uint64_t global_checksum(std::uint64_t mine, MPI_Comm comm) {
  std::uint64_t all = 0;
  check_mpi(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return all;
}

std::string hex64(std::uint64_t v) {
  char s[24];
  std::snprintf(s, sizeof s, "0x%016llx", static_cast<unsigned long long>(v));
  return s;
}
}  // namespace

namespace {
// The collective first half of a write: the checks every rank agrees on, then /field/step
// created (contiguous or chunked, allocated at once, never filled) with its attributes.
// write() moves the data into it next; write_start() hands its bytes to MPI-IO. `reserve`:
// the disk room is claimed (write), or only checked (false: write_start; io/room.hpp says why).
format::Array create_step(H5File::Impl& m, const Layout& l, const std::string& field, std::int64_t step,
                          double time, Dtype dtype, std::size_t bytes, bool reserve) {
  std::string local = local_checks(&m, true, l, field, dtype, bytes, m.comm);
  if (local.empty() && !detail::check_time(time).empty()) local = "H5File::write: " + detail::check_time(time);
  // A background write's own start (reserve false) was agreed before; write() meets a
  // rank's wait here.
  const ConfigFields call = {{"call", "write"}, {"field", field}, {"step", std::to_string(step)}, {"time", hex(time)},
                             {"space", space_text(l)}, {"dtype", name(dtype)}, {"shape", shape_text(l.shape)},
                             {"process grid", l.process_grid}};
  if (reserve) detail::agree_entry(m.comm, "H5File::write", "H5File::write", call, local);
  else nbfft::agree_call(m.comm, "H5File::write", call, local);
  const std::string where = "/" + field + "/" + std::to_string(step);
  // The blocks must tile the array: every element written once (the dataset is never
  // filled, and its checksum adds up every rank's terms). The same sums on every rank.
  const std::int64_t total = elements(l.shape);
  std::int64_t held = l.count();
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_INT64_T, MPI_SUM, m.comm), "MPI_Allreduce");
  if (held != total)
    throw Error(ErrorCode::InvalidArgument, "H5File::write: the ranks' boxes hold " + std::to_string(held) +
                                                " elements together; the layout's shape " + shape_text(l.shape) +
                                                " has " + std::to_string(total) +
                                                " (the boxes must tile it: none outside, none overlapping)");

  // The room for the data and the close's metadata, claimed before the dataset is made
  // (io/room.hpp): a full disk or a file size limit is an error here, on every rank, while
  // HDF5 has allocated nothing it would have to write at close. A background write only
  // checks it; close() then claims the metadata's room once its writes are done.
  const auto claim = [&] {
    if (comm_rank(m.comm) != 0) return;
    std::uint64_t bytes = elem_size(dtype);
    for (std::size_t a = 0; a < l.shape.size(); ++a) {
      const std::uint64_t n = std::uint64_t(l.shape[a]);
      const std::uint64_t c = m.options.chunk[0] ? std::min<std::uint64_t>(m.options.chunk[a], std::max<std::uint64_t>(1, n)) : 0;
      bytes *= c ? (n + c - 1) / c * c : n;  // whole chunks (chunks are 3-D only: local_checks)
    }
    const std::uint64_t need = bytes + kMetadataRoom;
    const std::string why =
        reserve ? detail::claim_room(m.target(), need) : detail::check_room(m.target(), need, m.in_flight);
    if (!why.empty())
      throw Error(ErrorCode::Io, "H5File::write: no room for " + where + " (" + std::to_string(bytes) + " bytes) in '" +
                                     m.target() + "': " + why);
  };
  try {
    agree(m.comm, claim);
  } catch (...) {
    m.broken = true;  // the checkpoint lacks a field it was meant to have
    throw;
  }

  format::Array dset;
  agree(m.comm, [&] {
    std::vector<std::int64_t> chunk;
    if (m.options.chunk[0] > 0) chunk.assign(m.options.chunk.begin(), m.options.chunk.end());  // 3-D: local_checks
    dset = format::create(m.file, m.path, field, step, l.shape, dtype, chunk, "H5File::write");
    if (l.has_space) dset.put_text("space", name(l.space));
    for (const auto& kv : l.text) dset.put_text(kv.first.c_str(), kv.second);
    for (const auto& kv : l.numbers) dset.put_int64s(kv.first.c_str(), kv.second);
    dset.put_int64s("step", {step});
    dset.put_double("time", time);
  });
  return dset;
}

// Closes a step's dataset and group, agreeing on the outcome.
void close_step(H5File::Impl& m, const std::string& where, format::Array& dset) {
  std::string err = dset.close();
  if (!err.empty()) err = "H5File::write: closing " + where + ": " + err;
  agree_message(m.comm, err, ErrorCode::Io);
}
}  // namespace

// What follows a step's data in every write, blocking or background: the file's run
// attributes and the XDMF catalog (io/series.cpp). A per-dataset step computed from the
// data (a checksum) belongs here too. Collective.
void detail::after_data(H5File::Impl& m, const RunStamp& run, const std::string& field, std::int64_t step) {
  m.series->wrote(run, field, step);
}

void H5File::write_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, double time,
                         Dtype dtype, const void* data, std::size_t bytes) {
  write_bytes(Layout::of(plan, space), field, step, time, dtype, data, bytes);
}

void H5File::write_bytes(const Layout& l, const std::string& field, std::int64_t step, double time, Dtype dtype,
                         const void* data, std::size_t bytes) {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::write: the file is closed");
  Impl& m = *impl_;
  format::Array dset = create_step(m, l, field, step, time, dtype, bytes, true);
  const std::string where = "/" + field + "/" + std::to_string(step);
  const std::int64_t pieces = staging_pieces(l.box, elem_size(dtype), m.comm);
  // Every rank's box in long runs of a contiguous dataset: each rank writes its own
  // (write_runs), else HDF5's collective transfer (agreed: that one is collective).
  int own_runs = m.options.chunk[0] == 0 && long_runs(l, elem_size(dtype)) && own_writes_enabled() ? 1 : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &own_runs, 1, MPI_INT, MPI_MIN, m.comm), "MPI_Allreduce");
  std::uint64_t mine = 0;
  try {
    mine = agree(m.comm, [&] {
      const std::string what = "H5File::write: writing " + where + " in " + m.where();
      if (own_runs) {
        return write_runs(m.target(), dset.byte_offset(what), l, dtype, data, what);
      }
      return move_box(dset, l, dtype, const_cast<void*>(data), true, pieces, what, detail::kChecksumMethod,
                      m.spare_core);
    });
  } catch (...) {
    m.broken = true;
    throw;
  }
  close_step(m, where, dset);
  detail::put_checksum(m, field, step, mine);
  detail::after_data(m, detail::RunStamp::of(l), field, step);
}

void detail::put_checksum(H5File::Impl& m, const std::string& field, std::int64_t step, std::uint64_t mine) {
  const std::uint64_t sum = global_checksum(mine, m.comm);
  const std::string where = "/" + field + "/" + std::to_string(step);
  agree(m.comm, [&] {
    format::Array dset = format::open(m.file, m.path, field, step, "H5File::write");
    dset.put_uint64("checksum", sum);
    dset.put_text("checksum_method", detail::name(detail::kChecksumMethod));
  });
}

// The background write's first half (io/background.cpp): the dataset made exactly as
// write() makes it, then where its bytes go. Contiguous only: a chunked dataset's bytes
// are not one run of the file (refused before anything is made).
detail::Placement H5File::Impl::place(const Layout& l, const std::string& field, std::int64_t step, double time,
                                      Dtype dtype, std::size_t bytes) {
  Impl& m = *this;
  format::Array dset = create_step(m, l, field, step, time, dtype, bytes, false);
  const std::string where = "/" + field + "/" + std::to_string(step);
  detail::Placement p;
  p.file = m.mode == H5File::Mode::Create ? m.tmp : m.path;
  p.box = l.box;
  p.natural = natural_order(l.box);
  p.spare_core = spare_core;
  p.es = elem_size(dtype);
  p.real_es = real_size(dtype);
  p.dtype = dtype;
  p.dims = l.shape;
  p.start = l.box.lo;
  p.count = l.box.n;
  agree(m.comm, [&] {
    // The bytes in memory are the file's: IEEE little-endian reals, complex as {r, i}.
    const std::uint16_t one = 1;
    const bool little = *reinterpret_cast<const unsigned char*>(&one) == 1;
    if (!little || dset.stored_element_size() != p.es)
      throw Error(ErrorCode::Unavailable, "H5File::write_start: this host's " + std::string(name(dtype)) +
                                              " is not the file's little-endian IEEE layout; use H5File::write");
    const std::uint64_t a = dset.byte_offset("H5File::write_start: " + where);
    p.offset = MPI_Offset(a);
    // Its bytes are on their way from now: the next write's room check counts them.
    if (comm_rank(m.comm) == 0)
      detail::promise_room(m.target(), a, std::uint64_t(elements(p.dims)) * p.es,
                           m.in_flight);
  });
  close_step(m, where, dset);
  return p;
}

namespace {
// stage_box's work on planes lo .. hi of the box.
std::uint64_t stage_planes(const detail::Placement& p, const void* src, void* dst, std::int64_t lo, std::int64_t hi) {
  const nd::Box& b = p.box;
  const std::int64_t plane = slice_count(b) * std::int64_t(p.es);  // bytes of a slice of the box along axis 0
  const std::int64_t step = std::max<std::int64_t>(1, (std::int64_t(256) << 10) / plane);
  const char* s = static_cast<const char*>(src);
  char* t = static_cast<char*>(dst);
  std::uint64_t sum = 0;
  for (std::int64_t z0 = lo; z0 < hi; z0 += step) {
    const std::int64_t nz = std::min(step, hi - z0);
    const char* piece = s + z0 * plane;  // the natural order's planes z0 ..
    if (t) {
      if (p.natural) std::memcpy(t + z0 * plane, piece, std::size_t(nz * plane));
      else reorder(b, z0, nz, p.es, s, t + z0 * plane, true);
      piece = t + z0 * plane;
    }
    std::vector<std::int64_t> start, count;
    slices(b, z0, nz, start, count);
    sum += detail::block_checksum(p.dims.size(), start.data(), count.data(), p.dims.data(), p.dtype, piece);
  }
  return sum;
}
}  // namespace

std::uint64_t detail::stage_box(const Placement& p, const void* src, void* dst) {
  const nd::Box& b = p.box;
  if (b.empty()) return 0;
  // With a core to spare the two halves go side by side (the checksum terms add up): a
  // rank's write_start stages its whole box before it returns, on the solver's time.
  const std::int64_t half = b.n[0] / 2;
  if (p.spare_core && std::int64_t(b.count()) * std::int64_t(p.es) >= (std::int64_t(4) << 20) && half > 0) {
    std::uint64_t upper = 0;
    std::thread lane;
    try {
      lane = std::thread([&] { upper = stage_planes(p, src, dst, half, b.n[0]); });
    } catch (const std::system_error&) {
      return stage_planes(p, src, dst, 0, b.n[0]);  // no thread to be had: in turn
    }
    const std::uint64_t lower = stage_planes(p, src, dst, 0, half);
    lane.join();
    return lower + upper;
  }
  return stage_planes(p, src, dst, 0, b.n[0]);
}


std::string detail::check_field_name(const std::string& f) {
  if (f.empty()) return "the field name is empty";
  if (f.find('/') != std::string::npos) return "the field name '" + f + "' contains '/'";
  if (f == "." || f == "..") return "the field name '" + f + "' is not a name";
  return "";
}

std::string detail::check_time(double t) {
  if (std::isfinite(t)) return "";
  std::ostringstream os;
  os << t;
  return "the time is " + os.str() + "; a step's time must be finite (the XDMF series and its readers order the "
         "steps by it)";
}

std::string detail::spectrum_mismatch(const format::Array& ds, const fft::Plan& plan, Space space) {
  return spectrum_mismatch(ds, Layout::of(plan, space));
}

std::string detail::spectrum_mismatch(const format::Array& ds, const Layout& l) {
  if (!l.has_space || l.space != Space::Spectral) return "";
  const std::string kinds = ds.text("kinds"), norm = ds.text("norm");
  const std::string want_kinds = l.attribute("kinds"), want_norm = l.attribute("norm");
  // The spectrum depends only on how the forward transform scales: 'none' and 'backward'
  // leave it unscaled alike.
  const auto forward_scale = [](const std::string& n) { return n == "none" ? std::string("backward") : n; };
  const bool other_kinds = !kinds.empty() && !want_kinds.empty() && kinds != want_kinds,
             other_norm = !norm.empty() && !want_norm.empty() && forward_scale(norm) != forward_scale(want_norm);
  if (!other_kinds && !other_norm) return "";
  return " is the spectrum of a plan with " + (other_kinds ? "kinds " + kinds : "") +
         (other_kinds && other_norm ? " and " : "") + (other_norm ? "norm '" + norm + "'" : "") +
         "; this plan has " + (other_kinds ? "kinds " + want_kinds : "") + (other_kinds && other_norm ? " and " : "") +
         (other_norm ? "norm '" + want_norm + "'" : "") +
         ", whose spectrum holds other values (read it into a plan made with the file's, or read the physical field)";
}

bool detail::stored_checksum(const format::Array& ds, const std::string& where, const char* op, std::uint64_t& sum,
                             ChecksumMethod& method) {
  if (!ds.has("checksum")) return false;
  const std::string name_of = ds.text("checksum_method");
  if (!checksum_method_of(name_of, method))
    throw Error(ErrorCode::Io, std::string(op) + ": " + where + " has a checksum of method '" + name_of +
                                   "'; this nbfft checks '" + name(ChecksumMethod::V1) + "' and '" +
                                   name(ChecksumMethod::V2) + "'");
  sum = ds.uint64("checksum", std::string(op) + ": attribute checksum of " + where);
  return true;
}

void detail::verify_checksum(MPI_Comm comm, std::uint64_t mine, std::uint64_t stored, const std::string& where,
                             const char* op) {
  const std::uint64_t sum = global_checksum(mine, comm);  // the same on every rank: so is the verdict
  if (sum != stored)
    throw Error(ErrorCode::Io, std::string(op) + ": " + where + " fails its checksum (stored " + hex64(stored) +
                                   ", read " + hex64(sum) + "): the file was damaged after it was written; the data "
                                   "read is not what was written");
}

void H5File::read_bytes(const fft::Plan& plan, Space space, const std::string& field, std::int64_t step, Dtype dtype,
                        void* data, std::size_t bytes) const {
  read_bytes(Layout::of(plan, space), field, step, dtype, data, bytes);
}

void H5File::read_bytes(const Layout& l, const std::string& field, std::int64_t step, Dtype dtype, void* data,
                        std::size_t bytes) const {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::read: the file is closed");
  const Impl& m = *impl_;
  const std::string local = local_checks(&m, false, l, field, dtype, bytes, m.comm);
  detail::agree_entry(m.comm, "H5File::read", "H5File::read",
                      {{"call", "read"}, {"field", field}, {"step", std::to_string(step)}, {"space", space_text(l)},
                       {"dtype", name(dtype)}, {"shape", shape_text(l.shape)}, {"process grid", l.process_grid}},
                      local);
  const std::string where = "/" + field + "/" + std::to_string(step) + " of '" + m.path + "'";
  bool verify = false;  // datasets written before checksums (or by other writers) have none
  std::uint64_t stored = 0;
  detail::ChecksumMethod sum_method = detail::kChecksumMethod;
  format::Array dset = agree(m.comm, [&] {
    format::Array ds = format::open(m.file, m.path, field, step, "H5File::read");
    const std::string s = ds.text("space");
    if (l.has_space && s != name(l.space))
      throw Error(ErrorCode::InvalidArgument,
                  "H5File::read: " + where + " is " +
                      (s.empty() ? std::string("a field with no space recorded (a user's layout wrote it: read it "
                                               "through a layout of your own, io::Layout / nbfft_io_layout_create)")
                                 : "a " + s + " field") +
                      "; asked for a " + name(l.space) + " one");
    Dtype fd{};
    std::string why;
    if (!ds.dtype(fd, why)) throw Error(ErrorCode::InvalidArgument, "H5File::read: " + where + " has " + why);
    if (fd != dtype)
      throw Error(ErrorCode::InvalidArgument, "H5File::read: " + where + " holds " + name(fd) +
                                                  (l.has_space ? ", the plan reads " : ", the layout holds ") +
                                                  name(dtype) + " (another precision or transform)");
    const std::vector<std::int64_t> shape = ds.shape();
    if (shape != l.shape)
      throw Error(ErrorCode::InvalidArgument, "H5File::read: " + where + " is a " + shape_text(shape) +
                                                  axes_note(l) + " array; " +
                                                  (l.has_space ? std::string("this plan's ") + name(l.space) + " field is "
                                                               : std::string("the layout's shape is ")) +
                                                  shape_text(l.shape) + " (another grid)");
    const std::string other = detail::spectrum_mismatch(ds, l);
    if (!other.empty()) throw Error(ErrorCode::InvalidArgument, "H5File::read: " + where + other);
    verify = detail::stored_checksum(ds, where, "H5File::read", stored, sum_method);
    return ds;
  });
  const std::int64_t pieces = staging_pieces(l.box, elem_size(dtype), m.comm);
  const std::uint64_t mine =
      agree(m.comm, [&] { return move_box(dset, l, dtype, data, false, pieces, "H5File::read: reading " + where, sum_method); });
  if (verify) detail::verify_checksum(m.comm, mine, stored, where, "H5File::read");
}

std::vector<std::string> H5File::fields() const {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::fields: the file is closed");
  detail::agree_entry(impl_->comm, "H5File::fields", "H5File", {{"call", "fields"}}, "");
  return agree(impl_->comm, [&] {
    return format::fields(impl_->file);
  });
}

std::vector<std::int64_t> H5File::steps(const std::string& field) const {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::steps: the file is closed");
  detail::agree_entry(impl_->comm, "H5File::steps", "H5File", {{"call", "steps"}, {"field", field}},
                      detail::check_field_name(field));
  return agree(impl_->comm, [&] {
    return format::steps(impl_->file, impl_->path, field, "H5File::steps");
  });
}

double H5File::time(const std::string& field, std::int64_t step) const {
  if (!is_open()) throw Error(ErrorCode::InvalidState, "H5File::time: the file is closed");
  detail::agree_entry(impl_->comm, "H5File::time", "H5File",
                      {{"call", "time"}, {"field", field}, {"step", std::to_string(step)}}, detail::check_field_name(field));
  return agree(impl_->comm, [&] {
    const format::Array ds = format::open(impl_->file, impl_->path, field, step, "H5File::time");
    const std::vector<double> t = ds.doubles("time", 1);
    if (t.empty())
      throw Error(ErrorCode::Io, "H5File::time: /" + field + "/" + std::to_string(step) + " has no time attribute");
    return t[0];
  });
}

}  // namespace nbfft::io
