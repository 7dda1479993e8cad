// The trace recorder behind nbfft/coll/trace.hpp: events go into one mutex-guarded buffer
// per process (recording is rare next to the work it times: a few events per exchange or
// stage), serialized as Chrome trace-event JSON when written.
#include "nbfft/coll/trace.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/atomic_file.hpp"
#include "nbfft/error.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace nbfft::trace {

namespace detail {
std::atomic<bool> g_on{false};
}

namespace {

struct Event {
  char ph;  // 'X' complete, 'b'/'e' async
  int lane;
  std::string name;
  double ts, dur;
  const void* id;
};

struct Recorder {
  std::mutex mu;
  std::vector<Event> events;
  std::vector<std::string> lanes;
  std::string path;
  bool per_rank_at_exit = false;
  int rank = -1;

  int lane_id(const char* lane) {
    for (std::size_t i = 0; i < lanes.size(); ++i)
      if (lanes[i] == lane) return static_cast<int>(i);
    lanes.emplace_back(lane);
    return static_cast<int>(lanes.size() - 1);
  }
  void note_rank() {
    if (rank >= 0) return;
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
  void add(Event e, const char* lane) {
    std::lock_guard<std::mutex> lk(mu);
    note_rank();
    e.lane = lane_id(lane);
    events.push_back(std::move(e));
  }
};

Recorder& rec() {
  static Recorder* r = new Recorder;  // never destroyed: the exit handler still uses it
  return *r;
}

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) o += c;
  }
  return o;
}

// This rank's events as comma-separated JSON objects (no brackets).
std::string serialize(Recorder& r) {
  const int pid = r.rank < 0 ? 0 : r.rank;
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, R"({"ph":"M","pid":%d,"name":"process_name","args":{"name":"rank %d"}})", pid, pid);
  out += buf;
  for (std::size_t i = 0; i < r.lanes.size(); ++i) {
    std::snprintf(buf, sizeof buf, R"(,{"ph":"M","pid":%d,"tid":%zu,"name":"thread_name","args":{"name":"%s"}})", pid, i,
                  escape(r.lanes[i]).c_str());
    out += buf;
  }
  for (const Event& e : r.events) {
    if (e.ph == 'X')
      std::snprintf(buf, sizeof buf, R"(,{"ph":"X","pid":%d,"tid":%d,"ts":%.3f,"dur":%.3f,"name":")", pid, e.lane, e.ts, e.dur);
    else
      std::snprintf(buf, sizeof buf, R"(,{"ph":"%c","cat":"exchange","pid":%d,"tid":%d,"ts":%.3f,"id":"%d:%p","name":")", e.ph,
                    pid, e.lane, e.ts, pid, e.id);
    out += buf;
    out += escape(e.name);
    out += "\"}";
  }
  return out;
}

// Writes the trace file (atomically: a failed write leaves an older one intact); "" or why
// it could not be written.
std::string write_file(const std::string& path, const std::string& body) {
  try {
    write_file_atomic(path, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[" + body + "]}\n", false);
  } catch (const Error& e) {
    return "trace: " + e.message();
  }
  return "";
}

std::string rank_path(const std::string& path, int rank) {
  const std::string r = std::to_string(rank < 0 ? 0 : rank);
  const auto p = path.find("%r");
  if (p != std::string::npos) return path.substr(0, p) + r + path.substr(p + 2);
  const auto dot = path.rfind('.');
  const auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + "." + r;
  return path.substr(0, dot) + "." + r + path.substr(dot);
}

void write_at_exit() {
  Recorder& r = rec();
  std::lock_guard<std::mutex> lk(r.mu);
  if (!r.per_rank_at_exit || !detail::g_on.load()) return;
  detail::g_on.store(false);
  const std::string p = rank_path(r.path, r.rank);
  const std::string error = write_file(p, serialize(r));
  if (!error.empty()) std::fprintf(stderr, "nbfft: NBFFT_TRACE: %s\n", error.c_str());  // at exit: nobody to throw to
}

// NBFFT_TRACE=FILE turns tracing on before main().
const bool g_from_env = [] {
  const char* p = std::getenv("NBFFT_TRACE");
  if (!p || !*p) return false;
  rec().path = p;
  rec().per_rank_at_exit = true;
  std::atexit(write_at_exit);
  detail::g_on.store(true);
  return true;
}();

}  // namespace

double now_us() noexcept {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void complete(const char* lane, const std::string& name, double t0, double t1) {
  if (!enabled()) return;
  rec().add({'X', 0, name, t0, t1 - t0, nullptr}, lane);
}

void async_begin(const char* lane, const std::string& name, const void* id) {
  if (!enabled()) return;
  rec().add({'b', 0, name, now_us(), 0, id}, lane);
}

void async_end(const char* lane, const std::string& name, const void* id) {
  if (!enabled()) return;
  rec().add({'e', 0, name, now_us(), 0, id}, lane);
}

void start(const std::string& path) {
  Recorder& r = rec();
  std::lock_guard<std::mutex> lk(r.mu);
  r.path = path;
  r.per_rank_at_exit = false;
  r.events.clear();
  r.note_rank();
  detail::g_on.store(true);
}

long stop(MPI_Comm comm) {
  Recorder& r = rec();
  std::string mine;
  std::string path;
  {
    std::lock_guard<std::mutex> lk(r.mu);
    detail::g_on.store(false);
    r.note_rank();
    mine = serialize(r);
    path = r.path;
    r.events.clear();
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  std::string all;
  if (rank == 0) {
    long total = 0;
    for (int i = 0; i < size; ++i) displs[i] = static_cast<int>(total), total += counts[i];
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0, comm);
  std::string error;
  long events = 0;
  if (rank == 0) {
    std::string body;
    for (int i = 0; i < size; ++i) {
      if (!body.empty()) body += ',';
      body.append(all, static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(counts[i]));
    }
    for (std::size_t p = body.find("\"ph\""); p != std::string::npos; p = body.find("\"ph\"", p + 1)) ++events;
    error = write_file(path, body);
  }
  agree_message(comm, error, ErrorCode::Io);  // a trace that was not written fails every rank
  return events;
}

}  // namespace nbfft::trace
