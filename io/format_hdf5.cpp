// io/format.hpp on HDF5: an array is the dataset /<field>/<step> in the group /<field>;
// reals are IEEE little-endian floats and complex numbers the compound {r, i} of two,
// which h5py maps to numpy complex. These are the bytes nbfft's files always held.
#include "format.hpp"

#include "h5util.hpp"
#include "nbfft/error.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace nbfft::io::format {

static_assert(std::is_same_v<hid_t, FileId>, "io/format.hpp's FileId is HDF5's hid_t");

using h5::check;
using h5::Id;
using h5::make;

namespace {

bool is_complex(Dtype d) { return d == Dtype::Complex128 || d == Dtype::Complex64; }
std::size_t real_size(Dtype d) { return d == Dtype::Float64 || d == Dtype::Complex128 ? 8 : 4; }

// The element type in memory (native) or in the file (IEEE little-endian).
Id h5type(Dtype d, bool file) {
  const hid_t real = real_size(d) == 8 ? (file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE)
                                       : (file ? H5T_IEEE_F32LE : H5T_NATIVE_FLOAT);
  if (!is_complex(d)) return make(H5Tcopy(real), H5Tclose, "H5Tcopy");
  Id t = make(H5Tcreate(H5T_COMPOUND, 2 * real_size(d)), H5Tclose, "H5Tcreate");
  check(H5Tinsert(t, "r", 0, real), "H5Tinsert");
  check(H5Tinsert(t, "i", real_size(d), real), "H5Tinsert");
  return t;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

// The names of a group's links in name order (by index: the same calls in HDF5 1.10 and 1.12).
std::vector<std::string> children(hid_t group, const std::string& what) {
  H5G_info_t gi;
  check(H5Gget_info(group, &gi), what);
  std::vector<std::string> names;
  for (hsize_t k = 0; k < gi.nlinks; ++k) {
    const ssize_t len = check(H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT), what);
    std::string n(std::size_t(len) + 1, '\0');
    check(H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, n.data(), n.size(), H5P_DEFAULT), what);
    n.resize(std::size_t(len));
    names.push_back(n);
  }
  return names;
}

bool exists(hid_t where, const std::string& name) { return check(H5Lexists(where, name.c_str(), H5P_DEFAULT), "H5Lexists") > 0; }

bool parse_step(const std::string& s, std::int64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (std::size_t k = i; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  out = std::stoll(s);
  return std::to_string(out) == s;  // one spelling per step: no leading zeros
}

}  // namespace

struct Array::State {
  Id group, dset;  // closed in this order's reverse: the dataset first
};

Array::Array() = default;
Array::Array(std::unique_ptr<State> s) : s_(std::move(s)) {}
Array::~Array() = default;
Array::Array(Array&&) noexcept = default;
Array& Array::operator=(Array&&) noexcept = default;

