// A misuse campaign of nbfft::io (H5File), at 1-4 ranks: each case is one mistake a user
// makes, and must be the same nbfft::Error on every rank (the kind and the words that name
// the cause), never a hang, a crash or a silent result; and a checkpoint committed before
// the mistake must read back unchanged after it. Ranks that disagree (an option, a name, a
// step, a plan of another grid, one rank in another call), sizes and limits (an alignment
// no file system uses, a time that is not finite), stored metadata the plan does not match
// (another norm or r2r kinds), and lifetimes (moved-from files and writes, waits after
// close, the temporary's name taken).
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"
#include "tests/io/io_test_util.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <complex>
#include <functional>
#include <limits>
#include <memory>
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

std::string temp_path(const std::string& tag) { return test::temp_path("nbfft-io-misuse-", tag); }

fft::Options opts(int m1 = 0, int m2 = 0) {
  fft::Options o;
  o.effort = fft::Effort::Estimate;
  o.m1 = m1;
  o.m2 = m2;
  return o;
}

const std::array<std::int64_t, 3> kGrid{8, 6, 5};

// What every case gets: a plan, its fields, and a file holding a committed checkpoint
// ("old" at step 0, "u" at steps 1 and 2 physical, "U" at step 1 spectral).
struct Ctx {
  std::string path;
  Plan plan{MPI_COMM_WORLD, kGrid, opts()};
  std::vector<double> u = fill<double>(plan.in_box(), 1);
  std::vector<std::complex<double>> U = fill<std::complex<double>>(plan.out_box(), 2);
  int rank = world_rank(), size = world_size();
};

void commit_checkpoint(Ctx& c) {
  H5File f(MPI_COMM_WORLD, c.path, H5File::Mode::Create);
  f.write(c.plan, Space::Physical, "old", 0, 0.0, fill<double>(c.plan.in_box(), 9));
  f.write(c.plan, Space::Physical, "u", 1, 0.1, c.u);
  f.write(c.plan, Space::Physical, "u", 2, 0.2, c.u);
  f.write(c.plan, Space::Spectral, "U", 1, 0.1, c.U);
  f.close();
}

void expect_checkpoint(Ctx& c) {
  H5File r(MPI_COMM_WORLD, c.path);
  EXPECT_EQ(r.fields(), (std::vector<std::string>{"U", "old", "u"}));
  EXPECT_EQ(r.steps("u"), (std::vector<std::int64_t>{1, 2}));
  std::vector<double> back(c.u.size());
  r.read(c.plan, Space::Physical, "u", 2, back);
  EXPECT_EQ(mismatches(c.plan.in_box(), back, 1), 0);
  std::vector<std::complex<double>> spec(c.U.size());
  r.read(c.plan, Space::Spectral, "U", 1, spec);
  EXPECT_EQ(mismatches(c.plan.out_box(), spec, 2), 0);
}

struct Case {
  const char* name;
  int min_ranks;  // the mistake needs ranks to disagree
  ErrorCode code;
  const char* what;  // words the message must hold
  std::function<void(Ctx&)> run;
};

// Options of a Create that differ on the last rank only.
H5Options last_rank_differs(std::function<void(H5Options&)> change) {
  H5Options o;
  if (world_rank() == world_size() - 1) change(o);
  return o;
}

// The last rank passes `other`, the others `mine`.
template <typename T>
T on_last(T mine, T other) {
  return world_rank() == world_size() - 1 ? other : mine;
}

enum class Group { Disagree, Sizes, Metadata, Lifetimes };

