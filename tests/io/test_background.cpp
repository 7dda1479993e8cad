// H5File::write_start under real MPI: a file written in the background holds, dataset by
// dataset, the same bytes and attributes as the one write() makes (checked by a serial
// HDF5 read of both), reads back with H5File::read, survives transforms running while
// MPI-IO writes; errors of the start (made by HDF5 there) and of the write (at wait() or
// close()) on every rank; touching HDF5 while a write is in flight is a clear error; close() and the
// destructor with writes in flight complete them and keep Create's guarantee.
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"
#include "tests/io/io_test_util.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <complex>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace nbfft::io {
namespace {

using fft::Box3;
using fft::Options;
using fft::Plan;

using test::expect_error;
using test::fill;
using test::mismatches;
using test::remove_file;
using test::world_rank;

std::string temp_path(const std::string& tag) { return test::temp_path("nbfft-iobg-", tag); }
bool exists(const std::string& p) {
  std::ifstream f(p);
  return f.good();
}

Options opts(fft::TransformKind t, fft::Precision p, int m1 = 0, int m2 = 0) {
  Options o;
  o.effort = fft::Effort::Estimate;
  o.transform = t;
  o.precision = p;
  o.m1 = m1;
  o.m2 = m2;
  return o;
}

// ---- A serial comparison of two files, dataset by dataset ------------------------------

std::vector<char> raw_attribute(hid_t a) {
  hid_t t = H5Aget_type(a);
  std::vector<char> out;
  if (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
    char* p = nullptr;
    hid_t m = H5Tcopy(H5T_C_S1);
    H5Tset_size(m, H5T_VARIABLE);
    H5Tset_cset(m, H5Tget_cset(t));
    H5Aread(a, m, &p);
    out.assign(p, p + std::strlen(p));
    H5free_memory(p);
    H5Tclose(m);
  } else {
    hid_t s = H5Aget_space(a);
    out.resize(H5Tget_size(t) * std::size_t(H5Sget_simple_extent_npoints(s)));
    H5Aread(a, t, out.data());
    H5Sclose(s);
  }
  H5Tclose(t);
  return out;
}

// Every attribute (name -> bytes) and the data bytes of one dataset, as stored.
struct Stored {
  std::vector<std::pair<std::string, std::vector<char>>> attrs;
  std::vector<char> data;
  std::vector<hsize_t> dims;
  bool ok = false;
};
Stored stored(hid_t f, const std::string& path) {
  Stored s;
  hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  if (d < 0) return s;
  hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
  s.dims.resize(std::size_t(H5Sget_simple_extent_ndims(sp)));
  H5Sget_simple_extent_dims(sp, s.dims.data(), nullptr);
  s.data.resize(H5Tget_size(t) * std::size_t(H5Sget_simple_extent_npoints(sp)));
  s.ok = H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data.data()) >= 0;
  H5O_info_t oi;
  H5Oget_info(d, &oi);
  for (hsize_t k = 0; k < oi.num_attrs; ++k) {
    hid_t a = H5Aopen_by_idx(d, ".", H5_INDEX_NAME, H5_ITER_INC, k, H5P_DEFAULT, H5P_DEFAULT);
    char name[256] = {};
    H5Aget_name(a, sizeof name, name);
    s.attrs.emplace_back(name, raw_attribute(a));
    H5Aclose(a);
  }
  H5Sclose(sp);
  H5Tclose(t);
  H5Dclose(d);
  return s;
}

