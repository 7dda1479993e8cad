// Padding ratios as option text and the physical grid they give (Options::padding).
#include "nbfft/error.hpp"
#include "nbfft/fft/options.hpp"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace nbfft::fft {

namespace {

// One ratio: a whole finite number >= 1 (no spaces, signs strtod would accept are fine
// only when the value passes the range).
bool ratio_of(const std::string& t, double* out) {
  if (t.empty() || t.size() > 32 || std::isspace(static_cast<unsigned char>(t[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < 1.0) return false;
  *out = v;
  return true;
}

// The shortest text that reads back as v.
std::string number(double v) {
  char buf[40];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

std::vector<double> parse_padding_list(std::string_view s) {
  const std::string t(s);
  std::vector<std::string> parts;
  std::size_t a = 0;
  for (;;) {
    const std::size_t c = t.find(',', a);
    parts.push_back(t.substr(a, c == std::string::npos ? std::string::npos : c - a));
    if (c == std::string::npos) break;
    a = c + 1;
  }
  std::vector<double> r(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k)
    if (!ratio_of(parts[k], &r[k]))
      throw Error("padding '" + t + "': '" + parts[k] + "' is not a number >= 1 (1: no padding; 1.5: the 3/2 rule)");
  return r;
}

std::string padding_list_str(const std::vector<double>& r) {
  if (r.empty()) return "1";
  bool same = true;
  for (double v : r) same = same && v == r[0];
  if (same) return number(r[0]);
  std::string s;
  for (std::size_t k = 0; k < r.size(); ++k) s += (k ? "," : "") + number(r[k]);
  return s;
}

std::array<double, 3> parse_padding(std::string_view s) {
  const std::vector<double> r = parse_padding_list(s);
  if (r.size() != 1 && r.size() != 3)
    throw Error("padding '" + std::string(s) + "' has " + std::to_string(r.size()) +
                " entries (give one ratio for every axis, or three: x,y,z)");
  return r.size() == 1 ? std::array<double, 3>{r[0], r[0], r[0]} : std::array<double, 3>{r[0], r[1], r[2]};
}

std::string padding_str(const std::array<double, 3>& r) { return padding_list_str({r[0], r[1], r[2]}); }

std::int64_t padded_points(std::int64_t n, double r, const std::string& axis) {
  if (!std::isfinite(r) || r < 1.0)
    throw Error("padding along " + axis + " is " + number(r) +
                "; a padding ratio must be a number >= 1 (1: no padding)");
  // No padding keeps the grid as given: its size is the decomposition's to check (a huge
  // grid is refused there as one that cannot be addressed, not as a padding).
  if (r == 1.0) return n;
  const double p = std::floor(static_cast<double>(n) * r);  // mpi4py-fft's int(np.floor(padding * n))
  if (p > 4611686018427387904.0)
    throw Error("padding " + number(r) + " along " + axis + " gives " + number(p) + " points, more than 2^62");
  return std::max<std::int64_t>(n, static_cast<std::int64_t>(p));
}

std::array<std::int64_t, 3> padded_size(const std::array<std::int64_t, 3>& n, const std::array<double, 3>& r) {
  static const char* axis[3] = {"x", "y", "z"};
  std::array<std::int64_t, 3> m{};
  for (int d = 0; d < 3; ++d) m[d] = padded_points(n[d], r[d], axis[d]);
  return m;
}

}  // namespace nbfft::fft
