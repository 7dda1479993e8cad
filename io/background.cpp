// Background writes (H5File::write_start): HDF5 makes the dataset on the caller's thread,
// exactly as write() does (same checks, attributes, contiguous layout, allocated at once
// and never filled), and gives its file offset; the rank's box, in the file's (z, y, x)
// order, then goes there by MPI_File_iwrite_at_all on a second MPI-IO handle of the same
// file, through a subarray view, while the caller keeps computing. wait() completes it and
// does what write() does after the data (detail::after_data: series, XDMF).
//
// Why not an I/O thread making write()'s HDF5 calls (this file's previous design):
// measured (docs/io.md "Writing in the background", bench/iobg) the thread needs
// MPI_THREAD_MULTIPLE and, with every core running a rank, its collective MPI-IO competes
// with the solver: it hid 42% of a 256^3 write with the steps a third slower. Open MPI's
// OMPIO hands a non-blocking write to glibc's POSIX AIO threads, which progress without
// any MPI call; MPICH's ROMIO progresses it inside MPI_Test/MPI_Wait (Pending::test()
// drives it). No thread of ours, so any MPI thread level does.
//
// Chunked datasets are refused (their bytes are not one run of the file). HDF5's metadata
// never overlaps the allocated data, so its writes and ours meet nowhere; our handles are
// closed (which syncs them, MPI's consistency rule) before HDF5 closes the file.
//
// Every decision that makes ranks act differently is agreed: starts and checks on `ctl`
// (a duplicate of the file's communicator), the write's MPI-IO error at wait(), which is
// therefore collective, in start order on every rank.
#include "background.hpp"
#include "checksum.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"

#include <climits>
#include <cstring>
#include <mutex>
#include <vector>