// Rank 0 compares the datasets of two closed files; every rank learns the verdict.
void expect_same_datasets(const std::string& a, const std::string& b, const std::vector<std::string>& datasets) {
  int bad = 0;
  if (world_rank() == 0) {
    hid_t fa = H5Fopen(a.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t fb = H5Fopen(b.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(fa, 0);
    EXPECT_GE(fb, 0);
    for (const auto& d : datasets) {
      const Stored sa = stored(fa, d), sb = stored(fb, d);
      EXPECT_TRUE(sa.ok && sb.ok) << d;
      EXPECT_EQ(sa.dims, sb.dims) << d;
      EXPECT_FALSE(sa.data.empty()) << d;
      EXPECT_TRUE(sa.data == sb.data) << d << ": the data bytes differ";
      EXPECT_EQ(sa.attrs.size(), sb.attrs.size()) << d;
      EXPECT_TRUE(sa.attrs == sb.attrs) << d << ": the attributes differ";
      bad += !(sa.ok && sb.ok && sa.data == sb.data && sa.attrs == sb.attrs && sa.dims == sb.dims);
    }
    H5Fclose(fa);
    H5Fclose(fb);
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  EXPECT_EQ(bad, 0);
}

// Writes u (physical) and U (spectral) at steps 1 and 2 with write() into one file and with
// write_start() into another (all four in flight at once, waited out of order, a transform
// running meanwhile, the Copy buffers scribbled over after the start), then compares them.
template <typename R, typename C>
void same_as_blocking_once(fft::TransformKind kind, fft::Precision prec, std::array<std::int64_t, 3> n, int m1, int m2,
                           H5File::Stage stage) {
  const std::string pa = temp_path("blocking"), pb = temp_path("background");
  Plan plan(MPI_COMM_WORLD, n, opts(kind, prec, m1, m2));
  {
    H5File f(MPI_COMM_WORLD, pa, H5File::Mode::Create);
    for (int step : {1, 2}) {
      f.write(plan, Space::Physical, "u", step, 0.5 * step, fill<R>(plan.in_box(), step));
      f.write(plan, Space::Spectral, "U", step, 0.5 * step, fill<C>(plan.out_box(), step + 7));
    }
    f.close();
  }
  {
    H5File f(MPI_COMM_WORLD, pb, H5File::Mode::Create);
    std::vector<std::vector<R>> u;
    std::vector<std::vector<C>> U;
    std::vector<H5File::Pending> w;
    for (int step : {1, 2}) {
      u.push_back(fill<R>(plan.in_box(), step));
      U.push_back(fill<C>(plan.out_box(), step + 7));
      w.push_back(f.write_start(plan, Space::Physical, "u", step, 0.5 * step, u.back(), stage));
      w.push_back(f.write_start(plan, Space::Spectral, "U", step, 0.5 * step, U.back(), stage));
    }
    for (auto& p : w) EXPECT_TRUE(p.active());
    if (stage == H5File::Stage::Copy) {  // the staged copies are written, not these
      for (auto& v : u) std::fill(v.begin(), v.end(), R(-1));
      for (auto& v : U) std::fill(v.begin(), v.end(), C(-1));
    }
    // The solver goes on: transforms (MPI on the plan's communicator) while MPI-IO writes.
    std::vector<R> a = fill<R>(plan.in_box(), 3), back(a.size());
    std::vector<C> spec(std::size_t(plan.out_count()));
    for (int k = 0; k < 3; ++k) {
      plan.forward(a, spec);
      plan.backward(spec, back);
    }
    w[3].wait();
    w[0].wait();
    EXPECT_FALSE(w[0].active());
    w[2].wait();
    w[1].wait();
    f.close();
  }
  expect_same_datasets(pa, pb, {"/u/1", "/u/2", "/U/1", "/U/2"});
  // The existing reader reads the background file back.
  {
    H5File f(MPI_COMM_WORLD, pb);
    std::vector<R> u(std::size_t(plan.in_count()));
    std::vector<C> U(std::size_t(plan.out_count()));
    f.read(plan, Space::Physical, "u", 2, u);
    f.read(plan, Space::Spectral, "U", 2, U);
    EXPECT_EQ(mismatches(plan.in_box(), u, 2), 0);
    EXPECT_EQ(mismatches(plan.out_box(), U, 2 + 7), 0);
    EXPECT_EQ(f.time("U", 1), 0.5);
  }
  remove_file(pa);
  remove_file(pb);
}

// Both ways a background write takes (io/background.cpp): each rank's runs of the file as
// independent requests on the file's one stream, and a subarray view with one collective
// request. A box goes the first way when its runs are long (NBFFT_IO_BG_RUN_BYTES bytes on
// average, 64 KiB unless set): 0 sends every box there, 2^40 none.
template <typename R, typename C>
void same_as_blocking(fft::TransformKind kind, fft::Precision prec, std::array<std::int64_t, 3> n, int m1, int m2,
                      H5File::Stage stage) {
  for (const char* run : {"0", "1099511627776"}) {
    SCOPED_TRACE(std::string("NBFFT_IO_BG_RUN_BYTES=") + run);
    setenv("NBFFT_IO_BG_RUN_BYTES", run, 1);
    same_as_blocking_once<R, C>(kind, prec, n, m1, m2, stage);
    H5File::release_staging();  // the next file's writes stage into fresh buffers
  }
  unsetenv("NBFFT_IO_BG_RUN_BYTES");
}

// Large runs (io/background.cpp): where /tmp's file system takes O_DIRECT, each run's whole
// pages go by direct AIO in pieces of at most 8 MiB (9 MiB at one rank: two pieces) and its
// partial pages at either end (an uneven grid puts them off the pages) through the MPI-IO
// stream; NBFFT_IO_DIRECT=0 sends everything through the stream. Both equal write().
TEST(Hdf5Background, SameAsBlockingLargeRunsDirectAndBuffered) {
  for (const char* direct : {"1", "0"}) {
    SCOPED_TRACE(std::string("NBFFT_IO_DIRECT=") + direct);
    setenv("NBFFT_IO_DIRECT", direct, 1);
    for (auto stage : {H5File::Stage::Copy, H5File::Stage::Borrow})
      same_as_blocking_once<double, std::complex<double>>(fft::TransformKind::R2C, fft::Precision::Double,
                                                          {67, 130, 129}, 0, 0, stage);
    H5File::release_staging();
  }
  unsetenv("NBFFT_IO_DIRECT");
}

TEST(Hdf5Background, SameAsBlockingR2cDouble) {
  same_as_blocking<double, std::complex<double>>(fft::TransformKind::R2C, fft::Precision::Double, {10, 9, 7}, 0, 0,
                                                 H5File::Stage::Copy);
}
TEST(Hdf5Background, SameAsBlockingR2cSingleBorrowed) {
  same_as_blocking<float, std::complex<float>>(fft::TransformKind::R2C, fft::Precision::Single, {8, 5, 6}, 0, 0,
                                               H5File::Stage::Borrow);
}
TEST(Hdf5Background, SameAsBlockingC2cDoubleBorrowed) {
  same_as_blocking<std::complex<double>, std::complex<double>>(fft::TransformKind::C2C, fft::Precision::Double,
                                                               {6, 7, 5}, 0, 0, H5File::Stage::Borrow);
}
TEST(Hdf5Background, SameAsBlockingC2cSingleSlabs) {
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  same_as_blocking<std::complex<float>, std::complex<float>>(fft::TransformKind::C2C, fft::Precision::Single,
                                                             {5, 4, 9}, P, 1, H5File::Stage::Copy);
}

TEST(Hdf5Background, SameAsBlockingR2cDoublePencils) {
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P < 4 || P % 2) GTEST_SKIP() << "pencils of 2 x P/2 need an even P >= 4";
  same_as_blocking<double, std::complex<double>>(fft::TransformKind::R2C, fft::Precision::Double, {9, 7, 11}, 2, P / 2,
                                                 H5File::Stage::Copy);
}

// ---- Errors and misuse -----------------------------------------------------------------

TEST(Hdf5Background, ErrorsOnEveryRank) {
  const std::string path = temp_path("err");
  Plan plan(MPI_COMM_WORLD, {8, 6, 5}, opts(fft::TransformKind::R2C, fft::Precision::Double));
  std::vector<double> u = fill<double>(plan.in_box(), 1);
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "u", 1, 0.1, u);
    // The dataset is made at the start, so its errors are the start's: a step already
    // there, the wrong element type.
    H5File::Pending w;
    expect_error([&] { w = f.write_start(plan, Space::Physical, "u", 1, 0.1, u); }, ErrorCode::InvalidArgument,
                 "already holds /u/1");
    EXPECT_FALSE(w.active());
    std::vector<std::complex<double>> c(u.size());
    expect_error([&] { f.write_start(plan, Space::Physical, "u", 2, 0.1, c); }, ErrorCode::InvalidArgument,
                 "the data passed is complex128");
    // Found at the start: a short buffer on one rank is an error on every rank.
    const std::size_t short_n = world_rank() == 0 && !u.empty() ? u.size() - 1 : u.size();
    expect_error([&] { f.write_start(plan, Space::Physical, "u", 3, 0.1, u.data(), short_n); },
                 ErrorCode::InvalidArgument, "this rank's box");
    expect_error([&] { w.wait(); }, ErrorCode::InvalidState, "no operation in flight");
    // After the failures the file still takes writes, blocking and in the background.
    f.write_start(plan, Space::Physical, "u", 4, 0.4, u).wait();
    f.write(plan, Space::Physical, "u", 5, 0.5, u);
    EXPECT_EQ(f.steps("u"), (std::vector<std::int64_t>{1, 4, 5}));
    f.close();
  }
  {
    H5File r(MPI_COMM_WORLD, path);
    expect_error([&] { r.write_start(plan, Space::Physical, "u", 9, 0.1, u); }, ErrorCode::InvalidArgument,
                 "was opened for reading");
  }
  // Chunked datasets are not one run of the file: refused before anything is made.
  {
    H5Options o;
    o.chunk = {4, 4, 4};
    H5File c(MPI_COMM_WORLD, path, H5File::Mode::Create, o);
    expect_error([&] { c.write_start(plan, Space::Physical, "u", 1, 0.1, u); }, ErrorCode::Unavailable,
                 "chunked datasets");
    c.write(plan, Space::Physical, "u", 1, 0.1, u);  // the blocking write takes them
    EXPECT_EQ(c.steps("u"), (std::vector<std::int64_t>{1}));
    c.close();
  }
  remove_file(path);
}

