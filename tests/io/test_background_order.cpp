// The completion rule of background writes (nbfft/io/hdf5.hpp, "The completion rule"), under
// real MPI at 1-4 ranks: ranks that wait for their writes in different orders (or drop some)
// still commit a file whose every dataset reads back with its checksum; a rank that starts
// a write while another waits, or destroys its file while another closes it, is an error on
// every rank and the previous checkpoint stays; the plan may go before the wait; the
// checkpoint's temporary is never written through a link left at its name.
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"
#include "tests/io/io_test_util.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <complex>
#include <fstream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace nbfft::io {
namespace {

using fft::Plan;
using test::expect_error;
using test::fill;
using test::mismatches;
using test::remove_file;
using test::world_rank;
using test::world_size;

std::string temp_path(const std::string& tag) { return test::temp_path("nbfft-iobg-order-", tag); }

fft::Options opts() {
  fft::Options o;
  o.effort = fft::Effort::Estimate;
  return o;
}

// A committed checkpoint holding field "old" at step 0: what every failure must leave.
void write_previous(const Plan& plan, const std::string& path) {
  H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
  f.write(plan, Space::Physical, "old", 0, 0.0, fill<double>(plan.in_box(), 99));
  f.close();
}

void expect_previous(const Plan& plan, const std::string& path) {
  H5File r(MPI_COMM_WORLD, path);
  EXPECT_EQ(r.fields(), (std::vector<std::string>{"old"}));
  std::vector<double> back(std::size_t(plan.in_count()));
  r.read(plan, Space::Physical, "old", 0, back);
  EXPECT_EQ(mismatches(plan.in_box(), back, 99), 0);
}

// This rank's order of waiting for n writes: rank 0 in start order, rank 1 reversed, the
// others rotated by their rank, so every pair of ranks disagrees somewhere.
std::vector<int> order_of_rank(int n) {
  std::vector<int> o(std::size_t(n), 0);
  std::iota(o.begin(), o.end(), 0);
  const int r = world_rank();
  if (r == 1) std::reverse(o.begin(), o.end());
  else if (r > 1) std::rotate(o.begin(), o.begin() + r % n, o.end());
  return o;
}

// Six writes (physical and spectral, both ways a background write takes), each rank
// waiting in its own order, rank 2 dropping one unwaited: the file commits, every dataset
// reads back (read() checks its checksum) and the previous checkpoint is replaced.
void waits_in_any_order(const char* run_bytes) {
  setenv("NBFFT_IO_BG_RUN_BYTES", run_bytes, 1);
  const std::string path = temp_path("any");
  Plan plan(MPI_COMM_WORLD, {9, 7, 6}, opts());
  write_previous(plan, path);
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    std::vector<H5File::Pending> w;
    for (int step = 1; step <= 3; ++step) {
      w.push_back(f.write_start(plan, Space::Physical, "u", step, 0.1 * step, fill<double>(plan.in_box(), step)));
      w.push_back(f.write_start(plan, Space::Spectral, "U", step, 0.1 * step,
                                fill<std::complex<double>>(plan.out_box(), 10 + step)));
    }
    for (int i : order_of_rank(int(w.size()))) {
      if (world_rank() == 2 && i == 4) {
        H5File::Pending dropped(std::move(w[std::size_t(i)]));  // completes this rank's part only
        continue;
      }
      w[std::size_t(i)].wait();
      EXPECT_FALSE(w[std::size_t(i)].valid());
    }
    for (auto& p : w) EXPECT_FALSE(p.active());  // every write is settled once each rank waited
    f.close();
  }
  {
    H5File r(MPI_COMM_WORLD, path);
    EXPECT_EQ(r.fields(), (std::vector<std::string>{"U", "u"}));
    std::vector<double> u(std::size_t(plan.in_count()));
    std::vector<std::complex<double>> U(std::size_t(plan.out_count()));
    for (int step = 1; step <= 3; ++step) {
      r.read(plan, Space::Physical, "u", step, u);
      r.read(plan, Space::Spectral, "U", step, U);
      EXPECT_EQ(mismatches(plan.in_box(), u, step), 0) << "step " << step;
      EXPECT_EQ(mismatches(plan.out_box(), U, 10 + step), 0) << "step " << step;
      EXPECT_DOUBLE_EQ(r.time("U", step), 0.1 * step);
    }
  }
  remove_file(path);
  unsetenv("NBFFT_IO_BG_RUN_BYTES");
}

TEST(Hdf5BackgroundOrder, WaitsInAnyOrderStreamed) { waits_in_any_order("0"); }
TEST(Hdf5BackgroundOrder, WaitsInAnyOrderThroughAView) { waits_in_any_order("1099511627776"); }

// A wait settles every write up to the latest any rank waits for: after rank 0 waits for
// the last write (and the others for the first), none is in flight on any rank, and the
// later waits return at once, each with its own write's outcome.
TEST(Hdf5BackgroundOrder, OneWaitSettlesUpToTheLatestAnyRankWaitsFor) {
  const std::string path = temp_path("prefix");
  Plan plan(MPI_COMM_WORLD, {8, 6, 5}, opts());
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    std::vector<H5File::Pending> w;
    for (int step = 1; step <= 3; ++step)
      w.push_back(f.write_start(plan, Space::Physical, "u", step, 0.0, fill<double>(plan.in_box(), step)));
    w[world_rank() == 0 ? 2 : 0].wait();
    for (auto& p : w) EXPECT_FALSE(p.active());
    // Nothing is in flight: the file's other calls work again (they were refused before).
    EXPECT_EQ(f.steps("u"), (std::vector<std::int64_t>{1, 2, 3}));
    for (auto& p : w)
      if (p.valid()) {
        EXPECT_TRUE(p.test());
        p.wait();
      }
    expect_error([&] { w[1].wait(); }, ErrorCode::InvalidState, "no write in flight");
    expect_error([&] { w[1].test(); }, ErrorCode::InvalidState, "no write in flight");
    f.close();
  }
  remove_file(path);
}

