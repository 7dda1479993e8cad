// Small helpers over the HDF5 C API for the io layer (io/hdf5.cpp, series.cpp, planes.cpp):
// an identifier closed by its own function, error checks that name HDF5's reason, and
// the attribute forms nbfft's files use (variable-length UTF-8 strings, int64, float64).
// Internal: nbfft's headers never include HDF5.
#pragma once

#include "nbfft/error.hpp"

#include <hdf5.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nbfft::io::h5 {

// The deepest (most specific) description on HDF5's error stack; the stack is cleared.
std::string reason();

template <typename T>
T check(T rc, const std::string& what) {
  if (rc < 0) throw Error(ErrorCode::Io, what + ": " + reason());
  return rc;
}

class Id {
 public:
  Id() = default;
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  Id(Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Id& operator=(Id&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  ~Id() { reset(); }
  herr_t reset() {
    herr_t rc = 0;
    if (id_ >= 0 && close_) rc = close_(id_);
    id_ = -1;
    return rc;
  }
  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

inline Id make(hid_t id, herr_t (*close)(hid_t), const std::string& what) { return Id(check(id, what), close); }

bool has_attr(hid_t obj, const char* key);
void put_string(hid_t obj, const char* key, const std::string& value);
std::string get_string(hid_t obj, const char* key);  // "" when absent
void put_int64s(hid_t obj, const char* key, const std::vector<std::int64_t>& v);
void put_doubles(hid_t obj, const char* key, const std::vector<double>& v);
// The attribute's values when it holds exactly n numbers (converted by HDF5), else empty.
std::vector<std::int64_t> get_int64s(hid_t obj, const char* key, std::size_t n);
std::vector<double> get_doubles(hid_t obj, const char* key, std::size_t n);

}  // namespace nbfft::io::h5
