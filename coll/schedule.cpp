#include "nbfft/coll/schedule.hpp"

#include "nbfft/coll/comm.hpp"
#include "nbfft/error.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace nbfft::coll {

namespace {
// Point-to-point messages are split at 1 GiB so byte counts past INT_MAX still work
// with MPI_BYTE and an int count.
constexpr std::size_t kMaxMessage = std::size_t{1} << 30;
}  // namespace

std::size_t Schedule::max_requests_per_round() const {
  std::size_t most = 0;
  for (const auto& r : rounds) {
    std::size_t n = 0;
    for (const auto& op : r.ops) n += op.is_local() ? 0 : 1;
    most = std::max(most, n);
  }
  return most;
}

ScheduleBuilder::ScheduleBuilder(const Comm& comm) : sched_(std::make_shared<Schedule>()) {
  rank_ = comm.rank();
  size_ = comm.size();
  sched_->rounds.emplace_back();
}

Round& ScheduleBuilder::current() { return sched_->rounds.back(); }

ScheduleBuilder& ScheduleBuilder::next_round() {
  sched_->rounds.emplace_back();
  return *this;
}

void ScheduleBuilder::send(int peer, const void* buf, std::size_t bytes) {
  const char* p = static_cast<const char*>(buf);
  // off == 0 always posts: a zero-byte message keeps a mismatch of counts detectable.
  for (std::size_t off = 0; off < bytes || off == 0; off += kMaxMessage) {
    Op op(Op::Kind::Send);
    op.peer = peer;
    op.src = p + off;
    op.bytes = std::min(kMaxMessage, bytes - off);
    current().ops.push_back(std::move(op));
  }
}

void ScheduleBuilder::recv(int peer, void* buf, std::size_t bytes) {
  char* p = static_cast<char*>(buf);
  for (std::size_t off = 0; off < bytes || off == 0; off += kMaxMessage) {
    Op op(Op::Kind::Recv);
    op.peer = peer;
    op.dst = p + off;
    op.bytes = std::min(kMaxMessage, bytes - off);
    current().ops.push_back(std::move(op));
  }
}

void ScheduleBuilder::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0 || dst == src) return;
  Op op(Op::Kind::Copy);
  op.dst = dst;
  op.src = src;
  op.bytes = bytes;
  current().ops.push_back(std::move(op));
}

void ScheduleBuilder::reduce(void* inout, const void* in, int count, MPI_Datatype type, MPI_Op mop) {
  if (count == 0) return;
  Op op(Op::Kind::Reduce);
  op.dst = inout;
  op.src = in;
  op.count = count;
  op.type = type;
  op.op = mop;
  current().ops.push_back(std::move(op));
}

void ScheduleBuilder::request(std::function<int(MPI_Request*)> post) {
  Op op(Op::Kind::Request);
  op.post = std::move(post);
  current().ops.push_back(std::move(op));
}

void ScheduleBuilder::action(std::function<void()> run) {
  Op op(Op::Kind::Action);
  op.run = std::move(run);
  current().ops.push_back(std::move(op));
}

void ScheduleBuilder::mark_blocks_on_peers() { sched_->blocks_on_peers = true; }

void* ScheduleBuilder::scratch(std::size_t bytes) {
  std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw Error("out of memory allocating " + std::to_string(bytes) + " bytes of schedule scratch", ErrorCode::OutOfMemory);
  std::memset(p, 0, rounded);
  keep(std::shared_ptr<void>(p, std::free));
  return p;
}

void ScheduleBuilder::keep(std::shared_ptr<void> resource) { sched_->resources.push_back(std::move(resource)); }

void ScheduleBuilder::multi_send(const void* buf, std::size_t bytes, const std::vector<int>& peers) {
  for (int p : peers) send(p, buf, bytes);
}

void ScheduleBuilder::multi_recv(const std::vector<void*>& bufs, std::size_t bytes, const std::vector<int>& peers) {
  if (bufs.size() != peers.size()) throw Error("multi_recv: one buffer per peer is needed");
  for (std::size_t i = 0; i < peers.size(); ++i) recv(peers[i], bufs[i], bytes);
}

void ScheduleBuilder::recv_reduce(void* acc, int count, MPI_Datatype type, MPI_Op op, const std::vector<int>& peers) {
  int type_size = 0;
  check_mpi(MPI_Type_size(type, &type_size), "MPI_Type_size");
  const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(type_size);
  std::vector<void*> tmp;
  for (std::size_t i = 0; i < peers.size(); ++i) tmp.push_back(scratch(bytes));
  multi_recv(tmp, bytes, peers);
  next_round();
  for (void* t : tmp) reduce(acc, t, count, type, op);
}

void ScheduleBuilder::recv_replicate(void* buf, std::size_t bytes, int from, const std::vector<int>& to) {
  recv(from, buf, bytes);
  next_round();
  multi_send(buf, bytes, to);
}

std::shared_ptr<const Schedule> ScheduleBuilder::build(std::string description) {
  // Trailing empty rounds cost a pass of the engine for nothing.
  while (sched_->rounds.size() > 1 && sched_->rounds.back().ops.empty()) sched_->rounds.pop_back();
  sched_->description = std::move(description);
  std::shared_ptr<const Schedule> out = std::move(sched_);
  sched_ = std::make_shared<Schedule>();
  sched_->rounds.emplace_back();
  return out;
}

}  // namespace nbfft::coll