TEST(Hdf5Background, NoOtherHdf5CallWhileAWriteIsInFlight) {
  const std::string path = temp_path("misuse"), other = temp_path("misuse-other");
  Plan plan(MPI_COMM_WORLD, {7, 6, 5}, opts(fft::TransformKind::R2C, fft::Precision::Double));
  std::vector<double> u = fill<double>(plan.in_box(), 1), back(u.size());
  {
    H5File o(MPI_COMM_WORLD, other, H5File::Mode::Create);
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    H5File::Pending w = f.write_start(plan, Space::Physical, "u", 1, 0.1, u, H5File::Stage::Borrow);
    const std::string why = "is in flight in this process";
    expect_error([&] { f.write(plan, Space::Physical, "u", 2, 0.1, u); }, ErrorCode::InvalidState, why);
    expect_error([&] { f.read(plan, Space::Physical, "u", 1, back); }, ErrorCode::InvalidState, why);
    expect_error([&] { f.fields(); }, ErrorCode::InvalidState, why);
    expect_error([&] { f.steps("u"); }, ErrorCode::InvalidState, why);
    expect_error([&] { o.write(plan, Space::Physical, "u", 1, 0.1, u); }, ErrorCode::InvalidState, why);
    expect_error([&] { o.close(); }, ErrorCode::InvalidState, why);
    expect_error([&] { H5File(MPI_COMM_WORLD, other + "3", H5File::Mode::Create); }, ErrorCode::InvalidState, why);
    expect_error([&] { o.write_start(plan, Space::Physical, "u", 1, 0.1, u); }, ErrorCode::InvalidState,
                 "one file at a time");
    w.wait();
    // Everything works again once it is waited for.
    std::vector<double> r(u.size());
    f.read(plan, Space::Physical, "u", 1, r);
    EXPECT_EQ(mismatches(plan.in_box(), r, 1), 0);
    o.write(plan, Space::Physical, "u", 1, 0.1, u);
    o.close();
    f.close();
  }
  EXPECT_TRUE(exists(other));
  remove_file(path);
  remove_file(other);
}

