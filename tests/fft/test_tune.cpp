// Plan-time autotuning: the choice is one of the measured candidates and the fastest of
// them, a tuned plan transforms correctly, and the same key is answered from memory or
// from the wisdom file without new trials. Timings are not asserted (CI machines are noisy).
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/tune.hpp"
#include "fft/threads.hpp"
#include "fft_test_util.hpp"

#include <set>
#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

namespace nbfft::fft::test {
namespace {

Options quick() {
  Options o;
  o.effort = Effort::Estimate;
  return o;
}

TuneSettings fast(int fields = 1) {
  TuneSettings s;
  // Far more than the fixed greedy search takes (a few seconds even at 4 ranks under MPICH,
  // loaded): these tests check the search's steps, which a budget cut short would skip.
  s.budget_seconds = 300;
  s.trial_iters = 1;
  s.fields = fields;
  return s;
}

// For tests whose point is not the search (memory, keys, errors): a budget spent before the
// first search trial, so only the untuned plan is timed. Under MPICH at 3-4 ranks each trial
// costs a fraction of a second, and a full search several seconds.
TuneSettings untuned_only(int fields = 1) {
  TuneSettings s = fast(fields);
  s.budget_seconds = 1e-9;
  return s;
}

// Options with the process grid fixed to slabs (1 x P): the search still tries transports,
// chunking and fields, but not every grid (the grid step has its own test above).
Options slabs() {
  Options o = quick();
  o.m1 = 1;
  o.m2 = world_size();
  return o;
}

// A shared file name (rank 0's pid) so every rank names the same wisdom file.
std::string shared_path(const char* stem) {
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return "/tmp/nbfft-test-" + std::string(stem) + "-" + std::to_string(pid) + ".txt";
}

// max |backward(forward(f)) - f| / max |f| on this plan (default norm: backward scaled by
// 1/N), reduced over ranks.
double round_trip_error(const Plan& plan, std::array<std::int64_t, 3> n) {
  std::vector<double> f = random_box(plan.in_box(), n, 1, 7), g(f.size());
  std::vector<std::complex<double>> F(static_cast<std::size_t>(plan.out_count()));
  plan.forward(f, F);
  plan.backward(F, g);
  double err = rel_error(g, f), most = 0;
  MPI_Allreduce(&err, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return most;
}

TEST(Tune, ChoosesTheFastestMeasuredCandidateAndItIsCorrect) {
  forget_tuning();
  const std::array<std::int64_t, 3> n = {16, 12, 10};
  TuneReport r;
  Plan plan = tuned_plan(MPI_COMM_WORLD, n, quick(), fast(), &r);
  EXPECT_FALSE(r.from_wisdom);
  ASSERT_FALSE(r.trials.empty());
  // The choice is the fastest of the trials the runoff re-timed side by side (all trials
  // when there was only one).
  double best = -1;
  for (const auto& t : r.trials)
    if (r.trials.size() == 1 || t.step.find("runoff") != std::string::npos)
      best = best < 0 ? t.seconds : std::min(best, t.seconds);
  EXPECT_DOUBLE_EQ(r.best_seconds, best);
  EXPECT_EQ(plan.m1() * plan.m2(), world_size());
  EXPECT_EQ(plan.m1(), r.chosen.m1);
  EXPECT_EQ(plan.options().col_transport.str(), r.chosen.col_transport.str());
  // Every grid that leaves no rank empty was tried.
  int grids = 0;
  for (auto g : factorizations(world_size()))
    if (Decomposition::empty_reason(n, true, g[0], g[1]).empty()) ++grids;
  // (The untuned plan's trial stands for its own grid's: the search reuses it.)
  std::set<std::pair<int, int>> grids_tried;
  int runoff = 0;
  int untuned = 0;
  bool untuned_in_runoff = false;
  for (const auto& t : r.trials) {
    if (t.step.rfind("grid", 0) == 0 || t.step.rfind("untuned", 0) == 0) grids_tried.insert({t.options.m1, t.options.m2});
    runoff += t.step.find("runoff") != std::string::npos;
    if (t.step.rfind("untuned", 0) == 0) {
      ++untuned;
      untuned_in_runoff = t.step.find("runoff") != std::string::npos;
    }
  }
  EXPECT_EQ(static_cast<int>(grids_tried.size()), grids);
  // The plan the caller gets without tuning was timed first ...
  ASSERT_EQ(untuned, 1);
  EXPECT_EQ(r.trials.front().step.rfind("untuned", 0), 0u);
  // ... and the fastest few were timed again, interleaved, always with the untuned plan, and
  // the choice made on those times: a tuned plan has beaten the default side by side.
  const int trials = static_cast<int>(r.trials.size());
  if (trials > 1) {
    EXPECT_TRUE(untuned_in_runoff);
    // The three fastest, plus the untuned plan when it was not among them.
    EXPECT_TRUE(runoff == std::min(3, trials) || (trials > 3 && runoff == 4)) << runoff << " of " << trials;
  } else {
    EXPECT_EQ(runoff, 0);
  }
  EXPECT_LT(round_trip_error(plan, n), 1e-12);
}

// The option table's `tuned` flag is what the wisdom stores and what the wisdom key leaves
// out: a trial that changed a row not marked tuned would be remembered wrongly.
TEST(Tune, TrialsChangeOnlyTheRowsTheOptionTableMarksTuned) {
  forget_tuning();
  Options base = quick();
  base.norm = Norm::Ortho;
  base.allow_empty = false;
  const TuneReport r = tune(MPI_COMM_WORLD, {16, 12, 10}, base, fast(2));
  auto fixed = [](const Options& o) { return option_values(o, [](const OptionRow& row) { return !row.tuned; }); };
  ASSERT_FALSE(r.trials.empty());
  for (const auto& t : r.trials) EXPECT_EQ(fixed(t.options), fixed(base)) << t.step;
  EXPECT_EQ(fixed(r.chosen), fixed(base));
  // Every row the tuner chooses is in the key=value text it stores.
  std::ostringstream report;
  report << r;
  for (const auto& row : option_rows()) {
    if (row.tuned) {
      EXPECT_NE(report.str().find(row.key), std::string::npos) << row.key;
    }
  }
}

TEST(Tune, SameKeyIsAnsweredFromMemoryWithoutTrials) {
  forget_tuning();
  const std::array<std::int64_t, 3> n = {12, 10, 9};
  TuneReport first = tune(MPI_COMM_WORLD, n, quick(), fast(2));
  TuneReport second = tune(MPI_COMM_WORLD, n, quick(), fast(2));
  EXPECT_FALSE(first.from_wisdom);
  EXPECT_TRUE(second.from_wisdom);
  EXPECT_TRUE(second.trials.empty());
  EXPECT_EQ(second.chosen.m1, first.chosen.m1);
  EXPECT_EQ(second.chosen.col_transport.str(), first.chosen.col_transport.str());
  EXPECT_EQ(second.chosen.col_chunk_planes, first.chosen.col_chunk_planes);
  // A different field count is a different key (no search needed to tell).
  TuneReport other = tune(MPI_COMM_WORLD, n, quick(), untuned_only(1));
  EXPECT_FALSE(other.from_wisdom);
}

TEST(Tune, WisdomFileIsReusedByALaterProcess) {
  forget_tuning();
  const std::string path = shared_path("tune");
  const std::array<std::int64_t, 3> n = {10, 9, 8};
  TuneSettings s = fast();
  s.wisdom_path = path;
  TuneReport first = tune(MPI_COMM_WORLD, n, slabs(), s);
  forget_tuning();  // as if a new run started: only the file remembers
  TuneReport again = tune(MPI_COMM_WORLD, n, slabs(), s);
  EXPECT_FALSE(first.from_wisdom);
  EXPECT_TRUE(again.from_wisdom);
  EXPECT_EQ(again.chosen.m2, first.chosen.m2);
  EXPECT_EQ(again.chosen.row_transport.str(), first.chosen.row_transport.str());
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
}

TEST(Tune, MalformedWisdomIsAnIoErrorOnEveryRank) {
  const std::string path = shared_path("bad");
  if (world_rank() == 0) std::ofstream(path) << "not a wisdom file\n";
  MPI_Barrier(MPI_COMM_WORLD);
  TuneSettings s = fast();
  s.wisdom_path = path;
  try {
    tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), s);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Io) << e.what();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::remove(path.c_str());
}

TEST(Tune, RanksThatDisagreeFailTogether) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  TuneSettings s = fast(world_rank() == 1 ? 3 : 1);
  try {
    tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), s);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::RanksDisagree) << e.what();
  }
}

