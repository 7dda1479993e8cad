// Background writes (H5File::write_start): an I/O thread per file runs the same
// H5File::write the caller would have made, while the caller keeps computing.
//
// Why a thread and not non-blocking collective MPI-IO under HDF5's layout: the thread
// writes the very file write() makes (the same HDF5 calls, attributes, staging and checks,
// whatever write() grows into) with no second code path. Measured (docs/io.md "Writing in
// the background", bench/iobg): it hides the write when a core is free for it; with every
// core running a rank its collective MPI-IO competes with the solver (busy-polling and MPI's
// locks under MPI_THREAD_MULTIPLE) and the steps slow by about a third. The bench's sketch
// of the other design (MPI_File_iwrite_at_all of a staged copy, raw bytes, no HDF5
// metadata) moved the bytes with the steps 1-3% slower on Open MPI, whose OMPIO hands them
// to glibc's POSIX AIO threads; under it HDF5 would still need the caller's thread for the
// dataset, its offset and the metadata. The price of the thread: MPI_THREAD_MULTIPLE, and,
// since HDF5 1.10 here is not thread-safe, no other HDF5 call in the process until every
// write in flight has been waited for (refused with a clear error, never serialized: a
// lock between the two threads could deadlock collectives across ranks).
//
// Determinism: every decision that makes ranks act differently is taken on the caller's
// thread from what the caller did (started, waited), never from the I/O thread's timing,
// so every rank refuses or accepts a call together. The write's own errors are agreed
// inside H5File::write (on the file's communicator, by the I/O threads of all ranks); the
// start's checks are agreed on a second communicator, so the two never meet.
#include "background.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace nbfft::io {

struct H5File::Pending::Impl {
  std::shared_ptr<detail::Background> bg;
  // What the I/O thread writes (set before it is queued, read-only afterwards).
  H5File* file = nullptr;
  const fft::Plan* plan = nullptr;
  Space space = Space::Physical;
  std::string field;
  std::int64_t step = 0;
  double time = 0;
  Dtype dtype = Dtype::Float64;
  const void* data = nullptr;  // the caller's buffer (Stage::Borrow) or `copy`
  std::size_t bytes = 0;
  std::unique_ptr<char[]> copy;
  std::size_t copy_bytes = 0;
  std::string what;  // "/u/3 of 'run.h5'"
  // Under bg->mu.
  bool done = false;       // the I/O thread has finished it
  bool waited = false;     // counted out of the process's writes in flight
  bool discarded = false;  // the file was destroyed unclosed
  std::exception_ptr error;
};

namespace detail {

using Job = H5File::Pending::Impl;

struct Background {
  std::mutex mu;
  std::condition_variable work_cv;  // the I/O thread sleeps here
  std::condition_variable done_cv;  // waits sleep here
  std::deque<std::shared_ptr<Job>> queue;       // started, not yet finished (front: running)
  std::vector<std::shared_ptr<Job>> unwaited;   // started, not yet waited for
  std::exception_ptr unreported;                // a failed write whose Pending died unwaited
  bool busy = false;
  bool stop = false;
  std::thread worker;
  MPI_Comm ctl = MPI_COMM_NULL;  // the start's agreements: the file's comm is the I/O thread's
  std::string path;
  // Staging buffers of finished writes, kept for the next ones until the file closes: a
  // fresh buffer costs a page fault per 4 KiB on its first touch, as much as the copy.
  std::vector<std::pair<std::unique_ptr<char[]>, std::size_t>> spare;

