// nbfft/io/hdf5.hpp under real MPI: a field written at P ranks reads back bit-identical at
// every smaller rank count (sub-communicators of this run) and on slabs and pencils; the
// file holds the global arrays in numpy's natural order (checked by a plain serial HDF5
// read of the whole dataset); bad input is the same clear error on every rank.
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"
#include "nbfft/fft/option_table.hpp"

#include "io/checksum.hpp"
#include "tests/io/io_test_util.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include <complex>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace nbfft::io {
namespace {

using fft::Box3;
using fft::Options;
using fft::Plan;

using test::element;
using test::value;
using test::expect_error;
using test::on_first_ranks;
using test::fill;
using test::mismatches;
using test::world_rank;
using test::world_size;

std::string temp_path(const std::string& tag) { return test::temp_path("nbfft-io-", tag); }
void remove_file(const std::string& p) { test::remove_file(p); }

// Extra option rows (key, value) every plan of a test takes: kinds, padding.
std::vector<std::pair<const char*, const char*>> g_rows;

Options opts(fft::TransformKind t, fft::Precision p, int m1 = 0, int m2 = 0) {
  Options o;
  for (const auto& [key, value] : g_rows) fft::set_option(o, key, value);
  o.effort = fft::Effort::Estimate;
  o.transform = t;
  o.precision = p;
  o.m1 = m1;
  o.m2 = m2;
  return o;
}

// The process grids a k-rank restart tries: nbfft's choice, and the other slab and a
// pencil when k allows.
std::vector<std::pair<int, int>> grids(int k) {
  std::vector<std::pair<int, int>> g = {{0, 0}, {k, 1}};
  if (k == 4) g.push_back({2, 2});
  return g;
}

// Issue 20's user boxes (bricks in their own memory order) and the natural output order:
// the file is the same global array whatever boxes the plan gives its ranks, so a field
// written by nbfft's pencils reads into bricks and back.
TEST(Hdf5, UserBoxesAndNaturalOrderReadAndWriteTheSameFile) {
  const std::array<std::int64_t, 3> n{9, 7, 5};
  const int P = world_size(), r = world_rank();
  // Slabs of x, uneven, stored z fastest, then x, then y.
  const std::int64_t x0 = n[0] * r / P, x1 = n[0] * (r + 1) / P;
  const Box3 brick{{x0, 0, 0}, {x1 - x0, n[1], n[2]}, {2, 0, 1}};
  Options natural = opts(fft::TransformKind::R2C, fft::Precision::Double);
  fft::set_option(natural, "output_order", "natural");
  const Plan pencils(MPI_COMM_WORLD, n, opts(fft::TransformKind::R2C, fft::Precision::Double));
  const Plan bricks(MPI_COMM_WORLD, n, brick, std::nullopt, natural);
  ASSERT_EQ(bricks.in_box(), brick);
  const std::string a = temp_path("boxes_a"), b = temp_path("boxes_b");
  {
    H5File f(MPI_COMM_WORLD, a, H5File::Mode::Create);
    f.write(pencils, Space::Physical, "u", 0, 0.0, fill<double>(pencils.in_box(), 3));
    f.write(pencils, Space::Spectral, "U", 0, 0.0, fill<std::complex<double>>(pencils.out_box(), 4));
    f.close();
  }
  {
    H5File f(MPI_COMM_WORLD, a);
    std::vector<double> u(std::size_t(bricks.in_count()));
    std::vector<std::complex<double>> U(std::size_t(bricks.out_count()));
    f.read(bricks, Space::Physical, "u", 0, u);
    f.read(bricks, Space::Spectral, "U", 0, U);
    EXPECT_EQ(mismatches(bricks.in_box(), u, 3), 0);
    EXPECT_EQ(mismatches(bricks.out_box(), U, 4), 0);
    H5File g(MPI_COMM_WORLD, b, H5File::Mode::Create);
    g.write(bricks, Space::Physical, "u", 0, 0.0, u);
    g.write(bricks, Space::Spectral, "U", 0, 0.0, U);
    g.close();
  }
  {
    H5File f(MPI_COMM_WORLD, b);
    std::vector<double> u(std::size_t(pencils.in_count()));
    std::vector<std::complex<double>> U(std::size_t(pencils.out_count()));
    f.read(pencils, Space::Physical, "u", 0, u);
    f.read(pencils, Space::Spectral, "U", 0, U);
    EXPECT_EQ(mismatches(pencils.in_box(), u, 3), 0);
    EXPECT_EQ(mismatches(pencils.out_box(), U, 4), 0);
  }
  remove_file(a);
  remove_file(b);
}

// Writes a physical and a spectral field of type (R physical, C spectral) at all ranks,
// then reads both back on every process grid of P ranks and of half as many (rounded up):
// always another rank count than the writer's when P > 1. `every_count` reads at every
// k <= P instead; one test does, the others skip it because under MPICH's busy polling the
// full sweep cost ~1 min per rank count on 2 cores.
template <typename R, typename C>
void round_trip(fft::TransformKind kind, fft::Precision prec, std::array<std::int64_t, 3> n,
                const H5Options& layout = {}, void (*check_file)(const std::string&) = nullptr,
                bool every_count = false) {
  const std::string path = temp_path("rt");
  const int P = world_size();
  {
    Plan plan(MPI_COMM_WORLD, n, opts(kind, prec));
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create, layout);
    for (int step : {0, 10}) {
      f.write(plan, Space::Physical, "u", step, 0.5 * step, fill<R>(plan.in_box(), step));
      f.write(plan, Space::Spectral, "U", step, 0.5 * step, fill<C>(plan.out_box(), step + 1));
    }
    f.close();
  }
  if (check_file && world_rank() == 0) check_file(path);
  std::vector<int> counts;
  for (int k = P; k >= 1; --k)
    if (every_count || k == P || k == (P + 1) / 2) counts.push_back(k);
  for (int k : counts) {
    on_first_ranks(k, [&](MPI_Comm sub) {
      for (auto [m1, m2] : grids(k)) {
        SCOPED_TRACE("read at " + std::to_string(k) + " ranks, grid " + std::to_string(m1) + "x" + std::to_string(m2));
        Plan plan(sub, n, opts(kind, prec, m1, m2));
        H5File f(sub, path);
        EXPECT_EQ(f.fields(), (std::vector<std::string>{"U", "u"}));
        EXPECT_EQ(f.steps("u"), (std::vector<std::int64_t>{0, 10}));
        EXPECT_EQ(f.time("U", 10), 5.0);
        for (int step : {0, 10}) {
          std::vector<R> u(std::size_t(plan.in_count()));
          std::vector<C> U(std::size_t(plan.out_count()));
          f.read(plan, Space::Physical, "u", step, u);
          f.read(plan, Space::Spectral, "U", step, U);
          EXPECT_EQ(mismatches(plan.in_box(), u, step), 0);
          EXPECT_EQ(mismatches(plan.out_box(), U, step + 1), 0);
        }
      }
    });
  }
  remove_file(path);
}

