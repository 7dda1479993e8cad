// Time series and quick looks (nbfft/io/hdf5.hpp write_plane, write_subsampled, the run's
// attributes and the XDMF beside the file) under real MPI at 1-3 ranks: every point of a
// plane or subsample lands where a serial HDF5 read expects it, whichever rank owned it (most
// ranks own none of a plane); they carry a whole field's checksum and read back at every
// rank count, a flipped bit failing the read on every rank; the root says what run the
// file holds; the XDMF follows the options; bad input is the same clear error on every rank. The XDMF's meaning to VTK's
// reader is checked by tests/io/check_xdmf.py (make xdmf-test).
#include "io/checksum.hpp"
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
using test::on_first_ranks;

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
// One quick look to write and read back: a plane (axis, index) or a subsample (stride).
struct Look {
  const char* field;
  bool spectral, c2c, plane;
  Axis axis;
  std::int64_t index;
  std::array<std::int64_t, 3> stride;  // x, y, z
  std::array<std::int64_t, 3> start() const {  // x, y, z
    std::array<std::int64_t, 3> s{0, 0, 0};
    if (plane) s[axis == Axis::X ? 0 : axis == Axis::Y ? 1 : 2] = index;
    return s;
  }
  bool selects(std::int64_t x, std::int64_t y, std::int64_t z) const {
    if (plane) return (axis == Axis::X ? x : axis == Axis::Y ? y : z) == index;
    return x % stride[0] == 0 && y % stride[1] == 0 && z % stride[2] == 0;
  }
};
const Look kLooks[] = {{"pz", false, false, true, Axis::Z, 4, {1, 1, 1}},  {"py", false, false, true, Axis::Y, 0, {1, 1, 1}},
                       {"px", false, false, true, Axis::X, 6, {1, 1, 1}},  {"Py", true, false, true, Axis::Y, 5, {1, 1, 1}},
                       {"sub", false, false, false, Axis::X, 0, {3, 2, 4}}, {"Sub", true, false, false, Axis::X, 0, {2, 5, 1}},
                       {"wz", false, true, true, Axis::Z, 1, {1, 1, 1}},   {"Wsub", true, true, false, Axis::X, 0, {2, 2, 3}}};

struct Plans {
  Plan r2c, c2c;
  Plans(MPI_Comm comm, std::array<std::int64_t, 3> n, std::pair<int, int> grid)
      : r2c(comm, n, with_grid(opts(fft::TransformKind::R2C, fft::Precision::Double), grid)),
        c2c(comm, n, with_grid(opts(fft::TransformKind::C2C, fft::Precision::Double), grid)) {}
  static fft::Options with_grid(fft::Options o, std::pair<int, int> g) {
    o.m1 = g.first;
    o.m2 = g.second;
    return o;
  }
  const Plan& of(const Look& l) const { return l.c2c ? c2c : r2c; }
};

// Writes every look of kLooks from the plans' boxes (each look's own field).
void write_looks(H5File& f, const Plans& p) {
  for (const Look& l : kLooks) {
    const Plan& plan = p.of(l);
    const Space space = l.spectral ? Space::Spectral : Space::Physical;
    if (!l.spectral && !l.c2c) {
      const auto u = fill<double>(plan.in_box());
      if (l.plane) f.write_plane(plan, space, l.field, 0, 0.0, l.axis, l.index, u);
      else f.write_subsampled(plan, space, l.field, 0, 0.0, l.stride, u);
    } else {
      const auto U = fill<std::complex<double>>(l.spectral ? plan.out_box() : plan.in_box());
      if (l.plane) f.write_plane(plan, space, l.field, 0, 0.0, l.axis, l.index, U);
      else f.write_subsampled(plan, space, l.field, 0, 0.0, l.stride, U);
    }
  }
}

// Reads a look back into a box filled with a sentinel: how many points are wrong (a
// selected point not its value, another point not the sentinel).
template <typename T>
int misread(const H5File& f, const Plan& plan, const Look& l) {
  const Space space = l.spectral ? Space::Spectral : Space::Physical;
  const Box3 b = l.spectral ? plan.out_box() : plan.in_box();
  const T sentinel = T(-7);
  std::vector<T> v(std::size_t(b.count()), sentinel);
  if (l.plane) f.read_plane(plan, space, l.field, 0, l.axis, l.index, v);
  else f.read_subsampled(plan, space, l.field, 0, l.stride, v);
  const std::vector<T> want = fill<T>(b);
  int bad = 0;
  for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
    for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
      for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x) {
        const std::size_t i = std::size_t(b.index(x, y, z));
        bad += v[i] != (l.selects(x, y, z) ? want[i] : sentinel);
      }
  return bad;
}
int misread(const H5File& f, const Plans& p, const Look& l) {
  return !l.spectral && !l.c2c ? misread<double>(f, p.of(l), l) : misread<std::complex<double>>(f, p.of(l), l);
}

