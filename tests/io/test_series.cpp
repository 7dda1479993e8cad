// Time series and quick looks (nbfft/io/hdf5.hpp write_plane, write_subsampled, the run's
// attributes and the XDMF beside the file) under real MPI at 1-3 ranks: every point of a
// plane or subsample lands where a serial HDF5 read expects it, whichever rank owned it (most
// ranks own none of a plane); the root says what run the file holds; the XDMF follows the
// options; bad input is the same clear error on every rank. The XDMF's meaning to VTK's
// reader is checked by tests/io/check_xdmf.py (make xdmf-test).
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"
#include "tests/io/io_test_util.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <complex>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace nbfft::io {
namespace {

using fft::Box3;
using fft::Plan;

using test::expect_error;
using test::world_rank;

std::string temp_path(const std::string& tag) { return test::temp_path("nbfft-series-", tag); }
std::string xmf_of(const std::string& h5) { return h5.substr(0, h5.size() - 3) + ".xmf"; }
void remove_files(const std::string& p) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    std::remove(p.c_str());
    std::remove(xmf_of(p).c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
std::string slurp(const std::string& p) {
  std::ifstream f(p);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

fft::Options opts(fft::TransformKind t, fft::Precision p) {
  fft::Options o;
  o.effort = fft::Effort::Estimate;
  o.transform = t;
  o.precision = p;
  return o;
}

// Distinct and exact for every point (grids below 2^6 per side).
double value(std::int64_t x, std::int64_t y, std::int64_t z) { return double(x + 64 * y + 4096 * z); }
template <typename T>
std::vector<T> fill(const Box3& b) {
  return test::fill_with<T>(b, [](std::int64_t x, std::int64_t y, std::int64_t z) {
    if constexpr (std::is_floating_point_v<T>)
      return T(value(x, y, z));
    else
      return T(typename T::value_type(value(x, y, z)), typename T::value_type(-1));
  });
}

// The dataset /<name> of a closed file as (real parts, imaginary parts, dims), read serially.
struct Read {
  std::vector<double> re, im;
  std::array<hsize_t, 3> dims{};
};
Read read_serial(const std::string& path, const std::string& name) {
  Read r;
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
  hid_t s = H5Dget_space(d);
  H5Sget_simple_extent_dims(s, r.dims.data(), nullptr);
  const std::size_t n = r.dims[0] * r.dims[1] * r.dims[2];
  hid_t ft = H5Dget_type(d);
  if (H5Tget_class(ft) == H5T_COMPOUND) {
    hid_t c = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(c, "r", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(c, "i", 8, H5T_NATIVE_DOUBLE);
    std::vector<double> both(2 * n);
    H5Dread(d, c, H5S_ALL, H5S_ALL, H5P_DEFAULT, both.data());
    H5Tclose(c);
    for (std::size_t k = 0; k < n; ++k) {
      r.re.push_back(both[2 * k]);
      r.im.push_back(both[2 * k + 1]);
    }
  } else {
    r.re.resize(n);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, r.re.data());
  }
  H5Tclose(ft);
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return r;
}

// The selection (start, stride per axis z, y, x) of a reduced dataset holds exactly the
// full field's points there.
int misplaced(const Read& r, std::array<std::int64_t, 3> start, std::array<std::int64_t, 3> stride, bool complex) {
  int bad = 0;
  for (hsize_t k = 0; k < r.dims[0]; ++k)
    for (hsize_t j = 0; j < r.dims[1]; ++j)
      for (hsize_t i = 0; i < r.dims[2]; ++i) {
        const std::size_t at = (k * r.dims[1] + j) * r.dims[2] + i;
        const double want = value(start[2] + std::int64_t(i) * stride[2], start[1] + std::int64_t(j) * stride[1],
                                  start[0] + std::int64_t(k) * stride[0]);
        bad += r.re[at] != want || (complex && r.im[at] != -1);
      }
  return bad;
}

// On nbfft's process grid, the other slab (P x 1) and, at 4 ranks, 2 x 2 pencils.
class Cuts : public testing::TestWithParam<int> {};

TEST_P(Cuts, PlanesAndSubsamplesHoldTheirPoints) {
  int P = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const std::pair<int, int> grid = GetParam() == 0 ? std::pair{0, 0} : GetParam() == 1 ? std::pair{P, 1} : std::pair{2, 2};
  if (grid.first * grid.second != 0 && grid.first * grid.second != P) GTEST_SKIP() << "needs 4 ranks";
  const std::string path = temp_path("cut");
  const std::array<std::int64_t, 3> n{7, 6, 5};  // uneven at every rank count
  {
    fft::Options ro = opts(fft::TransformKind::R2C, fft::Precision::Double), co = opts(fft::TransformKind::C2C, fft::Precision::Double);
    ro.m1 = co.m1 = grid.first;
    ro.m2 = co.m2 = grid.second;
    Plan r2c(MPI_COMM_WORLD, n, ro);
    Plan c2c(MPI_COMM_WORLD, n, co);
    const auto u = fill<double>(r2c.in_box());
    const auto U = fill<std::complex<double>>(r2c.out_box());
    const auto w = fill<std::complex<double>>(c2c.in_box());
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write_plane(r2c, Space::Physical, "pz", 0, 0.0, Axis::Z, 4, u);
    f.write_plane(r2c, Space::Physical, "py", 0, 0.0, Axis::Y, 0, u);
    f.write_plane(r2c, Space::Physical, "px", 0, 0.0, Axis::X, 6, u);
    f.write_plane(r2c, Space::Spectral, "Py", 0, 0.0, Axis::Y, 5, U);
    f.write_subsampled(r2c, Space::Physical, "sub", 0, 0.0, {3, 2, 4}, u);
    f.write_subsampled(r2c, Space::Spectral, "Sub", 0, 0.0, {2, 5, 1}, U);
    f.write_plane(c2c, Space::Physical, "wz", 0, 0.0, Axis::Z, 1, w);
    f.close();
  }
  if (world_rank() == 0) {
    struct Case { const char* name; std::array<hsize_t, 3> dims; std::array<std::int64_t, 3> start, stride; bool cplx; };
    const Case cases[] = {{"pz/0", {1, 6, 7}, {4, 0, 0}, {1, 1, 1}, false},
                          {"py/0", {5, 1, 7}, {0, 0, 0}, {1, 1, 1}, false},
                          {"px/0", {5, 6, 1}, {0, 0, 6}, {1, 1, 1}, false},
                          {"Py/0", {5, 1, 4}, {0, 5, 0}, {1, 1, 1}, true},
                          {"sub/0", {2, 3, 3}, {0, 0, 0}, {4, 2, 3}, false},
                          {"Sub/0", {5, 2, 2}, {0, 0, 0}, {1, 5, 2}, true},
                          {"wz/0", {1, 6, 7}, {1, 0, 0}, {1, 1, 1}, true}};
    for (const auto& c : cases) {
      SCOPED_TRACE(c.name);
      const Read r = read_serial(path, c.name);
      EXPECT_EQ(r.dims, c.dims);
      if (r.dims == c.dims) {
        EXPECT_EQ(misplaced(r, c.start, c.stride, c.cplx), 0);
      }
    }
  }
  remove_files(path);
}
INSTANTIATE_TEST_SUITE_P(Grids, Cuts, testing::Values(0, 1, 2));

TEST(Series, RunAttributesBoxLengthsAndTheXdmf) {
  const std::string path = temp_path("run");
  const std::array<std::int64_t, 3> n{6, 5, 4};
  Plan plan(MPI_COMM_WORLD, n, opts(fft::TransformKind::R2C, fft::Precision::Double));
  const auto u = fill<double>(plan.in_box());
  H5Options o;
  o.box_lengths = {1.5, 2.5, 4.0};  // x, y, z
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create, o);
    EXPECT_EQ(f.box_lengths(), (std::array<double, 3>{1.5, 2.5, 4.0}));
    EXPECT_EQ(f.xdmf_path(), xmf_of(path));
    f.write(plan, Space::Physical, "u", 0, 0.125, u);
    f.close();
  }
  if (world_rank() == 0) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    double L[3] = {0, 0, 0};
    std::int64_t grid[3] = {0, 0, 0};
    hid_t a = H5Aopen(f, "box_lengths", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_DOUBLE, L);
    H5Aclose(a);
    a = H5Aopen(f, "grid", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_INT64, grid);
    H5Aclose(a);
    EXPECT_EQ(L[0], 4.0);  // (Lz, Ly, Lx), the order of grid
    EXPECT_EQ(L[2], 1.5);
    EXPECT_EQ(grid[0], 4);
    EXPECT_EQ(grid[2], 6);
    EXPECT_GT(H5Aexists(f, "plan_options"), 0);
    H5Fclose(f);
    const std::string x = slurp(xmf_of(path));
    EXPECT_NE(x.find("<Time Value=\"0.125\"/>"), std::string::npos) << x;
    EXPECT_NE(x.find(":/u/0</DataItem>"), std::string::npos) << x;
    EXPECT_NE(x.find(">0 0 0</DataItem>"), std::string::npos) << x;                  // origin
    EXPECT_NE(x.find(">1 0.5 0.25</DataItem>"), std::string::npos) << x;              // spacing z, y, x
  }
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Append);  // the file's lengths
    EXPECT_EQ(f.box_lengths(), (std::array<double, 3>{1.5, 2.5, 4.0}));
    f.write(plan, Space::Physical, "u", 1, 0.25, u);
    if (world_rank() == 0) {
      EXPECT_NE(slurp(xmf_of(path)).find("<Time Value=\"0.25\"/>"), std::string::npos);  // current before close()
    }
    f.close();
  }
  H5Options other = o;
  other.box_lengths[2] = 5.0;
  expect_error([&] { H5File f(MPI_COMM_WORLD, path, H5File::Mode::Append, other); }, ErrorCode::InvalidArgument,
               "holds a run with box lengths 1.5, 2.5, 4 (x, y, z); H5Options::box_lengths gives 1.5, 2.5, 5");
  remove_files(path);

  H5Options none;
  none.xdmf = false;
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create, none);
    EXPECT_EQ(f.xdmf_path(), "");
    EXPECT_EQ(f.box_lengths()[0], 6.283185307179586);
    f.write(plan, Space::Physical, "u", 0, 0.0, u);
    f.close();
  }
  if (world_rank() == 0) {
    EXPECT_NE(access(xmf_of(path).c_str(), F_OK), 0) << "an XDMF was written with xdmf = false";
  }
  remove_files(path);
}

