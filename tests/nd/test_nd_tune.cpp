// nd::tune and tuned nd plans (nbfft/nd/tune.hpp): the choice is one of the trials and the
// fastest of them, the tuned plan gives the untuned plan's results, a second plan comes from
// memory, and bad settings fail on every rank.
#include "nbfft/error.hpp"
#include "nbfft/nd/options_text.hpp"
#include "nbfft/nd/plan.hpp"
#include "nbfft/nd/tune.hpp"
#include "nbfft/fft/tune.hpp"
#include "../fft/fft_test_util.hpp"
#include "nd_reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <complex>
#include <set>
#include <sstream>
#include <vector>

namespace {

using cplx = std::complex<double>;
using nbfft::fft::TuneEffort;
using nbfft::fft::test::random_value;
using nbfft::fft::test::world_rank;
using nbfft::fft::test::world_size;
using nbfft::nd::Options;
using nbfft::nd::Plan;
using nbfft::nd::test::expect_error;
using nbfft::nd::test::for_each;
using nbfft::nd::test::Shape;
using nbfft::nd::test::whole;

std::string grid_text(const std::vector<int>& g) {
  std::string s;
  for (int x : g) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s;
}

// Forward then backward on both plans (any boxes: each fills its own from the same global
// field) and the gathered spectra compared.
void expect_same_results(const Plan& a, const Plan& b) {
  auto run = [](const Plan& p, std::vector<cplx>& spectrum, double& back) {
    const Shape shape = p.shape();
    std::vector<double> u(p.in_count());
    for_each(p.in_box(), [&](const Shape& g, std::int64_t at) {
      u[static_cast<std::size_t>(at)] = random_value(5, static_cast<std::uint64_t>(whole(shape).index(g)));
    });
    std::vector<cplx> uh(p.out_count());
    p.forward(u.data(), u.size(), uh.data(), uh.size());
    spectrum = nbfft::nd::test::gather(p.out_shape(), p.out_box(), uh);
    std::vector<double> v(u.size());
    p.backward(uh.data(), uh.size(), v.data(), v.size());
    back = 0;
    for (std::size_t i = 0; i < u.size(); ++i) back = std::max(back, std::abs(u[i] - v[i]));
  };
  std::vector<cplx> sa, sb;
  double ba = 0, bb = 0;
  run(a, sa, ba);
  run(b, sb, bb);
  ASSERT_EQ(sa.size(), sb.size());
  double e = 0;
  for (std::size_t i = 0; i < sa.size(); ++i) e = std::max(e, std::abs(sa[i] - sb[i]));
  EXPECT_LT(e, 1e-10);
  EXPECT_LT(ba, 1e-12);
  EXPECT_LT(bb, 1e-12);
}

TEST(NdTune, ChoosesTheFastestTrialAndGivesTheUntunedResults) {
  nbfft::nd::forget_tuning();
  Options o;
  o.tune = TuneEffort::Quick;
  o.tune_budget = 120;  // the search is fixed-size; ctest's timeout still catches a hang
  const Shape shape = {12, 10, 9};
  const std::vector<int> axes = {0, 2};
  Plan tuned(MPI_COMM_WORLD, shape, axes, o);
  const nbfft::nd::TuneReport* r = tuned.tune_report();
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->from_memory);
  EXPECT_FALSE(r->budget_exhausted);
  ASSERT_FALSE(r->trials.empty());
  EXPECT_EQ(r->trials.front().step.rfind("untuned", 0), 0u) << r->trials.front().step;
  // The choice is a trial, and no trial was faster.
  bool found = false;
  std::set<std::string> grids;
  for (const auto& t : r->trials) {
    EXPECT_GE(t.seconds, 0);
    EXPECT_GE(t.seconds, r->best_seconds) << t.step;
    int product = 1;
    for (int g : t.options.grid) product *= g;
    EXPECT_EQ(product, world_size()) << grid_text(t.options.grid);
    grids.insert(grid_text(t.options.grid));
    if (t.options.grid == r->chosen.grid && t.options.transport == r->chosen.transport &&
        t.options.fields_in_flight == r->chosen.fields_in_flight && t.seconds == r->best_seconds)
      found = true;
  }
  EXPECT_TRUE(found);
  // Several grids were timed where there is a choice (3 axes over 2 or more ranks).
  if (world_size() > 1) {
    EXPECT_GE(grids.size(), 2u);
  }
  EXPECT_EQ(tuned.options().grid, r->chosen.grid);
  EXPECT_EQ(tuned.options().transport, r->chosen.transport);
  std::ostringstream text;
  text << *r;
  EXPECT_NE(text.str().find("nd tune: "), std::string::npos) << text.str();

