#include "bench/sine/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbfft::sine {

namespace {
constexpr int kTotal = fft::Timings::kPhases - 1;
const char* code(const Result& r) {
  return r.baseline ? (r.runner->transport() == "cufft" ? "cufft" : "fftw-mpi") : "nbfft";
}
}  // namespace

const Result* Report::blocking_of(const Result& r) const {
  for (const auto& q : results)
    if (q.blocking && !q.baseline && q.runner->proc_grid() == r.runner->proc_grid()) return &q;
  return nullptr;
}

Alone Report::alone_of(const Result& r) const {
  Alone al;
  auto take = [&](const double row[2], const double col[2]) {
    for (int d = 0; d < 2; ++d) {
      al.row[d] = al.valid ? std::min(al.row[d], row[d]) : row[d];
      al.col[d] = al.valid ? std::min(al.col[d], col[d]) : col[d];
    }
    al.valid = true;
  };
  for (const auto& q : results)
    if (!q.baseline && q.has_alone && q.runner->proc_grid() == r.runner->proc_grid()) take(q.row_alone, q.col_alone);
  for (const auto& q : refs)
    if (q.proc_grid == r.runner->proc_grid()) take(q.row, q.col);
  return al;
}

bool Report::table_row_of(const Result& r, TableRow& row) const {
  const Result* b = blocking_of(r);
  if (!b || !b->has_dirs || r.baseline) return false;
  row = table_row(r.total_s(), b->as_blocking(), args.fields, alone_of(r));
  return true;
}

double Report::gflops(const Result& r) const {
  const auto& n = args.n;
  const double N = static_cast<double>(n[0]) * n[1] * n[2];
  const double flops = args.fields * 2.0 * (args.transform == fft::TransformKind::R2C ? 2.5 : 5.0) * N * std::log2(N);
  return flops / r.total_s() * 1e-9;
}

void Report::print() const {
  const SineArgs& a = args;
  const int P = fft::Timings::kPhases;
  const Result* base = nullptr;
  for (const auto& r : results)
    if (r.baseline) base = &r;
  std::printf("nbfft-sine: grid %lldx%lldx%lld, %d ranks, %s %s, %d field%s, %d iterations (+%d warm-up), %s%s\n",
              static_cast<long long>(a.n[0]), static_cast<long long>(a.n[1]), static_cast<long long>(a.n[2]), ranks,
              fft::name(a.precision), fft::name(a.transform), a.fields, a.fields == 1 ? "" : "s", a.iters, a.warmup,
              a.sequential ? "runs back to back" : "runs interleaved", a.flush_subnormals ? ", subnormals flushed" : "");
  for (std::size_t k = 0; k < results.size(); ++k)
    std::printf("  [%zu] %-8s %-5s %-20s %s\n", k + 1, code(results[k]), results[k].runner->proc_grid().c_str(),
                results[k].runner->transport().c_str(), results[k].runner->config().c_str());
  for (const auto& w : skipped) std::printf("  skipped %s\n", w.c_str());
  std::printf("\nphase times in ms per forward+backward: max over ranks, then min / median / max over iterations\n");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Result& r = results[k];
    std::printf("[%zu] %s %s %s\n%-8s", k + 1, code(r), r.runner->proc_grid().c_str(), r.runner->transport().c_str(),
                "");
    for (int p = 0; p < P; ++p) std::printf(" %9s", fft::Timings::phase_name(p));
    std::printf("\n");
    const char* rows[3] = {"min", "median", "max"};
    for (int row = 0; row < 3; ++row) {
      std::printf("%-8s", rows[row]);
      for (int p = 0; p < P; ++p) {
        const bench::Summary& st = r.phase[p];
        const double v = row == 0 ? st.min : row == 1 ? st.median : st.max;
        if (r.runner->has_phases() || p == kTotal)
          std::printf(" %9.2f", 1e3 * v);
        else
          std::printf(" %9s", "-");
      }
      std::printf("\n");
    }
  }
  const std::string vs = std::string("vs ") + (base ? code(*base) : "fftw-mpi");
  std::printf("\n%-4s %-8s %-5s %-20s %11s %9s %9s %10s %11s %9s  %s\n", "run", "code", "proc", "transport", "median ms",
              "min ms", "GFlop/s", "max error", vs.c_str(), "peak MiB", "local FFT");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const Result& r = results[k];
    char ratio[32] = "-", peak[32] = "-";
    if (base) std::snprintf(ratio, sizeof ratio, "%.3f", r.total_s() / base->total_s());
    if (r.peak_rss) std::snprintf(peak, sizeof peak, "%.0f", r.peak_rss / 1048576.0);
    std::printf("%-4zu %-8s %-5s %-20s %11.2f %9.2f %9.2f %10.2e %11s %9s  %s\n", k + 1, code(r),
                r.runner->proc_grid().c_str(), r.runner->transport().c_str(), 1e3 * r.total_s(),
                1e3 * r.phase[kTotal].min, gflops(r), r.max_error, ratio, peak, r.runner->local_fft().c_str());
  }
  if (process_peak_rss)
    std::printf("peak MiB: per rank (max over ranks) of a process holding only that run; this process held every "
                "run at once: %.0f MiB\n",
                process_peak_rss / 1048576.0);
  print_tuned_memory();
  bool any_table = false;
  for (const auto& b : results)
    if (b.blocking && !b.baseline && b.has_dirs && blocking_of(b) == &b) {
      any_table = true;
      print_table2(b);
    }
  const bool phases = std::any_of(results.begin(), results.end(), [](const Result& r) { return r.runner->has_phases(); });
  if (a.fields > 1 && !any_table)
    std::printf(phases ? "\n(no Table II: add blocking to --transport to compare against it)\n"
                       : "\n(no Table II: these runs measure only their totals)\n");
  print_summary();
  std::fflush(stdout);
}

