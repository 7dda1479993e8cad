#include "h5util.hpp"

namespace nbfft::io::h5 {

namespace {
herr_t deepest(unsigned, const H5E_error2_t* e, void* out) {
  if (e->desc && *e->desc) *static_cast<std::string*>(out) = e->desc;
  return 0;
}

Id scalar_or_vector(std::size_t n) {
  const hsize_t len = n;
  return make(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &len, nullptr), H5Sclose, "H5Screate");
}

template <typename T>
void put(hid_t obj, const char* key, hid_t mem, hid_t file, const std::vector<T>& v) {
  Id s = scalar_or_vector(v.size());
  Id a = make(H5Acreate2(obj, key, file, s, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, std::string("attribute ") + key);
  check(H5Awrite(a, mem, v.data()), std::string("attribute ") + key);
}

template <typename T>
std::vector<T> get(hid_t obj, const char* key, hid_t mem, std::size_t n) {
  if (!has_attr(obj, key)) return {};
  Id a = make(H5Aopen(obj, key, H5P_DEFAULT), H5Aclose, std::string("attribute ") + key);
  Id s = make(H5Aget_space(a), H5Sclose, "H5Aget_space");
  Id t = make(H5Aget_type(a), H5Tclose, "H5Aget_type");
  const H5T_class_t c = H5Tget_class(t);
  if ((c != H5T_INTEGER && c != H5T_FLOAT) || H5Sget_simple_extent_npoints(s) != hssize_t(n)) return {};
  std::vector<T> v(n);
  check(H5Aread(a, mem, v.data()), std::string("attribute ") + key);
  return v;
}
}  // namespace

std::string reason() {
  std::string why;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, deepest, &why);
  H5Eclear2(H5E_DEFAULT);
  return why.empty() ? "HDF5 gave no reason" : why;
}

bool has_attr(hid_t obj, const char* key) { return check(H5Aexists(obj, key), std::string("attribute ") + key) > 0; }

void put_string(hid_t obj, const char* key, const std::string& value) {
  Id t = make(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy");
  check(H5Tset_size(t, H5T_VARIABLE), "H5Tset_size");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "H5Tset_cset");
  Id s = make(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate");
  Id a = make(H5Acreate2(obj, key, t, s, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, std::string("attribute ") + key);
  const char* p = value.c_str();
  check(H5Awrite(a, t, &p), std::string("attribute ") + key);
}

std::string get_string(hid_t obj, const char* key) {
  if (!has_attr(obj, key)) return "";
  Id a = make(H5Aopen(obj, key, H5P_DEFAULT), H5Aclose, std::string("attribute ") + key);
  Id ft = make(H5Aget_type(a), H5Tclose, "H5Aget_type");
  if (H5Tget_class(ft) != H5T_STRING) return "";
  Id t = make(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy");
  check(H5Tset_cset(t, H5Tget_cset(ft)), "H5Tset_cset");
  if (H5Tis_variable_str(ft) > 0) {
    check(H5Tset_size(t, H5T_VARIABLE), "H5Tset_size");
    char* p = nullptr;
    check(H5Aread(a, t, &p), std::string("attribute ") + key);
    std::string v = p ? p : "";
    H5free_memory(p);
    return v;
  }
  const std::size_t n = H5Tget_size(ft);
  check(H5Tset_size(t, n + 1), "H5Tset_size");
  std::string v(n + 1, '\0');
  check(H5Aread(a, t, v.data()), std::string("attribute ") + key);
  return v.c_str();
}

void put_int64s(hid_t obj, const char* key, const std::vector<std::int64_t>& v) {
  put(obj, key, H5T_NATIVE_INT64, H5T_STD_I64LE, v);
}
void put_doubles(hid_t obj, const char* key, const std::vector<double>& v) {
  put(obj, key, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, v);
}
std::vector<std::int64_t> get_int64s(hid_t obj, const char* key, std::size_t n) {
  return get<std::int64_t>(obj, key, H5T_NATIVE_INT64, n);
}
std::vector<double> get_doubles(hid_t obj, const char* key, std::size_t n) {
  return get<double>(obj, key, H5T_NATIVE_DOUBLE, n);
}

}  // namespace nbfft::io::h5