  Options plain;
  Plan untuned(MPI_COMM_WORLD, shape, axes, plain);
  EXPECT_EQ(untuned.tune_report(), nullptr);
  expect_same_results(tuned, untuned);

  // The same key again: from memory, the same choice, no trials.
  Plan again(MPI_COMM_WORLD, shape, axes, o);
  ASSERT_NE(again.tune_report(), nullptr);
  EXPECT_TRUE(again.tune_report()->from_memory);
  EXPECT_TRUE(again.tune_report()->trials.empty());
  EXPECT_EQ(again.options().grid, tuned.options().grid);
  EXPECT_EQ(again.options().transport, tuned.options().transport);
}

// Through the options text (the C and Fortran front ends), with several fields per call.
TEST(NdTune, FromOptionsTextWithSeveralFields) {
  nbfft::nd::forget_tuning();
  EXPECT_EQ(nbfft::nd::parse_options("tune=thorough").tune, TuneEffort::Thorough);
  const Options o = nbfft::nd::parse_options("tune=quick tune_budget=120 tune_fields=3 transport=pairwise:2@caller");
  EXPECT_EQ(o.tune, TuneEffort::Quick);
  EXPECT_EQ(o.tune_fields, 3);
  const Options back = nbfft::nd::parse_options(nbfft::nd::options_text(o));
  EXPECT_EQ(back.tune, o.tune);
  EXPECT_EQ(back.tune_budget, o.tune_budget);
  Plan tuned(MPI_COMM_WORLD, {8, 6, 5, 4}, {1, 2, 3}, o);
  ASSERT_NE(tuned.tune_report(), nullptr);
  std::set<std::string> steps;
  for (const auto& t : tuned.tune_report()->trials) steps.insert(t.step.substr(0, t.step.find(',')));
  EXPECT_TRUE(steps.count("untuned")) << *tuned.tune_report();
  if (world_size() > 1) {  // several grids, and exchanges to choose a transport for
    EXPECT_TRUE(steps.count("grid") && steps.count("transport")) << *tuned.tune_report();
  } else {  // one grid and no exchange: nothing else to time
    EXPECT_EQ(tuned.tune_report()->trials.size(), 1u) << *tuned.tune_report();
  }
  // The chosen options make the same plan again.
  Options chosen = tuned.options();
  chosen.tune = TuneEffort::None;
  Plan remade(MPI_COMM_WORLD, {8, 6, 5, 4}, {1, 2, 3}, chosen);
  EXPECT_EQ(remade.describe(), tuned.describe());
}

// A batch plan keeps its batch axis whole in every grid the tuner tries.
TEST(NdTune, BatchAxisStaysWhole) {
  nbfft::nd::forget_tuning();
  Options o;
  o.tune = TuneEffort::Quick;
  o.tune_budget = 120;
  o.batch_axis = 0;
  Plan tuned(MPI_COMM_WORLD, {3, 8, 7}, {1, 2}, o);
  for (const auto& t : tuned.tune_report()->trials) EXPECT_EQ(t.options.grid.at(0), 1) << t.step;
  EXPECT_EQ(tuned.batch(), 3);
}

