// Background writes (H5File::write_start): HDF5 makes the dataset on the caller's thread,
// exactly as write() does (same checks, attributes, contiguous layout, allocated at once
// and never filled), and gives its file offset; the rank's box, in the file's (z, y, x)
// order, then goes there by non-blocking MPI-IO on a second handle of the same file while
// the caller keeps computing. wait() completes it and does what write() does after the
// data (detail::after_data: checksum attributes, series, XDMF).
//
// One stream per file. A box whose file runs are long (the physical field's rows of whole
// (y, x) planes, a slab's one block) goes out as MPI_File_iwrite_at requests of at most
// 1 MiB on one handle per file with the default view, opened at the file's first
// background write: Open MPI's OMPIO and MPICH's ROMIO hand them to glibc's POSIX AIO,
// which serves one file descriptor with one thread, in order, with no MPI call needed.
// Measured (docs/io.md "Writing in the background"): every rank's AIO thread writes into
// the same file, and whole 64 MiB boxes in one system call each cost up to 5x the system
// time of the same bytes in 1 MiB calls; and a handle opened per write while another was
// in flight cost 20-30 ms of the start. A box of short runs (a pencil spectrum split along
// kx: a row of a few KiB per (z, y)) instead takes a handle of its own with a subarray
// view and one collective MPI_File_iwrite_at_all (ROMIO aggregates the rows; a view
// cannot change while a write on its handle is pending).
//
// Where the file system takes direct I/O (STATX_DIOALIGN: ext4, xfs, ...), the streamed
// runs' whole 4 KiB pages go instead by POSIX AIO on a descriptor of our own opened with
// O_DIRECT: the disk reads them from the staging buffer (or the caller's array), and no
// core copies them into the page cache. That copy is what a background write could not
// hide when every core runs a rank: writing 512 MiB took 1.1 s of system time buffered,
// 0.05 s direct (dd, this machine). A run's partial pages at either end stay buffered
// (on the MPI-IO stream), so no page is written both ways; staging buffers are placed so
// their bytes meet the file's page boundaries. NBFFT_IO_DIRECT=0 turns it off.
//
// Why not an I/O thread making write()'s HDF5 calls (an earlier design): it needs
// MPI_THREAD_MULTIPLE and, measured, hid less (42% of a 256^3 write, the steps a third
// slower). No thread of ours, so any MPI thread level does.
//
// Chunked datasets are refused (their bytes are not one run of the file). HDF5's metadata
// never overlaps the allocated data, so its writes and ours meet nowhere; our handles are
// closed (which syncs them, MPI's consistency rule) before HDF5 closes the file.
//
// Every decision that makes ranks act differently is agreed: starts and checks on `ctl`
// (a duplicate of the file's communicator), the write's MPI-IO error at wait(), which is
// therefore collective, in start order on every rank.
#include "local/memory.hpp"
#include "background.hpp"
#include "checksum.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"

#include <aio.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace nbfft::io {
namespace detail {

// A background write (H5File::Pending's operation). It is shared with its file, which
// settles it (any rank's wait, or close()); the handle only marks it waited for.
struct WriteJob final : Request::Impl {
  std::shared_ptr<detail::Background> bg;
  MPI_File fh = MPI_FILE_NULL;  // a view write's own handle (from bg->handles, given back once waited)
  std::vector<MPI_Request> reqs;  // one per run (the stream), or the view write's one
  std::vector<int> want;          // the values each request writes
  std::size_t first = 0;          // requests before it have completed on this rank
  std::unique_ptr<aiocb[]> aios;  // the direct writes (O_DIRECT pieces), in file order
  std::size_t naios = 0, aio_first = 0;  // how many; those before aio_first have completed
  MPI_Datatype etype = MPI_DATATYPE_NULL, ftype = MPI_DATATYPE_NULL;  // etype: predefined, never freed
  std::int64_t reals = 0;    // elements of etype this rank writes
  std::size_t real_es = 8;   // bytes of one
  std::int64_t written = 0;  // of them, reported written by completed requests
  const void* src = nullptr;     // what MPI-IO writes: the caller's buffer or `copy`
  local::Bytes copy;             // the staged box (Stage::Copy, or the spectrum's order)
  std::size_t copy_bytes = 0;    // its size; the box starts `shift` bytes in (page placement)
  std::function<void(std::uint64_t)> after;  // given this rank's checksum terms
  std::function<void()> failed;              // the write failed (on every rank): the file is broken
  std::uint64_t sum = 0;                     // this rank's checksum terms of its box
  std::string what;   // "/u/3 of 'run.h5'"
  std::int64_t seq = 0;  // its place in the file's start order (the same on every rank)
  bool done = false;     // the MPI-IO request has completed on this rank
  bool settled = false;  // completed on every rank, its outcome agreed (settle(), collective)
  bool waited = false;   // this rank's caller waited for it or dropped it
  bool discarded = false;
  std::string error;          // this rank's MPI-IO failure ("" = none)
  std::exception_ptr agreed;  // the write's outcome as every rank reports it (null = written)

