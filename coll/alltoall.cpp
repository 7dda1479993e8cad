// Argument checking and dispatch for alltoall / alltoallv: every algorithm receives
// validated byte counts, so none of them re-checks.
#include "nbfft/coll/alltoall.hpp"

#include "coll/alltoall_algorithms.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"

#include <algorithm>
#include <exception>
#include <charconv>
#include <cstdint>

namespace nbfft::coll {

AlgorithmSpec AlgorithmSpec::parse(std::string_view text) {
  AlgorithmSpec spec;
  auto colon = text.find(':');
  spec.name = std::string(text.substr(0, colon));
  const AlgorithmInfo& info = find_alltoall_algorithm(spec.name);
  if (colon != std::string_view::npos) {
    std::string_view w = text.substr(colon + 1);
    int value = 0;
    auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), value);
    if (ec != std::errc() || end != w.data() + w.size())
      throw Error("algorithm '" + std::string(text) + "': window '" + std::string(w) + "' is not an integer");
    if (!info.takes_window)
      throw Error("algorithm '" + spec.name + "' takes no window (only pairwise does)");
    if (value < 1) throw Error("algorithm '" + std::string(text) + "': window must be >= 1, got " + std::to_string(value));
    spec.window = value;
  }
  return spec;
}

std::string AlgorithmSpec::str() const {
  const AlgorithmInfo& info = find_alltoall_algorithm(name);
  return info.takes_window ? name + ":" + std::to_string(window) : name;
}

std::size_t AlltoallvArgs::recv_extent() const {
  std::size_t end = 0;
  for (std::size_t i = 0; i < recvbytes.size(); ++i)
    if (recvbytes[i]) end = std::max(end, recvoffs[i] + recvbytes[i]);
  return end;
}

namespace {

std::size_t checked_bytes(const char* fn, const char* array, std::size_t i, std::int64_t value, std::size_t elem) {
  if (value < 0)
    throw Error(std::string(fn) + ": " + array + "[" + std::to_string(i) + "] is negative (" + std::to_string(value) + ")");
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(value), elem, &bytes))
    throw Error(std::string(fn) + ": " + array + "[" + std::to_string(i) + "] = " + std::to_string(value) +
                " elements of " + std::to_string(elem) + " bytes overflows the address space",
                ErrorCode::OutOfMemory);
  return bytes;
}

void check_side(const char* fn, const char* side, const void* buf, const std::vector<std::size_t>& bytes,
                const std::vector<std::size_t>& offs) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::size_t end = 0;
    if (__builtin_add_overflow(offs[i], bytes[i], &end) || __builtin_add_overflow(total, bytes[i], &total))
      throw Error(std::string(fn) + ": " + side + " block " + std::to_string(i) + " overflows the address space",
                  ErrorCode::OutOfMemory);
  }
  if (!buf && total > 0)
    throw Error(std::string(fn) + ": " + side + "buf is null but " + std::to_string(total) + " bytes are to be " +
                (side[0] == 's' ? "sent" : "received"));
}

// MPI forbids a send buffer that aliases the receive buffer: the exchange would read data
// it already overwrote. Sorted intervals, two pointers: O(P log P).
void check_no_overlap(const char* fn, const AlltoallvArgs& a) {
  struct Block {
    std::uintptr_t lo, hi;
    std::size_t peer;
  };
  auto blocks = [](const char* base, const std::vector<std::size_t>& bytes, const std::vector<std::size_t>& offs) {
    std::vector<Block> out;
    for (std::size_t i = 0; i < bytes.size(); ++i)
      if (bytes[i]) {
        const auto lo = reinterpret_cast<std::uintptr_t>(base) + offs[i];
        out.push_back({lo, lo + bytes[i], i});
      }
    std::sort(out.begin(), out.end(), [](const Block& x, const Block& y) { return x.lo < y.lo; });
    return out;
  };
  const auto s = blocks(a.sendbuf, a.sendbytes, a.sendoffs), r = blocks(a.recvbuf, a.recvbytes, a.recvoffs);
  for (std::size_t i = 0, j = 0; i < s.size() && j < r.size();) {
    if (s[i].hi <= r[j].lo) {
      ++i;
    } else if (r[j].hi <= s[i].lo) {
      ++j;
    } else {
      throw Error(std::string(fn) + ": the send block for rank " + std::to_string(s[i].peer) + " (bytes " +
                  std::to_string(a.sendoffs[s[i].peer]) + ".." + std::to_string(a.sendoffs[s[i].peer] + a.sendbytes[s[i].peer]) +
                  " of sendbuf) overlaps the receive block from rank " + std::to_string(r[j].peer) + " (bytes " +
                  std::to_string(a.recvoffs[r[j].peer]) + ".." + std::to_string(a.recvoffs[r[j].peer] + a.recvbytes[r[j].peer]) +
                  " of recvbuf); send and receive buffers must not overlap");
    }
  }
}

