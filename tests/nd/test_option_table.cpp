// One option table for every plan (nbfft/fft/option_table.hpp, issue 34): each row says which
// plans it applies to; the 3-D plan reads its rows through fft::set_option, N-D plans theirs
// through nd::set_option, with the same words, aliases and ranges; a row of the other plan is
// an error naming where it applies; one default per key both plans have (output_order and
// kinds' spelling excepted, docs/fft.md "Defaults"); and the per-axis process grid is a
// spelling both plans read.
#include "nbfft/error.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/nd/options_text.hpp"
#include "nbfft/nd/plan.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

namespace {

namespace fft = nbfft::fft;
namespace nd = nbfft::nd;

std::string error_of(void (*f)(const std::string&, const std::string&), const std::string& k, const std::string& v) {
  try {
    f(k, v);
  } catch (const nbfft::Error& e) {
    return e.message();
  }
  return "";
}

void set_3d(const std::string& k, const std::string& v) {
  fft::Options o;
  fft::set_option(o, k, v);
}
void set_nd(const std::string& k, const std::string& v) {
  nd::Options o;
  nd::set_option(o, k, v);
}

TEST(OptionTable, EveryRowReachesThePlansItAppliesTo) {
  int rows_nd = 0;
  for (const auto& r : fft::option_rows()) {
    const std::string example = r.example;
    if (fft::applies_to_3d(r.scope)) {
      EXPECT_TRUE(r.get && r.set) << r.key;
      EXPECT_EQ(error_of(set_3d, r.key, example), "") << r.key;
    } else {
      EXPECT_NE(error_of(set_3d, r.key, example).find("N-D plans only"), std::string::npos) << r.key;
    }
    if (fft::applies_to_nd(r.scope)) {
      ++rows_nd;
      // The 3-D example of backend is a library per stage, the 3-D plan's only.
      const std::string v = std::string(r.key) == "backend" ? "fftw" : example;
      nd::Options o;
      EXPECT_NO_THROW(nd::set_option(o, r.key, v)) << r.key;
      if (std::string(r.key) != "transport") {
        EXPECT_EQ(nd::get_option(o, r.key), v) << r.key;
      }
    } else {
      EXPECT_NE(error_of(set_nd, r.key, example).find("3-D plan only"), std::string::npos) << r.key;
    }
  }
  EXPECT_EQ(static_cast<std::size_t>(rows_nd), nd::option_keys().size());
}

TEST(OptionTable, OneDefaultPerSharedKey) {
  const fft::Options d3;
  const nd::Options dn;
  for (const auto& r : fft::option_rows()) {
    if (r.scope != fft::OptionScope::All) continue;
    const std::string key = r.key;
    if (key == "output_order" || key == "kinds") continue;  // docs/fft.md "Defaults" says why
    EXPECT_EQ(r.get(d3), nd::get_option(dn, key)) << key;
  }
  EXPECT_EQ(fft::get_option(d3, "effort"), "measure");
  EXPECT_EQ(fft::get_option(d3, "fields_in_flight"), "2");
}

TEST(OptionTable, AliasesAndWordsAreTheSameInBothPlans) {
  nd::Options n;
  nd::set_option(n, "kind", "c2c");  // transform's other spelling
  nd::set_option(n, "grid", "2x1");  // proc_grid's
  EXPECT_EQ(nd::get_option(n, "transform"), "c2c");
  EXPECT_EQ(nd::get_option(n, "proc_grid"), "2x1");
  fft::Options o;
  fft::set_option(o, "kind", "c2c");
  EXPECT_EQ(fft::get_option(o, "transform"), "c2c");
  nd::set_option(n, "lean_workspace", "yes");  // the table's boolean words, in both
  EXPECT_TRUE(n.lean_workspace);
  EXPECT_NE(error_of(set_nd, "tune_fields", "4097").find("tune_fields"), std::string::npos);
  EXPECT_EQ(error_of(set_nd, "tune_fields", "4096"), "");  // the one range, 1..4096
  EXPECT_NE(error_of(set_nd, "backend", "fftw,mkl,mkl").find("3-D plan"), std::string::npos);
}

TEST(OptionTable, ProcGridPerAxisIsASpellingOfBothPlans) {
  fft::Options o;
  fft::set_option(o, "proc_grid", "3x2x1");  // z over 3 ranks (M2), y over 2 (M1), x whole
  EXPECT_EQ(o.m1, 2);
  EXPECT_EQ(o.m2, 3);
  EXPECT_EQ(fft::get_option(o, "proc_grid"), "2x3");
  EXPECT_NE(error_of(set_3d, "proc_grid", "2x2x2").find("keeps x whole"), std::string::npos);
  EXPECT_NE(error_of(set_3d, "proc_grid", "2x0x1").find("process grid"), std::string::npos);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The same decomposition from either spelling, in each plan.
  fft::Options a, b;
  a.effort = b.effort = fft::Effort::Estimate;
  fft::set_option(a, "proc_grid", std::to_string(size) + "x1x1");
  fft::set_option(b, "proc_grid", "1x" + std::to_string(size));
  const fft::Plan pa(MPI_COMM_WORLD, {8, 6, 10}, a), pb(MPI_COMM_WORLD, {8, 6, 10}, b);
  EXPECT_EQ(pa.m1(), pb.m1());
  EXPECT_EQ(pa.m2(), pb.m2());
  const nd::Plan q(MPI_COMM_WORLD, {10, 6, 8}, {0, 1, 2},
                   nd::parse_options("effort=estimate proc_grid=" + std::to_string(size) + "x1x1"));
  EXPECT_EQ(q.grid(), (std::vector<int>{size, 1, 1}));
}

}  // namespace