TEST(Hdf5, RoundTripR2cDoubleAtEverySmallerRankCount) {
  round_trip<double, std::complex<double>>(fft::TransformKind::R2C, fft::Precision::Double, {10, 9, 7}, {}, nullptr,
                                           /*every_count=*/true);
}
TEST(Hdf5, RoundTripR2cSingle) {
  round_trip<float, std::complex<float>>(fft::TransformKind::R2C, fft::Precision::Single, {8, 5, 6});
}
TEST(Hdf5, RoundTripC2cDouble) {
  round_trip<std::complex<double>, std::complex<double>>(fft::TransformKind::C2C, fft::Precision::Double, {6, 7, 5});
}
TEST(Hdf5, RoundTripC2cSingle) {
  round_trip<std::complex<float>, std::complex<float>>(fft::TransformKind::C2C, fft::Precision::Single, {5, 4, 9});
}

// Real data with every axis r2r: real in the file both ways, x not halved.
TEST(Hdf5, RoundTripAllR2rReal) {
  g_rows = {{"kinds", "dct2,dst1,dct1"}};
  round_trip<double, double>(fft::TransformKind::R2C, fft::Precision::Double, {6, 7, 5});
  g_rows.clear();
}
// A padded plan: the physical field is the padded grid's, the spectrum the modes kept.
TEST(Hdf5, RoundTripPadded) {
  g_rows = {{"padding", "1.5,1,2"}};
  round_trip<double, std::complex<double>>(fft::TransformKind::R2C, fft::Precision::Double, {8, 7, 5});
  g_rows = {{"padding", "1.5"}, {"kinds", "periodic,periodic,periodic"}};
  round_trip<std::complex<float>, std::complex<float>>(fft::TransformKind::C2C, fft::Precision::Single, {6, 5, 4});
  g_rows.clear();
}

