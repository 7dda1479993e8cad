#include "fft/col_kernels.hpp"

#include "nbfft/error.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>
#include <string>

namespace nbfft::fft {

namespace {

int to_int(std::int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw Error(std::string("COL kernel: ") + what + " of " + std::to_string(v) +
                " elements exceeds MPI's int range (use the transport kernel for this grid)");
  return static_cast<int>(v);
}

std::vector<int> ints(const std::vector<std::int64_t>& v, const char* what) {
  std::vector<int> r(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) r[k] = to_int(v[k], what);
  return r;
}

}  // namespace

KernelExchange::KernelExchange(ColKernel kind, std::shared_ptr<MPI_Comm> comm, std::size_t elem,
                               std::vector<ExchangeCounts> forward_chunks,
                               std::vector<ExchangeCounts> backward_chunks)
    : kind_(kind), comm_(std::move(comm)), elem_(elem) {
  chunks_[0] = std::move(forward_chunks);
  chunks_[1] = std::move(backward_chunks);
  check_mpi(MPI_Comm_rank(*comm_, &me_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(*comm_, &size_), "MPI_Comm_size");
  check_mpi(MPI_Type_contiguous(to_int(static_cast<std::int64_t>(elem), "element size"), MPI_BYTE, &type_),
            "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  if (kind_ == ColKernel::Replace) {
    // Both ends of a MPI_Sendrecv_replace use one count: the largest block of the chunk.
    std::vector<std::int64_t> mine;
    for (int dir = 0; dir < 2; ++dir)
      for (const auto& e : chunks_[dir]) {
        std::int64_t m = 0;
        for (int p = 0; p < size_; ++p) m = std::max({m, e.send_counts[p], e.recv_counts[p]});
        mine.push_back(m);
      }
    std::vector<std::int64_t> all(mine.size());
    check_mpi(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX, *comm_),
              "MPI_Allreduce");
    padded_[0].assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(chunks_[0].size()));
    padded_[1].assign(all.begin() + static_cast<std::ptrdiff_t>(chunks_[0].size()), all.end());
    std::int64_t most = 0;
    for (auto v : all) most = std::max(most, v);
    to_int(most, "a padded block");
    staging_.resize(static_cast<std::size_t>(most) * elem_ + 1);
  }
}

KernelExchange::~KernelExchange() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (!pending_.empty()) MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
  if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
}

void KernelExchange::wait_pending() {
  if (pending_.empty()) return;
  check_mpi(MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  pending_.clear();
}

void KernelExchange::chunk(int dir, std::size_t k, const void* send, void* recv, Timings* t) {
  const ExchangeCounts& e = chunks_[dir][k];
  const char* s = static_cast<const char*>(send);
  char* r = static_cast<char*>(recv);
  const int tag = static_cast<int>(k % 32768);
  MPI_Comm comm = *comm_;
  PhaseClock clk(t);
  switch (kind_) {
    case ColKernel::Replace: {
      const std::int64_t n = padded_[dir][k];
      if (n == 0) return;
      char* slot = staging_.data();
      for (int step = 1; step < size_; ++step) {
        const int dest = (me_ + step) % size_, src = (me_ - step + size_) % size_;
        std::memcpy(slot, s + e.send_displs[dest] * elem_, static_cast<std::size_t>(e.send_counts[dest]) * elem_);
        clk.mark(&Timings::pack);
        check_mpi(MPI_Sendrecv_replace(slot, static_cast<int>(n), type_, dest, tag, src, tag, comm, MPI_STATUS_IGNORE),
                  "MPI_Sendrecv_replace");
        clk.mark(&Timings::col);
        std::memcpy(r + e.recv_displs[src] * elem_, slot, static_cast<std::size_t>(e.recv_counts[src]) * elem_);
        clk.mark(&Timings::unpack);
      }
      return;
    }
    case ColKernel::Standard: {
      for (int step = 1; step < size_; ++step) {
        const int dest = (me_ + step) % size_, src = (me_ - step + size_) % size_;
        const int sc = to_int(e.send_counts[dest], "a block"), rc = to_int(e.recv_counts[src], "a block");
        // The lowest rank of each cycle of the shift by `step` receives first.
        const bool recv_first = me_ < std::gcd(step, size_);
        auto do_send = [&] {
          if (sc) check_mpi(MPI_Send(s + e.send_displs[dest] * elem_, sc, type_, dest, tag, comm), "MPI_Send");
        };
        auto do_recv = [&] {
          if (rc)
            check_mpi(MPI_Recv(r + e.recv_displs[src] * elem_, rc, type_, src, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        };
        if (recv_first) {
          do_recv();
          do_send();
        } else {
          do_send();
          do_recv();
        }
      }
      clk.mark(&Timings::col);
      return;
    }
    case ColKernel::Overlap: {
      std::vector<MPI_Request> reqs;
      reqs.reserve(2 * static_cast<std::size_t>(size_));
      for (int p = 0; p < size_; ++p) {
        if (p == me_ || e.recv_counts[p] == 0) continue;
        reqs.emplace_back();
        check_mpi(MPI_Irecv(r + e.recv_displs[p] * elem_, to_int(e.recv_counts[p], "a block"), type_, p, tag, comm,
                            &reqs.back()),
                  "MPI_Irecv");
      }
      for (int step = 1; step < size_; ++step) {
        const int p = (me_ + step) % size_;
        if (e.send_counts[p] == 0) continue;
        reqs.emplace_back();
        check_mpi(MPI_Isend(s + e.send_displs[p] * elem_, to_int(e.send_counts[p], "a block"), type_, p, tag, comm,
                            &reqs.back()),
                  "MPI_Isend");
      }
      wait_pending();  // the previous chunk's, which had the compute of this one to travel
      pending_ = std::move(reqs);
      clk.mark(&Timings::col);
      return;
    }
    case ColKernel::Oneplane:
      bulk(e, send, recv, nullptr);
      clk.mark(&Timings::col);
      return;
    case ColKernel::Allplanes:
    case ColKernel::Transport:
      throw Error("COL kernel: chunk() called for a kernel that does not exchange per plane");
  }
}

void KernelExchange::bulk(const ExchangeCounts& e, const void* send, void* recv, Timings* t) {
  PhaseClock clk(t);
  const auto sc = ints(e.send_counts, "a block"), sd = ints(e.send_displs, "a displacement");
  const auto rc = ints(e.recv_counts, "a block"), rd = ints(e.recv_displs, "a displacement");
  // MPI wants valid buffer pointers even for zero counts.
  check_mpi(MPI_Alltoallv(send, sc.data(), sd.data(), type_, recv, rc.data(), rd.data(), type_, *comm_),
            "MPI_Alltoallv");
  clk.mark(&Timings::col);
}

void KernelExchange::finish(Timings* t) {
  PhaseClock clk(t);
  wait_pending();
  clk.mark(&Timings::col);
}

}  // namespace nbfft::fft