TEST(Series, ChunkedComplexIsLeftOutOfTheXdmfSayingWhy) {
  const std::string path = temp_path("chunk");
  Plan plan(MPI_COMM_WORLD, {6, 5, 4}, opts(fft::TransformKind::R2C, fft::Precision::Double));
  H5Options o;
  o.chunk = {2, 2, 2};
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create, o);
    f.write(plan, Space::Physical, "u", 0, 0.0, fill<double>(plan.in_box()));
    f.write(plan, Space::Spectral, "U", 0, 0.0, fill<std::complex<double>>(plan.out_box()));
    f.close();
  }
  if (world_rank() == 0) {
    const std::string x = slurp(xmf_of(path));
    EXPECT_NE(x.find("/U/0 is a chunked complex dataset"), std::string::npos) << x;
    EXPECT_EQ(x.find("U_re"), std::string::npos) << x;
    EXPECT_NE(x.find(":/u/0</DataItem>"), std::string::npos) << x;  // real chunked data reads through HDF
  }
  remove_files(path);
}

// An XDMF that cannot be written is an error on every rank that says the data is safe.
TEST(Series, AnUnwritableXdmfSaysTheFileIsComplete) {
  const std::string path = temp_path("blocked");
  Plan plan(MPI_COMM_WORLD, {6, 5, 4}, opts(fft::TransformKind::R2C, fft::Precision::Double));
  if (world_rank() == 0) mkdir(xmf_of(path).c_str(), 0755);  // a directory where the XDMF goes
  MPI_Barrier(MPI_COMM_WORLD);
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    f.write(plan, Space::Physical, "u", 0, 0.0, fill<double>(plan.in_box()));
    expect_error([&] { f.close(); }, ErrorCode::Io, "(the HDF5 file itself is complete;");
  }
  {
    H5File f(MPI_COMM_WORLD, path);
    EXPECT_EQ(f.steps("u"), (std::vector<std::int64_t>{0}));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) rmdir(xmf_of(path).c_str());
  remove_files(path);
}