// The local checks of an algorithm choice; returns the algorithm to build.
const AlgorithmInfo& check_algorithm(const AlltoallvArgs& args, const AlgorithmSpec& spec) {
  const AlgorithmInfo& info = find_alltoall_algorithm(spec.name);
  if (info.unavailable)
    if (const char* why = info.unavailable()) throw Error("algorithm '" + spec.name + "' is unavailable: " + why, ErrorCode::Unavailable);
  if (info.takes_window && spec.window < 1)
    throw Error("algorithm '" + spec.name + "': window must be >= 1, got " + std::to_string(spec.window));
  if (info.uniform_only && !args.uniform)
    throw Error("algorithm '" + spec.name +
                "' needs the same count for every peer with blocks in rank order (an alltoall, not an alltoallv)");
  check_no_overlap(args.uniform ? "alltoall" : "alltoallv", args);
  return info;
}

// Runs the local checks; with `agreed`, on every rank together (one allreduce on the
// Comm's duplicate after the engines are quiesced, as for any blocking call), so that a
// count, a buffer or a block to self wrong on one rank fails every rank at build instead
// of leaving the others waiting for a message that never comes.
// Every rank must also choose the same algorithm and element size (and, for alltoall, the
// same count): ranks running different schedules would wait for each other forever.
template <typename F>
void checked(const Comm& comm, bool agreed, const char* fn, const ConfigFields& same, F&& checks) {
  if (!agreed) return checks();
  quiesce_all();
  check_same(comm.mpi(), fn, same);
  agree(comm.mpi(), checks);
}