  ~Background() {
    {
      std::lock_guard<std::mutex> l(mu);
      stop = true;
    }
    work_cv.notify_all();
    if (worker.joinable()) worker.join();
  }
  void run();
};

namespace {

thread_local bool t_io_thread = false;

// The process's writes in flight: at most one file has them (HDF5 one thread at a time).
std::mutex g_mu;
int g_in_flight = 0;
std::weak_ptr<Background> g_owner;

// Counts a job out of the writes in flight (caller holds bg.mu; each job once).
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

std::size_t elem_bytes(Dtype d) {
  switch (d) {
    case Dtype::Float64: return 8;
    case Dtype::Float32: return 4;
    case Dtype::Complex128: return 16;
    case Dtype::Complex64: return 8;
  }
  return 8;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

}  // namespace

void Background::run() {
  t_io_thread = true;
  for (;;) {
    std::shared_ptr<Job> j;
    {
      std::unique_lock<std::mutex> l(mu);
      work_cv.wait(l, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;
      j = queue.front();
      busy = true;
    }
    std::exception_ptr err;
    try {
      j->file->write_bytes(*j->plan, j->space, j->field, j->step, j->time, j->dtype, j->data, j->bytes);
    } catch (...) {
      err = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> l(mu);
      j->error = std::move(err);  // no reference left here once the lock is released
      j->done = true;
      if (j->copy) spare.emplace_back(std::move(j->copy), j->copy_bytes);  // for the next write
      queue.pop_front();
      busy = false;
      j.reset();  // never the last owner of a job (and its error) outside the lock
    }
    done_cv.notify_all();
  }
}

void background_guard(const char* op) {
  if (t_io_thread) return;
  std::string path;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (g_in_flight == 0) return;
    if (auto o = g_owner.lock()) path = o->path;
  }
  throw Error(ErrorCode::InvalidState,
              std::string(op) + ": a background write (H5File::write_start) of '" + path +
                  "' is in flight in this process; HDF5 here is not thread-safe, so no H5File can be used until "
                  "that write's Pending::wait() (or that file's close())");
}

std::shared_ptr<Job> background_start(std::shared_ptr<Background>& bg, MPI_Comm comm, const std::string& path,
                                      bool writable, H5File* file, const fft::Plan& plan, Space space,
                                      const std::string& field, std::int64_t step, double time, Dtype dtype,
                                      const void* data, std::size_t bytes, H5File::Stage stage) {
  if (!bg) {
    bg = std::make_shared<Background>();
    bg->path = path;
  }
  // A queue in flight always has its ctl; a new one is made only while the file's comm is idle.
  if (bg->ctl == MPI_COMM_NULL) check_mpi(MPI_Comm_dup(comm, &bg->ctl), "MPI_Comm_dup");
  auto j = std::make_shared<Job>();
  j->bg = bg;
  j->file = file;
  j->plan = &plan;
  j->space = space;
  j->field = field;
  j->step = step;
  j->time = time;
  j->dtype = dtype;
  j->data = data;
  j->bytes = bytes;
  j->what = "/" + field + "/" + std::to_string(step) + " of '" + path + "'";
  agree(bg->ctl, [&] {
    int provided = MPI_THREAD_SINGLE;
    check_mpi(MPI_Query_thread(&provided), "MPI_Query_thread");
    if (provided < MPI_THREAD_MULTIPLE)
      throw Error(ErrorCode::Unavailable,
                  std::string("H5File::write_start: a background write needs MPI_THREAD_MULTIPLE (its I/O thread "
                              "makes collective MPI-IO calls while this thread makes its own), but MPI provides only ") +
                      thread_level_name(provided) +
                      ": initialize MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) or write with "
                      "H5File::write");
    if (!writable)
      throw Error(ErrorCode::InvalidArgument, "H5File::write_start: '" + path + "' was opened for reading");
    {
      std::lock_guard<std::mutex> g(g_mu);
      auto owner = g_owner.lock();
      if (g_in_flight > 0 && owner.get() != bg.get())
        throw Error(ErrorCode::InvalidState,
                    "H5File::write_start: a background write of '" + (owner ? owner->path : std::string("?")) +
                        "' is in flight in this process; one file at a time writes in the background (HDF5 here is "
                        "not thread-safe): wait() for it first");
    }
    const fft::Box3 box = space == Space::Physical ? plan.in_box() : plan.out_box();
    const std::size_t need = std::size_t(box.count()) * elem_bytes(dtype);
    if (bytes < need)
      throw Error(ErrorCode::InvalidArgument, "H5File::write_start: the buffer holds " +
                                                  std::to_string(bytes / elem_bytes(dtype)) +
                                                  " elements, this rank's box " + std::to_string(box.count()));
    if (stage == H5File::Stage::Copy) {
      // One box of this rank, staged as the caller holds it: the I/O thread writes it as
      // write() would have written the caller's buffer.
      {
        std::lock_guard<std::mutex> l(bg->mu);
        for (auto it = bg->spare.begin(); it != bg->spare.end(); ++it)
          if (it->second >= need) {
            j->copy = std::move(it->first);
            j->copy_bytes = it->second;
            bg->spare.erase(it);
            break;
          }
      }
      if (!j->copy) {
        j->copy.reset(new char[std::max<std::size_t>(1, need)]);
        j->copy_bytes = need;
      }
      if (need) std::memcpy(j->copy.get(), data, need);
      j->data = j->copy.get();
      j->bytes = need;
    }
    std::lock_guard<std::mutex> l(bg->mu);
    bg->stop = false;
    if (!bg->worker.joinable()) bg->worker = std::thread([b = bg.get()] { b->run(); });
  });
  {
    std::lock_guard<std::mutex> l(bg->mu);
    bg->queue.push_back(j);
    bg->unwaited.push_back(j);
    std::lock_guard<std::mutex> g(g_mu);
    ++g_in_flight;
    g_owner = bg;
  }
  bg->work_cv.notify_all();
  return j;
}

void background_idle(const std::shared_ptr<Background>& bg) noexcept {
  if (!bg) return;
  std::unique_lock<std::mutex> l(bg->mu);
  bg->done_cv.wait(l, [&] { return bg->queue.empty() && !bg->busy; });
}

void background_settle(std::shared_ptr<Background>& bg, bool report, bool discard) {
  if (!bg) return;
  background_idle(bg);
  std::exception_ptr first;
  {
    std::lock_guard<std::mutex> l(bg->mu);
    first = bg->unreported;
    bg->unreported = nullptr;
    while (!bg->unwaited.empty()) {
      std::shared_ptr<Job> j = bg->unwaited.front();
      if (!first && j->error) first = j->error;
      j->discarded = discard;
      mark_waited(*bg, *j);
    }
    bg->stop = true;
    bg->spare.clear();
  }
  bg->work_cv.notify_all();
  if (bg->worker.joinable()) bg->worker.join();
  if (bg->ctl != MPI_COMM_NULL) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&bg->ctl);
    bg->ctl = MPI_COMM_NULL;
  }
  if (report && first) std::rethrow_exception(first);
}