TEST(Series, BadInputIsTheSameErrorOnEveryRank) {
  const std::string path = temp_path("bad");
  Plan plan(MPI_COMM_WORLD, {6, 5, 4}, opts(fft::TransformKind::R2C, fft::Precision::Double));
  const auto u = fill<double>(plan.in_box());
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    expect_error([&] { f.write_plane(plan, Space::Physical, "p", 0, 0.0, Axis::Z, 4, u); },
                 ErrorCode::InvalidArgument, "the plane z = 4 is outside the physical grid 4x5x6 (z, y, x): z runs 0..3");
    expect_error([&] { f.write_plane(plan, Space::Spectral, "p", 0, 0.0, Axis::X, -1, u); },
                 ErrorCode::InvalidArgument, "the plane x = -1 is outside the spectral grid 4x5x4");
    expect_error([&] { f.write_subsampled(plan, Space::Physical, "s", 0, 0.0, {2, 0, 1}, u); },
                 ErrorCode::InvalidArgument, "the stride 2,0,1 (x, y, z) must be at least 1 along every axis");
    expect_error([&] { f.write_plane(plan, Space::Spectral, "p", 0, 0.0, Axis::Z, 0, u); },
                 ErrorCode::InvalidArgument, "the plan's spectral field is complex128, the data passed is float64");
    expect_error([&] { f.write_plane(plan, Space::Physical, "a/b", 0, 0.0, Axis::Z, 0, u); },
                 ErrorCode::InvalidArgument, "is not a name");
    f.write_plane(plan, Space::Physical, "p", 0, 0.0, Axis::Z, 0, u);
    expect_error([&] { f.write_plane(plan, Space::Physical, "p", 0, 0.0, Axis::Z, 1, u); },
                 ErrorCode::InvalidArgument, "already holds /p/0");
    f.close();
  }
  {
    H5File f(MPI_COMM_WORLD, path);
    expect_error([&] { f.write_subsampled(plan, Space::Physical, "s", 0, 0.0, {2, 2, 2}, u); },
                 ErrorCode::InvalidArgument, "was opened for reading");
  }
  H5Options o;
  o.box_lengths = {1, -1, 1};
  expect_error([&] { H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create, o); }, ErrorCode::InvalidArgument,
               "box_lengths must be positive");
  o.box_lengths = {1, 0, 1};
  expect_error([&] { H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create, o); }, ErrorCode::InvalidArgument,
               "gives some axes and not others");
  o.box_lengths = {1, 1, world_rank() == 0 ? 1.0 : 2.0};
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1)
    expect_error([&] { H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create, o); }, ErrorCode::RanksDisagree,
                 "box_lengths");
  remove_files(path);
}

}  // namespace
}  // namespace nbfft::io