// Chunked datasets (clipped to the extent: x of the spectrum is 4) and aligned ones read
// back the same at every rank count, and the file has the layout asked for.
TEST(Hdf5, RoundTripChunked) {
  H5Options o;
  o.chunk = {2, 3, 5};
  round_trip<double, std::complex<double>>(fft::TransformKind::R2C, fft::Precision::Double, {6, 7, 5}, o,
                                           [](const std::string& path) {
                                             hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
                                             hid_t d = H5Dopen2(f, "/U/10", H5P_DEFAULT);
                                             hid_t p = H5Dget_create_plist(d);
                                             hsize_t c[3] = {0, 0, 0};
                                             EXPECT_EQ(H5Pget_layout(p), H5D_CHUNKED);
                                             EXPECT_EQ(H5Pget_chunk(p, 3, c), 3);
                                             EXPECT_EQ(c[0], 2u);
                                             EXPECT_EQ(c[1], 3u);
                                             EXPECT_EQ(c[2], 4u);
                                             H5Pclose(p);
                                             H5Dclose(d);
                                             H5Fclose(f);
                                           });
}
TEST(Hdf5, RoundTripAligned) {
  H5Options o;
  o.alignment = 4096;
  o.align_threshold = 1;
  round_trip<float, std::complex<float>>(fft::TransformKind::R2C, fft::Precision::Single, {6, 7, 5}, o,
                                         [](const std::string& path) {
                                           hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
                                           for (const char* name : {"/u/0", "/u/10", "/U/0", "/U/10"}) {
                                             hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
                                             const haddr_t at = H5Dget_offset(d);
                                             EXPECT_NE(at, HADDR_UNDEF) << name;
                                             EXPECT_EQ(at % 4096, 0u) << name << " at " << at;
                                             H5Dclose(d);
                                           }
                                           H5Fclose(f);
                                         });
}

// The whole dataset as plain serial HDF5 (what h5py does) sees: (z, y, x) / (kz, ky, kx)
// with x fastest, complex as {r, i}, and the attributes describing it.
std::string string_attr(hid_t obj, const char* key) {
  hid_t a = H5Aopen(obj, key, H5P_DEFAULT);
  hid_t t = H5Aget_type(a);
  char* p = nullptr;
  H5Aread(a, t, &p);
  std::string s = p ? p : "";
  H5free_memory(p);
  H5Tclose(t);
  H5Aclose(a);
  return s;
}

