// Bad input gets an nbfft::Error that names the problem, on every rank, and never a hang.
#include "nbfft/fft/fft.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <string>

namespace nbfft::fft::test {
namespace {

// Runs f, expects an nbfft::Error whose message contains `what`.
template <typename F>
void expect_error(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << what << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << what << "'";
  }
}

Options quick() {
  Options o;
  o.effort = Effort::Estimate;
  return o;
}

TEST(Errors, ProcessGridMustMatchCommunicatorSize) {
  Options o = quick();
  o.m1 = 2;
  o.m2 = world_size();
  expect_error([&] { Plan(MPI_COMM_WORLD, {16, 16, 16}, o); }, "M1*M2 must equal the communicator size");
  o.m1 = -1;
  expect_error([&] { Plan(MPI_COMM_WORLD, {16, 16, 16}, o); }, "negative");
}

TEST(Errors, ProcessGridDimensionMustDivide) {
  if (world_size() < 2) GTEST_SKIP() << "needs a composite communicator size";
  Options o = quick();
  o.m1 = world_size() + 1;
  o.m2 = 0;
  expect_error([&] { Plan(MPI_COMM_WORLD, {16, 16, 16}, o); }, "does not divide");
}

TEST(Errors, SizesMustBePositive) {
  expect_error([&] { Plan(MPI_COMM_WORLD, {0, 8, 8}, quick()); }, "nx = 0 must be positive");
  expect_error([&] { Plan(MPI_COMM_WORLD, {8, -3, 8}, quick()); }, "ny = -3 must be positive");
  expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8, 0}, quick()); }, "nz = 0 must be positive");
}

TEST(Errors, ImpossibleDecompositionWithoutEmptyBoxes) {
  if (world_size() < 2) GTEST_SKIP() << "every grid fits one rank";
  Options o = quick();
  o.allow_empty = false;
  o.m1 = 1;
  o.m2 = world_size();
  expect_error([&] { Plan(MPI_COMM_WORLD, {8, 8, 1}, o); }, "nz = 1");
  o.m1 = world_size();
  o.m2 = 1;
  // r2c of nx = 2 has 2 complex x-points.
  if (world_size() > 2) expect_error([&] { Plan(MPI_COMM_WORLD, {2, 64, 4}, o); }, "complex x-points");
}

TEST(Errors, RanksMustAgree) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const std::int64_t nx = world_rank() == 0 ? 16 : 8;
  expect_error([&] { Plan(MPI_COMM_WORLD, {nx, 8, 8}, quick()); }, "ranks disagree");
}

TEST(Errors, UnknownTransportName) {
  expect_error([&] { Options().transport("warp-drive"); }, "warp-drive");
}

TEST(Errors, BadWords) {
  expect_error([&] { parse_proc_grid("2by3"); }, "bad process grid '2by3'");
  expect_error([&] { parse_proc_grid("0x4"); }, "bad process grid");
  // Digits only (strtol alone would skip a sign or spaces), and the plan option's form
  // (least = 0: a 0 is derived) is the same parser.
  expect_error([&] { parse_proc_grid("+2x4"); }, "bad process grid '+2x4'");
  expect_error([&] { parse_proc_grid("2x 4"); }, "bad process grid '2x 4'");
  expect_error([&] { parse_proc_grid("-1x4", 0); }, "integers >= 0");
  EXPECT_EQ(parse_proc_grid("0x4", 0), std::make_pair(0, 4));
  EXPECT_EQ(parse_proc_grid("3X2"), std::make_pair(3, 2));
  expect_error([&] { parse_precision("half"); }, "unknown precision 'half'");
  expect_error([&] { parse_transform("dct"); }, "unknown transform 'dct'");
  expect_error([&] { parse_norm("sqrt"); }, "unknown normalization 'sqrt'");
  expect_error([&] { parse_effort("fast"); }, "unknown planner effort 'fast'");
  EXPECT_EQ(parse_proc_grid("2x3"), std::make_pair(2, 3));
}

TEST(Errors, UserBuffersSmallerThanTheBox) {
  Plan plan(MPI_COMM_WORLD, {16, 12, 10}, quick());
  ASSERT_GT(plan.in_count(), 0);
  ASSERT_GT(plan.out_count(), 0);
  std::vector<double> in(plan.in_count());
  std::vector<std::complex<double>> out(plan.out_count());
  expect_error([&] { plan.forward(in.data(), in.size() - 1, out.data(), out.size()); },
               "input buffer has");
  expect_error([&] { plan.forward(in.data(), in.size(), out.data(), out.size() - 1); },
               "output buffer has");
  expect_error([&] { plan.backward(out.data(), out.size() - 1, in.data(), in.size()); },
               "input buffer has");
  // In place needs the larger of the two boxes.
  std::vector<std::complex<double>> one(plan.out_count() - 1);
  expect_error([&] {
    plan.forward(reinterpret_cast<double*>(one.data()), 2 * one.size(), one.data(), one.size());
  }, "in-place buffer has");
  // Wrong precision / transform for the plan.
  std::vector<float> inf(plan.in_count());
  std::vector<std::complex<float>> outf(plan.out_count());
  expect_error([&] { plan.forward(inf, outf); }, "the plan is double precision r2c");
  std::vector<std::complex<double>> inc(plan.in_count());
  expect_error([&] { plan.forward(inc, out); }, "called with double precision complex in");
  // The plan still works after all that.
  EXPECT_NO_THROW(plan.forward(in, out));
}

TEST(Errors, WisdomFileThatIsNotWisdom) {
  const std::string path = "/tmp/nbfft_not_wisdom_" + std::to_string(world_size()) + ".txt";
  if (world_rank() == 0) {
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("hello\n", f);
    std::fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_error([&] { load_wisdom(MPI_COMM_WORLD, path); }, "is not an nbfft wisdom file");
  EXPECT_FALSE(load_wisdom(MPI_COMM_WORLD, path + ".missing"));
}

TEST(Wisdom, SaveAndLoadRoundTrip) {
  Options o;
  o.effort = Effort::Measure;
  Plan plan(MPI_COMM_WORLD, {8, 8, 8}, o);
  const std::string path = "/tmp/nbfft_wisdom_test_" + std::to_string(world_size()) + ".txt";
  save_wisdom(MPI_COMM_WORLD, path);
  EXPECT_TRUE(load_wisdom(MPI_COMM_WORLD, path));
}

}  // namespace
}  // namespace nbfft::fft::test