// `uniform` must be the same on every rank: an MPI-level algorithm calls MPI_Ialltoall on
// one rank only if every rank does. Only alltoall() promises it (every rank passes the
// same count); an alltoallv whose counts happen to be equal on one rank does not.
Collective build_checked(const char* fn, const Comm& comm, const void* sendbuf,
                         const std::vector<std::int64_t>& sendcounts, const std::vector<std::int64_t>& sdispls,
                         void* recvbuf, const std::vector<std::int64_t>& recvcounts,
                         const std::vector<std::int64_t>& rdispls, std::size_t elem_size, const AlgorithmSpec& spec,
                         bool uniform, bool agreed) {
  const std::size_t P = static_cast<std::size_t>(comm.size());
  AlltoallvArgs a;
  const AlgorithmInfo* info = nullptr;
  ConfigFields same = {{"the algorithm", spec.str()}, {"the element size", std::to_string(elem_size)}};
  if (uniform && !sendcounts.empty()) same.push_back({"the count", std::to_string(sendcounts[0])});
  checked(comm, agreed, fn, same, [&] {
  if (elem_size == 0) throw Error(std::string(fn) + ": element size must be at least 1 byte");
  const std::pair<const char*, const std::vector<std::int64_t>*> arrays[] = {
      {"sendcounts", &sendcounts}, {"sdispls", &sdispls}, {"recvcounts", &recvcounts}, {"rdispls", &rdispls}};
  for (auto& [name, v] : arrays)
    if (v->size() != P)
      throw Error(std::string(fn) + ": " + name + " has " + std::to_string(v->size()) +
                  " entries but the communicator has " + std::to_string(P) + " ranks");
  a.sendbuf = static_cast<const char*>(sendbuf);
  a.recvbuf = static_cast<char*>(recvbuf);
  a.elem_size = elem_size;
  for (std::size_t i = 0; i < P; ++i) {
    a.sendbytes.push_back(checked_bytes(fn, "sendcounts", i, sendcounts[i], elem_size));
    a.sendoffs.push_back(checked_bytes(fn, "sdispls", i, sdispls[i], elem_size));
    a.recvbytes.push_back(checked_bytes(fn, "recvcounts", i, recvcounts[i], elem_size));
    a.recvoffs.push_back(checked_bytes(fn, "rdispls", i, rdispls[i], elem_size));
  }
  check_side(fn, "send", sendbuf, a.sendbytes, a.sendoffs);
  check_side(fn, "recv", recvbuf, a.recvbytes, a.recvoffs);
  const std::size_t me = static_cast<std::size_t>(comm.rank());
  if (a.sendbytes[me] != a.recvbytes[me])
    throw Error(std::string(fn) + ": rank " + std::to_string(me) + " sends itself " + std::to_string(sendcounts[me]) +
                " elements (sendcounts[" + std::to_string(me) + "]) but receives " + std::to_string(recvcounts[me]) +
                " (recvcounts[" + std::to_string(me) + "]); a rank's block to itself must match");
  a.uniform = uniform;
  info = &check_algorithm(a, spec);
  });
  return Collective(comm, info->build(comm, a, spec));
}

}  // namespace

Collective alltoallv(const Comm& comm, const void* sendbuf, const std::vector<std::int64_t>& sendcounts,
                     const std::vector<std::int64_t>& sdispls, void* recvbuf,
                     const std::vector<std::int64_t>& recvcounts, const std::vector<std::int64_t>& rdispls,
                     std::size_t elem_size, const AlgorithmSpec& spec) {
  return build_checked("alltoallv", comm, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, elem_size,
                       spec, false, true);
}

Collective alltoallv_agreed_counts(const Comm& comm, const void* sendbuf, const std::vector<std::int64_t>& sendcounts,
                                   const std::vector<std::int64_t>& sdispls, void* recvbuf,
                                   const std::vector<std::int64_t>& recvcounts,
                                   const std::vector<std::int64_t>& rdispls, std::size_t elem_size,
                                   const AlgorithmSpec& spec) {
  return build_checked("alltoallv", comm, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, elem_size,
                       spec, false, false);
}

Collective alltoall(const Comm& comm, const void* sendbuf, void* recvbuf, std::int64_t count, std::size_t elem_size,
                    const AlgorithmSpec& spec) {
  const std::size_t P = static_cast<std::size_t>(comm.size());
  std::vector<std::int64_t> counts(P, count), displs(P);
  std::exception_ptr bad_count;  // reported inside the agreement, so every rank hears of it
  try {
    if (count < 0) throw Error("alltoall: count is negative (" + std::to_string(count) + ")");
    std::int64_t total = 0;
    for (std::size_t i = 0; i < P; ++i) {
      displs[i] = total;
      if (__builtin_add_overflow(total, count, &total))
        throw Error("alltoall: count " + std::to_string(count) + " times " + std::to_string(P) + " ranks overflows",
                    ErrorCode::OutOfMemory);
    }
  } catch (const Error&) {
    bad_count = std::current_exception();
  }
  if (bad_count) {
    checked(comm, true, "alltoall", {{"the algorithm", spec.str()}, {"the element size", std::to_string(elem_size)},
                                     {"the count", std::to_string(count)}},
            [&] { std::rethrow_exception(bad_count); });
  }
  return build_checked("alltoall", comm, sendbuf, counts, displs, recvbuf, counts, displs, elem_size, spec, true,
                       true);
}

}  // namespace nbfft::coll
