#include "nbfft/coll/primitives.hpp"

#include "nbfft/error.hpp"

#include <climits>

namespace nbfft::coll {

namespace {

// Binomial tree over ranks relative to `root`: parent and children (largest subtree first).
struct TreeNode {
  int parent = -1;
  std::vector<int> children;
};

TreeNode binomial(int rank, int size, int root) {
  TreeNode t;
  const int vr = (rank - root + size) % size;
  int mask = 1;
  while (mask < size && !(vr & mask)) mask <<= 1;
  if (vr != 0) t.parent = ((vr & ~mask) + root) % size;
  for (int m = mask >> 1; m > 0; m >>= 1)
    if (vr + m < size) t.children.push_back((vr + m + root) % size);
  if (vr == 0) {
    t.children.clear();
    int top = 1;
    while (top < size) top <<= 1;
    for (int m = top >> 1; m > 0; m >>= 1)
      if (m < size) t.children.push_back((m + root) % size);
  }
  return t;
}

std::size_t bytes_of(const char* fn, std::int64_t count, std::size_t elem) {
  if (count < 0) throw Error(std::string(fn) + ": count is negative (" + std::to_string(count) + ")");
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(count), elem, &bytes))
    throw Error(std::string(fn) + ": count " + std::to_string(count) + " overflows the address space", ErrorCode::OutOfMemory);
  return bytes;
}

}  // namespace

Collective bcast(const Comm& comm, void* buf, std::int64_t count, std::size_t elem_size, int root) {
  const std::size_t bytes = bytes_of("bcast", count, elem_size);
  if (!buf && bytes) throw Error("bcast: buffer is null but count is " + std::to_string(count));
  if (root < 0 || root >= comm.size())
    throw Error("bcast: root " + std::to_string(root) + " is not a rank of a " + std::to_string(comm.size()) +
                "-rank communicator");
  ScheduleBuilder b(comm);
  TreeNode t = binomial(b.rank(), b.size(), root);
  if (t.parent < 0)
    b.multi_send(buf, bytes, t.children);
  else
    b.recv_replicate(buf, bytes, t.parent, t.children);
  return Collective(comm, b.build("bcast binomial, root " + std::to_string(root) + ", " + std::to_string(bytes) + " B"));
}

Collective barrier(const Comm& comm) {
  ScheduleBuilder b(comm);
  const int P = b.size(), me = b.rank();
  char* token = static_cast<char*>(b.scratch(2));
  for (int k = 1; k < P; k <<= 1) {
    b.multi_send(token, 1, {(me + k) % P});
    b.multi_recv({token + 1}, 1, {(me - k + P) % P});
    b.next_round();
  }
  return Collective(comm, b.build("barrier dissemination"));
}

Collective allreduce(const Comm& comm, const void* sendbuf, void* recvbuf, std::int64_t count, MPI_Datatype type,
                     MPI_Op op) {
  int tsize = 0;
  check_mpi(MPI_Type_size(type, &tsize), "MPI_Type_size");
  const std::size_t bytes = bytes_of("allreduce", count, static_cast<std::size_t>(tsize));
  if (count > INT_MAX) throw Error("allreduce: count " + std::to_string(count) + " exceeds INT_MAX (MPI_Reduce_local takes an int count)",
                                   ErrorCode::Unavailable);
  if (bytes && (!sendbuf || !recvbuf)) throw Error("allreduce: a buffer is null but count is " + std::to_string(count));
  ScheduleBuilder b(comm);
  TreeNode t = binomial(b.rank(), b.size(), 0);
  b.copy(recvbuf, sendbuf, bytes);
  b.recv_reduce(recvbuf, static_cast<int>(count), type, op, t.children);  // leaves us in round 1
  if (t.parent < 0) {
    b.multi_send(recvbuf, bytes, t.children);
  } else {
    b.send(t.parent, recvbuf, bytes);
    b.next_round();
    b.recv_replicate(recvbuf, bytes, t.parent, t.children);
  }
  return Collective(comm, b.build("allreduce binomial reduce + bcast, " + std::to_string(bytes) + " B"));
}

}  // namespace nbfft::coll
