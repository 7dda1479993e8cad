// Transport: how one exchange moves data = an alltoall algorithm × a progress engine.
//
// Written ALGORITHM[:WINDOW]@ENGINE ("pairwise:4@thread", "native@native"), or by a preset
// name from transport_presets() ("blocking", "native", "caller", "thread", "rma") — the
// columns of seed 000's Table II. The FFT, the benchmarks and the CLI all parse through here.
#pragma once

#include "nbfft/coll/alltoall.hpp"
#include "nbfft/coll/engine.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace nbfft::coll {

struct Transport {
  AlgorithmSpec algorithm{"blocking", 1};
  EngineKind engine = EngineKind::Caller;
  std::string label;  // the name it was given ("thread", or the full form)

  static Transport parse(std::string_view text);  // throws Error naming what is wrong
  std::string str() const;                        // full ALGORITHM[:W]@ENGINE form
};

struct TransportPreset {
  const char* name;
  const char* expansion;
  const char* summary;
};
const std::vector<TransportPreset>& transport_presets();

// The transports the plan tuners time (both the 3-D and the N-D one), read from the
// algorithm registry's `tune` entries: a quick search's or a thorough one's, for exchanges
// of at most `peers` ranks, with the thread engine only when MPI_THREAD_MULTIPLE is there.
std::vector<std::string> tuning_transports(bool thorough, int peers, bool thread_ok);

// Parses a comma-separated list ("blocking,thread,pairwise:2@caller").
std::vector<Transport> parse_transports(std::string_view list);

}  // namespace nbfft::coll