TEST(Hdf5, FileHoldsNumpyNaturalOrder) {
  const std::string path = temp_path("order");
  const std::array<std::int64_t, 3> n{6, 5, 7};
  Plan plan(MPI_COMM_WORLD, n, opts(fft::TransformKind::R2C, fft::Precision::Double));
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "u", 3, 1.5, fill<double>(plan.in_box(), 0));
    f.write(plan, Space::Spectral, "U", 3, 1.5, fill<std::complex<double>>(plan.out_box(), 1));
    f.close();
  }
  if (world_rank() == 0) {
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    EXPECT_EQ(string_attr(file, "nbfft_format"), "nbfft fields 1");
    hid_t u = H5Dopen2(file, "/u/3", H5P_DEFAULT);
    hid_t s = H5Dget_space(u);
    hsize_t dims[3];
    ASSERT_EQ(H5Sget_simple_extent_dims(s, dims, nullptr), 3);
    EXPECT_EQ(dims[0], 7u);
    EXPECT_EQ(dims[1], 5u);
    EXPECT_EQ(dims[2], 6u);
    std::vector<double> all(6 * 5 * 7);
    H5Dread(u, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data());
    int bad = 0;
    for (int z = 0; z < 7; ++z)
      for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 6; ++x) bad += all[std::size_t((z * 5 + y) * 6 + x)] != value(x, y, z, 0);
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(string_attr(u, "space"), "physical");
    EXPECT_EQ(string_attr(u, "axes"), "z y x");
    EXPECT_EQ(string_attr(u, "halved_axis"), "none");
    H5Sclose(s);
    H5Dclose(u);

    hid_t U = H5Dopen2(file, "/U/3", H5P_DEFAULT);
    s = H5Dget_space(U);
    H5Sget_simple_extent_dims(s, dims, nullptr);
    EXPECT_EQ(dims[0], 7u);
    EXPECT_EQ(dims[1], 5u);
    EXPECT_EQ(dims[2], 4u);  // kx halved: 6/2 + 1
    hid_t ft = H5Dget_type(U);
    ASSERT_EQ(H5Tget_class(ft), H5T_COMPOUND);
    char* m0 = H5Tget_member_name(ft, 0);
    char* m1 = H5Tget_member_name(ft, 1);
    EXPECT_STREQ(m0, "r");
    EXPECT_STREQ(m1, "i");
    H5free_memory(m0);
    H5free_memory(m1);
    hid_t ct = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(ct, "r", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(ct, "i", 8, H5T_NATIVE_DOUBLE);
    std::vector<std::complex<double>> spec(7 * 5 * 4);
    H5Dread(U, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, spec.data());
    bad = 0;
    for (int z = 0; z < 7; ++z)
      for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 4; ++x) bad += spec[std::size_t((z * 5 + y) * 4 + x)] != element<std::complex<double>>(x, y, z, 1);
    EXPECT_EQ(bad, 0);
    EXPECT_EQ(string_attr(U, "space"), "spectral");
    EXPECT_EQ(string_attr(U, "axes"), "kz ky kx");
    EXPECT_EQ(string_attr(U, "halved_axis"), "kx");
    EXPECT_EQ(string_attr(U, "transform"), "r2c");
    double t = 0;
    hid_t ta = H5Aopen(U, "time", H5P_DEFAULT);
    H5Aread(ta, H5T_NATIVE_DOUBLE, &t);
    EXPECT_EQ(t, 1.5);
    std::int64_t grid[3] = {0, 0, 0};
    hid_t ga = H5Aopen(U, "grid", H5P_DEFAULT);
    H5Aread(ga, H5T_NATIVE_INT64, grid);
    EXPECT_EQ(grid[0], 7);
    EXPECT_EQ(grid[1], 5);
    EXPECT_EQ(grid[2], 6);
    H5Aclose(ga);
    H5Aclose(ta);
    H5Tclose(ct);
    H5Tclose(ft);
    H5Sclose(s);
    H5Dclose(U);
    H5Fclose(file);
  }
  remove_file(path);
}