std::vector<std::int64_t> Array::shape() const {
  Id fs = make(H5Dget_space(s_->dset), H5Sclose, "H5Dget_space");
  const int ndims = check(H5Sget_simple_extent_ndims(fs), "H5Sget_simple_extent_ndims");
  std::vector<hsize_t> dims(std::size_t(std::max(ndims, 0)));
  H5Sget_simple_extent_dims(fs, dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

bool Array::dtype(Dtype& out, std::string& why) const {
  Id t = make(H5Dget_type(s_->dset), H5Tclose, "H5Dget_type");
  const H5T_class_t cls = H5Tget_class(t);
  if (cls == H5T_FLOAT) {
    const std::size_t s = H5Tget_size(t);
    if (s == 8 || s == 4) {
      out = s == 8 ? Dtype::Float64 : Dtype::Float32;
      return true;
    }
  } else if (cls == H5T_COMPOUND && H5Tget_nmembers(t) == 2) {
    char* n0 = H5Tget_member_name(t, 0);
    char* n1 = H5Tget_member_name(t, 1);
    const bool ri = n0 && n1 && std::strcmp(n0, "r") == 0 && std::strcmp(n1, "i") == 0;
    H5free_memory(n0);
    H5free_memory(n1);
    Id m0(H5Tget_member_type(t, 0), H5Tclose), m1(H5Tget_member_type(t, 1), H5Tclose);
    if (ri && H5Tget_class(m0) == H5T_FLOAT && H5Tget_class(m1) == H5T_FLOAT && H5Tget_size(m0) == H5Tget_size(m1) &&
        (H5Tget_size(m0) == 8 || H5Tget_size(m0) == 4)) {
      out = H5Tget_size(m0) == 8 ? Dtype::Complex128 : Dtype::Complex64;
      return true;
    }
  }
  why = "an element type nbfft does not read (it reads IEEE floats and the compound {r, i} of two)";
  return false;
}

std::size_t Array::stored_element_size() const {
  Id t = make(H5Dget_type(s_->dset), H5Tclose, "H5Dget_type");
  return H5Tget_size(t);
}

bool Array::has(const char* key) const { return h5::has_attr(s_->dset, key); }
std::string Array::text(const char* key) const { return h5::get_string(s_->dset, key); }
std::vector<std::int64_t> Array::int64s(const char* key, std::size_t n) const { return h5::get_int64s(s_->dset, key, n); }
std::vector<double> Array::doubles(const char* key, std::size_t n) const { return h5::get_doubles(s_->dset, key, n); }

std::uint64_t Array::uint64(const char* key, const std::string& what) const {
  Id a = make(H5Aopen(s_->dset, key, H5P_DEFAULT), H5Aclose, std::string("attribute ") + key);
  std::uint64_t v = 0;
  check(H5Aread(a, H5T_NATIVE_UINT64, &v), what);
  return v;
}

void Array::put_text(const char* key, const std::string& value) { h5::put_string(s_->dset, key, value); }
void Array::put_int64s(const char* key, const std::vector<std::int64_t>& value) { h5::put_int64s(s_->dset, key, value); }
void Array::put_double(const char* key, double value) { h5::put_doubles(s_->dset, key, {value}); }

void Array::put_uint64(const char* key, std::uint64_t value) {
  Id s = make(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate");
  Id a = make(H5Acreate2(s_->dset, key, H5T_STD_U64LE, s, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              std::string("attribute ") + key);
  check(H5Awrite(a, H5T_NATIVE_UINT64, &value), std::string("attribute ") + key);
}

namespace {
// One collective transfer of a block (an empty one selects nothing and still takes part).
void transfer(hid_t dset, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& count, Dtype dtype,
              void* data, bool writing, const std::string& what) {
  Id filespace = make(H5Dget_space(dset), H5Sclose, "H5Dget_space");
  Id memspace;
  const bool none = std::any_of(count.begin(), count.end(), [](std::int64_t n) { return n == 0; });
  double dummy = 0;
  if (none) {
    check(H5Sselect_none(filespace), "H5Sselect_none");
    const hsize_t one = 1;
    memspace = make(H5Screate_simple(1, &one, nullptr), H5Sclose, "H5Screate_simple");
    check(H5Sselect_none(memspace), "H5Sselect_none");
    data = &dummy;
  } else {
    const std::vector<hsize_t> hstart(start.begin(), start.end()), hcount(count.begin(), count.end());
    check(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, hstart.data(), nullptr, hcount.data(), nullptr),
          "H5Sselect_hyperslab");
    memspace = make(H5Screate_simple(int(hcount.size()), hcount.data(), nullptr), H5Sclose, "H5Screate_simple");
  }
  Id dxpl = make(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "H5Pcreate");
  check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
  Id mtype = h5type(dtype, false);
  check(writing ? H5Dwrite(dset, mtype, memspace, filespace, dxpl, data)
                : H5Dread(dset, mtype, memspace, filespace, dxpl, data),
        what);
}
}  // namespace

void Array::write(const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& count, Dtype dtype,
                  const void* data, const std::string& what) {
  transfer(s_->dset, start, count, dtype, const_cast<void*>(data), true, what);
}

void Array::read(const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& count, Dtype dtype,
                 void* data, const std::string& what) {
  transfer(s_->dset, start, count, dtype, data, false, what);
}

std::uint64_t Array::byte_offset(const std::string& what) const {
  const haddr_t a = H5Dget_offset(s_->dset);
  if (a == HADDR_UNDEF) throw Error(ErrorCode::Io, what + ": HDF5 gave it no file offset: " + h5::reason());
  return std::uint64_t(a);
}

std::string Array::close() {
  if (!s_) return "";
  if (s_->dset.reset() < 0 || s_->group.reset() < 0) return h5::reason();
  return "";
}

Array create(FileId file, const std::string& path, const std::string& field, std::int64_t step,
             const std::vector<std::int64_t>& shape, Dtype dtype, const std::vector<std::int64_t>& chunk,
             const std::string& op) {
  auto s = std::make_unique<Array::State>();
  const std::string name = std::to_string(step), where = "/" + field + "/" + name;
  if (exists(file, field)) {
    s->group = make(H5Gopen2(file, field.c_str(), H5P_DEFAULT), H5Gclose, op + ": opening group /" + field);
    if (exists(s->group, name))
      throw Error(ErrorCode::InvalidArgument, op + ": '" + path + "' already holds " + where);
  } else {
    s->group = make(H5Gcreate2(file, field.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                    op + ": creating group /" + field);
  }
  Id ftype = h5type(dtype, true);
  const std::vector<hsize_t> dims(shape.begin(), shape.end());
  Id space = make(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose, "H5Screate_simple");
  // No fill values: every element is written at once, and filling costs minutes at scale.
  Id dcpl = make(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "H5Pcreate");
  check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
  check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "H5Pset_alloc_time");
  if (!chunk.empty()) {
    std::vector<hsize_t> c(dims.size());
    for (std::size_t a = 0; a < dims.size(); ++a) c[a] = std::min<hsize_t>(hsize_t(chunk[a]), std::max<hsize_t>(1, dims[a]));
    check(H5Pset_chunk(dcpl, int(c.size()), c.data()), op + ": H5Pset_chunk");
  }
  s->dset = make(H5Dcreate2(s->group, name.c_str(), ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose,
                 op + ": creating " + where + " in '" + path + "'");
  return Array(std::move(s));
}

Array open(FileId file, const std::string& path, const std::string& field, std::int64_t step, const std::string& op) {
  auto s = std::make_unique<Array::State>();
  const std::string name = std::to_string(step);
  if (!exists(file, field))
    throw Error(ErrorCode::InvalidArgument, op + ": '" + path + "' has no field '" + field +
                                                "' (its fields: " + join(children(file, "listing /")) + ")");
  s->group = make(H5Gopen2(file, field.c_str(), H5P_DEFAULT), H5Gclose, op + ": opening /" + field);
  if (!exists(s->group, name))
    throw Error(ErrorCode::InvalidArgument, op + ": '" + path + "' has no step " + name + " of field '" + field +
                                                "' (its steps: " + join(children(s->group, "listing /" + field)) + ")");
  s->dset = make(H5Dopen2(s->group, name.c_str(), H5P_DEFAULT), H5Dclose,
                 op + ": opening /" + field + "/" + name + " in '" + path + "'");
  return Array(std::move(s));
}

std::vector<std::string> fields(FileId file) {
  std::vector<std::string> out;
  for (const auto& n : children(file, "listing /")) {
    Id o = make(H5Oopen(file, n.c_str(), H5P_DEFAULT), H5Oclose, "opening /" + n);
    if (H5Iget_type(o) == H5I_GROUP) out.push_back(n);
  }
  return out;  // HDF5 lists names in order
}

std::vector<std::int64_t> steps(FileId file, const std::string& path, const std::string& field, const std::string& op) {
  if (!exists(file, field))
    throw Error(ErrorCode::InvalidArgument, op + ": '" + path + "' has no field '" + field + "'");
  Id g = make(H5Gopen2(file, field.c_str(), H5P_DEFAULT), H5Gclose, "opening /" + field);
  std::vector<std::int64_t> out;
  for (const auto& n : children(g, "listing /" + field)) {
    std::int64_t s = 0;
    if (parse_step(n, s)) out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace nbfft::io::format
