// nd::detail::Reshape (nd/reshape.hpp): one all-to-all between two block decompositions.
#include "local/move.hpp"
#include "nd/reshape.hpp"

#include "nbfft/error.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace nbfft::nd::detail {

namespace {

// The part of a that lies in b (n all zero when none).
Box intersect(const Box& a, const Box& b) {
  Box r;
  r.lo.resize(a.lo.size());
  r.n.resize(a.n.size());
  for (std::size_t i = 0; i < a.lo.size(); ++i) {
    r.lo[i] = std::max(a.lo[i], b.lo[i]);
    r.n[i] = std::max<std::int64_t>(0, std::min(a.lo[i] + a.n[i], b.lo[i] + b.n[i]) - r.lo[i]);
  }
  if (r.count() == 0) std::fill(r.n.begin(), r.n.end(), 0);
  return r;
}

// Element stride of axis `a` in a box's storage (its memory order).
std::int64_t stride_of(const Box& b, std::size_t a) {
  std::int64_t s = 1;
  const std::size_t d = b.n.size();
  for (std::size_t i = d; i-- > 0;) {
    const std::size_t ax = b.order.empty() ? i : static_cast<std::size_t>(b.order[i]);
    if (ax == a) return s;
    s *= b.n[ax];
  }
  return s;
}

// Calls f(offset in `in`'s storage, element stride, run length) for each run of `part`
// along its last axis, in C order of `part` (so a packed buffer is `part` in C order).
template <typename F>
void each_run(const Box& part, const Box& in, F&& f) {
  const std::size_t d = part.n.size();
  if (part.count() == 0) return;
  const std::int64_t stride = stride_of(in, d - 1), len = part.n[d - 1];
  std::vector<std::int64_t> g(part.lo);
  while (true) {
    f(in.index(g), stride, len);
    std::size_t i = d - 1;  // the next run: odometer over every axis but the last
    while (i-- > 0) {
      if (++g[i] < part.lo[i] + part.n[i]) break;
      g[i] = part.lo[i];
    }
    if (i == static_cast<std::size_t>(-1)) return;
  }
}

void copy_run(unsigned char* to, std::int64_t to_stride, const unsigned char* from, std::int64_t from_stride,
              std::int64_t len, std::size_t elem) {
  local::copy_strided(to, to_stride, from, from_stride, len, elem);
}

}  // namespace

std::string check_tiling(const std::vector<Box>& boxes, const std::vector<std::int64_t>& shape, const std::string& what) {
  const std::size_t d = shape.size();
  std::int64_t volume = 1, total = 0;
  for (auto s : shape) volume *= s;  // addressable: the plan checked its shapes first
  for (std::size_t r = 0; r < boxes.size(); ++r) {
    const Box& b = boxes[r];
    const std::string who = what + " of rank " + std::to_string(r);
    if (b.lo.size() != d || b.n.size() != d)
      return who + " has " + std::to_string(b.lo.size()) + " and " + std::to_string(b.n.size()) +
             " entries (lo and n) for a " + std::to_string(d) + "-D array";
    // Compared without adding lo and n (which a huge value would wrap); inside the array,
    // every count below is at most the array's.
    for (std::size_t a = 0; a < d; ++a)
      if (b.lo[a] < 0 || b.n[a] < 0 || b.lo[a] > shape[a] || b.n[a] > shape[a] - b.lo[a]) {
        std::int64_t end = 0;
        const std::string span = b.lo[a] >= 0 && b.n[a] >= 0 && !__builtin_add_overflow(b.lo[a], b.n[a], &end)
                                     ? "[" + std::to_string(b.lo[a]) + ", " + std::to_string(end) + ")"
                                     : "lo " + std::to_string(b.lo[a]) + " n " + std::to_string(b.n[a]);
        return who + " spans " + span + " along axis " + std::to_string(a) + ", outside the array's [0, " +
               std::to_string(shape[a]) + ")";
      }
    // Past the volume, boxes overlap (named below); stopping there keeps the sum from wrapping.
    if (total <= volume) total += b.count();
  }
  for (std::size_t r = 0; r < boxes.size(); ++r)
    for (std::size_t q = 0; q < r; ++q)
      if (intersect(boxes[r], boxes[q]).count() > 0)
        return what + " of ranks " + std::to_string(q) + " and " + std::to_string(r) + " overlap";
  if (total != volume)
    return what + "es of every rank hold " + std::to_string(total) + " points together, the array " +
           std::to_string(volume) + " (they must cover it: some points belong to no rank)";
  return "";
}

Reshape::Reshape(MPI_Comm comm, const std::vector<Box>& src, const std::vector<Box>& dst, std::size_t elem)
    : comm_(comm), elem_(elem) {
  check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
  const std::size_t P = src.size(), me = static_cast<std::size_t>(rank_);
  src_ = src[me];
  dst_ = dst[me];
  scount_.resize(P);
  sdispl_.resize(P);
  rcount_.resize(P);
  rdispl_.resize(P);
  std::int64_t s = 0, r = 0;
  for (std::size_t p = 0; p < P; ++p) {
    sends_.push_back(intersect(src_, dst[p]));
    recvs_.push_back(intersect(src[p], dst_));
    const std::int64_t sc = sends_.back().count(), rc = recvs_.back().count();
    if (s + sc > INT_MAX || r + rc > INT_MAX)
      throw Error("nd plan: a user-box reshape moves more than INT_MAX elements on one rank (MPI's counts)",
                  ErrorCode::InvalidArgument);
    scount_[p] = static_cast<int>(sc);
    sdispl_[p] = static_cast<int>(s);
    rcount_[p] = static_cast<int>(rc);
    rdispl_[p] = static_cast<int>(r);
    s += sc;
    r += rc;
  }
  sbytes_ = static_cast<std::size_t>(s) * elem;
  rbytes_ = static_cast<std::size_t>(r) * elem;
}

void Reshape::run(const void* from, void* to, unsigned char* scratch) const {
  const auto* in = static_cast<const unsigned char*>(from);
  auto* out = static_cast<unsigned char*>(to);
  unsigned char *sbuf = scratch, *rbuf = scratch + sbytes_;
  for (std::size_t p = 0; p < sends_.size(); ++p) {
    unsigned char* at = sbuf + static_cast<std::size_t>(sdispl_[p]) * elem_;
    each_run(sends_[p], src_, [&](std::int64_t off, std::int64_t stride, std::int64_t len) {
      copy_run(at, 1, in + static_cast<std::size_t>(off) * elem_, stride, len, elem_);
      at += static_cast<std::size_t>(len) * elem_;
    });
  }
  MPI_Datatype e = MPI_DATATYPE_NULL;
  check_mpi(MPI_Type_contiguous(static_cast<int>(elem_), MPI_BYTE, &e), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&e), "MPI_Type_commit");
  const int rc = MPI_Alltoallv(sbuf, scount_.data(), sdispl_.data(), e, rbuf, rcount_.data(),
                               rdispl_.data(), e, comm_);
  MPI_Type_free(&e);
  check_mpi(rc, "MPI_Alltoallv");
  for (std::size_t p = 0; p < recvs_.size(); ++p) {
    const unsigned char* at = rbuf + static_cast<std::size_t>(rdispl_[p]) * elem_;
    each_run(recvs_[p], dst_, [&](std::int64_t off, std::int64_t stride, std::int64_t len) {
      copy_run(out + static_cast<std::size_t>(off) * elem_, stride, at, 1, len, elem_);
      at += static_cast<std::size_t>(len) * elem_;
    });
  }
}

}  // namespace nbfft::nd::detail