std::vector<Case> cases(Group group) {
  const auto create = [](Ctx& c, const H5Options& o = {}) {
    return H5File(MPI_COMM_WORLD, c.path, H5File::Mode::Create, o);
  };
  const auto append = [](Ctx& c) { return H5File(MPI_COMM_WORLD, c.path, H5File::Mode::Append); };
  const auto reader = [](Ctx& c) { return H5File(MPI_COMM_WORLD, c.path); };
  // A new file beside the checkpoint, for mistakes made with background writes (Append
  // writes in place, so a started write would change the checkpoint itself).
  const auto scratch = [](Ctx& c) { return H5File(MPI_COMM_WORLD, c.path + ".new", H5File::Mode::Create); };
  std::vector<Case> v;
  if (group == Group::Disagree) {
  // ---- Ranks that disagree: RanksDisagree on every rank, before anything is written.
  v.push_back({"xdmf on one rank only", 2, ErrorCode::RanksDisagree, "ranks disagree on xdmf", [=](Ctx& c) {
                 create(c, last_rank_differs([](H5Options& o) { o.xdmf = false; }));
               }});
  v.push_back({"sync on one rank only", 2, ErrorCode::RanksDisagree, "ranks disagree on sync", [=](Ctx& c) {
                 create(c, last_rank_differs([](H5Options& o) { o.sync = false; }));
               }});
  v.push_back({"alignment on one rank only", 2, ErrorCode::RanksDisagree, "ranks disagree on alignment", [=](Ctx& c) {
                 create(c, last_rank_differs([](H5Options& o) { o.alignment = 1 << 20; }));
               }});
  v.push_back({"align_threshold on one rank only", 2, ErrorCode::RanksDisagree, "ranks disagree on alignment",
               [=](Ctx& c) { create(c, last_rank_differs([](H5Options& o) { o.align_threshold = 512; })); }});
  v.push_back({"chunk on one rank only", 2, ErrorCode::RanksDisagree, "ranks disagree on chunk", [=](Ctx& c) {
                 create(c, last_rank_differs([](H5Options& o) { o.chunk = {2, 2, 2}; }));
               }});
  v.push_back({"box lengths on one rank only", 2, ErrorCode::RanksDisagree, "ranks disagree on box_lengths",
               [=](Ctx& c) { create(c, last_rank_differs([](H5Options& o) { o.box_lengths = {1, 1, 1}; })); }});
  v.push_back({"the mode on one rank only", 2, ErrorCode::RanksDisagree, "ranks disagree on open", [=](Ctx& c) {
                 H5File f(MPI_COMM_WORLD, c.path, on_last(H5File::Mode::Read, H5File::Mode::Append));
               }});
  v.push_back({"the path on one rank only", 2, ErrorCode::RanksDisagree, "ranks disagree on path", [=](Ctx& c) {
                 H5File f(MPI_COMM_WORLD, on_last(c.path, c.path + ".other"));
               }});
  v.push_back({"a write's field name", 2, ErrorCode::RanksDisagree, "ranks disagree on field", [=](Ctx& c) {
                 auto f = append(c);
                 f.write(c.plan, Space::Physical, on_last<std::string>("v", "w"), 3, 0.3, c.u);
               }});
  v.push_back({"a write's time", 2, ErrorCode::RanksDisagree, "ranks disagree on time", [=](Ctx& c) {
                 auto f = append(c);
                 f.write(c.plan, Space::Physical, "u", 3, on_last(0.3, 0.4), c.u);
               }});
  v.push_back({"a write's space", 2, ErrorCode::RanksDisagree, "ranks disagree on", [=](Ctx& c) {
                 auto f = append(c);
                 if (c.rank == c.size - 1) f.write(c.plan, Space::Spectral, "u", 3, 0.3, c.U);
                 else f.write(c.plan, Space::Physical, "u", 3, 0.3, c.u);
               }});
  v.push_back({"a write with plans of other grids", 2, ErrorCode::RanksDisagree, "ranks disagree on process grid",
               [=](Ctx& c) {
                 Plan slab(MPI_COMM_WORLD, kGrid, opts(1, c.size)), other(MPI_COMM_WORLD, kGrid, opts(c.size, 1));
                 const Plan& p = c.rank == 0 ? slab : other;
                 auto f = append(c);
                 f.write(p, Space::Physical, "v", 1, 0.0, fill<double>(p.in_box(), 1));
               }});
  v.push_back({"a read with plans of other grids (not 'damaged')", 2, ErrorCode::RanksDisagree,
               "ranks disagree on process grid", [=](Ctx& c) {
                 Plan slab(MPI_COMM_WORLD, kGrid, opts(1, c.size)), other(MPI_COMM_WORLD, kGrid, opts(c.size, 1));
                 const Plan& p = c.rank == 0 ? slab : other;
                 auto f = reader(c);
                 std::vector<double> back(std::size_t(p.in_count()));
                 f.read(p, Space::Physical, "u", 1, back);
               }});
  v.push_back({"a read's step", 2, ErrorCode::RanksDisagree, "ranks disagree on step", [=](Ctx& c) {
                 auto f = reader(c);
                 std::vector<double> back(c.u.size());
                 f.read(c.plan, Space::Physical, "u", on_last(1, 2), back);
               }});
  v.push_back({"a plane's index", 2, ErrorCode::RanksDisagree, "ranks disagree on cut", [=](Ctx& c) {
                 auto f = append(c);
                 f.write_plane(c.plan, Space::Physical, "p", 0, 0.0, Axis::Z, on_last<std::int64_t>(1, 2), c.u);
               }});
  v.push_back({"a subsample's stride", 2, ErrorCode::RanksDisagree, "ranks disagree on cut", [=](Ctx& c) {
                 auto f = append(c);
                 f.write_subsampled(c.plan, Space::Physical, "s", 0, 0.0,
                                    on_last<std::array<std::int64_t, 3>>({2, 2, 2}, {2, 2, 1}), c.u);
               }});
  v.push_back({"a background write's step", 2, ErrorCode::RanksDisagree, "ranks disagree on step", [=](Ctx& c) {
                 auto f = scratch(c);
                 f.write_start(c.plan, Space::Physical, "u", on_last(3, 4), 0.3, c.u).wait();
               }});
  v.push_back({"one rank lists the fields, another the steps", 2, ErrorCode::RanksDisagree, "ranks disagree",
               [=](Ctx& c) {
                 auto f = reader(c);
                 if (c.rank == c.size - 1) f.steps("u");
                 else f.fields();
               }});
  v.push_back({"one rank reads, another writes", 2, ErrorCode::RanksDisagree, "ranks disagree", [=](Ctx& c) {
                 auto f = append(c);
                 std::vector<double> back(c.u.size());
                 if (c.rank == c.size - 1) f.read(c.plan, Space::Physical, "u", 1, back);
                 else f.write(c.plan, Space::Physical, "u", 3, 0.3, c.u);
               }});
  v.push_back({"one rank writes while another waits", 2, ErrorCode::RanksDisagree, "'wait'", [=](Ctx& c) {
                 auto f = scratch(c);
                 auto w = f.write_start(c.plan, Space::Physical, "u", 3, 0.3, c.u);
                 if (c.rank == c.size - 1) w.wait();
                 else f.write(c.plan, Space::Physical, "u", 4, 0.4, c.u);
               }});
  }
  if (group == Group::Sizes) {
  // ---- Sizes and limits.
  v.push_back({"an alignment of 16 TiB", 1, ErrorCode::InvalidArgument, "at most 4294967296", [=](Ctx& c) {
                 H5Options o;
                 o.alignment = std::uint64_t(1) << 44;
                 o.align_threshold = 1;
                 create(c, o);
               }});
  v.push_back({"an alignment of 2^62", 1, ErrorCode::InvalidArgument, "H5Options::alignment is", [=](Ctx& c) {
                 H5Options o;
                 o.alignment = std::uint64_t(1) << 62;
                 create(c, o);
               }});
  v.push_back({"a time that is NaN", 1, ErrorCode::InvalidArgument, "must be finite", [=](Ctx& c) {
                 auto f = append(c);
                 f.write(c.plan, Space::Physical, "u", 3, std::numeric_limits<double>::quiet_NaN(), c.u);
               }});
  v.push_back({"a time that is infinite", 1, ErrorCode::InvalidArgument, "must be finite", [=](Ctx& c) {
                 auto f = append(c);
                 f.write(c.plan, Space::Physical, "u", 3, std::numeric_limits<double>::infinity(), c.u);
               }});
  v.push_back({"a background write at a NaN time", 1, ErrorCode::InvalidArgument, "must be finite", [=](Ctx& c) {
                 auto f = scratch(c);
                 f.write_start(c.plan, Space::Physical, "u", 3, std::numeric_limits<double>::quiet_NaN(), c.u);
               }});
  v.push_back({"a plane at an infinite time", 1, ErrorCode::InvalidArgument, "must be finite", [=](Ctx& c) {
                 auto f = append(c);
                 f.write_plane(c.plan, Space::Physical, "p", 0, -std::numeric_limits<double>::infinity(), Axis::X,
                               0, c.u);
               }});
  v.push_back({"a buffer one element short on the last rank", 1, ErrorCode::InvalidArgument, "the buffer holds",
               [=](Ctx& c) {
                 auto f = append(c);
                 f.write(c.plan, Space::Physical, "u", 3, 0.3, c.u.data(), on_last(c.u.size(), c.u.size() - 1));
               }});
  v.push_back({"a read into a buffer one element short", 1, ErrorCode::InvalidArgument, "the buffer holds",
               [=](Ctx& c) {
                 auto f = reader(c);
                 std::vector<double> back(c.u.size());
                 f.read(c.plan, Space::Physical, "u", 1, back.data(), on_last(back.size(), back.size() - 1));
               }});
  }
  if (group == Group::Metadata) {
  // ---- Stored metadata the plan does not match: refused, never read silently.
  v.push_back({"a spectrum read with another norm", 1, ErrorCode::InvalidArgument, "norm 'forward'", [=](Ctx& c) {
                 fft::Options o = opts();
                 o.norm = fft::Norm::Forward;
                 Plan p(MPI_COMM_WORLD, kGrid, o);
                 auto f = reader(c);
                 std::vector<std::complex<double>> back(std::size_t(p.out_count()));
                 f.read(p, Space::Spectral, "U", 1, back);
               }});
  v.push_back({"a spectrum read with other r2r kinds", 1, ErrorCode::InvalidArgument, "kinds", [=](Ctx& c) {
                 fft::Options o = opts();
                 o.kinds = fft::parse_axis_kinds("dct2,periodic,periodic");
                 Plan p(MPI_COMM_WORLD, kGrid, o);
                 auto f = reader(c);
                 std::vector<std::complex<double>> back(std::size_t(p.out_count()));
                 f.read(p, Space::Spectral, "U", 1, back);
               }});
  v.push_back({"a spectral plane read with another norm", 1, ErrorCode::InvalidArgument, "norm 'ortho'",
               [=](Ctx& c) {
                 {
                   auto f = scratch(c);
                   f.write_plane(c.plan, Space::Spectral, "Up", 0, 0.0, Axis::Z, 0, c.U);
                   f.close();
                 }
                 fft::Options o = opts();
                 o.norm = fft::Norm::Ortho;
                 Plan p(MPI_COMM_WORLD, kGrid, o);
                 H5File f(MPI_COMM_WORLD, c.path + ".new");
                 std::vector<std::complex<double>> back(std::size_t(p.out_count()));
                 f.read_plane(p, Space::Spectral, "Up", 0, Axis::Z, 0, back);
               }});
  }
  if (group == Group::Lifetimes) {
  // ---- Lifetimes and names.
  v.push_back({"a moved-from file", 1, ErrorCode::InvalidState, "closed", [=](Ctx& c) {
                 auto f = append(c);
                 H5File g(std::move(f));
                 g.close();
                 f.write(c.plan, Space::Physical, "u", 3, 0.3, c.u);
               }});
  v.push_back({"a moved-from file's path", 1, ErrorCode::InvalidState, "moved from", [=](Ctx& c) {
                 auto f = reader(c);
                 H5File g(std::move(f));
                 (void)f.path();
               }});
  v.push_back({"a moved-from background write", 1, ErrorCode::InvalidState, "no operation in flight", [=](Ctx& c) {
                 auto f = scratch(c);
                 auto w = f.write_start(c.plan, Space::Physical, "u", 3, 0.3, c.u);
                 auto w2 = std::move(w);
                 w2.wait();
                 f.close();
                 w.wait();
               }});
  v.push_back({"a write after close", 1, ErrorCode::InvalidState, "the file is closed", [=](Ctx& c) {
                 auto f = scratch(c);
                 f.close();
                 f.write_start(c.plan, Space::Physical, "u", 3, 0.3, c.u);
               }});
  v.push_back({"a wait after the file was destroyed unclosed", 1, ErrorCode::InvalidState, "discarded",
               [=](Ctx& c) {
                 H5File::Pending w;
                 {
                   H5File f(MPI_COMM_WORLD, c.path + ".new", H5File::Mode::Create);
                   w = f.write_start(c.plan, Space::Physical, "u", 1, 0.1, c.u);
                 }
                 w.wait();
               }});
  v.push_back({"another file while a write is in flight", 1, ErrorCode::InvalidState, "in flight", [=](Ctx& c) {
                 auto f = scratch(c);
                 auto w = f.write_start(c.plan, Space::Physical, "u", 3, 0.3, c.u);
                 try {
                   H5File g(MPI_COMM_WORLD, c.path);
                 } catch (...) {
                   w.wait();
                   f.close();
                   throw;
                 }
               }});
  v.push_back({"a directory at the temporary's name", 1, ErrorCode::Io, "is a directory", [=](Ctx& c) {
                 if (c.rank == 0) mkdir((c.path + ".nbfft-tmp").c_str(), 0755);
                 MPI_Barrier(MPI_COMM_WORLD);
                 try {
                   create(c);
                 } catch (...) {
                   MPI_Barrier(MPI_COMM_WORLD);
                   if (c.rank == 0) rmdir((c.path + ".nbfft-tmp").c_str());
                   throw;
                 }
               }});
  v.push_back({"a field named '..'", 1, ErrorCode::InvalidArgument, "is not a name", [=](Ctx& c) {
                 auto f = append(c);
                 f.write(c.plan, Space::Physical, "..", 3, 0.3, c.u);
               }});
  v.push_back({"a plane's field named ''", 1, ErrorCode::InvalidArgument, "the field name is empty", [=](Ctx& c) {
                 auto f = append(c);
                 f.write_plane(c.plan, Space::Physical, "", 3, 0.3, Axis::X, 0, c.u);
               }});
  v.push_back({"steps of a field named 'a/b'", 1, ErrorCode::InvalidArgument, "contains '/'", [=](Ctx& c) {
                 auto f = reader(c);
                 f.steps("a/b");
               }});
  }
  return v;
}

void run_campaign(Group group, const char* tag) {
  Ctx c;
  c.path = temp_path(tag);
  int ran = 0;
  for (const Case& k : cases(group)) {
    if (world_size() < k.min_ranks) continue;
    SCOPED_TRACE(k.name);
    commit_checkpoint(c);
    expect_error([&] { k.run(c); }, k.code, k.what);
    expect_checkpoint(c);
    ++ran;
  }
  if (world_rank() == 0) std::printf("[ campaign ] %s: %d cases at %d ranks\n", tag, ran, world_size());
  remove_file(c.path);
  remove_file(c.path + ".new");
}

// Each mistake is one error on every rank, and the checkpoint committed before it stays.
TEST(IoMisuse, RanksThatDisagree) { run_campaign(Group::Disagree, "disagree"); }
TEST(IoMisuse, SizesAndLimits) { run_campaign(Group::Sizes, "sizes"); }
TEST(IoMisuse, StoredMetadataThePlanDoesNotMatch) { run_campaign(Group::Metadata, "metadata"); }
TEST(IoMisuse, LifetimesAndNames) { run_campaign(Group::Lifetimes, "lifetimes"); }

}  // namespace
}  // namespace nbfft::io
