// The tuner holds one trial at a time (issue 16: a tuned run peaked at 2.9x the default
// plan's RSS because the trials' plans and arrays piled up). Counted, not timed: the
// library's instrumentation hook (fft/memory_stats.hpp) counts live plans and the bytes of
// FFT workspaces and trial arrays, so the check cannot be fooled by, or flake on, the OS.
#include "fft/memory_stats.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/tune.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace nbfft::fft::test {
namespace {

// What one trial of `o` needs: its plan's workspace, and per field an input and an output
// array (at least 64 bytes each, as the tuner allocates them); `in` = one input array.
struct Footprint {
  std::size_t workspace = 0, arrays = 0, in = 0;
};

Footprint footprint(const std::array<std::int64_t, 3>& n, const Options& o, int fields) {
  const Plan p(MPI_COMM_WORLD, n, o);
  Footprint f;
  f.workspace = p.workspace_bytes();
  f.in = std::max<std::size_t>(p.in_bytes(), 64);
  f.arrays = static_cast<std::size_t>(fields) * (f.in + std::max<std::size_t>(p.out_bytes(), 64));
  return f;
}

void check_one_trial_at_a_time(const std::array<std::int64_t, 3>& n, int fields, TuneEffort effort,
                               double budget = 60) {  // < 0: -budget untuned trials' time
  Options base;
  base.effort = Effort::Estimate;
  TuneSettings s;
  s.effort = effort;
  s.budget_seconds = budget;  // the exhaustive sweep stops there; its runoff still runs
  s.trial_iters = 1;
  s.fields = fields;
  if (budget < 0) {
    // Long enough for a few trials however slow this machine is now (under MPICH at 4
    // ranks, loaded, a trial took 1 s): the untuned trial's time, agreed, times -budget.
    TuneSettings probe = s;
    probe.budget_seconds = 1e-9;
    forget_tuning();
    double mine = tune(MPI_COMM_WORLD, n, base, probe).tuning_seconds, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    s.budget_seconds = std::max(1.5, -budget * most);
  }
  forget_tuning();
  ASSERT_EQ(detail::memory_stats().plans, 0) << "a plan outlived its test";
  detail::reset_memory_peaks();
  const TuneReport r = tune(MPI_COMM_WORLD, n, base, s);
  const detail::MemoryStats m = detail::memory_stats();
  ASSERT_GE(r.trials.size(), 2u) << "too few trials to exercise the runoff";
  EXPECT_EQ(m.plans, 0) << "tune() left a plan alive";
  EXPECT_EQ(m.bytes, 0u) << "tune() left workspace or trial arrays allocated";
  EXPECT_EQ(m.plans_peak, 1) << "tune() held " << m.plans_peak << " plans at once";

  // The most any single trial needs: its workspace, or while its plan is being built the
  // planner's temporaries (at most a workspace plane and one input plane), on top of one
  // set of arrays, the largest any trial used.
  std::size_t ws = 0, arrays = 0, in = 0;
  for (const auto& t : r.trials) {
    const Footprint f = footprint(n, t.options, fields);
    ws = std::max(ws, f.workspace);
    arrays = std::max(arrays, f.arrays);
    in = std::max(in, f.in);
  }
  EXPECT_LE(m.bytes_peak, arrays + ws + in)
      << "tune() held " << m.bytes_peak << " bytes at once; one trial needs at most " << arrays << " (arrays) + "
      << ws << " (workspace) + " << in << " (planning)";
}

TEST(TuneMemory, QuickHoldsOneTrialAtATime) { check_one_trial_at_a_time({32, 24, 20}, 1, TuneEffort::Quick); }

TEST(TuneMemory, SeveralFieldsHoldOneTrialAtATime) {
  check_one_trial_at_a_time({24, 20, 16}, 2, TuneEffort::Quick);
}

TEST(TuneMemory, ExhaustiveHoldsOneTrialAtATime) {
  check_one_trial_at_a_time({16, 12, 10}, 1, TuneEffort::Exhaustive, -6);
}

// The hook itself: a plan counts while alive, and its workspace bytes with it.
TEST(TuneMemory, TheHookCountsPlansAndWorkspaces) {
  const auto before = detail::memory_stats();
  {
    Options o;
    o.effort = Effort::Estimate;
    const Plan p(MPI_COMM_WORLD, {16, 12, 10}, o);
    const auto during = detail::memory_stats();
    EXPECT_EQ(during.plans, before.plans + 1);
    EXPECT_EQ(during.bytes, before.bytes + p.workspace_bytes());
  }
  EXPECT_EQ(detail::memory_stats().plans, before.plans);
  EXPECT_EQ(detail::memory_stats().bytes, before.bytes);
}

}  // namespace
}  // namespace nbfft::fft::test
