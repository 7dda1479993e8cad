// The one table of alltoall algorithms. The CLI help, the tests and docs/algorithms.md
// read it; adding an algorithm is one file plus one line here.
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/error.hpp"

namespace nbfft::coll {

const std::vector<AlgorithmInfo>& alltoall_algorithms() {
  using namespace algorithms;
  static const std::vector<AlgorithmInfo> table = {
      {"pairwise", "P-1 exchanges with rank^i (2^k ranks) or rank±i, W in flight per round; ceil((P-1)/W)(α + Wnβ)",
       true, false, pairwise, nullptr,
       {{1, 2, EngineKind::Caller, false, 0}, {3, 1, EngineKind::Caller, true, 0}, {4, 4, EngineKind::Caller, true, 0},
        {6, 4, EngineKind::Thread, false, 0}, {7, 2, EngineKind::Thread, true, 0}}},
      {"linear", "every exchange posted at once (pairwise with W = P-1); α + (P-1)nβ, most contention", false, false,
       linear, nullptr, {{5, 0, EngineKind::Caller, true, 8}}},
      {"bruck", "log2 P rounds of combined blocks; ceil(log2 P)(α + (P/2)nβ) + copies; for small messages", false,
       true, bruck, nullptr},
      {"native", "the MPI library's MPI_Ialltoall / MPI_Ialltoallv", false, false, native, nullptr,
       {{2, 0, EngineKind::Native, false, 0}}},
      {"persistent", "MPI-4 MPI_Alltoall(v)_init (or Open MPI's MPIX_ form), started with MPI_Start", false, false,
       persistent, persistent_unavailable},
      {"rma", "one-sided: ready tokens, MPI_Put into the peers' receive buffers (the Comm's dynamic window), flush, done tokens", false, false, rma,
       nullptr},
      {"blocking", "MPI_Alltoall / MPI_Alltoallv executed at start: the baseline, no overlap", false, false,
       blocking, nullptr, {{0, 0, EngineKind::Caller, false, 0}}},
      {"replace", "seed 002: MPI_Sendrecv_replace with rank±i through one staging block, blocks padded to the largest; (P-1)(α + n_max β)",
       false, false, replace, nullptr},
      {"standard", "seed 002: blocking MPI_Send/MPI_Recv with rank±i, lowest rank of each cycle receives first; (P-1)(2α + nβ)",
       false, false, standard, nullptr},
  };
  return table;
}

const AlgorithmInfo& find_alltoall_algorithm(std::string_view name) {
  std::string known;
  for (const auto& a : alltoall_algorithms()) {
    if (name == a.name) return a;
    known += known.empty() ? "" : ", ";
    known += a.name;
  }
  throw Error("unknown alltoall algorithm '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace nbfft::coll