  bool active() const override { return !settled; }
  bool valid() const override { return !waited; }
  void progress() override { test(); }
  bool test() override;
  void wait() override;
  void drop() noexcept override;

};

using Job = WriteJob;

// A staging buffer: its bytes, its size, whether a write of this file has used it.
struct Buffer {
  local::Bytes bytes;
  std::size_t size = 0;
  bool used = false;
};

struct Background {
  // The file's communicator (H5File::Impl::comm): the first call of every start and wait
  // meets there, where the front ends' own checks of a start meet too (H5File::agree_call).
  MPI_Comm file_comm = MPI_COMM_NULL;
  MPI_Comm ctl = MPI_COMM_NULL;
  std::string path;
  MPI_File stream = MPI_FILE_NULL;            // the runs' handle (default view), opened at its first use
  int direct = -1;                            // this rank's O_DIRECT descriptor (-1: none, buffered only)
  std::size_t direct_mem_align = 0;           // the memory alignment its writes need
  bool direct_tried = false;
  std::vector<MPI_File> handles;              // view writes': open on the file, no write pending
  std::vector<MPI_File> all;                  // every handle opened, closed at settle
  // Started and not yet settled, in start order; every rank holds the same list between
  // collective calls, since starts and settles are collective.
  std::vector<std::shared_ptr<Job>> unsettled;
  std::int64_t started = 0;  // writes started on this file (the next one's seq)
  // Settled before this rank's caller waited for them (another write's wait, on any rank,
  // or close() settled them, or the caller dropped its Pending): close() reports the first
  // error among those still unwaited then.
  std::vector<std::shared_ptr<Job>> settled_unwaited;
  // Staging buffers of finished writes, for the next ones (and, once the file closes, for
  // the next file's: g_pool).
  std::vector<Buffer> spare;
};

namespace {

// The process's writes in flight: at most one file has them.
std::mutex g_mu;
int g_in_flight = 0;
std::weak_ptr<Background> g_owner;
// The staging buffers the last closed file used, for the next file's background writes: a
// checkpoint is a new file each time, and a fresh buffer costs a page fault per 4 KiB on
// its first touch (measured in write_start at 256^3: 32 ms for a 64 MiB box, 13 ms reused).
// H5File::release_staging() frees them.
std::vector<Buffer> g_pool;

std::string mpi_reason(int code) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (MPI_Error_string(code, s, &n) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(s, std::size_t(n));
}

// Whether the job's MPI-IO requests have completed on this rank (local; drives them once).
// Under Open MPI by MPI_Request_get_status, not MPI_Test/MPI_Wait: on a failed write Open
// MPI 4.1's MPI_Test and MPI_Wait crash in ompi_errhandler_request_invoke (an OMPIO request
// carries no file for its error handler: a null dereference); get_status reports the same
// completion and error without the handler, and the request is then freed. Elsewhere
// MPI_Test (MPICH's ROMIO progresses its requests there). The requests complete in order
// (one AIO stream), so only the first one still open is asked.
bool poll(Job& j) {
  if (j.done) return true;
  while (j.first < j.reqs.size()) {
    MPI_Request& r = j.reqs[j.first];
    int flag = 0;
    MPI_Status st;
    st.MPI_ERROR = MPI_SUCCESS;
#if defined(OPEN_MPI)
    const int rc = MPI_Request_get_status(r, &flag, &st);
    if (rc == MPI_SUCCESS && flag) MPI_Request_free(&r);
    const int err = rc != MPI_SUCCESS ? rc : flag ? st.MPI_ERROR : MPI_SUCCESS;
#else
    const int rc = MPI_Test(&r, &flag, &st);
    const int err = rc;
#endif
    if (rc != MPI_SUCCESS) flag = 1;  // no use asking again
    if (!flag) return false;
    if (err != MPI_SUCCESS && j.error.empty())
      j.error = "H5File::write_start: writing " + j.what + ": " + mpi_reason(err);
    // Open MPI 4.1's OMPIO reports a write cut short by a full disk or a file size limit as
    // a success with a short count: only the count tells.
    int count = 0;
    if (err == MPI_SUCCESS && MPI_Get_count(&st, j.etype, &count) == MPI_SUCCESS && count != MPI_UNDEFINED)
      j.written += std::min(count, j.want[j.first]);
    ++j.first;
  }
  while (j.aio_first < j.naios) {
    aiocb& cb = j.aios[j.aio_first];
    const int e = aio_error(&cb);
    if (e == EINPROGRESS) return false;
    const ssize_t got = aio_return(&cb);
    if (e != 0 && j.error.empty()) {
      // A direct write that crosses the file size limit is cut to it, off the page: EINVAL.
      rlimit lim{};
      const bool past_limit = getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
                              std::uint64_t(cb.aio_offset) + cb.aio_nbytes > std::uint64_t(lim.rlim_cur);
      j.error = "H5File::write_start: writing " + j.what + ": " +
                (past_limit ? std::string(std::strerror(EFBIG)) + " (this process's file size limit, ulimit -f, is " +
                                  std::to_string(std::uint64_t(lim.rlim_cur)) + " bytes)"
                            : std::string(std::strerror(e)));
    }
    if (e == 0 && got > 0) j.written += std::int64_t(got) / std::int64_t(j.real_es);
    ++j.aio_first;
  }
  if (j.error.empty() && j.written < j.reals)
    j.error = "H5File::write_start: writing " + j.what + ": only " + std::to_string(j.written) + " of " +
              std::to_string(j.reals) + " values were written (a full disk, or the file size limit?)";
  j.done = true;
  return true;
}

// A box is streamed when it has at most this many runs, ...
constexpr std::int64_t kMaxRuns = 16384;
// ... each written in requests of at most this many bytes. Every rank's AIO thread writes
// into the same file, and a buffered write holds the file's inode lock for its whole
// system call: two processes writing 3 x 64 MiB each into one file on this machine spent
// 0.4-1.0 s of system time in 64 MiB calls, 0.16-0.19 s in 1 MiB calls (0.10 s into two
// files); in the 256^3 solver loop the steps slowed 24% with whole boxes, 10% in 1 MiB
// pieces (docs/io.md).
constexpr std::int64_t kPieceBytes = std::int64_t(1) << 20;

// Opens `file` for writing on every rank of bg.ctl (inside agree: throws on failure).
MPI_File open_handle(Background& bg, const std::string& file) {
  MPI_File fh = MPI_FILE_NULL;
  const int rc = MPI_File_open(bg.ctl, file.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS)
    throw Error(ErrorCode::Io, "H5File::write_start: opening '" + file + "' for MPI-IO: " + mpi_reason(rc));
  return fh;
}

// Completes the job's MPI-IO requests on this rank (local).
void complete(Job& j) {
  while (!poll(j)) {
    if (j.first == j.reqs.size() && j.aio_first < j.naios) {  // only the disk is left: sleep on it
      const aiocb* one[1] = {&j.aios[j.aio_first]};
      aio_suspend(one, 1, nullptr);
    }
  }
}

void release(Background& bg, Job& j) {
  if (j.ftype != MPI_DATATYPE_NULL) MPI_Type_free(&j.ftype);
  if (j.fh != MPI_FILE_NULL) bg.handles.push_back(j.fh);
  j.fh = MPI_FILE_NULL;
  if (j.copy) bg.spare.push_back({std::move(j.copy), j.copy_bytes, true});
}

// This rank's caller has seen the job's outcome (its wait() returned or threw; local).
void mark_waited(Background& bg, Job& j) {
  if (j.waited) return;
  j.waited = true;
  auto& v = bg.settled_unwaited;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const std::shared_ptr<Job>& x) { return x.get() == &j; }), v.end());
}

