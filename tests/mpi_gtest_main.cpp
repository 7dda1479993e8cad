// main() for the MPI test binaries. Every rank runs every test; only rank 0 prints the
// progress lines, but any rank's failure is printed by that rank and fails the run.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {

// Prints failures from non-root ranks (the default printer is removed there).
class FailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, r.file_name() ? r.file_name() : "?",
                   r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  // A filter or shard (cmake/NbfftMpiTest.cmake's MPICH_AT4 / MPICH_SPLIT, or a ctest ARGS
  // filter) that matches no case would otherwise pass having tested nothing, e.g. after a
  // case is renamed.
  if (testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    if (rank == 0) std::fprintf(stderr, "no test case was selected (check the filter or shard)\n");
    failed = 1;
  }
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // Every selected case skipped (GTEST_SKIP: no GPU here, too few ranks): exit 77, which
  // cmake/NbfftMpiTest.cmake registers as ctest's SKIP_RETURN_CODE, so the run is reported
  // SKIPPED rather than passed.
  const auto* ut = testing::UnitTest::GetInstance();
  const bool all_skipped =
      !any_failed && ut->test_to_run_count() > 0 && ut->skipped_test_count() == ut->test_to_run_count();
  MPI_Finalize();
  if (all_skipped) return 77;
  return any_failed;
}
