// Seed 000 Table II arithmetic, pure: the pipeline bound of nv fields and the share of the
// gap between the blocking run and that bound a transport closes (DESIGN.md "Measures").
//
// Per direction d (forward, backward), per field: C_d = local work (FFTs, pack, unpack)
// plus the ROW exchange, T_d = the COL exchange. A pipeline of nv fields cannot beat
//   max(nv C_d, nv T_d + C_d)
// (the CPU does all the work; the network cannot start before the first field's work
// before its exchange nor finish before the last field's work after it). The bound is
// the sum over both directions; gap closed = (t_blocking - t) / (t_blocking - bound).
#pragma once

namespace nbfft::sine {

// One direction's bound.
double direction_bound(int nv, double compute, double exchange);

// The fastest exchanges alone (nothing else running) of one process grid, per direction.
struct Alone {
  double row[2] = {0, 0}, col[2] = {0, 0};
  bool valid = false;
};

// What the blocking run of a process grid measured, per direction and field.
struct BlockingRun {
  double time_s = 0;             // median iteration (forward + backward of every field)
  double work[2] = {0, 0};       // FFTs, pack, unpack (slowest rank)
  double compute[2] = {0, 0};    // everything outside the COL exchange (slowest rank)
  double exchange[2] = {0, 0};   // its time / nv minus compute
};

struct TableRow {
  double blocking_s = 0, bound_s = 0, improvement_pct = 0, gap_closed = 0;
  double compute_s = 0, exchange_s = 0;  // per field, forward + backward
  bool has_gap = false;                  // blocking is slower than the bound (gap_closed defined)
};

// The row of a run that took run_s per iteration. C and T come from the exchanges alone
// when measured (C = blocking work + fastest ROW alone, T = fastest COL alone), else from
// what the blocking iteration spent outside / inside its COL exchange.
TableRow table_row(double run_s, const BlockingRun& blocking, int nv, const Alone& alone);

}  // namespace nbfft::sine
