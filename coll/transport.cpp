#include "nbfft/coll/transport.hpp"

#include "nbfft/error.hpp"

namespace nbfft::coll {

const std::vector<TransportPreset>& transport_presets() {
  // The columns of seed 000 Table II, plus the test-driven one it could not run.
  static const std::vector<TransportPreset> table = {
      {"blocking", "blocking@caller", "MPI_Alltoall(v): no overlap, the baseline"},
      {"native", "native@native", "MPI_Ialltoall(v), progressed only by the MPI library"},
      {"caller", "pairwise:4@caller", "nbfft pairwise schedule, progressed by test calls inside the compute"},
      {"thread", "pairwise:4@thread", "nbfft pairwise schedule run by the engine thread (software offload)"},
      {"rma", "rma@thread", "one-sided MPI_Put exchange run by the engine thread"},
  };
  return table;
}

Transport Transport::parse(std::string_view text) {
  for (const auto& p : transport_presets()) {
    if (text == p.name) {
      Transport t = parse(p.expansion);
      t.label = p.name;
      return t;
    }
  }
  const auto at = text.find('@');
  if (at == std::string_view::npos) {
    std::string names;
    for (const auto& p : transport_presets()) names += std::string(names.empty() ? "" : ", ") + p.name;
    throw Error("unknown transport '" + std::string(text) + "': use a preset (" + names +
                ") or ALGORITHM[:WINDOW]@ENGINE such as pairwise:4@thread");
  }
  Transport t;
  t.algorithm = AlgorithmSpec::parse(text.substr(0, at));
  t.engine = parse_engine(text.substr(at + 1));
  t.label = std::string(text);
  return t;
}

std::string Transport::str() const { return algorithm.str() + "@" + engine_name(engine); }

std::vector<std::string> tuning_transports(bool thorough, int peers, bool thread_ok) {
  std::vector<std::pair<int, std::string>> t;
  for (const AlgorithmInfo& a : alltoall_algorithms())
    for (const TuneCandidate& c : a.tune) {
      if (c.thorough_only && !thorough) continue;
      if (c.max_peers > 0 && peers > c.max_peers) continue;
      if (c.engine == EngineKind::Thread && !thread_ok) continue;
      if (a.unavailable && a.unavailable()) continue;
      Transport x;
      x.algorithm = {a.name, c.window > 0 ? c.window : 1};
      x.engine = c.engine;
      t.emplace_back(c.order, x.str());
    }
  std::stable_sort(t.begin(), t.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (auto& [order, name] : t) names.push_back(std::move(name));
  return names;
}

std::vector<Transport> parse_transports(std::string_view list) {
  std::vector<Transport> out;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view item = list.substr(pos, comma - pos);
    if (item.empty()) throw Error("empty entry in transport list '" + std::string(list) + "'");
    out.push_back(Transport::parse(item));
    pos = comma + 1;
  }
  return out;
}

}  // namespace nbfft::coll
