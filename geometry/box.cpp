// nbfft::Box (nbfft/geometry/box.hpp): counts, offsets and the copy between two boxes.
#include "nbfft/geometry/box.hpp"

#include "nbfft/error.hpp"
#include "local/move.hpp"

#include <algorithm>
#include <sstream>

namespace nbfft {

std::int64_t Box::count() const {
  std::int64_t c = 1;
  for (auto v : n)
    if (__builtin_mul_overflow(c, v, &c)) {
      std::ostringstream os;
      os << "box " << *this << ": its element count overflows a 64-bit integer";
      throw Error(os.str(), ErrorCode::InvalidArgument);
    }
  return c;
}

std::int64_t Box::index(const std::vector<std::int64_t>& g) const {
  std::int64_t at = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const auto a = static_cast<std::size_t>(axis_at(i));
    at = at * n[a] + (g[a] - lo[a]);
  }
  return at;
}

std::int64_t Box::stride(std::size_t a) const {
  std::int64_t s = 1;
  for (std::size_t i = n.size(); i-- > 0;) {
    const auto ax = static_cast<std::size_t>(axis_at(i));
    if (ax == a) return s;
    s *= n[ax];
  }
  return s;
}

bool Box::natural() const {
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int>(i)) return false;
  return true;
}

std::vector<std::int64_t> Box::memory_shape() const {
  if (order.empty()) return n;
  std::vector<std::int64_t> m;
  for (int a : order) m.push_back(n[static_cast<std::size_t>(a)]);
  return m;
}

bool operator==(const Box& a, const Box& b) {
  if (a.lo != b.lo || a.n != b.n) return false;
  if (a.order.empty() || b.order.empty()) return a.natural() && b.natural();
  return a.order == b.order;
}

std::ostream& operator<<(std::ostream& os, const Box& b) {
  os << "[";
  for (std::size_t a = 0; a < b.n.size(); ++a) os << (a ? ", " : "") << b.lo[a] << ":" << b.lo[a] + b.n[a];
  os << "]";
  if (!b.natural()) {
    os << " order (";
    for (std::size_t i = 0; i < b.order.size(); ++i) os << (i ? ", " : "") << b.order[i];
    os << ")";
  }
  return os;
}

Box intersect(const Box& a, const Box& b) {
  Box r;
  r.order = a.order;
  r.lo.resize(a.lo.size());
  r.n.resize(a.n.size());
  for (std::size_t i = 0; i < a.lo.size(); ++i) {
    r.lo[i] = std::max(a.lo[i], b.lo[i]);
    r.n[i] = std::max<std::int64_t>(0, std::min(a.lo[i] + a.n[i], b.lo[i] + b.n[i]) - r.lo[i]);
  }
  if (r.count() == 0) std::fill(r.n.begin(), r.n.end(), 0);
  return r;
}

bool same_points(const Box& a, const Box& b) { return (a.lo == b.lo && a.n == b.n) || (a.empty() && b.empty()); }

void copy_region(const void* src, const Box& sb, void* dst, const Box& db, const Box& region, std::size_t elem) {
  const std::size_t d = region.n.size();
  if (d == 0 || region.empty()) return;
  // Axes in db's memory order, slowest first; rows run along the last (db's fastest).
  std::vector<std::size_t> ax(d);
  std::vector<std::int64_t> ss(d), ds(d);
  std::int64_t soff = 0, doff = 0;
  for (std::size_t i = 0; i < d; ++i) {
    ax[i] = static_cast<std::size_t>(db.axis_at(i));
    ss[i] = sb.stride(ax[i]);
    ds[i] = db.stride(ax[i]);
    soff += (region.lo[ax[i]] - sb.lo[ax[i]]) * ss[i];
    doff += (region.lo[ax[i]] - db.lo[ax[i]]) * ds[i];
  }
  const std::int64_t len = region.n[ax[d - 1]];
  const auto* s0 = static_cast<const unsigned char*>(src);
  auto* d0 = static_cast<unsigned char*>(dst);
  std::vector<std::int64_t> at(d, 0);  // an odometer over every axis but the fastest
  while (true) {
    local::copy_strided(d0 + static_cast<std::size_t>(doff) * elem, 1, s0 + static_cast<std::size_t>(soff) * elem,
                        ss[d - 1], len, elem);
    std::size_t i = d - 1;
    while (i-- > 0) {
      soff += ss[i];
      doff += ds[i];
      if (++at[i] < region.n[ax[i]]) break;
      soff -= ss[i] * at[i];
      doff -= ds[i] * at[i];
      at[i] = 0;
    }
    if (i == static_cast<std::size_t>(-1)) return;
  }
}

void copy_block(void* block, const Box& b, void* array, const std::vector<std::int64_t>& shape, bool to_array,
                std::size_t elem) {
  const Box whole{std::vector<std::int64_t>(shape.size(), 0), shape, {}};
  if (to_array)
    copy_region(block, b, array, whole, b, elem);
  else
    copy_region(array, whole, block, b, b, elem);
}

}  // namespace nbfft