// Settles the file's writes started before `upto` on this rank or any other: completes
// them here, agrees on each one's outcome, and runs their `after` steps (collective HDF5
// calls: checksum attributes, series, XDMF) in start order, or `failed` where any rank's
// part failed. Collective, and the same on every rank whatever the order in which the
// ranks' callers wait: each rank brings the highest write it waits for, and all settle up
// to the highest of them. So ranks may wait for their writes in different orders (a wait
// that finds its write settled by an earlier one returns at once, locally), and no rank
// ever commits another write's attributes. A rank that starts a write while another waits
// meets it in the first allreduce (on the file's communicator, where a front end's own
// checks of a start come first too: H5File::agree_call), and both fail (RanksDisagree)
// before anything is committed. discard: this rank's file is being destroyed unclosed; when any rank
// discards, every rank does (no after steps, and `failed` marks the file so that close()
// removes it as the destructor does, on every rank alike).
void settle(Background& bg, std::int64_t upto, bool discard) {
  agree_call(bg.file_comm, "H5File", ConfigFields{{"call", "wait"}}, "");
  std::int64_t agreed[2] = {upto, discard ? 1 : 0};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT64_T, MPI_MAX, bg.ctl), "MPI_Allreduce");
  upto = agreed[0];
  discard = agreed[1] != 0;
  std::vector<std::shared_ptr<Job>> batch;
  for (auto& j : bg.unsettled)
    if (j->seq < upto) batch.push_back(j);
  for (auto& j : batch) complete(*j);
  // One allreduce on the happy path: which writes failed on some rank; then each failure's
  // message from its lowest failing rank.
  std::vector<int> failed(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i) failed[i] = batch[i]->error.empty() ? 0 : 1;
  if (!failed.empty())
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, failed.data(), int(failed.size()), MPI_INT, MPI_MAX, bg.ctl),
              "MPI_Allreduce");
  for (std::size_t i = 0; i < batch.size(); ++i)
    if (failed[i]) {
      try {
        agree_message(bg.ctl, batch[i]->error, ErrorCode::Io);
      } catch (...) {
        batch[i]->agreed = std::current_exception();
      }
    }
  for (auto& j : batch) {
    if (!j->agreed && !discard && j->after) {
      try {
        j->after(j->sum);  // collective on the file's communicator; its errors are agreed there
      } catch (...) {
        j->agreed = std::current_exception();
      }
    }
    if ((j->agreed || discard) && j->failed) j->failed();  // a Create with a hole is never renamed over the previous file
    j->discarded = discard;
    j->settled = true;
    release(bg, *j);
    if (!j->waited) bg.settled_unwaited.push_back(j);
  }
  bg.unsettled.erase(bg.unsettled.begin(), bg.unsettled.begin() + std::ptrdiff_t(batch.size()));
  std::lock_guard<std::mutex> g(g_mu);
  g_in_flight -= int(batch.size());
  if (g_in_flight == 0) g_owner.reset();
}

