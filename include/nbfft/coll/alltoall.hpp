// Alltoall / Alltoallv: the registry of algorithms and the two builders.
//
// Every algorithm is one file (alltoall_<name>.cpp) whose header states what it does and
// its cost model, plus one line in alltoall_registry.cpp. The CLI's --algorithm help, the
// test matrix and the docs all read alltoall_algorithms(), so nothing can be added
// without being listed, tested and documented.
//
// Counts and displacements are in elements of `elem_size` bytes, 64-bit, as in MPI-4's
// large-count interfaces.
#pragma once

#include "nbfft/coll/request.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nbfft::coll {

struct AlgorithmSpec {
  std::string name = "pairwise";
  int window = 4;  // exchanges in flight per round (pairwise); ignored by the others
  // "pairwise", "pairwise:8", "linear", ... ; throws Error on a malformed or unknown name.
  static AlgorithmSpec parse(std::string_view text);
  std::string str() const;  // round-trips through parse
};

// Validated arguments as every algorithm receives them (bytes, not elements).
struct AlltoallvArgs {
  const char* sendbuf = nullptr;
  char* recvbuf = nullptr;
  std::vector<std::size_t> sendbytes, sendoffs, recvbytes, recvoffs;  // per peer
  std::size_t elem_size = 1;
  bool uniform = false;  // built by alltoall(): one count for every peer on every rank
  std::size_t recv_extent() const;  // bytes of recvbuf the collective may touch
};

// One transport the plan tuners time with this algorithm (coll::tuning_transports): the
// window, the engine, whether only a thorough search tries it, the most peers it is worth
// trying at (0: any), and its place in the tuners' order (cheap, likely winners first).
struct TuneCandidate {
  int order;
  int window;
  EngineKind engine;
  bool thorough_only;
  int max_peers;
};

struct AlgorithmInfo {
  const char* name;
  const char* summary;  // what it does and its cost model, one line
  bool takes_window;
  bool uniform_only;    // needs equal counts (MPI_Alltoall shape)
  std::shared_ptr<const Schedule> (*build)(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
  const char* (*unavailable)();  // nullptr, or why this MPI cannot run it
  std::vector<TuneCandidate> tune;  // what the plan tuners try (none: never tuned)
};

const std::vector<AlgorithmInfo>& alltoall_algorithms();
const AlgorithmInfo& find_alltoall_algorithm(std::string_view name);

// Building is collective over comm (like MPI_Alltoallv_init): the arguments are checked on
// every rank together and every rank must pass the same algorithm, element size and (for
// alltoall) count, so one rank's bad argument is the same Error on every rank, never a hang.
Collective alltoall(const Comm& comm, const void* sendbuf, void* recvbuf, std::int64_t count,
                    std::size_t elem_size, const AlgorithmSpec& spec = {});

Collective alltoallv(const Comm& comm, const void* sendbuf, const std::vector<std::int64_t>& sendcounts,
                     const std::vector<std::int64_t>& sdispls, void* recvbuf,
                     const std::vector<std::int64_t>& recvcounts, const std::vector<std::int64_t>& rdispls,
                     std::size_t elem_size, const AlgorithmSpec& spec = {});

// alltoallv without the build's agreement, for callers whose counts come from a layout
// every rank agreed on already (nbfft's FFT exchanges, built inside the plan's own
// agreement): local checks only, no communication.
Collective alltoallv_agreed_counts(const Comm& comm, const void* sendbuf, const std::vector<std::int64_t>& sendcounts,
                                   const std::vector<std::int64_t>& sdispls, void* recvbuf,
                                   const std::vector<std::int64_t>& recvcounts,
                                   const std::vector<std::int64_t>& rdispls, std::size_t elem_size,
                                   const AlgorithmSpec& spec = {});

}  // namespace nbfft::coll
