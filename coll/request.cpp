#include "nbfft/coll/request.hpp"

#include "nbfft/coll/trace.hpp"
#include "nbfft/error.hpp"

#include <thread>

namespace nbfft::coll {

Request::Request(std::shared_ptr<RequestState> state, std::shared_ptr<Engine> engine)
    : state_(std::move(state)), engine_(std::move(engine)) {}

void Request::check_usable(const char* what) const {
  if (freed_)
    throw Error(std::string("Request::") + what +
                ": request used after it was freed (it already completed in an earlier test or wait)",
                ErrorCode::InvalidState);
  if (!state_) throw Error(std::string("Request::") + what + ": request was never started (use Collective::start)",
                                ErrorCode::InvalidState);
}

void Request::finish() {
  std::shared_ptr<RequestState> st = std::move(state_);
  engine_.reset();
  freed_ = true;
  if (st->error) std::rethrow_exception(st->error);
}

bool Request::test() {
  check_usable("test");
  const double t0 = trace::enabled() ? trace::now_us() : -1;
  const bool done = engine_->test(*state_);
  if (t0 >= 0) trace::complete("host", "test", t0, trace::now_us());
  if (!done) return false;
  if (t0 >= 0) trace::async_end("exchanges", state_->sched->description, state_.get());
  finish();
  return true;
}

void Request::wait() {
  check_usable("wait");
  const double t0 = trace::enabled() ? trace::now_us() : -1;
  engine_->wait(*state_);
  if (t0 >= 0) trace::complete("host", "wait", t0, trace::now_us()), trace::async_end("exchanges", state_->sched->description, state_.get());
  finish();
}

void Request::wait_all(std::vector<Request>& requests) {
  for (auto& r : requests) r.check_usable("wait_all");
  for (auto& r : requests) r.wait();
}

struct Collective::Impl {
  Comm comm;
  std::shared_ptr<const Schedule> sched;
  std::shared_ptr<std::atomic<bool>> busy = std::make_shared<std::atomic<bool>>(false);
  ~Impl() {
    while (busy->load(std::memory_order_acquire)) {
      quiesce_all();
      std::this_thread::yield();
    }
  }
};

Collective::Collective(Comm comm, std::shared_ptr<const Schedule> schedule) : impl_(std::make_shared<Impl>()) {
  impl_->comm = std::move(comm);
  impl_->sched = std::move(schedule);
}

const std::string& Collective::description() const {
  static const std::string none = "(empty collective)";
  return impl_ ? impl_->sched->description : none;
}

const Comm& Collective::comm() const {
  if (!impl_) throw Error("Collective::comm: the collective was never built", ErrorCode::InvalidState);
  return impl_->comm;
}

const Schedule& Collective::schedule() const {
  if (!impl_) throw Error("Collective::schedule: the collective was never built", ErrorCode::InvalidState);
  return *impl_->sched;
}

Request Collective::start() const {
  if (!impl_) throw Error("Collective::start: the collective was never built", ErrorCode::InvalidState);
  if (impl_->busy->exchange(true, std::memory_order_acq_rel))
    throw Error("Collective::start: '" + impl_->sched->description +
                "' started again while its previous start is still active; wait for that request first",
                ErrorCode::InvalidState);
  auto st = std::make_shared<RequestState>();
  st->sched = impl_->sched.get();
  st->comm = impl_->comm.mpi();
  st->tag = impl_->comm.next_tag();  // reserved even for an empty schedule, so every rank stays in step
  st->collective_busy = impl_->busy;
  const auto& engine = impl_->comm.engine();
  const double t0 = trace::enabled() ? trace::now_us() : -1;
  if (t0 >= 0) trace::async_begin("exchanges", impl_->sched->description, st.get());
  engine->post(st);
  if (t0 >= 0) trace::complete("host", "start", t0, trace::now_us());
  return Request(std::move(st), engine);
}

}  // namespace nbfft::coll