// A plane or subsample carries the checksum a whole field of its shape would (a serial
// read of the dataset sums to it) and reads back, at every rank count and the other
// decompositions, into exactly its points of each rank's box.
TEST_P(Cuts, PlanesAndSubsamplesCarryAChecksumAndReadBackAtAnyRankCount) {
  int P = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const std::pair<int, int> grid = GetParam() == 0 ? std::pair{0, 0} : GetParam() == 1 ? std::pair{P, 1} : std::pair{2, 2};
  if (grid.first * grid.second != 0 && grid.first * grid.second != P) GTEST_SKIP() << "needs 4 ranks";
  const std::string path = temp_path("cutsum");
  const std::array<std::int64_t, 3> n{7, 6, 5};
  {
    Plans p(MPI_COMM_WORLD, n, grid);
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    write_looks(f, p);
    f.close();
  }
  if (world_rank() == 0) {
    hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    for (const Look& l : kLooks) {
      SCOPED_TRACE(l.field);
      const Read r = read_serial(path, std::string(l.field) + "/0");
      std::vector<double> words;  // the dataset's real words in order: r, or r then i per element
      for (std::size_t k = 0; k < r.re.size(); ++k) {
        words.push_back(r.re[k]);
        if (!r.im.empty()) words.push_back(r.im[k]);
      }
      const std::int64_t dims[3] = {std::int64_t(r.dims[0]), std::int64_t(r.dims[1]), std::int64_t(r.dims[2])};
      const std::int64_t zero[3] = {0, 0, 0};
      hid_t d = H5Dopen2(file, (std::string(l.field) + "/0").c_str(), H5P_DEFAULT);
      std::uint64_t stored = 0;
      ASSERT_GT(H5Aexists(d, "checksum"), 0);
      hid_t a = H5Aopen(d, "checksum", H5P_DEFAULT);
      H5Aread(a, H5T_NATIVE_UINT64, &stored);
      H5Aclose(a);
      H5Dclose(d);
      EXPECT_EQ(detail::block_checksum(zero, dims, dims, r.im.empty() ? Dtype::Float64 : Dtype::Complex128, words.data()),
                stored);
    }
    H5Fclose(file);
  }
  for (int k = P; k >= 1; --k) {
    on_first_ranks(k, [&](MPI_Comm sub) {
      SCOPED_TRACE("read at " + std::to_string(k) + " ranks");
      Plans p(sub, n, {0, 0});
      H5File f(sub, path);
      for (const Look& l : kLooks) EXPECT_EQ(misread(f, p, l), 0) << l.field;
    });
  }
  remove_files(path);
}

INSTANTIATE_TEST_SUITE_P(Grids, Cuts, testing::Values(0, 1, 2));

