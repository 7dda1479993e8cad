// Collective and Request: a built schedule, and one started instance of it.
//
//   Collective c = coll::alltoall(comm, send, recv, n, sizeof(double), {"pairwise", 4});
//   Request r = c.start();   // posts; returns at once
//   ... compute, maybe r.test() or coll::progress_all() ...
//   r.wait();                // completes and frees r
//
// A Collective may be started again once its previous start has completed. A Request is
// move-only; after test() returned true or wait() returned it is freed, and using it again
// is an error (as is using one that was never started).
#pragma once

#include "nbfft/coll/comm.hpp"
#include "nbfft/coll/schedule.hpp"

#include <memory>
#include <string>
#include <vector>

namespace nbfft::coll {

class Request {
 public:
  Request() = default;
  Request(Request&&) noexcept = default;
  Request& operator=(Request&&) noexcept = default;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  bool test();  // true when complete (the request is then freed)
  void wait();
  bool active() const { return static_cast<bool>(state_); }
  static void wait_all(std::vector<Request>& requests);

 private:
  friend class Collective;
  Request(std::shared_ptr<RequestState> state, std::shared_ptr<Engine> engine);
  void check_usable(const char* what) const;
  void finish();
  std::shared_ptr<RequestState> state_;
  std::shared_ptr<Engine> engine_;
  bool freed_ = false;
};

// Copies share one built schedule. Destroying the last copy while a start is still active
// first completes that start (progressing it if the engine is host-driven). Like MPI
// objects with collective free (windows), collectives should be destroyed in the same
// order on every rank.
class Collective {
 public:
  Collective() = default;
  Collective(Comm comm, std::shared_ptr<const Schedule> schedule);

  Request start() const;
  const std::string& description() const;
  const Comm& comm() const;
  const Schedule& schedule() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace nbfft::coll