// close() completes the writes in flight; their wait() afterwards reports them written.
TEST(Hdf5Background, CloseCompletesWritesInFlight) {
  const std::string path = temp_path("close");
  Plan plan(MPI_COMM_WORLD, {6, 7, 5}, opts(fft::TransformKind::C2C, fft::Precision::Double));
  auto u = fill<std::complex<double>>(plan.in_box(), 2);
  H5File::Pending w1, w2;
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    w1 = f.write_start(plan, Space::Physical, "u", 1, 1.0, u);
    {
      H5File::Pending dropped = f.write_start(plan, Space::Physical, "u", 2, 2.0, u);
    }  // destroyed unwaited: waits for its write
    w2 = f.write_start(plan, Space::Physical, "u", 3, 3.0, u);
    H5File moved(std::move(f));  // a file with writes queued may move
    moved.close();
    EXPECT_FALSE(w1.active());
    w1.wait();
    w2.wait();
  }
  H5File r(MPI_COMM_WORLD, path);
  EXPECT_EQ(r.steps("u"), (std::vector<std::int64_t>{1, 2, 3}));
  std::vector<std::complex<double>> back(u.size());
  r.read(plan, Space::Physical, "u", 3, back);
  EXPECT_EQ(mismatches(plan.in_box(), back, 2), 0);
  r.close();
  remove_file(path);
}

// A failed start leaves the file usable; a file destroyed unclosed keeps the previous one;
// the destructor with writes in flight completes them and discards the file, without a hang.
TEST(Hdf5Background, FailuresAndDestructionKeepThePreviousFile) {
  const std::string path = temp_path("keep");
  Plan plan(MPI_COMM_WORLD, {5, 6, 7}, opts(fft::TransformKind::R2C, fft::Precision::Single));
  auto u = fill<float>(plan.in_box(), 3);
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "old", 0, 0.0, u);
    f.close();
  }
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "u", 1, 0.1, u);
    expect_error([&] { f.write_start(plan, Space::Physical, "u", 1, 0.1, u); }, ErrorCode::InvalidArgument,
                 "already holds /u/1");  // a step twice
    H5File::Pending w = f.write_start(plan, Space::Physical, "u", 2, 0.2, u);
    EXPECT_TRUE(f.is_open());
  }  // discarded
  H5File::Pending orphan;
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    orphan = f.write_start(plan, Space::Physical, "u", 1, 0.1, u);
  }  // the destructor completes the write and discards the file
  expect_error([&] { orphan.wait(); }, ErrorCode::InvalidState, "discarded");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(exists(path + ".nbfft-tmp"));
  {
    H5File r(MPI_COMM_WORLD, path);
    EXPECT_EQ(r.fields(), (std::vector<std::string>{"old"}));
  }
  remove_file(path);
}

}  // namespace
}  // namespace nbfft::io