// A lean plan tuned: its trials run in place on arrays of its in-place size (uneven blocks:
// 8x12 at 4 ranks has a middle stage larger than both boxes), and the plan it makes is lean
// and gives the untuned plan's results.
TEST(NdTune, LeanPlan) {
  nbfft::nd::forget_tuning();
  Options o;
  o.output_order = nbfft::fft::OutputOrder::Transposed;
  o.lean_workspace = true;
  o.tune = TuneEffort::Quick;
  o.tune_budget = 120;
  o.tune_fields = 2;
  Plan tuned(MPI_COMM_WORLD, {8, 12}, {0, 1}, o);
  EXPECT_TRUE(tuned.lean_workspace()) << tuned.describe();
  Options plain;
  plain.output_order = o.output_order;
  Plan untuned(MPI_COMM_WORLD, {8, 12}, {0, 1}, plain);
  std::vector<double> u(untuned.in_count());
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = random_value(9, i + 1000 * std::uint64_t(world_rank()));
  std::vector<cplx> uh(untuned.out_count()), w(tuned.inplace_bytes() / sizeof(cplx) + 1);
  untuned.forward(u.data(), u.size(), uh.data(), uh.size());
  std::copy(u.begin(), u.end(), reinterpret_cast<double*>(w.data()));
  tuned.forward(reinterpret_cast<double*>(w.data()), 2 * w.size(), w.data(), w.size());
  double e = 0;
  for (std::size_t i = 0; i < uh.size(); ++i) e = std::max(e, std::abs(uh[i] - w[i]));
  EXPECT_LT(e, 1e-10);
}

// tune_wisdom: the choice outlives the process (forget_tuning stands in for a new run), in
// the 3-D tuner's file format under a key of its own; a path that cannot be written fails on
// every rank before any trial runs.
TEST(NdTune, WisdomFile) {
  nbfft::nd::forget_tuning();
  char dir[] = "/tmp/nbfft-nd-wisdom-XXXXXX";
  std::string path;
  if (world_rank() == 0) path = std::string(mkdtemp(dir)) + "/Tune Wisdom.txt";  // its case and space kept
  int n = static_cast<int>(path.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(static_cast<std::size_t>(n));
  MPI_Bcast(path.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  Options o;
  o.tune = TuneEffort::Quick;
  o.tune_budget = 60;
  o.tune_wisdom = path;
  const Plan first(MPI_COMM_WORLD, {12, 10}, {0, 1}, o);
  ASSERT_NE(first.tune_report(), nullptr);
  EXPECT_FALSE(first.tune_report()->from_wisdom);
  EXPECT_FALSE(first.tune_report()->trials.empty());
  if (world_rank() == 0) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str().rfind("nbfft-tune 1\nnd shape=12x10 ", 0), 0u) << text.str();
  }
  nbfft::nd::forget_tuning();
  const Plan second(MPI_COMM_WORLD, {12, 10}, {0, 1}, o);
  ASSERT_NE(second.tune_report(), nullptr);
  EXPECT_TRUE(second.tune_report()->from_wisdom);
  EXPECT_TRUE(second.tune_report()->trials.empty());
  EXPECT_EQ(second.options().grid, first.options().grid);
  EXPECT_EQ(second.options().transport, first.options().transport);
  EXPECT_EQ(second.options().fields_in_flight, first.options().fields_in_flight);
  EXPECT_EQ(nbfft::nd::get_option(second.options(), "tune_wisdom"), path);
  // Another shape is another key: tuned, and added to the same file.
  nbfft::nd::forget_tuning();
  const Plan other(MPI_COMM_WORLD, {8, 6}, {0, 1}, o);
  EXPECT_FALSE(other.tune_report()->from_wisdom);
  nbfft::nd::forget_tuning();
  EXPECT_TRUE(Plan(MPI_COMM_WORLD, {12, 10}, {0, 1}, o).tune_report()->from_wisdom);
  Options bad = o;
  bad.tune_wisdom = "/nonexistent-dir-of-nbfft/tune.txt";
  expect_error([&] { Plan(MPI_COMM_WORLD, {12, 10}, {0, 1}, bad); }, nbfft::ErrorCode::Io, "cannot be written");
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    std::remove(path.c_str());
    rmdir(dir);
  }
  nbfft::nd::forget_tuning();
}