// Each tuned run's peak against the default plan's and the tuner's target, the default plan
// plus one of its workspaces (issue 37), so that the record says it in numbers; and how far
// tuning alone raised the RSS, against two of those workspaces: what a caller whose arrays
// exist while it tunes needs beside them, where the default plan needs one.
void Report::print_tuned_memory() const {
  const Result* def = nullptr;
  for (const auto& r : results)
    if (r.role == "default" && r.peak_rss) def = &r;
  if (!def) return;
  const double mib = 1048576.0, d = def->peak_rss / mib, ws = def->runner->workspace_bytes() / mib;
  for (const auto& r : results) {
    if (r.role != "tuned" || !r.peak_rss) continue;
    std::printf("%s: peak %.0f MiB, %.2fx the default plan's %.0f MiB (target: the default plan plus one of its "
                "workspaces, %.0f MiB, %.2fx); tuning alone rose %.0f MiB, two default workspaces are %.0f\n",
                r.runner->transport().c_str(), r.peak_rss / mib, r.peak_rss / mib / d, d, d + ws, (d + ws) / d,
                r.tuning_rss / mib, 2 * ws);
  }
}

// Seed 000 Table II of the process grid of blocking run b.
void Report::print_table2(const Result& b) const {
  const int nv = args.fields;
  const Alone al = alone_of(b);
  const TableRow ref = table_row(b.total_s(), b.as_blocking(), nv, al);
  std::printf("\nTable II (seed 000): %s, %d field%s, ms per iteration (forward + backward of every field)\n",
              b.runner->proc_grid().c_str(), nv, nv == 1 ? "" : "s");
  std::printf("  per field: compute C = %.2f ms (fwd %.2f + bwd %.2f) = the blocking run's FFTs, pack, unpack "
              "%.2f + the fastest ROW exchange alone %.2f\n",
              1e3 * ref.compute_s, 1e3 * (b.work[0] + al.row[0]), 1e3 * (b.work[1] + al.row[1]),
              1e3 * (b.work[0] + b.work[1]), 1e3 * (al.row[0] + al.row[1]));
  std::printf("             exchange T = %.2f ms (fwd %.2f + bwd %.2f) = the fastest COL exchange alone (nv back to "
              "back, nothing else running)\n",
              1e3 * ref.exchange_s, 1e3 * al.col[0], 1e3 * al.col[1]);
  std::printf("  blocking: measured %.2f ms, nv*(C+T) = %.2f ms (the rest is the ranks waiting on each other); "
              "inside its COL exchanges %.2f ms a field\n",
              1e3 * ref.blocking_s, 1e3 * nv * (ref.compute_s + ref.exchange_s), 1e3 * (b.exch[0] + b.exch[1]));
  std::printf("  pipeline bound = sum over directions d of max(nv*C_d, nv*T_d + C_d) = %.2f ms\n", 1e3 * ref.bound_s);
  std::printf("  %-20s %11s %15s %13s %14s %14s\n", "transport", "median ms", "vs blocking %", "gap closed %",
              "COL alone ms", "ROW alone ms");
  for (const auto& r : results) {
    if (r.baseline || r.runner->proc_grid() != b.runner->proc_grid()) continue;
    const TableRow t = table_row(r.total_s(), b.as_blocking(), nv, al);
    char gap[32] = "-";
    if (t.has_gap) std::snprintf(gap, sizeof gap, "%.1f", 100.0 * t.gap_closed);
    std::printf("  %-20s %11.2f %15.1f %13s %14.2f %14.2f\n", r.runner->transport().c_str(), 1e3 * r.total_s(),
                t.improvement_pct, gap, 1e3 * (r.col_alone[0] + r.col_alone[1]), 1e3 * (r.row_alone[0] + r.row_alone[1]));
  }
  std::printf("  %-20s %11.2f\n", "(pipeline bound)", 1e3 * ref.bound_s);
  std::printf("  exchanges alone of the reference transports, ms per field (COL / ROW):");
  for (const auto& q : refs)
    if (q.proc_grid == b.runner->proc_grid())
      std::printf(" %s %.2f / %.2f;", q.label.c_str(), 1e3 * (q.col[0] + q.col[1]), 1e3 * (q.row[0] + q.row[1]));
  std::printf("\n");
}