// Pencils (2 x 2) on 4 ranks, elsewhere slabs the other way round from the default (P x 1):
// at every rank count, so the case needs none in particular (CMake's MPICH_SPLIT).
TEST(Tune, FixedProcessGridIsKept) {
  forget_tuning();
  const int P = world_size();
  if (P == 1) GTEST_SKIP() << "one rank has one grid";
  Options o = quick();
  o.m1 = P == 4 ? 2 : P;
  o.m2 = P == 4 ? 2 : 1;
  TuneReport r = tune(MPI_COMM_WORLD, {16, 16, 16}, o, fast());
  EXPECT_EQ(r.chosen.m1, o.m1);
  EXPECT_EQ(r.chosen.m2, o.m2);
  for (const auto& t : r.trials) EXPECT_EQ(std::make_pair(t.options.m1, t.options.m2), std::make_pair(o.m1, o.m2)) << t.step;
}

// The tuner as a plan option: Plan(comm, n, o) with o.tune tunes in its constructor, keeps
// the report, and reports the tuner's settings among its options.
TEST(Tune, PlanOptionTuneMakesTheChosenPlanAndKeepsTheReport) {
  forget_tuning();
  const std::array<std::int64_t, 3> n = {14, 12, 10};
  Options o = quick();
  o.tune = TuneEffort::Quick;
  o.tune_budget = 20;
  Plan plan(MPI_COMM_WORLD, n, o);
  ASSERT_NE(plan.tune_report(), nullptr);
  const TuneReport& r = *plan.tune_report();
  EXPECT_FALSE(r.from_wisdom);
  EXPECT_FALSE(r.trials.empty());
  EXPECT_EQ(tuned_values(plan.options()), tuned_values(r.chosen));
  // Every trial is reported as the plan it timed: its options rebuild that very plan (the
  // engine on a core of its own leaves fewer compute threads than the search asked for).
  for (const TuneTrial& t : r.trials) {
    if (t.seconds < 0) continue;
    Plan again(MPI_COMM_WORLD, n, t.options);
    EXPECT_EQ(tuned_values(again.options()), tuned_values(t.options)) << t.step;
  }
  EXPECT_EQ(plan.options().tune, TuneEffort::Quick);
  EXPECT_EQ(plan.options().tune_budget, 20);
  EXPECT_EQ(r.chosen.tune, TuneEffort::None);  // the choice itself does not tune again
  std::ostringstream printed;
  printed << plan.options();
  EXPECT_NE(printed.str().find("tune=quick"), std::string::npos) << printed.str();
  EXPECT_LT(round_trip_error(plan, n), 1e-12);
  // An untuned plan has no report and prints none of the tuner's settings.
  Plan plain(MPI_COMM_WORLD, n, quick());
  EXPECT_EQ(plain.tune_report(), nullptr);
  std::ostringstream p2;
  p2 << plain.options();
  EXPECT_EQ(p2.str().find("tune"), std::string::npos) << p2.str();
}

