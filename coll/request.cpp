#include "coll/request.hpp"

#include "coll/error.hpp"

namespace nbfft::coll {

Request::Request(std::shared_ptr<RequestState> state, std::shared_ptr<Engine> engine)
    : state_(std::move(state)), engine_(std::move(engine)) {}

void Request::check_usable(const char* what) const {
  if (freed_)
    throw Error(std::string("Request::") + what +
                ": request used after it was freed (it already completed in an earlier test or wait)");
  if (!state_) throw Error(std::string("Request::") + what + ": request was never started (use Collective::start)");
}

void Request::finish() {
  std::shared_ptr<RequestState> st = std::move(state_);
  engine_.reset();
  freed_ = true;
  if (st->error) std::rethrow_exception(st->error);
}

bool Request::test() {
  check_usable("test");
  if (!engine_->test(*state_)) return false;
  finish();
  return true;
}

void Request::wait() {
  check_usable("wait");
  engine_->wait(*state_);
  finish();
}

void Request::wait_all(std::vector<Request>& requests) {
  for (auto& r : requests) r.check_usable("wait_all");
  for (auto& r : requests) r.wait();
}

Collective::Collective(Comm comm, std::shared_ptr<const Schedule> schedule)
    : comm_(std::move(comm)), sched_(std::move(schedule)), busy_(std::make_shared<std::atomic<bool>>(false)) {}

const std::string& Collective::description() const {
  static const std::string none = "(empty collective)";
  return sched_ ? sched_->description : none;
}

Request Collective::start() const {
  if (!sched_) throw Error("Collective::start: the collective was never built");
  if (busy_->exchange(true, std::memory_order_acq_rel))
    throw Error("Collective::start: '" + sched_->description +
                "' started again while its previous start is still active; wait for that request first");
  auto st = std::make_shared<RequestState>();
  st->sched = sched_;
  st->comm = comm_.mpi();
  st->tag = comm_.next_tag();  // reserved even for an empty schedule, so every rank stays in step
  st->collective_busy = busy_;
  const auto& engine = comm_.engine();
  engine->post(st);
  return Request(std::move(st), engine);
}

}  // namespace nbfft::coll