namespace {
std::string bytes_or_null(std::size_t b) { return b ? std::to_string(b) : "null"; }  // 0: not known
}  // namespace

std::vector<bench::JsonRecord> Report::records() const {
  const SineArgs& a = args;
  const Result* base = nullptr;
  for (const auto& r : results)
    if (r.baseline) base = &r;
  std::vector<bench::JsonRecord> out;
  for (const auto& r : results) {
    bench::JsonRecord j;
    j.add_raw("grid", "[" + std::to_string(a.n[0]) + ", " + std::to_string(a.n[1]) + ", " + std::to_string(a.n[2]) + "]")
        .add("proc_grid", r.runner->proc_grid())
        .add("ranks", ranks)
        .add("precision", fft::name(a.precision))
        .add("transform", fft::name(a.transform))
        .add("transport", r.runner->transport())
        .add("local_fft", r.runner->local_fft())
        .add("fields", a.fields)
        .add("iters", a.iters)
        .add("time_s", r.total_s())
        .add("time_min_s", r.phase[kTotal].min)
        .add("time_max_s", r.phase[kTotal].max)
        .add("max_error", r.max_error)
        .add("gflops", gflops(r))
        .add("effort", fft::name(a.effort))
        .add_raw("data_bytes_per_rank", bytes_or_null(r.runner->data_bytes()))
        .add_raw("workspace_bytes_per_rank", bytes_or_null(r.runner->workspace_bytes()))
        .add_raw("peak_rss_bytes_per_rank", bytes_or_null(r.peak_rss))
        .add_raw("process_peak_rss_bytes_per_rank", bytes_or_null(process_peak_rss))
        .add_raw("tuning_rss_bytes_per_rank", bytes_or_null(r.tuning_rss))
        .add("role", r.baseline ? "baseline" : r.role)
        .add_raw("interleaved", a.sequential ? "false" : "true")
        .add_raw("flush_subnormals", a.flush_subnormals ? "true" : "false");
    if (base) j.add("ratio_vs_fftw_mpi", r.total_s() / base->total_s());
    TableRow t;
    if (table_row_of(r, t)) {
      j.add("pipeline_bound_s", t.bound_s);
      if (t.has_gap) j.add("gap_closed", t.gap_closed);
      j.add("improvement_pct", t.improvement_pct)
          .add("compute_per_field_s", t.compute_s)
          .add("exchange_per_field_s", t.exchange_s)
          .add("blocking_time_s", t.blocking_s);
    }
    if (r.has_alone)
      j.add("col_alone_s", r.col_alone[0] + r.col_alone[1]).add("row_alone_s", r.row_alone[0] + r.row_alone[1]);
    j.add("config", r.runner->config());
    if (r.runner->has_phases()) {
      std::string ph = "{";
      for (int p = 0; p < fft::Timings::kPhases; ++p) {
        bench::JsonRecord s;
        s.add("min", r.phase[p].min).add("median", r.phase[p].median).add("max", r.phase[p].max);
        ph += (p ? ", " : "") + bench::json_quote(fft::Timings::phase_name(p)) + ": " + s.str();
      }
      j.add_raw("phases", ph + "}");
    }
    out.push_back(j);
  }
  return out;
}

namespace {

// The q-quantile of v (linear between order statistics).
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(at);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// A speed ratio as words, "1.21x faster [1.05-1.30]" or "1.32x slower [1.20-1.41]":
// ratio = reference median / run median (> 1: the run is faster, as the table's column),
// [ ] = the middle half of the per-round ratios, as the same kind of factor; "within
// noise" when that middle half has rounds on both sides of 1.
std::string faster_or_slower(double ratio, const std::vector<double>& rounds) {
  const double q1 = quantile(rounds, 0.25), q3 = quantile(rounds, 0.75);
  char buf[128];
  if (ratio >= 1)
    std::snprintf(buf, sizeof buf, "%.2fx faster [%.2f-%.2f]", ratio, q1, q3);
  else
    std::snprintf(buf, sizeof buf, "%.2fx slower [%.2f-%.2f]", 1 / ratio, 1 / q3, 1 / q1);
  std::string out = buf;
  if (q1 < 1 && q3 > 1) out += " (within noise)";
  return out;
}

}  // namespace