TEST(Hdf5, BadInputIsTheSameErrorOnEveryRank) {
  const std::string path = temp_path("bad");
  const std::array<std::int64_t, 3> n{8, 6, 5};
  Plan plan(MPI_COMM_WORLD, n, opts(fft::TransformKind::R2C, fft::Precision::Double));
  const auto u = fill<double>(plan.in_box(), 0);
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "u", 1, 0.1, u);
    expect_error([&] { f.write(plan, Space::Physical, "u", 1, 0.1, u); }, ErrorCode::InvalidArgument,
                 "already holds /u/1");
    expect_error([&] { f.write(plan, Space::Physical, "a/b", 2, 0.1, u); }, ErrorCode::InvalidArgument, "contains '/'");
    // The wrong element type for the space, and a short buffer on one rank only.
    std::vector<std::complex<double>> c(std::size_t(plan.in_count()));
    expect_error([&] { f.write(plan, Space::Physical, "u", 2, 0.1, c); }, ErrorCode::InvalidArgument,
                 "physical field is float64, the data passed is complex128");
    const std::size_t short_n = world_rank() == world_size() - 1 ? u.size() - 1 : u.size();
    const std::string failing = world_size() == 1 ? "" : " [rank " + std::to_string(world_size() - 1) + "]";
    expect_error([&] { f.write(plan, Space::Physical, "u", 2, 0.1, u.data(), short_n); }, ErrorCode::InvalidArgument,
                 "the buffer holds");
    expect_error([&] { f.write(plan, Space::Physical, "u", 2, 0.1, u.data(), short_n); }, ErrorCode::InvalidArgument,
                 failing.empty() ? "elements, this rank's box" : failing);
    // Different steps on different ranks are refused before anything is written.
    if (world_size() > 1)
      expect_error([&] { f.write(plan, Space::Physical, "u", 5 + world_rank(), 0.1, u); }, ErrorCode::RanksDisagree,
                   "ranks disagree on step");
    f.write(plan, Space::Physical, "u", 2, 0.2, u);
    f.close();
  }
  {
    H5File f(MPI_COMM_WORLD, path);
    std::vector<double> back(u.size());
    expect_error([&] { f.read(plan, Space::Physical, "v", 1, back); }, ErrorCode::InvalidArgument,
                 "has no field 'v' (its fields: u)");
    expect_error([&] { f.read(plan, Space::Physical, "u", 7, back); }, ErrorCode::InvalidArgument,
                 "has no step 7 of field 'u' (its steps: 1, 2)");
    std::vector<std::complex<double>> spec(std::size_t(plan.out_count()));
    expect_error([&] { f.read(plan, Space::Spectral, "u", 1, spec); }, ErrorCode::InvalidArgument,
                 "is a physical field; asked for a spectral one");
    Plan other(MPI_COMM_WORLD, {8, 6, 6}, opts(fft::TransformKind::R2C, fft::Precision::Double));
    std::vector<double> o(std::size_t(other.in_count()));
    expect_error([&] { f.read(other, Space::Physical, "u", 1, o); }, ErrorCode::InvalidArgument,
                 "is a 5x6x8 (z, y, x) array; this plan's physical field is 6x6x8 (another grid)");
    Plan single(MPI_COMM_WORLD, n, opts(fft::TransformKind::R2C, fft::Precision::Single));
    std::vector<float> s(std::size_t(single.in_count()));
    expect_error([&] { f.read(single, Space::Physical, "u", 1, s); }, ErrorCode::InvalidArgument,
                 "holds float64, the plan reads float32");
    expect_error([&] { f.write(plan, Space::Physical, "w", 1, 0.1, u); }, ErrorCode::InvalidArgument,
                 "was opened for reading");
    f.read(plan, Space::Physical, "u", 2, back);  // still usable after the refusals
    EXPECT_EQ(back, u);
  }
  // A Create that is never closed (a run that fails) leaves the previous file as it was.
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "other", 1, 0.1, u);
  }
  {
    H5File f(MPI_COMM_WORLD, path);
    EXPECT_EQ(f.fields(), std::vector<std::string>{"u"});
  }
  // Append adds steps in place.
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Append);
    f.write(plan, Space::Physical, "u", 3, 0.3, u);
    f.close();
    H5File g(MPI_COMM_WORLD, path);
    EXPECT_EQ(g.steps("u"), (std::vector<std::int64_t>{1, 2, 3}));
    EXPECT_EQ(g.time("u", 3), 0.3);
  }
  // A Create that is closed replaces the previous file, and leaves no temporary behind.
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "fresh", 0, 0.0, u);
    f.close();
    EXPECT_FALSE(f.is_open());
    f.close();  // a second close does nothing
    H5File g(MPI_COMM_WORLD, path);
    EXPECT_EQ(g.fields(), std::vector<std::string>{"fresh"});
    EXPECT_NE(access((path + ".nbfft-tmp").c_str(), F_OK), 0);
  }
  remove_file(path);

  expect_error([] { H5File(MPI_COMM_WORLD, "/nonexistent-nbfft-dir/f.h5", H5File::Mode::Create); }, ErrorCode::Io,
               "cannot create '/nonexistent-nbfft-dir/f.h5.nbfft-tmp'");
  expect_error([] { H5File(MPI_COMM_WORLD, "/nonexistent-nbfft-dir/f.h5"); }, ErrorCode::Io,
               "cannot open '/nonexistent-nbfft-dir/f.h5'");
  expect_error([] { H5File(MPI_COMM_WORLD, "/tmp", H5File::Mode::Create); }, ErrorCode::Io,
               "exists and is not a regular file");
  H5Options half;
  half.chunk = {4, 0, 4};
  expect_error([&] { H5File(MPI_COMM_WORLD, path, H5File::Mode::Create, half); }, ErrorCode::InvalidArgument,
               "chunk must be all 0 (contiguous) or all positive, not 4x0x4");
  // A text file, and an HDF5 file that is not nbfft's.
  const std::string text = temp_path("text"), foreign = temp_path("foreign");
  if (world_rank() == 0) {
    std::ofstream(text) << "not hdf5\n";
    hid_t fid = H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Fclose(fid);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_error([&] { H5File(MPI_COMM_WORLD, text); }, ErrorCode::Io, "cannot open '" + text + "'");
  expect_error([&] { H5File(MPI_COMM_WORLD, foreign); }, ErrorCode::Io, "is an HDF5 file but not nbfft's");
  remove_file(text);
  remove_file(foreign);
}

