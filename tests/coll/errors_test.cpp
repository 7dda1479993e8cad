// Bad input gets an nbfft::Error that names the problem — never a crash, hang or wrong result.
#include "coll_test_util.hpp"

#include <limits>

using namespace nbfft::coll;
using namespace nbfft::coll::testing;

namespace {

#define EXPECT_ERROR(stmt, needle)                                            \
  do {                                                                        \
    std::string msg_ = error_of([&] { stmt; });                               \
    EXPECT_NE(msg_.find(needle), std::string::npos) << "message: '" << msg_ << "'"; \
  } while (0)

TEST(Errors, CountsAndBuffers) {
  Comm comm(MPI_COMM_WORLD);
  const std::size_t P = static_cast<std::size_t>(comm.size());
  std::vector<int> buf(4 * P);
  std::vector<std::int64_t> ones(P, 1), zeros(P, 0), displs(P);
  for (std::size_t i = 0; i < P; ++i) displs[i] = static_cast<std::int64_t>(i);
  EXPECT_ERROR(alltoall(comm, buf.data(), buf.data(), -1, 4), "negative");
  auto neg = ones;
  neg[P - 1] = -2;
  EXPECT_ERROR(alltoallv(comm, buf.data(), neg, displs, buf.data(), ones, displs, 4), "sendcounts[" + std::to_string(P - 1) + "] is negative");
  auto huge = ones;
  huge[0] = std::numeric_limits<std::int64_t>::max() / 2;
  EXPECT_ERROR(alltoallv(comm, buf.data(), ones, displs, buf.data(), huge, displs, 8), "overflows");
  EXPECT_ERROR(alltoall(comm, nullptr, buf.data(), 1, 4), "sendbuf is null");
  EXPECT_ERROR(alltoall(comm, buf.data(), nullptr, 1, 4), "recvbuf is null");
  EXPECT_ERROR(alltoallv(comm, buf.data(), std::vector<std::int64_t>(P + 1, 1), displs, buf.data(), ones, displs, 4),
               "sendcounts has " + std::to_string(P + 1) + " entries");
  EXPECT_ERROR(alltoall(comm, buf.data(), buf.data(), 1, 0), "element size");
  // Null buffers with nothing to move are fine.
  EXPECT_EQ(error_of([&] { alltoall(comm, nullptr, nullptr, 0, 4).start().wait(); }), "");
}

TEST(Errors, AlgorithmsEnginesTransports) {
  Comm comm(MPI_COMM_WORLD);
  std::vector<int> buf(4 * static_cast<std::size_t>(comm.size()));
  EXPECT_ERROR(alltoall(comm, buf.data(), buf.data(), 1, 4, {"pairwise", 0}), "window must be >= 1");
  EXPECT_ERROR(AlgorithmSpec::parse("pairwise:0"), "window must be >= 1");
  EXPECT_ERROR(AlgorithmSpec::parse("pairwise:x"), "not an integer");
  EXPECT_ERROR(AlgorithmSpec::parse("bruck:2"), "takes no window");
  EXPECT_ERROR(alltoall(comm, buf.data(), buf.data(), 1, 4, {"fastest", 1}), "unknown alltoall algorithm 'fastest'");
  EXPECT_ERROR(parse_engine("gpu"), "unknown progress engine 'gpu'");
  EXPECT_ERROR(Transport::parse("hyper"), "unknown transport 'hyper'");
  EXPECT_ERROR(Transport::parse("pairwise:2@nic"), "unknown progress engine 'nic'");
  EXPECT_ERROR(parse_transports("blocking,,thread"), "empty entry");
  Transport t = Transport::parse("thread");
  EXPECT_EQ(t.str(), "pairwise:4@thread");
  EXPECT_EQ(Transport::parse(t.str()).str(), t.str());
}

TEST(Errors, RequestLifecycle) {
  Comm comm(MPI_COMM_WORLD);
  std::vector<int> s(static_cast<std::size_t>(comm.size())), r(s.size());
  Collective c = alltoall(comm, s.data(), r.data(), 1, 4);
  // Rank 0 starts only after every other rank has checked that a second start is refused,
  // so on those ranks the first start cannot have completed yet.
  const int me = comm.rank(), P = comm.size();
  int token = 0;
  Request req;
  if (me != 0) {
    req = c.start();
    EXPECT_ERROR(c.start(), "still active");
    MPI_Send(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
  } else {
    for (int p = 1; p < P; ++p) MPI_Recv(&token, 1, MPI_INT, p, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    req = c.start();
  }
  req.wait();
  EXPECT_ERROR(req.wait(), "used after it was freed");
  EXPECT_ERROR(req.test(), "used after it was freed");
  Request never;
  EXPECT_ERROR(never.wait(), "never started");
  Request again = c.start();  // restart after completion is fine
  again.wait();
  Collective empty;
  EXPECT_ERROR(empty.start(), "never built");
}

}  // namespace