// The 3-D tuner's log: the process's hook gets the start, every trial and the choice, each
// naming the candidate's options (TuneEvent::candidate); tune_log is a plan option like the
// 3-D plan's (range checked on every rank).
TEST(NdTune, LogsEveryTrial) {
  nbfft::nd::forget_tuning();
  std::vector<nbfft::fft::TuneEvent> events;
  const auto previous = nbfft::fft::set_tune_log([&](const nbfft::fft::TuneEvent& e) { events.push_back(e); });
  Options o;
  o.tune = TuneEffort::Quick;
  o.tune_budget = 60;
  const Plan p(MPI_COMM_WORLD, {12, 10}, {0, 1}, o);
  nbfft::fft::set_tune_log(previous);
  ASSERT_GE(events.size(), 3u);
  using K = nbfft::fft::TuneEvent::Kind;
  EXPECT_EQ(events.front().kind, K::Start);
  EXPECT_NE(events.front().line.find("search of nd 12x10 axes (0, 1) on " + std::to_string(world_size()) + " rank"),
            std::string::npos)
      << events.front().line;
  EXPECT_EQ(events.back().kind, K::Done);
  EXPECT_NE(events.back().candidate.find("grid=" + grid_text(p.options().grid)), std::string::npos)
      << events.back().candidate;
  std::size_t trials = 0;
  for (const auto& e : events)
    if (e.kind == K::Trial) {
      ++trials;
      EXPECT_EQ(e.candidate.rfind("grid=", 0), 0u) << e.line;
      EXPECT_NE(e.line.find(e.candidate), std::string::npos) << e.line;
    }
  EXPECT_GE(trials, p.tune_report()->trials.size());
  // From memory: only the choice.
  events.clear();
  nbfft::fft::set_tune_log([&](const nbfft::fft::TuneEvent& e) { events.push_back(e); });
  const Plan again(MPI_COMM_WORLD, {12, 10}, {0, 1}, o);
  nbfft::fft::set_tune_log(previous);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].from_wisdom);
  Options bad = o;
  bad.tune_log = 3;
  expect_error([&] { Plan(MPI_COMM_WORLD, {12, 10}, {0, 1}, bad); }, nbfft::ErrorCode::InvalidArgument,
               "tune_log = 3 must be in [0, 2]");
  nbfft::nd::forget_tuning();
}

TEST(NdTune, Errors) {
  Options o;
  // tune() without an effort.
  expect_error([&] { nbfft::nd::tune(MPI_COMM_WORLD, {8, 8}, {0, 1}, o); }, nbfft::ErrorCode::InvalidArgument,
               "Options::tune is none");
  // Settings out of range, as text.
  expect_error([&] { nbfft::nd::parse_options("tune_budget=0"); }, nbfft::ErrorCode::InvalidArgument,
               "tune_budget='0' is not valid");
  expect_error([&] { nbfft::nd::parse_options("tune=fast"); }, nbfft::ErrorCode::InvalidArgument,
               "tune='fast' is not valid");
  // The caller's own options cannot make a plan: that plan's error.
  o.tune = TuneEffort::Quick;
  o.grid = {1, 1, 1};
  expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, o); }, nbfft::ErrorCode::InvalidArgument,
               "grid has 3 entries for a 2-D array");
  // Ranks that disagree on tuning, before any of them starts.
  if (world_size() > 1) {
    Options d;
    d.tune = world_rank() == 0 ? TuneEffort::Quick : TuneEffort::None;
    expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8}, {0, 1}, d); }, nbfft::ErrorCode::RanksDisagree,
                 "ranks disagree on tune");
    Options b;
    b.tune = TuneEffort::Quick;
    b.tune_budget = world_rank() == 0 ? 5 : 6;
    expect_error([&] { nbfft::nd::tune(MPI_COMM_WORLD, {8, 8}, {0, 1}, b); }, nbfft::ErrorCode::RanksDisagree,
                 "ranks disagree on tune_budget");
  }
}

}  // namespace