// Step 6 of the greedy search (fft/tune_search.cpp): the thread engine on a core of its own
// (Options::engine_own_core) is tried on the fastest trial with the thread engine, with the
// most threads, whether or not that trial is the fastest overall; the trial's plan is built
// and timed, and its options rebuild a plan that runs with the engine on its own core.
TEST(Tune, EngineCoreStepTriesTheEngineOnItsOwnCore) {
  forget_tuning();
  int level = MPI_THREAD_SINGLE, cpus = rank_cpus(), fewest = 0;
  MPI_Query_thread(&level);
  MPI_Allreduce(&cpus, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (level < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "the thread engine needs MPI_THREAD_MULTIPLE";
  if (fewest < 2) GTEST_SKIP() << "one CPU a rank: the tuner tries no threads";
  const std::array<std::int64_t, 3> n = {16, 12, 10};
  const TuneReport r = tune(MPI_COMM_WORLD, n, slabs(), fast());
  ASSERT_FALSE(r.budget_exhausted) << r;
  const TuneTrial* step = nullptr;
  int steps = 0;
  for (const auto& t : r.trials)
    if (t.step.rfind("engine_core", 0) == 0) {  // (", runoff" when the runoff timed it again)
      step = &t;
      ++steps;
    }
  ASSERT_EQ(steps, 1) << r;
  EXPECT_GE(step->seconds, 0) << "the engine_core trial was not timed";
  EXPECT_TRUE(uses_engine_thread(step->options)) << step->options;
  EXPECT_TRUE(step->options.engine_own_core) << step->options;
  // The most threads, less the engine's core (the trial reports the plan it timed).
  EXPECT_EQ(step->options.threads, compute_threads(std::min(fewest, 64), true, true));
  // It is the fastest thread-engine trial before it with the engine's core flipped, by the
  // times the search saw then (the runoff, later, may have timed some of them again).
  const TuneTrial* from = nullptr;
  for (const auto& t : r.trials) {
    if (&t == step) break;
    if (uses_engine_thread(t.options) && (!from || t.search_seconds < from->search_seconds)) from = &t;
  }
  ASSERT_NE(from, nullptr);
  EXPECT_FALSE(from->options.engine_own_core);
  Options flipped = from->options;
  flipped.engine_own_core = true;
  flipped.threads = step->options.threads;
  EXPECT_EQ(tuned_values(flipped), tuned_values(step->options));
  const Plan plan(MPI_COMM_WORLD, n, step->options);
  EXPECT_TRUE(plan.options().engine_own_core);
  EXPECT_LT(round_trip_error(plan, n), 1e-12);
}

// A budget spent before the first trial still gives a plan: the caller's own (untuned).
TEST(Tune, TinyBudgetStillMakesThePlanAsAsked) {
  forget_tuning();
  const std::array<std::int64_t, 3> n = {10, 8, 6};
  Options o = quick();
  o.tune = TuneEffort::Quick;
  o.tune_budget = 1e-9;
  Plan plan(MPI_COMM_WORLD, n, o);
  ASSERT_NE(plan.tune_report(), nullptr);
  const TuneReport& r = *plan.tune_report();
  EXPECT_TRUE(r.budget_exhausted);
  ASSERT_EQ(r.trials.size(), 1u);
  EXPECT_EQ(r.trials[0].step, "untuned");
  EXPECT_EQ(plan.options().col_transport.str(), quick().col_transport.str());
  EXPECT_LT(round_trip_error(plan, n), 1e-12);
}

// The tuner's own settings are neither in the wisdom key nor in what the wisdom stores.
TEST(Tune, TunerSettingsAreNotPartOfTheKey) {
  Options a = quick(), b = quick();
  b.tune = TuneEffort::Exhaustive;
  b.tune_budget = 3;
  b.tune_wisdom = "elsewhere.txt";
  b.tune_log = 2;
  EXPECT_EQ(tune_key(MPI_COMM_WORLD, {8, 8, 8}, a, 1), tune_key(MPI_COMM_WORLD, {8, 8, 8}, b, 1));
  for (const auto& row : option_rows()) EXPECT_FALSE(row.tuning && row.tuned) << row.key;
}

// The log hook sees the start, every trial in order with an ETA within the budget, and the
// choice; the same events on every rank.
TEST(Tune, LogHookSeesEveryTrial) {
  forget_tuning();
  std::vector<TuneEvent> events;
  TuneLog previous = set_tune_log([&](const TuneEvent& e) { events.push_back(e); });
  const TuneReport r = tune(MPI_COMM_WORLD, {12, 10, 9}, slabs(), fast(2));
  set_tune_log(previous);
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front().kind, TuneEvent::Kind::Start);
  EXPECT_EQ(events.back().kind, TuneEvent::Kind::Done);
  EXPECT_EQ(tuned_values(events.back().options), tuned_values(r.chosen));
  int trials = 0;
  for (const auto& e : events) {
    if (e.kind != TuneEvent::Kind::Trial) continue;
    EXPECT_EQ(e.trial, ++trials);
    EXPECT_GE(e.planned, e.trial);
    EXPECT_GE(e.eta, 0);
    EXPECT_LE(e.eta, e.budget);
    EXPECT_NE(e.line.find("ETA"), std::string::npos) << e.line;
  }
  // Every trial of the report was logged (the runoff's visits once more each).
  EXPECT_GE(trials, static_cast<int>(r.trials.size()));
  int count = static_cast<int>(events.size()), least = 0, most = 0;
  MPI_Allreduce(&count, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&count, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(least, most);
}

// A wisdom file that cannot be written is an Io error on every rank before any trial, even
// when this process already knows the answer (the file would not learn it).
TEST(Tune, UnwritableWisdomFailsBeforeAnyTrial) {
  forget_tuning();
  int trials = 0;
  TuneLog previous = set_tune_log([&](const TuneEvent& e) { trials += e.kind == TuneEvent::Kind::Trial; });
  TuneSettings s = fast();
  s.wisdom_path = "/nonexistent-nbfft-dir/tune.txt";
  for (int round = 0; round < 2; ++round) {
    try {
      tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), s);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Io) << e.what();
      EXPECT_NE(std::string(e.what()).find("/nonexistent-nbfft-dir/tune.txt"), std::string::npos) << e.what();
    }
    EXPECT_EQ(trials, 0);
    tune(MPI_COMM_WORLD, {8, 8, 8}, quick(), untuned_only());  // now remembered in this process
    trials = 0;
  }
  set_tune_log(previous);
}

}  // namespace
}  // namespace nbfft::fft::test