void background_quiesce() noexcept {
  std::shared_ptr<Background> o;
  {
    std::lock_guard<std::mutex> g(g_mu);
    o = g_owner.lock();
  }
  background_idle(o);
}

}  // namespace detail

H5File::Pending::Pending() = default;
H5File::Pending::Pending(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
H5File::Pending::Pending(Pending&&) noexcept = default;

H5File::Pending& H5File::Pending::operator=(Pending&& o) noexcept {
  if (this != &o) {
    Pending gone(std::move(*this));  // waits for what this held
    impl_ = std::move(o.impl_);
  }
  return *this;
}

// Waits for the write; a failure nobody will hear of is kept for close() to report.
H5File::Pending::~Pending() {
  if (!impl_) return;
  detail::Background& bg = *impl_->bg;
  std::unique_lock<std::mutex> l(bg.mu);
  bg.done_cv.wait(l, [&] { return impl_->done; });
  if (!impl_->waited) {
    if (impl_->error && !bg.unreported) bg.unreported = impl_->error;
    detail::mark_waited(bg, *impl_);
  }
}

bool H5File::Pending::active() const {
  if (!impl_) return false;
  std::lock_guard<std::mutex> l(impl_->bg->mu);
  return !impl_->waited;
}

bool H5File::Pending::test() {
  if (!impl_) return false;
  std::lock_guard<std::mutex> l(impl_->bg->mu);
  return impl_->done;
}

void H5File::Pending::wait() {
  if (!impl_)
    throw Error(ErrorCode::InvalidState,
                "H5File::Pending::wait: no write in flight (never started, moved from, or already waited for)");
  std::shared_ptr<Impl> j = std::move(impl_);
  detail::Background& bg = *j->bg;
  std::exception_ptr err;
  bool discarded = false;
  {
    std::unique_lock<std::mutex> l(bg.mu);
    bg.done_cv.wait(l, [&] { return j->done; });
    detail::mark_waited(bg, *j);
    err = j->error;
    discarded = j->discarded;
  }
  if (err) std::rethrow_exception(err);
  if (discarded)
    throw Error(ErrorCode::InvalidState, "H5File::Pending::wait: " + j->what +
                                             " was written, but the H5File was destroyed before close() and the file "
                                             "discarded");
}

}  // namespace nbfft::io
