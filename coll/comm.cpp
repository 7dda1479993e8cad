#include "nbfft/coll/comm.hpp"

#include "nbfft/error.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace nbfft::coll {

namespace {
bool mpi_alive() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

void free_comm(MPI_Comm* c) {
  if (*c != MPI_COMM_NULL && mpi_alive()) MPI_Comm_free(c);
}
}  // namespace

struct Comm::Impl {
  MPI_Comm dup = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  int tag_limit = 32767;  // the MPI standard's guaranteed minimum of MPI_TAG_UB
  EngineKind kind = EngineKind::Caller;
  std::shared_ptr<Engine> engine;
  mutable std::atomic<std::uint64_t> seq{0};
  mutable MPI_Win window = MPI_WIN_NULL;
  mutable MPI_Comm window_comm = MPI_COMM_NULL;
  ~Impl() {
    if (window != MPI_WIN_NULL && mpi_alive()) {
      MPI_Win_unlock_all(window);
      MPI_Win_free(&window);
    }
    free_comm(&window_comm);
    free_comm(&dup);
  }
};

Comm::Comm(MPI_Comm user, EngineKind engine) : impl_(std::make_shared<Impl>()) {
  check_mpi_running("nbfft communicator");
  if (user == MPI_COMM_NULL) throw Error("the communicator is MPI_COMM_NULL");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(user, &inter), "MPI_Comm_test_inter");
  if (inter) throw Error("intercommunicators are not supported; pass an intracommunicator");
  impl_->kind = engine;
  impl_->engine = Engine::get(engine);  // fails early, on every rank alike, if the engine cannot run
  check_mpi(MPI_Comm_dup(user, &impl_->dup), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(impl_->dup, MPI_ERRORS_RETURN);
  MPI_Comm_rank(impl_->dup, &impl_->rank);
  MPI_Comm_size(impl_->dup, &impl_->size);
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(impl_->dup, MPI_TAG_UB, &ub, &flag);
  if (flag && ub) impl_->tag_limit = std::min(*ub, 1 << 30);
}

const Comm::Impl& Comm::impl() const {
  if (!impl_) throw Error("the nbfft communicator was never initialized (default-constructed Comm)",
                           ErrorCode::InvalidState);
  return *impl_;
}

int Comm::rank() const { return impl().rank; }
int Comm::size() const { return impl().size; }
MPI_Comm Comm::mpi() const { return impl().dup; }
EngineKind Comm::engine_kind() const { return impl().kind; }
const std::shared_ptr<Engine>& Comm::engine() const { return impl().engine; }
void Comm::progress() const { impl().engine->progress(); }

int Comm::next_tag() const {
  const Impl& i = impl();
  // Tags cycle through [1, tag_limit); a wrap needs ~2^30 starts in flight at once to collide.
  return 1 + static_cast<int>(i.seq.fetch_add(1, std::memory_order_relaxed) % static_cast<std::uint64_t>(i.tag_limit - 1));
}

std::shared_ptr<MPI_Comm> Comm::private_duplicate() const {
  auto c = std::shared_ptr<MPI_Comm>(new MPI_Comm(MPI_COMM_NULL), [](MPI_Comm* p) {
    free_comm(p);
    delete p;
  });
  quiesce_all();  // MPI_Comm_dup blocks until every rank joins
  check_mpi(MPI_Comm_dup(impl().dup, c.get()), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(*c, MPI_ERRORS_RETURN);
  return c;
}

MPI_Win Comm::rma_window() const {
  const Impl& i = impl();
  if (i.window == MPI_WIN_NULL) {
    quiesce_all();  // both calls below block until every rank joins
    check_mpi(MPI_Comm_dup(i.dup, &i.window_comm), "MPI_Comm_dup");
    if (MPI_Win_create_dynamic(MPI_INFO_NULL, i.window_comm, &i.window) != MPI_SUCCESS)
      throw Error("this MPI cannot create an RMA window here (Open MPI 4.1, for one, has no one-sided "
                  "component for TCP under MPI_THREAD_MULTIPLE); use an algorithm other than rma",
                  ErrorCode::Unavailable);
    MPI_Win_set_errhandler(i.window, MPI_ERRORS_RETURN);
    check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, i.window), "MPI_Win_lock_all");
  }
  return i.window;
}

}  // namespace nbfft::coll
