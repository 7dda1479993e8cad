// nbfft/io/layout.hpp: the layouts of nbfft's arrays, and what makes a layout usable.
// Built with or without HDF5 (the layouts do not depend on a file format).
#include "nbfft/io/layout.hpp"

#include "nbfft/fft/plan.hpp"
#include "nbfft/fft/transpose.hpp"

#include <sstream>

namespace nbfft::io {

namespace {

// A 3-D plan's or pencil's box, (x, y, z) with its order fastest first, as an N-D box of
// the (z, y, x) array: axis a of the array is dimension 2 - a of the box, and the memory
// order slowest first reverses the fastest-first one.
nd::Box box_of(const fft::Box3& b) {
  nd::Box out;
  out.lo = {b.lo[2], b.lo[1], b.lo[0]};
  out.n = {b.n[2], b.n[1], b.n[0]};
  out.order = {2 - b.order[2], 2 - b.order[1], 2 - b.order[0]};
  return out;
}

Dtype dtype_of_element(fft::Precision p, bool real) {
  const bool dbl = p == fft::Precision::Double;
  return real ? (dbl ? Dtype::Float64 : Dtype::Float32) : (dbl ? Dtype::Complex128 : Dtype::Complex64);
}

template <typename T>
std::string joined(const std::vector<T>& v, const char* sep) {
  std::ostringstream os;
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

}  // namespace

std::size_t size_of(Dtype d) {
  const std::size_t real = d == Dtype::Float64 || d == Dtype::Complex128 ? 8 : 4;
  return d == Dtype::Complex128 || d == Dtype::Complex64 ? 2 * real : real;
}

std::string shape_text(const std::vector<std::int64_t>& shape) { return joined(shape, "x"); }

Layout::Layout(std::vector<std::int64_t> s, nd::Box b, Dtype d) : shape(std::move(s)), box(std::move(b)), dtype(d) {}

Layout Layout::of(const fft::Plan& plan, Space space) {
  const auto& d = plan.decomposition();
  const auto& o = plan.options();
  // The element types are the plan's one rule of call shapes (real or complex per side:
  // r2c, c2c, or real both ways when every axis of real data is r2r).
  const fft::Plan::Shape shape = plan.shape(fft::Direction::Forward);
  const fft::Element e = space == Space::Physical ? shape.in : shape.out;
  Layout l;
  if (space == Space::Physical) {
    l.shape = {d.m[2], d.m[1], d.m[0]};  // a padded plan's physical grid
    l.box = box_of(plan.in_box());
  } else {
    l.shape = {d.n[2], d.n[1], d.xc};
    l.box = box_of(plan.out_box());
  }
  l.dtype = dtype_of_element(e.precision, e.real);
  l.has_space = true;
  l.space = space;
  l.text = {{"transform", fft::name(o.transform)},
            {"precision", fft::name(o.precision)},
            {"norm", fft::name(o.norm)},
            {"axes", space == Space::Physical ? "z y x" : "kz ky kx"},
            {"halved_axis", space == Space::Spectral && d.r2c ? "kx" : "none"},
            {"kinds", fft::kinds_str(o.kinds)},  // x, y, z (docs/fft.md "Transform kinds")
            {"padding", fft::padding_str(o.padding)}};
  l.numbers = {{"grid", {d.n[2], d.n[1], d.n[0]}}, {"physical_grid", {d.m[2], d.m[1], d.m[0]}}};
  l.process_grid = std::to_string(d.m1) + "x" + std::to_string(d.m2);
  l.ranks = d.m1 * d.m2;
  l.rank = d.rank;
  l.run_grid = {d.n[2], d.n[1], d.n[0]};
  l.run_physical_grid = {d.m[2], d.m[1], d.m[0]};
  std::ostringstream os;
  os << o;
  l.run_options = os.str();
  return l;
}

Layout Layout::of(const nd::Plan& plan, Space space) {
  const bool physical = space == Space::Physical;
  Layout l;
  l.shape = physical ? plan.shape() : plan.out_shape();
  l.box = physical ? plan.in_box() : plan.out_box();
  // Real input for r2c (and r2r); a real spectrum only when every listed axis is r2r.
  const bool real = physical ? plan.kind() == nd::Kind::R2C : plan.real_spectrum();
  l.dtype = dtype_of_element(plan.precision(), real);
  l.has_space = true;
  l.space = space;
  std::vector<std::string> kinds;
  for (fft::AxisKind k : plan.kinds()) kinds.push_back(fft::name(k));
  const bool halved = plan.kind() == nd::Kind::R2C && !plan.real_spectrum();
  int halved_axis = -1;  // the last listed periodic axis (nbfft/nd/plan.hpp)
  for (std::size_t i = 0; i < plan.axes().size(); ++i)
    if (plan.kinds().empty() || plan.kinds()[i] == fft::AxisKind::Periodic) halved_axis = plan.axes()[i];
  l.text = {{"transform", nd::name(plan.kind())},
            {"precision", fft::name(plan.precision())},
            {"norm", fft::name(plan.options().norm)},
            {"axes", joined(plan.axes(), " ")},  // the transformed axes
            {"halved_axis", !physical && halved && halved_axis >= 0 ? std::to_string(halved_axis) : "none"},
            {"kinds", joined(kinds, ",")}};
  l.numbers = {{"grid", plan.shape()}};
  l.process_grid = joined(physical ? plan.grid() : plan.out_grid(), "x");
  l.ranks = plan.size();
  l.rank = plan.rank();
  return l;
}

Layout Layout::of(const fft::Pencils& pencils, fft::Pencil pencil, Dtype dtype) {
  const auto n = pencils.global_size();
  Layout l({n[2], n[1], n[0]}, box_of(pencils.box(pencil)), dtype);
  l.text = {{"axes", "z y x"}, {"pencil", fft::name(pencil)}};
  l.process_grid = std::to_string(pencils.m1()) + "x" + std::to_string(pencils.m2());
  l.ranks = pencils.m1() * pencils.m2();
  int rank = 0;
  MPI_Comm_rank(pencils.comm(), &rank);
  l.rank = rank;
  return l;
}

std::string Layout::check() const {
  const std::size_t d = shape.size();
  std::ostringstream os;
  if (d == 0) return "the layout's shape has no axes";
  std::int64_t total = 1;
  for (std::size_t a = 0; a < d; ++a) {
    if (shape[a] < 0) {
      os << "the layout's shape (" << joined(shape, ", ") << ") has a negative extent along axis " << a;
      return os.str();
    }
    if (__builtin_mul_overflow(total, shape[a], &total)) {
      os << "the layout's shape (" << joined(shape, ", ") << ") has more elements than a 64-bit count holds";
      return os.str();
    }
  }
  if (box.lo.size() != d || box.n.size() != d) {
    os << "the layout's box has " << box.lo.size() << " offsets and " << box.n.size() << " extents; its shape ("
       << joined(shape, ", ") << ") has " << d << " axes";
    return os.str();
  }
  for (std::size_t a = 0; a < d; ++a)
    if (box.lo[a] < 0 || box.n[a] < 0 || box.lo[a] > shape[a] || box.n[a] > shape[a] - box.lo[a]) {
      os << "the layout's box " << box << " lies outside its shape (" << joined(shape, ", ") << ") along axis " << a;
      return os.str();
    }
  if (!box.order.empty()) {
    std::vector<bool> seen(d, false);
    bool ok = box.order.size() == d;
    for (int a : box.order) {
      ok = ok && a >= 0 && std::size_t(a) < d && !seen[std::size_t(a)];
      if (ok) seen[std::size_t(a)] = true;
    }
    if (!ok) {
      os << "the layout's box order (" << joined(box.order, ", ") << ") is not a permutation of its " << d
         << " axes (0 .. " << d - 1 << ", slowest first; empty: C order)";
      return os.str();
    }
  }
  return "";
}

std::string Layout::attribute(const std::string& key) const {
  for (const auto& kv : text)
    if (kv.first == key) return kv.second;
  return "";
}

}  // namespace nbfft::io