// Direct writes go in whole pages of this size (a multiple of every DIO alignment seen):
// a page written directly is never also written through the page cache.
constexpr std::size_t kPage = 4096;
// ... in requests of at most this many bytes (a direct write holds no inode lock for its
// length the way a buffered one does; fewer, longer requests keep the disk busy).
constexpr std::size_t kDirectPieceBytes = std::size_t(8) << 20;

// Opens this rank's O_DIRECT descriptor on `file` (bg.direct) when its file system takes
// direct I/O with alignments that divide kPage, else leaves -1 (local: each rank writes its
// own pages).
void open_direct(Background& bg, const std::string& file) {
  const char* env = std::getenv("NBFFT_IO_DIRECT");
  if (env && std::string(env) == "0") return;
  struct statx sx {};
  if (statx(AT_FDCWD, file.c_str(), 0, STATX_DIOALIGN, &sx) != 0 || !(sx.stx_mask & STATX_DIOALIGN) ||
      sx.stx_dio_offset_align == 0 || sx.stx_dio_mem_align == 0 || kPage % sx.stx_dio_offset_align != 0 ||
      kPage % sx.stx_dio_mem_align != 0)
    return;
  bg.direct = ::open(file.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
  bg.direct_mem_align = sx.stx_dio_mem_align;
}

}  // namespace

