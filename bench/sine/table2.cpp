#include "bench/sine/table2.hpp"

#include <algorithm>

namespace nbfft::sine {

double direction_bound(int nv, double compute, double exchange) {
  return std::max(nv * compute, nv * exchange + compute);
}

TableRow table_row(double run_s, const BlockingRun& b, int nv, const Alone& alone) {
  TableRow t;
  t.blocking_s = b.time_s;
  for (int d = 0; d < 2; ++d) {
    const double C = alone.valid ? b.work[d] + alone.row[d] : b.compute[d];
    const double T = alone.valid ? alone.col[d] : b.exchange[d];
    t.bound_s += direction_bound(nv, C, T);
    t.compute_s += C;
    t.exchange_s += T;
  }
  t.improvement_pct = 100.0 * (t.blocking_s - run_s) / t.blocking_s;
  const double gap = t.blocking_s - t.bound_s;
  t.has_gap = gap > 0;
  t.gap_closed = t.has_gap ? (t.blocking_s - run_s) / gap : 0.0;
  return t;
}

}  // namespace nbfft::sine