std::string Report::describe(const Result& r) const {
  const std::string grid = r.runner->proc_grid();
  if (r.baseline) return r.runner->transport() == "cufft" ? "cuFFT's 3-D transform" : "FFTW-MPI";
  if (r.role == "default") return "nbfft's default plan (" + grid + ", " + r.runner->transport() + ")";
  if (r.role == "tuned" && !r.chosen.empty())
    return "nbfft's " + r.runner->transport() + " plan (" + grid + ", " + r.chosen + ")";
  if (r.role == "seed")
    return "seed 000's " + grid + (args.fields > 1 ? " pipeline" : " configuration") +
           " (ROW blocking, COL pairwise:4@caller" + (args.fields > 1 ? ", 2 fields in flight)" : ")");
  return "nbfft " + r.runner->transport() + " (" + grid + ")";
}

// One line a newcomer can read: each run against FFTW-MPI (or, without it, against the
// first run) as the ratio of the median times with the spread of the per-round ratios of
// the interleaved iterations, who is fastest, and how well every result was verified.
void Report::print_summary() const {
  const Result* base = nullptr;
  for (const auto& r : results)
    if (r.baseline) base = &r;
  const Result* ref = base ? base : &results.front();
  const Result* fastest = &results.front();
  for (const auto& r : results)
    if (r.total_s() < fastest->total_s()) fastest = &r;
  const int n = args.iters;
  char buf[256];
  std::string line = "summary: ";
  if (results.size() == 1)
    line += "one run, nothing to compare with (--baseline auto adds FFTW-MPI when built in): ";
  else if (!base)
    line += args.baseline == "fftw-mpi" || args.baseline == "auto"
                ? "FFTW-MPI is not available in this build (MPICH builds leave it out), so against "
                : "no FFTW-MPI run (--baseline auto adds it), so against ";
  else
    line += "against ";
  {
    std::string d = describe(*ref);  // "X (a, b)" -> "X (a, b; 8.1 ms median)"
    std::snprintf(buf, sizeof buf, "%.2f ms median", 1e3 * ref->total_s());
    if (!d.empty() && d.back() == ')')
      d.insert(d.size() - 1, std::string("; ") + buf);
    else
      d += std::string(" (") + buf + ")";
    line += d;
  }
  bool any = false;
  for (const auto& r : results) {
    if (&r == ref) continue;
    std::vector<double> s(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) s[i] = ref->round_s[i] / r.round_s[i];
    line += (any ? "; " : ", ") + describe(r) + " is " + faster_or_slower(ref->total_s() / r.total_s(), s);
    any = true;
  }
  if (any) {
    std::snprintf(buf, sizeof buf,
                  " (ratios of the medians over %d %s rounds; [ ] the middle half of the per-round ratios). "
                  "Fastest: %s, %.2f ms. ",
                  n, args.sequential ? "back-to-back" : "interleaved", describe(*fastest).c_str(),
                  1e3 * fastest->total_s());
    line += buf;
  } else {
    line += ". ";
  }
  const double tol = args.precision == fft::Precision::Double ? 1e-8 : 1e-3;
  double worst = 0;
  std::string failed;
  for (const auto& r : results) {
    if (!(r.max_error <= tol)) failed += (failed.empty() ? "" : ", ") + describe(r);
    worst = std::max(worst, r.max_error);
  }
  if (failed.empty())
    std::snprintf(buf, sizeof buf, "%s verified against the analytic sine field: max error %.1e (limit %.0e).",
                  results.size() == 1 ? "Its result" : ("All " + std::to_string(results.size())).c_str(), worst, tol);
  else
    std::snprintf(buf, sizeof buf, "VERIFICATION FAILED (limit %.0e) for: ", tol);
  line += buf;
  if (!failed.empty()) line += failed + ".";
  std::printf("\n%s\n", line.c_str());
}

int Report::check_errors() const {
  // A wrong result fails the run (exit 1), so scripts and tests can rely on the check.
  const double tol = args.precision == fft::Precision::Double ? 1e-8 : 1e-3;
  int rc = 0;
  for (const auto& r : results)
    if (!(r.max_error <= tol)) {
      std::fprintf(stderr, "nbfft-sine: %s %s: max error %.3g exceeds %.0e\n", r.runner->proc_grid().c_str(),
                   r.runner->transport().c_str(), r.max_error, tol);
      rc = 1;
    }
  return rc;
}

}  // namespace nbfft::sine
