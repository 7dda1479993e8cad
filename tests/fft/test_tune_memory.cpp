// The tuner's memory. Issue 16: a tuned run peaked at 2.9x the default plan's RSS because
// the trials' plans and arrays piled up; now one trial at a time. Issue 37: the trials'
// arrays were an input and an output array per field, sized again when a grid needed more,
// and glibc kept what each trial freed: now one in-place array per field on several ranks,
// allocated once, and the freed memory given back, so that tuning needs no more than the
// largest candidate plan tried and the least arrays its caller holds. Counted: the library's
// instrumentation hook (fft/memory_stats.hpp) counts live plans, the bytes of FFT
// workspaces and trial arrays and the arrays the tuner allocated, so those checks cannot be
// fooled by, or flake on, the OS; one check reads the RSS itself (Linux), with a margin.
#include "fft/memory_stats.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/tune.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace nbfft::fft::test {
namespace {

int ranks() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

std::size_t most_over_ranks(std::size_t v) {
  unsigned long long mine = v, most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return static_cast<std::size_t>(most);
}

// What a plan of `o` needs: its workspace; the most the library held while building it
// and running nv fields through it once (the workspace, the planner's scratch and anything
// a first call makes); and one field's arrays, as the tuner holds them and as the least a
// caller holds: one in-place array on several ranks or when lean was asked, an input and
// an output array on one rank (whose out-of-place transform has a path of its own, which
// the tuner times). At least 64 bytes an array, as the tuner allocates them.
struct Footprint {
  std::size_t workspace = 0, build = 0, run = 0, field = 0, in = 0, out = 0;
  std::size_t plan() const { return std::max(build, run); }
};

Footprint footprint(const std::array<std::int64_t, 3>& n, const Options& o, int nv = 1) {
  const std::size_t held = detail::memory_stats().bytes;
  detail::reset_memory_peaks();
  const Plan p(MPI_COMM_WORLD, n, o);
  auto array = [](std::size_t b) { return std::max<std::size_t>(b, 64); };
  Footprint f;
  f.build = detail::memory_stats().bytes_peak - held;
  detail::reset_memory_peaks();
  f.workspace = p.workspace_bytes();
  f.in = array(p.in_bytes());
  f.out = array(p.out_bytes());
  const bool in_place = ranks() > 1 || o.lean_workspace;
  f.field = in_place ? array(p.inplace_bytes()) : f.in + f.out;
  // The caller's arrays, zeroed, outside the count (64-byte aligned, like the tuner's).
  const std::size_t ib = in_place ? f.field : f.in, ob = in_place ? f.field : f.out;
  std::vector<void*> in, out;
  for (int k = 0; k < nv; ++k) {
    in.push_back(std::memset(std::aligned_alloc(64, (std::max<std::size_t>(ib, 1) + 63) / 64 * 64), 0, ib));
    out.push_back(in_place ? in.back() : std::memset(std::aligned_alloc(64, (std::max<std::size_t>(ob, 1) + 63) / 64 * 64), 0, ob));
  }
  p.forward_many_bytes(static_cast<std::size_t>(nv), in.data(), ib, out.data(), ob);
  p.backward_many_bytes(static_cast<std::size_t>(nv), out.data(), ob, in.data(), ib);
  for (int k = 0; k < nv; ++k) {
    if (!in_place) std::free(out[k]);
    std::free(in[k]);
  }
  f.run = detail::memory_stats().bytes_peak - held;
  return f;
}

Options estimate(bool lean = false) {
  Options o;
  o.effort = Effort::Estimate;
  o.lean_workspace = lean;
  return o;
}

TuneSettings settings(int fields, TuneEffort effort, double budget = 60) {
  TuneSettings s;
  s.effort = effort;
  s.budget_seconds = budget;  // the exhaustive sweep stops there; its runoff still runs
  s.trial_iters = 1;
  s.fields = fields;
  return s;
}

// Long enough for a few trials however slow this machine is now (under MPICH at 4 ranks,
// loaded, a trial took 1 s): the untuned trial's time, agreed, times `factor`.
double budget_for(const std::array<std::int64_t, 3>& n, const Options& base, TuneSettings s, double factor) {
  s.budget_seconds = 1e-9;
  forget_tuning();
  double mine = tune(MPI_COMM_WORLD, n, base, s).tuning_seconds, most = 0;
  MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return std::max(1.5, factor * most);
}

// What a tune() held, counted.
struct Tuned {
  TuneReport report;
  detail::MemoryStats stats;
  long arrays_made = 0;  // arrays the tuner allocated during this tune()
};

Tuned tune_counted(const std::array<std::int64_t, 3>& n, const Options& base, const TuneSettings& s) {
  forget_tuning();
  EXPECT_EQ(detail::memory_stats().plans, 0) << "a plan outlived its test";
  const long made = detail::memory_stats().trial_arrays_made;
  detail::reset_memory_peaks();
  Tuned t;
  t.report = tune(MPI_COMM_WORLD, n, base, s);
  t.stats = detail::memory_stats();
  t.arrays_made = t.stats.trial_arrays_made - made;
  return t;
}

// One trial at a time, on one set of arrays made once: the most a tune() holds is one
// field's arrays per field, sized for the largest trial, and the most any one trial's
// plan held while built or run. Before issue 37 an input and an output array per field
// (a whole array more per field on several ranks), made again when a grid needed more.
void check_one_trial_at_a_time(const std::array<std::int64_t, 3>& n, const Options& base, const TuneSettings& s) {
  const Tuned t = tune_counted(n, base, s);
  ASSERT_GE(t.report.trials.size(), 2u) << "too few trials to exercise the runoff";
  EXPECT_EQ(t.stats.plans, 0) << "tune() left a plan alive";
  EXPECT_EQ(t.stats.bytes, 0u) << "tune() left workspace or trial arrays allocated";
  EXPECT_EQ(t.stats.plans_peak, 1) << "tune() held " << t.stats.plans_peak << " plans at once";
  const long per_field = ranks() > 1 || base.lean_workspace ? 1 : 2;
  EXPECT_EQ(t.arrays_made, per_field * s.fields) << "the tuner's arrays were not allocated once";

  std::size_t field = 0, plan = 0;
  for (const auto& trial : t.report.trials) plan = std::max(plan, footprint(n, trial.options, s.fields).plan());
  // The arrays fit every grid the search may try, also one the budget left untried.
  const int P = ranks();
  for (int m1 = 1; m1 <= P; ++m1)
    if (P % m1 == 0 && Decomposition::empty_reason(n, true, m1, P / m1).empty()) {
      Options o = base;
      o.m1 = m1;
      o.m2 = P / m1;
      field = std::max(field, footprint(n, o).field);
    }
  const std::size_t arrays = static_cast<std::size_t>(s.fields) * field;
  EXPECT_LE(t.stats.bytes_peak, arrays + plan)
      << "tune() held " << t.stats.bytes_peak << " bytes at once; one trial needs at most " << arrays
      << " (one field's arrays per field) + " << plan << " (the largest trial's plan)";
}

TEST(TuneMemory, QuickHoldsOneTrialAtATime) {
  check_one_trial_at_a_time({32, 24, 20}, estimate(), settings(1, TuneEffort::Quick));
}

TEST(TuneMemory, SeveralFieldsHoldOneTrialAtATime) {
  check_one_trial_at_a_time({24, 20, 16}, estimate(), settings(2, TuneEffort::Quick));
}

// Lean asked: in place on one rank too, where a candidate whose lean layout does not fit
// is made without it. Slabs only (the grid step is the cases' above), to keep it short.
TEST(TuneMemory, LeanHoldsOneTrialAtATime) {
  Options base = estimate(/*lean=*/true);
  base.m1 = 1;
  base.m2 = ranks();
  check_one_trial_at_a_time({24, 20, 16}, base, settings(1, TuneEffort::Quick));
}

TEST(TuneMemory, ExhaustiveHoldsOneTrialAtATime) {
  const std::array<std::int64_t, 3> n = {16, 12, 10};
  TuneSettings s = settings(1, TuneEffort::Exhaustive);
  s.budget_seconds = budget_for(n, estimate(), s, 6);
  check_one_trial_at_a_time(n, estimate(), s);
}

// A line "Key: N kB" of /proc/self/status, in bytes (0 when not there).
std::size_t status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) return std::stoull(line.substr(key.size() + 1)) * 1024;
  return 0;
}