std::string background_busy(const char* op) {
  std::string path;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (g_in_flight == 0) return "";
    if (auto o = g_owner.lock()) path = o->path;
  }
  return std::string(op) + ": a background write (H5File::write_start) of '" + path +
         "' is in flight in this process; no H5File can be used until that write's Pending::wait() (or "
         "that file's close())";
}

void background_guard(const char* op) {
  const std::string busy = background_busy(op);
  if (!busy.empty()) throw Error(ErrorCode::InvalidState, busy);
}

void agree_entry(MPI_Comm comm, const char* op, const std::string& what, const ConfigFields& call,
                 const std::string& local_error) {
  const std::string busy = background_busy(op);
  agree_call(comm, what, call, busy.empty() ? local_error : busy,
             busy.empty() ? ErrorCode::InvalidArgument : ErrorCode::InvalidState);
}

H5File::Pending background_start(std::shared_ptr<Background>& bg, MPI_Comm comm, const std::string& path,
                                      bool writable, bool chunked, const std::string& field, std::int64_t step,
                                      const void* data, H5File::Stage stage, const std::function<Placement()>& place,
                                      std::function<void(std::uint64_t)> after, std::function<void()> failed) {
  if (!bg) {
    bg = std::make_shared<Background>();
    bg->path = path;
    bg->file_comm = comm;
    std::lock_guard<std::mutex> g(g_mu);
    bg->spare = std::move(g_pool);
    g_pool.clear();
  }
  // A rank that waits (settle) while this one starts meets it here: both fail, and the
  // file is marked on both so that neither commits it.
  try {
    agree_call(comm, "H5File", ConfigFields{{"call", "write_start"}}, "");
  } catch (...) {
    if (failed) failed();
    throw;
  }
  if (bg->ctl == MPI_COMM_NULL) check_mpi(MPI_Comm_dup(comm, &bg->ctl), "MPI_Comm_dup");
  agree(bg->ctl, [&] {
    if (!writable)
      throw Error(ErrorCode::InvalidArgument, "H5File::write_start: '" + path + "' was opened for reading");
    if (chunked)
      throw Error(ErrorCode::Unavailable,
                  "H5File::write_start: '" + path +
                      "' makes chunked datasets (H5Options::chunk); a background write puts its bytes at a contiguous "
                      "dataset's file offset: open the file without chunk, or write with H5File::write");
    std::lock_guard<std::mutex> g(g_mu);
    auto owner = g_owner.lock();
    if (g_in_flight > 0 && owner.get() != bg.get())
      throw Error(ErrorCode::InvalidState,
                  "H5File::write_start: a background write of '" + (owner ? owner->path : std::string("?")) +
                      "' is in flight in this process; one file at a time writes in the background: wait() for it "
                      "first");
  });
  // The dataset, exactly as write() makes it (its checks come first: a step already there,
  // the wrong dtype, a short buffer are errors of this call on every rank).
  const Placement p = place();
  auto j = std::make_shared<Job>();
  j->bg = bg;
  j->after = std::move(after);
  j->failed = std::move(failed);
  j->what = "/" + field + "/" + std::to_string(step) + " of '" + path + "'";
  const std::int64_t n = p.box.count();
  const std::size_t need = std::size_t(n) * p.es;
  // The box's first byte in the file: a staged box starts at the same place in a page, so
  // its whole pages can go to the disk directly.
  std::int64_t first = 0;  // the box's first element in the file
  for (std::size_t a = 0; a < p.dims.size(); ++a) first = first * p.dims[a] + p.start[a];
  const MPI_Offset first_byte = p.offset + MPI_Offset(first * std::int64_t(p.es));
  try {
  agree(bg->ctl, [&] {
    if (stage == H5File::Stage::Copy || !p.natural) {
      for (auto it = bg->spare.begin(); it != bg->spare.end(); ++it)
        if (it->size >= need + kPage) {
          j->copy = std::move(it->bytes);
          j->copy_bytes = it->size;
          bg->spare.erase(it);
          break;
        }
      if (!j->copy) {
        j->copy = local::Bytes(need + kPage, "a background write's staging copy");
        j->copy_bytes = need + kPage;
      }
    }
    char* staged = nullptr;
    if (j->copy) {
      char* copy = reinterpret_cast<char*>(j->copy.get());
      const auto base = reinterpret_cast<std::uintptr_t>(copy);
      staged = copy + (std::uintptr_t(first_byte) - base) % kPage;
    }
    // The checksum terms now, from the bytes in the file's order (the copy, or the caller's
    // natural-order array, which Borrow leaves unchanged until wait): written at wait.
    j->sum = stage_box(p, data, staged);
    j->src = staged ? staged : data;
  });
  // The element as MPI's real type (a complex one as two reals along x): OMPIO takes a
  // predefined element type faster than a derived one.
  const bool cplx = p.es == 2 * p.real_es;
  j->etype = p.real_es == 8 ? MPI_DOUBLE : MPI_FLOAT;
  j->reals = n * (cplx ? 2 : 1);
  j->real_es = p.real_es;
  // In reals (a complex element is two along the last axis), slowest axis first.
  const std::size_t ndim = p.dims.size();
  std::vector<std::int64_t> dims = p.dims, start = p.start, count = p.count;
  if (cplx) dims[ndim - 1] *= 2, start[ndim - 1] *= 2, count[ndim - 1] *= 2;
  // The box's runs in the file: whole trailing axes merge into one run (whole planes of a
  // 3-D field into one block, whole rows into one run per z), else one run per row. Long
  // runs go to the file's stream; short ones, many, through a view (agreed: a view write is
  // collective).
  const std::int64_t run = detail::run_length(ndim, count.data(), dims.data());
  const std::int64_t runs = run > 0 ? j->reals / run : 0;
  const char* env = std::getenv("NBFFT_IO_BG_RUN_BYTES");  // the shortest average run streamed (tests)
  const std::int64_t min_run = env ? std::atoll(env) : std::int64_t(64) << 10;
  int stream_ok = runs <= kMaxRuns && run * std::int64_t(p.real_es) >= min_run ? 1 : 0;
  if (n == 0) stream_ok = 1;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &stream_ok, 1, MPI_INT, MPI_MIN, bg->ctl), "MPI_Allreduce");
  if (stream_ok) {
    agree(bg->ctl, [&] {
      if (bg->stream == MPI_FILE_NULL) {
        bg->stream = open_handle(*bg, p.file);
        bg->all.push_back(bg->stream);
      }
    });
    if (!bg->direct_tried) {
      bg->direct_tried = true;
      open_direct(*bg, p.file);
    }
    // Independent writes, each rank's own: nothing left to agree on until wait().
    const char* mem = static_cast<const char*>(j->src);
    std::string err;
    const auto es = std::int64_t(p.real_es);
    // `reals` values from `from` to file byte `at` through the stream, in 1 MiB requests.
    auto buffered = [&](MPI_Offset at, const char* from, std::int64_t reals) {
      for (std::int64_t done = 0; done < reals && err.empty();) {
        const int len = int(std::min<std::int64_t>(reals - done, kPieceBytes / es));
        j->reqs.push_back(MPI_REQUEST_NULL);
        j->want.push_back(len);
        const int rc = MPI_File_iwrite_at(bg->stream, at + MPI_Offset(done * es), from + done * es, len, j->etype,
                                          &j->reqs.back());
        if (rc != MPI_SUCCESS) {
          j->reqs.pop_back();
          j->want.pop_back();
          err = "H5File::write_start: starting " + j->what + ": " + mpi_reason(rc);
        }
        done += len;
      }
    };
    struct Piece {
      MPI_Offset at;
      const char* from;
      std::size_t bytes;
    };
    std::vector<Piece> direct;  // whole pages, written once the runs are laid out
    detail::for_each_run(ndim, start.data(), count.data(), dims.data(), [&](std::int64_t g, std::int64_t q, std::int64_t) {
      if (!err.empty()) return;
      const MPI_Offset at = p.offset + MPI_Offset(g * es);  // q: the run's first real in the box, C order
      const char* from = mem + q * es;
      // The run's whole pages go directly when their memory is aligned as the file system
      // asks (staged boxes are placed so); the partial pages at its ends (whole values) and
      // a run whose memory is not aligned go through the stream.
      const std::size_t bytes = std::size_t(run * es);
      const std::size_t head = (kPage - std::size_t(at) % kPage) % kPage;
      const std::size_t whole = bytes > head ? (bytes - head) / kPage * kPage : 0;
      if (bg->direct >= 0 && whole > 0 && head % p.real_es == 0 &&
          (reinterpret_cast<std::uintptr_t>(from) - std::uintptr_t(at)) % bg->direct_mem_align == 0) {
        buffered(at, from, std::int64_t(head) / es);
        for (std::size_t d = 0; d < whole; d += kDirectPieceBytes)
          direct.push_back({at + MPI_Offset(head + d), from + head + d, std::min(kDirectPieceBytes, whole - d)});
        const std::size_t tail = head + whole;
        buffered(at + MPI_Offset(tail), from + tail, std::int64_t(bytes - tail) / es);
      } else {
        buffered(at, from, run);
      }
    });
    if (err.empty() && !direct.empty()) {
      j->aios.reset(new aiocb[direct.size()]);
      for (const Piece& d : direct) {
        aiocb& cb = j->aios[j->naios];
        std::memset(&cb, 0, sizeof cb);
        cb.aio_fildes = bg->direct;
        cb.aio_offset = off_t(d.at);
        cb.aio_buf = const_cast<char*>(d.from);
        cb.aio_nbytes = d.bytes;
        cb.aio_sigevent.sigev_notify = SIGEV_NONE;
        if (aio_write(&cb) == 0) ++j->naios;
        else buffered(d.at, d.from, std::int64_t(d.bytes) / es);  // no room for another request: the stream takes it
      }
    }
    // A run that did not start leaves the earlier ones going: their buffer stays ours until
    // they complete; the failure is the write's, reported at wait() on every rank.
    if (!err.empty()) j->error = err;
    if (j->reqs.empty() && j->naios == 0) j->done = true;
  } else {
    agree(bg->ctl, [&] {
      if (2 * n > INT_MAX)
        throw Error(ErrorCode::Unavailable, "H5File::write_start: this rank's box has " + std::to_string(n) +
                                                " elements in rows too short to stream, more than one MPI-IO call "
                                                "takes; use H5File::write");
      if (n > 0) {
        std::vector<int> sizes(ndim), sub(ndim), starts(ndim);
        for (std::size_t a = 0; a < ndim; ++a) {
          sizes[a] = int(dims[a]);
          sub[a] = int(count[a]);
          starts[a] = int(start[a]);
        }
        check_mpi(MPI_Type_create_subarray(int(ndim), sizes.data(), sub.data(), starts.data(), MPI_ORDER_C, j->etype,
                                           &j->ftype),
                  "MPI_Type_create_subarray");
        check_mpi(MPI_Type_commit(&j->ftype), "MPI_Type_commit");
      }
    });
    // A handle with no write pending (a view is set only on such), or a new one: the same on
    // every rank, since handles come back only at collective waits.
    agree(bg->ctl, [&] {
      if (bg->handles.empty()) {
        bg->handles.push_back(open_handle(*bg, p.file));
        bg->all.push_back(bg->handles.back());
      }
      j->fh = bg->handles.back();
      bg->handles.pop_back();
    });
    agree(bg->ctl, [&] {
      const MPI_Datatype view = n > 0 ? j->ftype : j->etype;
      int rc = MPI_File_set_view(j->fh, p.offset, j->etype, view, "native", MPI_INFO_NULL);
      if (rc != MPI_SUCCESS)
        throw Error(ErrorCode::Io, "H5File::write_start: the MPI-IO view of " + j->what + ": " + mpi_reason(rc));
      j->reqs.push_back(MPI_REQUEST_NULL);
      j->want.push_back(int(j->reals));
      rc = MPI_File_iwrite_at_all(j->fh, 0, j->src, int(j->reals), j->etype, &j->reqs.back());
      if (rc != MPI_SUCCESS) {
        j->reqs.clear();
        j->want.clear();
        throw Error(ErrorCode::Io, "H5File::write_start: starting " + j->what + ": " + mpi_reason(rc));
      }
    });
  }
  } catch (...) {
    if (j->reqs.empty() && j->naios == 0) release(*bg, *j);  // nothing pending on its buffer or handle
    throw;
  }
  j->seq = bg->started++;
  bg->unsettled.push_back(j);
  std::lock_guard<std::mutex> g(g_mu);
  ++g_in_flight;
  g_owner = bg;
  return H5File::Pending(std::move(j));
}

