// Transform kinds per axis (include/nbfft/fft/r2r_kinds.hpp): names, inverses, logical
// sizes, grid points and wavenumbers.
#include "nbfft/fft/r2r_kinds.hpp"

#include "nbfft/error.hpp"
#include "fft/text.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace nbfft::fft {

namespace {

struct KindRow {
  AxisKind kind;
  const char* name;
  const char* redft;  // the classic REDFT/RODFT name (FFTW's)
  AxisKind inverse;
  double shift;  // mode k has wavenumber (k + shift) pi / L (r2r)
};

// One row per kind: what every function below reads.
const std::vector<KindRow>& kind_rows() {
  using K = AxisKind;
  static const std::vector<KindRow> rows = {
      {K::Periodic, "periodic", "DFT", K::Periodic, 0},
      {K::Dct1, "dct1", "REDFT00", K::Dct1, 0},   {K::Dct2, "dct2", "REDFT10", K::Dct3, 0},
      {K::Dct3, "dct3", "REDFT01", K::Dct2, 0.5}, {K::Dct4, "dct4", "REDFT11", K::Dct4, 0.5},
      {K::Dst1, "dst1", "RODFT00", K::Dst1, 1},   {K::Dst2, "dst2", "RODFT10", K::Dst3, 1},
      {K::Dst3, "dst3", "RODFT01", K::Dst2, 0.5}, {K::Dst4, "dst4", "RODFT11", K::Dst4, 0.5},
  };
  return rows;
}

const KindRow& row(AxisKind k) { return kind_rows()[static_cast<std::size_t>(k)]; }

}  // namespace

const char* name(AxisKind k) { return row(k).name; }
const char* redft_name(AxisKind k) { return row(k).redft; }
AxisKind inverse(AxisKind k) { return row(k).inverse; }

AxisKind parse_axis_kind(std::string_view s) {
  const std::string l = lower_case(s);
  for (const auto& r : kind_rows())
    if (l == r.name || (r.kind != AxisKind::Periodic && l == lower_case(r.redft))) return r.kind;
  throw Error("unknown transform kind '" + std::string(s) +
              "' (use periodic, dct1..dct4, dst1..dst4, or the names REDFT00, REDFT10, REDFT01, REDFT11, RODFT00, "
              "RODFT10, RODFT01, RODFT11)");
}

AxisKinds parse_axis_kinds(std::string_view s) {
  const std::vector<std::string_view> parts = split_commas(s);
  if (parts.size() == 1) {
    const AxisKind k = parse_axis_kind(parts[0]);
    return {k, k, k};
  }
  if (parts.size() != 3)
    throw Error("kinds '" + std::string(s) + "' has " + std::to_string(parts.size()) +
                " entries: give one kind for every axis or three, for x, y and z (e.g. periodic,periodic,dst1)");
  return {parse_axis_kind(parts[0]), parse_axis_kind(parts[1]), parse_axis_kind(parts[2])};
}

std::string kinds_str(const AxisKinds& k) {
  return std::string(name(k[0])) + "," + name(k[1]) + "," + name(k[2]);
}

std::int64_t min_points(AxisKind k) { return k == AxisKind::Dct1 ? 2 : 1; }

double logical_size(AxisKind k, std::int64_t n) {
  const double d = static_cast<double>(n);
  switch (k) {
    case AxisKind::Periodic: return d;
    case AxisKind::Dct1: return 2 * (d - 1);
    case AxisKind::Dst1: return 2 * (d + 1);
    default: return 2 * d;
  }
}

double axis_point(AxisKind k, std::int64_t j, std::int64_t n, double length) {
  const double x = static_cast<double>(j), d = static_cast<double>(n);
  switch (k) {
    case AxisKind::Periodic:
    case AxisKind::Dct3: return x * length / d;
    case AxisKind::Dct1: return x * length / (d - 1);
    case AxisKind::Dst1: return (x + 1) * length / (d + 1);
    case AxisKind::Dst3: return (x + 1) * length / d;
    default: return (x + 0.5) * length / d;  // dct2, dct4, dst2, dst4: cell centres
  }
}

double wavenumber(AxisKind k, std::int64_t i, std::int64_t n, double length, bool half) {
  constexpr double pi = 3.141592653589793238462643383279502884;
  if (k == AxisKind::Periodic) {
    const std::int64_t m = half || i < (n + 1) / 2 ? i : i - n;
    return 2 * pi / length * static_cast<double>(m);
  }
  return pi / length * (static_cast<double>(i) + row(k).shift);
}

}  // namespace nbfft::fft