// A rank that starts a write while another waits meets it in the first allreduce: both
// calls fail with RanksDisagree, on every rank, and close() then keeps the previous file.
TEST(Hdf5BackgroundOrder, AStartMeetingAWaitFailsOnEveryRankAndCommitsNothing) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks to disagree";
  const std::string path = temp_path("meet");
  Plan plan(MPI_COMM_WORLD, {7, 6, 5}, opts());
  write_previous(plan, path);
  const auto u = fill<double>(plan.in_box(), 1);
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    H5File::Pending a = f.write_start(plan, Space::Physical, "u", 1, 0.0, u);
    H5File::Pending b;
    if (world_rank() == 0) {
      expect_error([&] { a.wait(); }, ErrorCode::RanksDisagree, "write_start");
      EXPECT_TRUE(a.valid());  // the failed wait left it to close()
    } else {
      expect_error([&] { b = f.write_start(plan, Space::Physical, "u", 2, 0.0, u); }, ErrorCode::RanksDisagree,
                   "wait");
    }
    expect_error([&] { f.close(); }, ErrorCode::Io, "is unchanged");
  }
  expect_previous(plan, path);
  remove_file(path);
}

// One rank's file destroyed unclosed (an exception there) while the others close it: the
// others' waits say it was discarded, their close() says why, and nothing is committed.
TEST(Hdf5BackgroundOrder, AFileDestroyedOnOneRankIsDiscardedOnEvery) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks to disagree";
  const std::string path = temp_path("destroyed");
  Plan plan(MPI_COMM_WORLD, {7, 5, 6}, opts());
  write_previous(plan, path);
  const auto u = fill<double>(plan.in_box(), 1);
  for (bool in_flight : {true, false}) {
    SCOPED_TRACE(in_flight ? "a write in flight" : "no write in flight");
    H5File::Pending a;
    {
      auto f = std::make_unique<H5File>(MPI_COMM_WORLD, path, H5File::Mode::Create);
      if (in_flight) a = f->write_start(plan, Space::Physical, "u", 1, 0.0, u);
      else f->write(plan, Space::Physical, "u", 1, 0.0, u);
      if (world_rank() == 0) {
        f.reset();
      } else {
        if (in_flight) expect_error([&] { a.wait(); }, ErrorCode::InvalidState, "discarded");
        expect_error([&] { f->close(); }, ErrorCode::InvalidState, "another rank destroyed");
      }
    }
    if (in_flight && world_rank() == 0) expect_error([&] { a.wait(); }, ErrorCode::InvalidState, "discarded");
    expect_previous(plan, path);
  }
  remove_file(path);
}

// The plan may be destroyed once write_start returns (the wait needs only what the start
// took of it): the file is whole and records that plan.
TEST(Hdf5BackgroundOrder, ThePlanMayGoBeforeTheWait) {
  const std::string path = temp_path("noplan");
  auto plan = std::make_unique<Plan>(MPI_COMM_WORLD, std::array<std::int64_t, 3>{6, 7, 8}, opts());
  const auto box = plan->in_box();
  const std::int64_t count = plan->in_count();
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    for (auto stage : {H5File::Stage::Copy, H5File::Stage::Borrow}) {
      const int step = stage == H5File::Stage::Copy ? 1 : 2;
      const auto u = fill<double>(box, step);
      auto p = std::make_unique<Plan>(MPI_COMM_WORLD, std::array<std::int64_t, 3>{6, 7, 8}, opts());
      H5File::Pending w = f.write_start(*p, Space::Physical, "u", step, 0.0, u, stage);
      p.reset();
      w.wait();
    }
    f.close();
  }
  {
    H5File r(MPI_COMM_WORLD, path);
    std::vector<double> back(static_cast<std::size_t>(count));
    for (int step : {1, 2}) {
      r.read(*plan, Space::Physical, "u", step, back);
      EXPECT_EQ(mismatches(box, back, step), 0);
    }
  }
  remove_file(path);
}

std::string contents(const std::string& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// A symbolic link left at the checkpoint's temporary name (by accident or by someone else)
// is removed, not written through: the file it points to keeps its bytes. A directory
// there is an error on every rank and stays.
TEST(Hdf5BackgroundOrder, TheTemporaryIsNeverWrittenThroughALink) {
  const std::string path = temp_path("link");
  const std::string victim = path + ".victim", tmp = path + ".nbfft-tmp";
  Plan plan(MPI_COMM_WORLD, {6, 5, 4}, opts());
  if (world_rank() == 0) {
    std::ofstream(victim) << "precious";
    ASSERT_EQ(symlink(victim.c_str(), tmp.c_str()), 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write_start(plan, Space::Physical, "u", 1, 0.0, fill<double>(plan.in_box(), 1)).wait();
    f.close();
  }
  EXPECT_EQ(contents(victim), "precious");
  {
    H5File r(MPI_COMM_WORLD, path);
    std::vector<double> back(std::size_t(plan.in_count()));
    r.read(plan, Space::Physical, "u", 1, back);
    EXPECT_EQ(mismatches(plan.in_box(), back, 1), 0);
  }
  if (world_rank() == 0) {
    ASSERT_EQ(mkdir(tmp.c_str(), 0755), 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_error([&] { H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create); }, ErrorCode::Io, "is a directory");
  struct stat st {};
  EXPECT_EQ(stat(tmp.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    rmdir(tmp.c_str());
    std::remove(victim.c_str());
  }
  remove_file(path);
}

}  // namespace
}  // namespace nbfft::io