// io/checksum.hpp's v2, written out word by word: the vector lanes of the library must
// add up to the same number.
std::uint64_t sum64_v2(const std::vector<double>& words) {
  std::uint64_t s = 0;
  for (std::size_t q = 0; q < words.size(); ++q) {
    std::uint64_t w = 0;
    std::memcpy(&w, &words[q], 8);
    const std::uint64_t x = w ^ (std::uint64_t(q) * 0x9E3779B97F4A7C15ull);
    const std::uint64_t a = (x & 0xFFFFFFFFull) * 0xD6E8FEB9ull, b = (x >> 32) * 0x94D049BBull;
    s += a ^ (b << 32 | b >> 32);
  }
  return s;
}

// The vector path against the definition for single precision (32-bit words zero-extended)
// and runs of every length around the vector width, inside a larger array (start > 0).
TEST(Hdf5, ChecksumLanesMatchTheDefinition) {
  for (std::int64_t len = 1; len <= 21; ++len) {
    std::vector<float> f(static_cast<std::size_t>(len));
    std::vector<double> d(static_cast<std::size_t>(len));
    for (std::int64_t k = 0; k < len; ++k) {
      f[std::size_t(k)] = float(k) * 1.5f - 3.f;
      d[std::size_t(k)] = double(k) * 1.25 - 7.;
    }
    const std::int64_t start[3] = {1, 2, 3}, count[3] = {1, 1, len}, dims[3] = {3, 4, len + 5};
    const std::uint64_t q0 = std::uint64_t(((1 * 4) + 2) * (len + 5) + 3);
    std::uint64_t want_f = 0, want_d = 0;
    for (std::int64_t k = 0; k < len; ++k) {
      std::uint32_t w32 = 0;
      std::uint64_t w64 = 0;
      std::memcpy(&w32, &f[std::size_t(k)], 4);
      std::memcpy(&w64, &d[std::size_t(k)], 8);
      const auto term = [](std::uint64_t q, std::uint64_t w) {
        const std::uint64_t x = w ^ (q * 0x9E3779B97F4A7C15ull);
        const std::uint64_t a = (x & 0xFFFFFFFFull) * 0xD6E8FEB9ull, b = (x >> 32) * 0x94D049BBull;
        return a ^ (b << 32 | b >> 32);
      };
      want_f += term(q0 + std::uint64_t(k), w32);
      want_d += term(q0 + std::uint64_t(k), w64);
    }
    EXPECT_EQ(detail::block_checksum(start, count, dims, Dtype::Float32, f.data()), want_f) << len;
    EXPECT_EQ(detail::block_checksum(start, count, dims, Dtype::Float64, d.data()), want_d) << len;
  }
}

