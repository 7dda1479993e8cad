// The trace recorder: a collective on every rank shows up in rank 0's merged file with one
// process per rank, balanced in-flight intervals, host waits, the engine lane and the FFT
// stages marked through PhaseClock; nothing is recorded while tracing is off.
#include "coll_test_util.hpp"
#include "nbfft/coll/trace.hpp"
#include "nbfft/fft/timings.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace nbfft::coll;
using namespace nbfft::coll::testing;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

long count(const std::string& s, const std::string& what) {
  long n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::string temp_path(const char* tag) {
  int pid = static_cast<int>(getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return "/tmp/nbfft_trace_test_" + std::to_string(pid) + "_" + tag + ".json";
}

TEST(Trace, RecordsEveryRanksCollectivesAndStages) {
  const int me = world_rank(), P = world_size();
  const std::string path = temp_path("on");
  ASSERT_FALSE(nbfft::trace::enabled());
  nbfft::trace::start(path);
  ASSERT_TRUE(nbfft::trace::enabled());
  const int rounds = 3;
  for (EngineKind e : {EngineKind::Caller, EngineKind::Thread}) {
    Comm comm(MPI_COMM_WORLD, e);
    std::vector<int> send(static_cast<std::size_t>(P), me), recv(static_cast<std::size_t>(P), -1);
    Collective c = alltoall(comm, send.data(), recv.data(), 1, sizeof(int), {"pairwise", 2});
    for (int i = 0; i < rounds; ++i) c.start().wait();
    for (int r = 0; r < P; ++r) ASSERT_EQ(recv[static_cast<std::size_t>(r)], r);
  }
  nbfft::fft::PhaseClock clk(nullptr);  // no Timings: the trace alone turns the clock on
  clk.mark(&nbfft::fft::Timings::fft_x);
  clk.mark(&nbfft::fft::Timings::col);
  const long n = nbfft::trace::stop(MPI_COMM_WORLD);
  EXPECT_FALSE(nbfft::trace::enabled());
  if (me == 0) {
    const std::string t = slurp(path);
    EXPECT_GT(n, 0);
    EXPECT_EQ(t.rfind("{\"displayTimeUnit\"", 0), 0u);
    for (int r = 0; r < P; ++r) EXPECT_EQ(count(t, "\"name\":\"rank " + std::to_string(r) + "\""), 1) << r;
    // Every start's in-flight interval is closed: 2 engines x rounds per rank.
    EXPECT_EQ(count(t, "\"ph\":\"b\""), 2L * rounds * P);
    EXPECT_EQ(count(t, "\"ph\":\"e\""), 2L * rounds * P);
    EXPECT_EQ(count(t, "\"name\":\"wait\""), 2L * rounds * P);
    EXPECT_EQ(count(t, "\"name\":\"fft_x\""), P);
    EXPECT_EQ(count(t, "\"name\":\"col\""), P);
    EXPECT_EQ(count(t, "\"args\":{\"name\":\"fft\"}"), P);
    std::remove(path.c_str());
  }
}

TEST(Trace, OffRecordsNothing) {
  const int me = world_rank(), P = world_size();
  const std::string path = temp_path("off");
  nbfft::trace::start(path);
  const long empty = nbfft::trace::stop(MPI_COMM_WORLD);  // only the metadata of each rank
  Comm comm(MPI_COMM_WORLD, EngineKind::Caller);
  std::vector<int> send(static_cast<std::size_t>(P), me), recv(static_cast<std::size_t>(P), -1);
  alltoall(comm, send.data(), recv.data(), 1, sizeof(int), {"pairwise", 2}).start().wait();
  nbfft::fft::PhaseClock clk(nullptr);
  clk.mark(&nbfft::fft::Timings::fft_x);
  nbfft::trace::start(path);
  const long after = nbfft::trace::stop(MPI_COMM_WORLD);
  if (me == 0) {
    EXPECT_EQ(after, empty);
    EXPECT_EQ(count(slurp(path), "\"ph\":\"X\""), 0);
    std::remove(path.c_str());
  }
}

}  // namespace