bool background_settle(std::shared_ptr<Background>& bg, bool report, bool discard) {
  if (!bg) return false;
  std::exception_ptr failure;
  bool discarded = discard;
  if (bg->ctl != MPI_COMM_NULL && !bg->unsettled.empty()) {  // the same on every rank (see settle)
    try {
      settle(*bg, bg->started, discard);
    } catch (...) {  // ranks not in the same call: finish this rank's writes, commit nothing
      failure = std::current_exception();
      for (auto& j : bg->unsettled) {
        complete(*j);
        if (j->failed) j->failed();
        j->agreed = failure;
        j->discarded = discard;
        j->settled = true;
        release(*bg, *j);
      }
      std::lock_guard<std::mutex> g(g_mu);
      g_in_flight -= int(bg->unsettled.size());
      if (g_in_flight == 0) g_owner.reset();
      bg->unsettled.clear();
    }
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  // The first error no wait() of this rank reported, agreed (another rank's caller may have
  // waited for that write and seen it already). Agreed also when the file is destroyed, so
  // that a rank's destructor meets another rank's close() in the same calls.
  if (bg->ctl != MPI_COMM_NULL && !failure && !finalized) {
    int any_discard = discard ? 1 : 0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &any_discard, 1, MPI_INT, MPI_MAX, bg->ctl), "MPI_Allreduce");
    discarded = discarded || any_discard;
    std::string first;
    for (auto& j : bg->settled_unwaited)
      if (first.empty() && j->agreed) {
        try {
          std::rethrow_exception(j->agreed);
        } catch (const Error& e) {
          first = e.message();
        } catch (const std::exception& e) {
          first = e.what();
        }
      }
    try {
      agree_message(bg->ctl, first, ErrorCode::Io);
    } catch (...) {
      if (report) failure = std::current_exception();
    }
  }
  bg->settled_unwaited.clear();
  // Closing a handle syncs it: our bytes are the file's before HDF5 closes it.
  if (!finalized)
    for (MPI_File& fh : bg->all) MPI_File_close(&fh);
  bg->all.clear();
  if (bg->direct >= 0) ::close(bg->direct);  // every direct write has completed (above)
  bg->direct = -1;
  bg->direct_mem_align = 0;
  bg->direct_tried = false;
  bg->stream = MPI_FILE_NULL;
  bg->handles.clear();
  {  // the buffers this file used wait for the next file's writes; the others are freed
    std::lock_guard<std::mutex> g(g_mu);
    g_pool.clear();
    for (auto& b : bg->spare)
      if (b.used) g_pool.push_back({std::move(b.bytes), b.size, false});
  }
  bg->spare.clear();
  if (bg->ctl != MPI_COMM_NULL && !finalized) MPI_Comm_free(&bg->ctl);
  bg->ctl = MPI_COMM_NULL;
  if (failure) std::rethrow_exception(failure);
  return discarded;
}

}  // namespace detail