// Replaces a dataset's checksum attributes (rank 0, the file closed everywhere else).
void set_checksum(const std::string& path, const char* dataset, const std::string& method, std::uint64_t sum) {
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(file, dataset, H5P_DEFAULT);
  hid_t a = H5Aopen(d, "checksum", H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_UINT64, &sum);
  H5Aclose(a);
  H5Adelete(d, "checksum_method");
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  hid_t sp = H5Screate(H5S_SCALAR);
  a = H5Acreate2(d, "checksum_method", t, sp, H5P_DEFAULT, H5P_DEFAULT);
  const char* m = method.c_str();
  H5Awrite(a, t, &m);
  H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(file);
}

// Files written before v2 carry v1 checksums: they still verify (and a wrong one still
// fails); a method this nbfft does not know is an Io error naming it, on every rank.
TEST(Hdf5, OlderChecksumMethodStillVerifies) {
  const std::string path = temp_path("sumv1");
  const std::array<std::int64_t, 3> n{7, 6, 5};
  Plan plan(MPI_COMM_WORLD, n, opts(fft::TransformKind::R2C, fft::Precision::Double));
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "u", 0, 0.0, fill<double>(plan.in_box(), 0));
    f.close();
  }
  const Box3 all_box{{0, 0, 0}, {n[0], n[1], n[2]}, {0, 1, 2}};
  const auto all = fill<double>(all_box, 0);
  const std::int64_t dims[3] = {n[2], n[1], n[0]}, start[3] = {0, 0, 0};
  const std::uint64_t v1 = detail::block_checksum(start, dims, dims, Dtype::Float64, all.data(), detail::ChecksumMethod::V1);
  const auto read_with = [&](const std::string& method, std::uint64_t sum) {
    if (world_rank() == 0) set_checksum(path, "/u/0", method, sum);
    MPI_Barrier(MPI_COMM_WORLD);
    H5File f(MPI_COMM_WORLD, path);
    std::vector<double> u(std::size_t(plan.in_count()));
    f.read(plan, Space::Physical, "u", 0, u);
    EXPECT_EQ(mismatches(plan.in_box(), u, 0), 0);
  };
  read_with("nbfft-sum64-v1", v1);
  expect_error([&] { read_with("nbfft-sum64-v1", v1 + 1); }, ErrorCode::Io, "/u/0 of '" + path + "' fails its checksum");
  expect_error([&] { read_with("nbfft-sum64-v9", v1); }, ErrorCode::Io,
               "has a checksum of method 'nbfft-sum64-v9'; this nbfft checks 'nbfft-sum64-v1' and 'nbfft-sum64-v2'");
  remove_file(path);
}