// What the trials freed is handed back to the system, not kept resident by the allocator:
// glibc keeps freed blocks below its mmap threshold (which rises to the largest block freed,
// up to 32 MiB), and the blocks here are of that size. A first tune() starts what stays
// (MPI connections, engine threads, FFTW's tables); the second one's growth is measured.
// Without the tuner handing memory back, glibc kept several of the trials' blocks (at 4
// ranks, 1.5 to 2 workspaces), more than the half workspace allowed here.
TEST(TuneMemory, TheTrialsMemoryIsGivenBack) {
#if !defined(__GLIBC__) || !defined(__linux__)
  GTEST_SKIP() << "glibc on Linux only (malloc_trim, /proc/self/status)";
#else
  const std::array<std::int64_t, 3> n = {128, 96, 96};
  const TuneSettings s = settings(1, TuneEffort::Quick, 300);
  forget_tuning();
  tune(MPI_COMM_WORLD, n, estimate(), s);
  malloc_trim(0);
  const std::size_t before = status_bytes("VmRSS");
  if (most_over_ranks(before == 0)) GTEST_SKIP() << "no VmRSS in /proc/self/status";
  forget_tuning();
  tune(MPI_COMM_WORLD, n, estimate(), s);
  const std::size_t after = status_bytes("VmRSS");
  const std::size_t grew = after > before ? after - before : 0;
  const std::size_t workspace = footprint(n, estimate()).workspace;
  EXPECT_LE(grew, workspace / 2) << "tune() left " << grew << " bytes more resident than before it (one workspace "
                                 << workspace << ")";
#endif
}

// The hook itself: a plan counts while alive, and its workspace bytes with it.
TEST(TuneMemory, TheHookCountsPlansAndWorkspaces) {
  const auto before = detail::memory_stats();
  {
    const Plan p(MPI_COMM_WORLD, {16, 12, 10}, estimate());
    const auto during = detail::memory_stats();
    EXPECT_EQ(during.plans, before.plans + 1);
    EXPECT_EQ(during.bytes, before.bytes + p.workspace_bytes());
  }
  EXPECT_EQ(detail::memory_stats().plans, before.plans);
  EXPECT_EQ(detail::memory_stats().bytes, before.bytes);
}

}  // namespace
}  // namespace nbfft::fft::test
