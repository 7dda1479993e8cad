// The overlap measures of DESIGN.md "Measures", in one place for every benchmark.
//
// From one measurement: base = the communication alone (start + wait, no compute), total =
// start, compute, wait; overhead = time inside test/wait calls of that run; alone = the
// same compute with nothing in flight, timed in the same run.
//   overlap %  = 100 * (total - overhead) / total        seed 000 Fig. 5 (OSU-style)
//   slowdown   = (total - overhead) / alone             how much the communication slowed the compute
//   hidden %   = 100 * (base + alone - total) / min(base, alone)
// Seed 000's overlap % cannot see a compute that the communication slowed down (an engine
// thread or the kernel's network work on the same cores); hidden % can, and is negative
// when doing both at once took longer than doing them one after the other.
#pragma once

#include <algorithm>

namespace nbfft::bench {

struct OverlapMetrics {
  double compute = 0;      // total - overhead
  double overlap_pct = 0;
  double slowdown = 0;
  double hidden_pct = 0;
};

inline OverlapMetrics overlap_metrics(double base, double total, double overhead, double alone) {
  OverlapMetrics m;
  m.compute = total - overhead;
  m.overlap_pct = total > 0 ? 100.0 * m.compute / total : 0.0;
  m.slowdown = alone > 0 ? m.compute / alone : 0.0;
  const double shorter = std::min(base, alone);
  m.hidden_pct = shorter > 0 ? 100.0 * (base + alone - total) / shorter : 0.0;
  return m;
}

}  // namespace nbfft::bench