// The checksum attribute is the sum over the whole array, whoever wrote which part: a
// serial read of the whole dataset gives the same number; a flipped bit is an Io error on
// every rank at every rank count that reads it.
TEST(Hdf5, ChecksumIsTheWholeArraysAndCatchesAFlippedBit) {
  const std::string path = temp_path("sum");
  const std::array<std::int64_t, 3> n{7, 6, 5};
  {
    Plan plan(MPI_COMM_WORLD, n, opts(fft::TransformKind::R2C, fft::Precision::Double));
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "u", 0, 0.0, fill<double>(plan.in_box(), 0));
    f.write(plan, Space::Spectral, "U", 0, 0.0, fill<std::complex<double>>(plan.out_box(), 1));
    f.close();
  }
  if (world_rank() == 0) {
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    for (const char* name : {"/u/0", "/U/0"}) {
      hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
      const bool cplx = name[1] == 'U';
      const std::int64_t dims[3] = {5, 6, cplx ? 4 : 7}, start[3] = {0, 0, 0};
      std::vector<double> all(std::size_t(dims[0] * dims[1] * dims[2]) * (cplx ? 2 : 1));
      hid_t mt = H5Dget_type(d);
      H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data());
      std::uint64_t stored = 0;
      hid_t a = H5Aopen(d, "checksum", H5P_DEFAULT);
      H5Aread(a, H5T_NATIVE_UINT64, &stored);
      EXPECT_EQ(detail::block_checksum(start, dims, dims, cplx ? Dtype::Complex128 : Dtype::Float64, all.data()), stored)
          << name;
      EXPECT_EQ(sum64_v2(all), stored) << name;  // the definition, word by word (io/checksum.hpp)
      EXPECT_EQ(string_attr(d, "checksum_method"), "nbfft-sum64-v2");
      H5Aclose(a);
      H5Tclose(mt);
      // One bit of one element, in place, past HDF5: only the checksum can tell.
      const haddr_t at = H5Dget_offset(d);
      H5Dclose(d);
      if (!cplx) {
        H5Fclose(file);
        std::FILE* fp = std::fopen(path.c_str(), "r+b");
        std::fseek(fp, long(at) + 8 * 37 + 2, SEEK_SET);
        const int c = std::fgetc(fp);
        std::fseek(fp, long(at) + 8 * 37 + 2, SEEK_SET);
        std::fputc(c ^ 1, fp);
        std::fclose(fp);
        file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      }
    }
    H5Fclose(file);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = world_size(); k >= 1; --k) {
    on_first_ranks(k, [&](MPI_Comm sub) {
      SCOPED_TRACE("read at " + std::to_string(k) + " ranks");
      Plan plan(sub, n, opts(fft::TransformKind::R2C, fft::Precision::Double));
      H5File f(sub, path);
      std::vector<double> u(std::size_t(plan.in_count()));
      expect_error([&] { f.read(plan, Space::Physical, "u", 0, u); }, ErrorCode::Io,
                   "/u/0 of '" + path + "' fails its checksum");
      std::vector<std::complex<double>> U(std::size_t(plan.out_count()));
      f.read(plan, Space::Spectral, "U", 0, U);  // the other dataset is untouched
      EXPECT_EQ(mismatches(plan.out_box(), U, 1), 0);
    });
  }
  remove_file(path);
}

// A write that fails (here: no room under rank 0's file size limit) is an Io error on every
// rank; close() then refuses to rename the incomplete checkpoint, and the previous file
// stays as it was.
TEST(Hdf5, CloseAfterAFailedWriteKeepsThePreviousFile) {
  const std::string path = temp_path("failed");
  const std::array<std::int64_t, 3> n{8, 8, 8};
  Plan plan(MPI_COMM_WORLD, n, opts(fft::TransformKind::R2C, fft::Precision::Double));
  const auto u = fill<double>(plan.in_box(), 0);
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "old", 0, 0.0, u);
    f.close();
  }
  H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
  f.write(plan, Space::Physical, "u", 0, 0.0, u);
  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  if (world_rank() == 0) {
    rlimit small = saved;
    small.rlim_cur = 64 << 10;  // below what the next dataset needs
    setrlimit(RLIMIT_FSIZE, &small);
  }
  expect_error([&] { f.write(plan, Space::Physical, "u", 1, 0.0, u); }, ErrorCode::Io, "no room for /u/1");
  if (world_rank() == 0) setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);
  expect_error([&] { f.close(); }, ErrorCode::Io, "failed earlier");
  EXPECT_FALSE(f.is_open());
  H5File g(MPI_COMM_WORLD, path);
  EXPECT_EQ(g.fields(), std::vector<std::string>{"old"});
  EXPECT_NE(access((path + ".nbfft-tmp").c_str(), F_OK), 0);
  g.close();
  remove_file(path);
}

}  // namespace
}  // namespace nbfft::io