namespace nbfft::io {

struct H5File::Pending::Impl {
  std::shared_ptr<detail::Background> bg;
  MPI_File fh = MPI_FILE_NULL;  // taken from bg->handles, given back once waited
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Datatype etype = MPI_DATATYPE_NULL, ftype = MPI_DATATYPE_NULL;  // etype: predefined, never freed
  std::int64_t reals = 0;  // elements of etype this rank writes
  const void* src = nullptr;     // what MPI-IO writes: the caller's buffer or `copy`
  std::unique_ptr<char[]> copy;  // the staged box (Stage::Copy, or the spectrum's order)
  std::size_t copy_bytes = 0;
  std::function<void(std::uint64_t)> after;  // given this rank's checksum terms
  std::function<void()> failed;              // the write failed (on every rank): the file is broken
  std::uint64_t sum = 0;                     // this rank's checksum terms of its box
  std::string what;   // "/u/3 of 'run.h5'"
  bool done = false;  // the MPI-IO request has completed on this rank
  bool waited = false;
  bool discarded = false;
  std::string error;  // this rank's MPI-IO failure ("" = none)
  std::exception_ptr agreed;  // the write's error as every rank reports it
};

namespace detail {

using Job = H5File::Pending::Impl;

struct Background {
  MPI_Comm ctl = MPI_COMM_NULL;
  std::string path;
  std::vector<MPI_File> handles;              // open on the file, no write pending
  std::vector<MPI_File> all;                  // every handle opened, closed at settle
  std::vector<std::shared_ptr<Job>> unwaited;  // started, not yet waited for (start order)
  // Staging buffers of finished writes, kept until the file closes: a fresh buffer costs
  // a page fault per 4 KiB on its first touch, as much as the copy.
  std::vector<std::pair<std::unique_ptr<char[]>, std::size_t>> spare;
};

namespace {

// The process's writes in flight: at most one file has them.
std::mutex g_mu;
int g_in_flight = 0;
std::weak_ptr<Background> g_owner;

std::string mpi_reason(int code) {
  char s[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (MPI_Error_string(code, s, &n) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(s, std::size_t(n));
}

// Whether the job's MPI-IO request has completed on this rank (local; drives it once).
// Under Open MPI by MPI_Request_get_status, not MPI_Test/MPI_Wait: on a failed write Open
// MPI 4.1's MPI_Test and MPI_Wait crash in ompi_errhandler_request_invoke (an OMPIO request
// carries no file for its error handler: a null dereference); get_status reports the same
// completion and error without the handler, and the request is then freed. Elsewhere
// MPI_Test (MPICH's ROMIO progresses its generalized requests there).
bool poll(Job& j) {
  if (j.done) return true;
  int flag = 0;
  MPI_Status st;
  st.MPI_ERROR = MPI_SUCCESS;
#if defined(OPEN_MPI)
  const int rc = MPI_Request_get_status(j.req, &flag, &st);
  if (rc == MPI_SUCCESS && flag) MPI_Request_free(&j.req);
  const int err = rc != MPI_SUCCESS ? rc : flag ? st.MPI_ERROR : MPI_SUCCESS;
#else
  const int rc = MPI_Test(&j.req, &flag, &st);
  const int err = rc;
#endif
  if (rc != MPI_SUCCESS) flag = 1;  // no use asking again
  if (!flag) return false;
  if (err != MPI_SUCCESS) {
    j.error = "H5File::write_start: writing " + j.what + ": " + mpi_reason(err);
  } else {
    // Open MPI 4.1's OMPIO reports a write cut short by a full disk or a file size limit as
    // a success with a short count: only the count tells.
    int count = 0;
    if (MPI_Get_count(&st, j.etype, &count) == MPI_SUCCESS && count != MPI_UNDEFINED && count < j.reals)
      j.error = "H5File::write_start: writing " + j.what + ": only " + std::to_string(count) + " of " +
                std::to_string(j.reals) + " values were written (a full disk, or the file size limit?)";
  }
  j.done = true;
  return true;
}

// Completes the job's MPI-IO request on this rank (local).
void complete(Job& j) {
  while (!poll(j)) {
  }
}

void release(Background& bg, Job& j) {
  if (j.ftype != MPI_DATATYPE_NULL) MPI_Type_free(&j.ftype);
  if (j.fh != MPI_FILE_NULL) bg.handles.push_back(j.fh);
  j.fh = MPI_FILE_NULL;
  if (j.copy) bg.spare.emplace_back(std::move(j.copy), j.copy_bytes);
}

// Counts a job out of the writes in flight (each job once).
void mark_waited(Background& bg, Job& j) {
  if (j.waited) return;
  j.waited = true;
  for (auto it = bg.unwaited.begin(); it != bg.unwaited.end(); ++it)
    if (it->get() == &j) {
      bg.unwaited.erase(it);
      break;
    }
  std::lock_guard<std::mutex> g(g_mu);
  if (--g_in_flight == 0) g_owner.reset();
}

}  // namespace

void background_guard(const char* op) {
  std::string path;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (g_in_flight == 0) return;
    if (auto o = g_owner.lock()) path = o->path;
  }
  throw Error(ErrorCode::InvalidState,
              std::string(op) + ": a background write (H5File::write_start) of '" + path +
                  "' is in flight in this process; no H5File can be used until that write's Pending::wait() (or "
                  "that file's close())");
}

std::shared_ptr<Job> background_start(std::shared_ptr<Background>& bg, MPI_Comm comm, const std::string& path,
                                      bool writable, bool chunked, const std::string& field, std::int64_t step,
                                      const void* data, H5File::Stage stage, const std::function<Placement()>& place,
                                      std::function<void(std::uint64_t)> after, std::function<void()> failed) {
  if (!bg) {
    bg = std::make_shared<Background>();
    bg->path = path;
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
  try {
  agree(bg->ctl, [&] {
    if (2 * n > INT_MAX)
      throw Error(ErrorCode::Unavailable, "H5File::write_start: this rank's box has " + std::to_string(n) +
                                              " elements, more than one MPI-IO call takes; use H5File::write");
    const void* src = data;
    if (stage == H5File::Stage::Copy || !p.natural) {
      for (auto it = bg->spare.begin(); it != bg->spare.end(); ++it)
        if (it->second >= need) {
          j->copy = std::move(it->first);
          j->copy_bytes = it->second;
          bg->spare.erase(it);
          break;
        }
      if (!j->copy) {
        j->copy.reset(new char[std::max<std::size_t>(1, need)]);
        j->copy_bytes = need;
      }
      if (p.natural) {
        if (need) std::memcpy(j->copy.get(), data, need);
      } else {
        stage_box(p.box, p.es, data, j->copy.get());
      }
      src = j->copy.get();
    }
    // The checksum terms now, from the bytes in the file's order (the copy or the caller's
    // natural-order array, which Borrow leaves unchanged until wait): written at wait.
    if (n > 0) j->sum = block_checksum(p.start.data(), p.count.data(), p.dims.data(), p.dtype, src);
    // The element as MPI's real type (a complex one as two reals along x): OMPIO takes a
    // predefined element type faster than a derived one.
    const bool cplx = p.es == 2 * p.real_es;
    j->etype = p.real_es == 8 ? MPI_DOUBLE : MPI_FLOAT;
    j->reals = n * (cplx ? 2 : 1);
    if (n > 0) {
      int sizes[3], sub[3], starts[3];
      for (int a = 0; a < 3; ++a) {
        const std::int64_t k = a == 2 && cplx ? 2 : 1;
        sizes[a] = int(p.dims[a] * k);
        sub[a] = int(p.count[a] * k);
        starts[a] = int(p.start[a] * k);
      }
      check_mpi(MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, j->etype, &j->ftype),
                "MPI_Type_create_subarray");
      check_mpi(MPI_Type_commit(&j->ftype), "MPI_Type_commit");
    }
    j->src = src;
  });
  // A handle with no write pending (a view is set only on such), or a new one: the same on
  // every rank, since handles come back only at collective waits.
  agree(bg->ctl, [&] {
    if (bg->handles.empty()) {
      MPI_File fh = MPI_FILE_NULL;
      const int rc = MPI_File_open(bg->ctl, p.file.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
      if (rc != MPI_SUCCESS)
        throw Error(ErrorCode::Io, "H5File::write_start: opening '" + p.file + "' for MPI-IO: " + mpi_reason(rc));
      bg->handles.push_back(fh);
      bg->all.push_back(fh);
    }
    j->fh = bg->handles.back();
    bg->handles.pop_back();
  });
  agree(bg->ctl, [&] {
    const MPI_Datatype view = n > 0 ? j->ftype : j->etype;
    int rc = MPI_File_set_view(j->fh, p.offset, j->etype, view, "native", MPI_INFO_NULL);
    if (rc != MPI_SUCCESS)
      throw Error(ErrorCode::Io, "H5File::write_start: the MPI-IO view of " + j->what + ": " + mpi_reason(rc));
    rc = MPI_File_iwrite_at_all(j->fh, 0, j->src, int(j->reals), j->etype, &j->req);
    if (rc != MPI_SUCCESS)
      throw Error(ErrorCode::Io, "H5File::write_start: starting " + j->what + ": " + mpi_reason(rc));
  });
  } catch (...) {
    if (j->req == MPI_REQUEST_NULL) release(*bg, *j);  // nothing pending on its buffer or handle
    throw;
  }
  bg->unwaited.push_back(j);
  std::lock_guard<std::mutex> g(g_mu);
  ++g_in_flight;
  g_owner = bg;
  return j;
}

void background_settle(std::shared_ptr<Background>& bg, bool report, bool discard) {
  if (!bg) return;
  for (auto& j : bg->unwaited) complete(*j);
  std::string first;
  for (auto& j : bg->unwaited)
    if (first.empty() && !j->error.empty()) first = j->error;
  int finalized = 0;
  MPI_Finalized(&finalized);
  std::exception_ptr failure;
  if (report) {
    try {
      agree_message(bg->ctl, first, ErrorCode::Io);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  std::vector<std::shared_ptr<Job>> jobs = bg->unwaited;
  for (auto& j : jobs) {
    if (failure && j->failed) j->failed();
    j->discarded = discard;
    release(*bg, *j);
    mark_waited(*bg, *j);
  }
  // What write() does after its data, for the writes nobody waited for, in start order.
  if (report && !failure) {
    try {
      for (auto& j : jobs)
        if (j->after) j->after(j->sum);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  // Closing a handle syncs it: our bytes are the file's before HDF5 closes it.
  if (!finalized)
    for (MPI_File& fh : bg->all) MPI_File_close(&fh);
  bg->all.clear();
  bg->handles.clear();
  bg->spare.clear();
  if (bg->ctl != MPI_COMM_NULL && !finalized) MPI_Comm_free(&bg->ctl);
  bg->ctl = MPI_COMM_NULL;
  if (failure) std::rethrow_exception(failure);
}

}  // namespace detail

H5File::Pending::Pending() = default;
H5File::Pending::Pending(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
H5File::Pending::Pending(Pending&&) noexcept = default;

H5File::Pending& H5File::Pending::operator=(Pending&& o) noexcept {
  if (this != &o) {
    Pending gone(std::move(*this));  // completes what this held
    impl_ = std::move(o.impl_);
  }
  return *this;
}

// Completes the write on this rank (local); its error and what follows the data wait for
// close(), which agrees on them.
H5File::Pending::~Pending() {
  if (!impl_ || impl_->waited) return;
  detail::complete(*impl_);
}

bool H5File::Pending::active() const { return impl_ && !impl_->waited; }

// Drives the request (MPICH's ROMIO progresses a non-blocking write only inside MPI calls).
bool H5File::Pending::test() {
  if (!impl_) return false;
  if (impl_->waited) return true;
  return detail::poll(*impl_);
}

void H5File::Pending::wait() {
  if (!impl_)
    throw Error(ErrorCode::InvalidState,
                "H5File::Pending::wait: no write in flight (never started, moved from, or already waited for)");
  std::shared_ptr<Impl> j = std::move(impl_);
  detail::Background& bg = *j->bg;
  if (j->waited) {  // settled by close() or the file's destructor
    if (j->discarded)
      throw Error(ErrorCode::InvalidState, "H5File::Pending::wait: " + j->what +
                                               " was written, but the H5File was destroyed before close() and the "
                                               "file discarded");
    if (!j->error.empty()) throw Error(ErrorCode::Io, j->error);
    return;
  }
  detail::complete(*j);
  std::exception_ptr failure;
  try {
    agree_message(bg.ctl, j->error, ErrorCode::Io);
  } catch (...) {
    failure = std::current_exception();
  }
  detail::release(bg, *j);
  detail::mark_waited(bg, *j);
  if (failure) {
    if (j->failed) j->failed();  // a Create with a hole is never renamed over the previous file
    std::rethrow_exception(failure);
  }
  if (j->after) j->after(j->sum);
}

}  // namespace nbfft::io
