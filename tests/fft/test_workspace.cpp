// The immutable plan and its workspaces: a workspace made by make_workspace() gives the
// same result as the plan's own, two workspaces of one plan interleave without touching
// each other, a workspace of another plan is refused, and the plan prints what it resolved.
// Every process grid of the communicator size, an uneven grid, bulk and chunked COL.
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "fft_test_util.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <sstream>
#include <string>
#include <vector>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;

double max_diff(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b) {
  double d = 0;
  for (std::size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(a[k] - b[k]));
  double out = 0;
  MPI_Allreduce(&d, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

TEST(Workspace, ExplicitWorkspacesMatchThePlansOwn) {
  const Grid n{17, 13, 11};
  for (const auto& f : factorizations(world_size()))
    for (int cp : {0, 2}) {
      Options o;
      o.m1 = f[0];
      o.m2 = f[1];
      o.transform = TransformKind::C2C;
      o.effort = Effort::Estimate;
      o.col_chunk_planes = cp;
      const Plan plan(MPI_COMM_WORLD, n, o);
      const auto d = random_box(plan.in_box(), n, 2, 7);
      std::vector<std::complex<double>> a(plan.in_count()), b(plan.in_count());
      for (std::size_t k = 0; k < a.size(); ++k) a[k] = {d[2 * k], d[2 * k + 1]};
      for (std::size_t k = 0; k < b.size(); ++k) b[k] = {d[2 * k + 1], -d[2 * k]};
      std::vector<std::complex<double>> ra(plan.out_count()), rb(ra.size()), xa(ra.size()), xb(ra.size());
      plan.forward(a, ra);
      plan.forward(b, rb);
      Plan::Workspace w1 = plan.make_workspace(), w2 = plan.make_workspace();
      EXPECT_GT(w1.bytes(), 0u);
      const std::size_t in_b = a.size() * sizeof(a[0]), out_b = ra.size() * sizeof(ra[0]);
      // Interleaved on two workspaces: each keeps its own buffers.
      plan.forward_bytes(a.data(), in_b, xa.data(), out_b, w1);
      plan.forward_bytes(b.data(), in_b, xb.data(), out_b, w2);
      const std::string what = std::to_string(f[0]) + "x" + std::to_string(f[1]) + " chunk " + std::to_string(cp);
      EXPECT_EQ(max_diff(xa, ra), 0.0) << what;
      EXPECT_EQ(max_diff(xb, rb), 0.0) << what;
      std::vector<std::complex<double>> back(a.size()), back_ref(a.size());
      plan.backward(ra, back_ref);
      plan.backward_bytes(ra.data(), out_b, back.data(), in_b, w2);
      EXPECT_EQ(max_diff(back, back_ref), 0.0) << what;
    }
}

TEST(Workspace, ForeignOrEmptyWorkspaceIsInvalidArgument) {
  Options o;
  o.effort = Effort::Estimate;
  const Grid n{8, 8, 8};
  const Plan p1(MPI_COMM_WORLD, n, o), p2(MPI_COMM_WORLD, n, o);
  Plan::Workspace w = p2.make_workspace();
  std::vector<double> in(p1.in_count());
  std::vector<std::complex<double>> out(p1.out_count());
  const std::size_t ib = in.size() * sizeof(double), ob = out.size() * sizeof(out[0]);
  try {
    p1.forward_bytes(in.data(), ib, out.data(), ob, w);
    FAIL() << "a workspace of another plan was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  }
  Plan::Workspace empty;
  EXPECT_EQ(empty.bytes(), 0u);
  try {
    p1.forward_bytes(in.data(), ib, out.data(), ob, empty);
    FAIL() << "an empty workspace was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  }
}

// The pipeline's second workspace exists from construction: a multi-field call allocates
// nothing, so workspace_bytes() is the same before and after it. Without fields in flight
// the plan holds one workspace, and so does a plan whose transport cannot overlap
// (blocking: the default transport, with the default two fields in flight).
TEST(Workspace, PipelineWorkspaceIsMadeAtConstruction) {
  Options o;
  o.m1 = 1;
  o.m2 = world_size();
  o.effort = Effort::Estimate;
  const Grid n{8, 8, 8};
  const Plan blocking(MPI_COMM_WORLD, n, o);
  o.transport("pairwise@caller");
  o.fields_in_flight = 1;
  const Plan lean(MPI_COMM_WORLD, n, o);
  EXPECT_EQ(blocking.workspace_bytes(), lean.workspace_bytes());
  o.fields_in_flight = 2;
  const Plan plan(MPI_COMM_WORLD, n, o);
  EXPECT_EQ(plan.workspace_bytes(), lean.workspace_bytes() * (world_size() > 1 ? 2 : 1));
  const std::size_t before = plan.workspace_bytes();
  std::vector<std::vector<double>> in(3, std::vector<double>(plan.in_count(), 1.0));
  std::vector<std::vector<std::complex<double>>> out(3, std::vector<std::complex<double>>(plan.out_count()));
  plan.forward_many(in, out);
  EXPECT_EQ(plan.workspace_bytes(), before);
  std::ostringstream os;
  os << plan;
  const std::string s = os.str();
  EXPECT_NE(s.find("COL: " + std::to_string(world_size()) + " rank"), std::string::npos) << s;
  EXPECT_NE(s.find("workspaces: " + std::string(world_size() > 1 ? "2" : "1")), std::string::npos) << s;
  EXPECT_NE(s.find("in box"), std::string::npos) << s;
}

}  // namespace
}  // namespace nbfft::fft::test