// One bit of a plane's and of a subsample's data flipped in the file, past HDF5: their
// reads fail their checksum with the same Io error on every rank at every rank count;
// the datasets beside them read as before.
TEST(Series, AFlippedBitInAPlaneOrSubsampleFailsItsRead) {
  int P = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const std::string path = temp_path("cutflip");
  const std::array<std::int64_t, 3> n{7, 6, 5};
  {
    Plans p(MPI_COMM_WORLD, n, {0, 0});
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    write_looks(f, p);
    f.close();
  }
  if (world_rank() == 0) {
    for (const char* name : {"/px/0", "/Sub/0"}) {  // a real plane, a complex subsample
      hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
      const haddr_t at = H5Dget_offset(d);
      H5Dclose(d);
      H5Fclose(file);
      std::FILE* fp = std::fopen(path.c_str(), "r+b");
      std::fseek(fp, long(at) + 8 * 3 + 5, SEEK_SET);
      const int c = std::fgetc(fp);
      std::fseek(fp, long(at) + 8 * 3 + 5, SEEK_SET);
      std::fputc(c ^ 0x10, fp);
      std::fclose(fp);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int k = P; k >= 1; --k) {
    on_first_ranks(k, [&](MPI_Comm sub) {
      SCOPED_TRACE("read at " + std::to_string(k) + " ranks");
      Plans p(sub, n, {0, 0});
      H5File f(sub, path);
      std::vector<double> u(std::size_t(p.r2c.in_count()));
      std::vector<std::complex<double>> U(std::size_t(p.r2c.out_count()));
      expect_error([&] { f.read_plane(p.r2c, Space::Physical, "px", 0, Axis::X, 6, u); }, ErrorCode::Io,
                   "H5File::read_plane: /px/0 of '" + path + "' fails its checksum");
      expect_error([&] { f.read_subsampled(p.r2c, Space::Spectral, "Sub", 0, {2, 5, 1}, U); }, ErrorCode::Io,
                   "H5File::read_subsampled: /Sub/0 of '" + path + "' fails its checksum");
      for (const Look& l : kLooks) {
        if (std::string(l.field) != "px" && std::string(l.field) != "Sub") {
          EXPECT_EQ(misread(f, p, l), 0) << l.field;
        }
      }
    });
  }
  remove_files(path);
}

// Reading a quick look that is not the one asked for, or into the wrong buffer, is the same
// clear error on every rank.
TEST(Series, ReadingTheWrongQuickLookIsAClearError) {
  const std::string path = temp_path("cutbad");
  Plans p(MPI_COMM_WORLD, {7, 6, 5}, {0, 0});
  {
    H5File f(MPI_COMM_WORLD, path, H5File::Mode::Create);
    write_looks(f, p);
    f.write(p.r2c, Space::Physical, "u", 0, 0.0, fill<double>(p.r2c.in_box()));
    f.close();
  }
  H5File f(MPI_COMM_WORLD, path);
  std::vector<double> u(std::size_t(p.r2c.in_count()));
  std::vector<std::complex<double>> U(std::size_t(p.r2c.out_count()));
  const std::string of = " of '" + path + "'";
  expect_error([&] { f.read_plane(p.r2c, Space::Physical, "pz", 0, Axis::Z, 3, u); }, ErrorCode::InvalidArgument,
               "H5File::read_plane: /pz/0" + of + " is the plane z = 4 of a 1x6x7 (z, y, x) array; asked for the plane "
               "z = 3 (1x6x7) of this plan's physical grid");
  expect_error([&] { f.read_plane(p.r2c, Space::Physical, "sub", 0, Axis::Z, 0, u); }, ErrorCode::InvalidArgument,
               "/sub/0" + of + " is subsampled by 3,2,4 (x, y, z) of a 2x3x3 (z, y, x) array; asked for the plane z = 0");
  expect_error([&] { f.read_subsampled(p.r2c, Space::Physical, "sub", 0, {3, 2, 2}, u); }, ErrorCode::InvalidArgument,
               "asked for subsampled by 3,2,2 (x, y, z) (3x3x3)");
  expect_error([&] { f.read_plane(p.r2c, Space::Physical, "u", 0, Axis::Z, 0, u); }, ErrorCode::InvalidArgument,
               "/u/0" + of + " is a whole field of a 5x6x7 (z, y, x) array");
  expect_error([&] { f.read_plane(p.r2c, Space::Spectral, "pz", 0, Axis::Z, 4, U); }, ErrorCode::InvalidArgument,
               "/pz/0" + of + " is a physical dataset; asked for a spectral one");
  expect_error([&] { f.read_plane(p.r2c, Space::Physical, "pz", 0, Axis::Z, 9, u); }, ErrorCode::InvalidArgument,
               "the plane z = 9 is outside the physical grid 5x6x7 (z, y, x)");
  expect_error([&] { f.read_plane(p.r2c, Space::Physical, "pz", 1, Axis::Z, 4, u); }, ErrorCode::InvalidArgument,
               "has no step 1 of field 'pz' (its steps: 0)");
  expect_error([&] { f.read_plane(p.r2c, Space::Physical, "pz", 0, Axis::Z, 4, U); }, ErrorCode::InvalidArgument,
               "the plan's physical field is float64, the data passed is complex128");
  std::vector<double> short_u(1);
  if (p.r2c.in_count() > 1) {  // every rank has more than one point here
    expect_error([&] { f.read_plane(p.r2c, Space::Physical, "pz", 0, Axis::Z, 4, short_u); }, ErrorCode::InvalidArgument,
                 "the buffer holds 1 elements");
  }
  f.close();
  remove_files(path);
}

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
                 ErrorCode::InvalidArgument, "contains '/'");
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
