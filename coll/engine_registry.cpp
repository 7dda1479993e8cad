// The registry of progress engines and the process-wide instance of each.
#include "coll/caller_engine.hpp"
#include "nbfft/error.hpp"
#include "coll/thread_engine.hpp"

#include <array>
#include <mutex>
#include <thread>

namespace nbfft::coll {

const std::vector<EngineInfo>& engines() {
  static const std::vector<EngineInfo> table = {
      {EngineKind::Caller, "caller", "progress only inside test/wait/progress calls (test-driven, as libNBC)", false},
      {EngineKind::Thread, "thread",
       "a dedicated agent thread runs posted schedules while the host computes (software NIC offload)", true},
      {EngineKind::Native, "native", "nbfft's progress hook is a no-op: between start and test/wait only the MPI library's own progress", false},
  };
  return table;
}

EngineKind parse_engine(std::string_view name) {
  std::string known;
  for (const auto& e : engines()) {
    if (name == e.name) return e.kind;
    known += known.empty() ? "" : ", ";
    known += e.name;
  }
  throw Error("unknown progress engine '" + std::string(name) + "' (known: " + known + ")");
}

const char* engine_name(EngineKind kind) {
  for (const auto& e : engines())
    if (e.kind == kind) return e.name;
  return "?";
}

namespace {
std::mutex g_mu;
std::array<std::weak_ptr<Engine>, 3> g_engines;
}  // namespace

std::shared_ptr<Engine> Engine::get(EngineKind kind) {
  std::lock_guard<std::mutex> lk(g_mu);
  auto& slot = g_engines[static_cast<std::size_t>(kind)];
  if (auto e = slot.lock()) return e;
  std::shared_ptr<Engine> e;
  if (kind == EngineKind::Thread)
    e = std::make_shared<ThreadEngine>();
  else
    e = std::make_shared<HostEngine>(kind);
  slot = e;
  return e;
}

namespace {
std::array<std::shared_ptr<Engine>, 3> live_engines() {
  std::array<std::shared_ptr<Engine>, 3> live;
  std::lock_guard<std::mutex> lk(g_mu);
  for (std::size_t i = 0; i < live.size(); ++i) live[i] = g_engines[i].lock();
  return live;
}
}  // namespace

void progress_all() {
  for (auto& e : live_engines())
    if (e) e->progress();
}

bool settle_all() {
  bool settled = true;
  for (auto& e : live_engines())
    if (e) settled = e->settle() && settled;
  return settled;
}

void quiesce_all() {
  while (!settle_all()) std::this_thread::yield();
}

}  // namespace nbfft::coll