void H5File::release_staging() {
  std::lock_guard<std::mutex> g(detail::g_mu);
  detail::g_pool.clear();
}

namespace detail {

// Completes this rank's part of the write (local); what follows the data, and its error,
// come with the next settle on every rank (another rank's wait, or close()).
void WriteJob::drop() noexcept {
  if (!settled) complete(*this);
}

namespace {
void need_unwaited(const WriteJob& j, const char* call) {
  if (j.waited)
    throw Error(ErrorCode::InvalidState, std::string("H5File::Pending::") + call +
                                             ": no write in flight (never started, moved from, or already waited for)");
}
}  // namespace

// Drives the request (MPICH's ROMIO progresses a non-blocking write only inside MPI calls).
bool WriteJob::test() {
  need_unwaited(*this, "test");
  if (settled) return true;
  return poll(*this);
}

void WriteJob::wait() {
  need_unwaited(*this, "wait");
  if (!settled) {
    try {
      settle(*bg, seq + 1, false);
    } catch (...) {
      // Ranks in different calls (one waits, another starts a write): nothing was settled;
      // the file is marked so that close() never commits it. The Pending stays usable.
      if (failed) failed();
      throw;
    }
  }
  mark_waited(*bg, *this);
  if (discarded)
    throw Error(ErrorCode::InvalidState, "H5File::Pending::wait: " + what +
                                             " was written, but the H5File was destroyed before close() and the "
                                             "file discarded");
  if (agreed) std::rethrow_exception(agreed);
}

}  // namespace detail

}  // namespace nbfft::io
