#include "local/transform.hpp"

#include "local/backend.hpp"
#include "local/r2r_by_dft.hpp"
#include "nbfft/error.hpp"

#include <string>
#include <type_traits>

namespace nbfft::local {

std::string describe(const Problem& p) {
  static const char* kinds[] = {"forward c2c", "backward c2c", "r2c", "c2r", "r2r"};
  std::string s = kinds[static_cast<int>(p.kind)];
  auto dims = [](const std::vector<Dim>& v) {
    std::string t;
    for (const Dim& d : v)
      t += (t.empty() ? "" : " x ") + std::to_string(d.n) + " (strides " + std::to_string(d.is) + "/" +
           std::to_string(d.os) + ")";
    return t;
  };
  s += " of " + dims(p.dims);
  if (!p.loops.empty()) s += ", loops " + dims(p.loops);
  return s;
}

template <typename T>
Transform<T>::Transform(Backend backend, const Problem& p, void* plan_in, void* plan_out, Effort effort)
    : backend_(backend), in_place_(plan_in == plan_out), planned_(true) {
  require_built(backend);
  if (p.dims.empty())
    throw Error("local FFT: " + std::to_string(p.dims.size()) + " transformed dims",
                ErrorCode::Internal);
  if (p.kind == Kind::R2R && p.r2r.size() != p.dims.size())
    throw Error("local FFT: an r2r problem needs one kind per dim", ErrorCode::Internal);
  for (const Dim& d : p.dims)
    if (d.n <= 0) return;  // nothing to transform on this rank: stays empty
  for (const Dim& d : p.loops)
    if (d.n <= 0) return;
  // The furthest element a layout touches, sum of (n - 1) * |stride|, must be addressable
  // (backends take ptrdiff_t-like lengths). Decompositions bound their pencils, so this only
  // fires on a bug or a hand-made problem.
  std::int64_t reach_in = 0, reach_out = 0;
  auto add = [&](const Dim& d) {
    std::int64_t a = 0, b = 0;
    const std::int64_t is = d.is < 0 ? -d.is : d.is, os = d.os < 0 ? -d.os : d.os;
    if (__builtin_mul_overflow(d.n - 1, is, &a) || __builtin_mul_overflow(d.n - 1, os, &b) ||
        __builtin_add_overflow(reach_in, a, &reach_in) || __builtin_add_overflow(reach_out, b, &reach_out))
      throw Error("local FFT (" + describe(p) + ") reaches beyond the address space", ErrorCode::OutOfMemory);
  };
  for (const Dim& d : p.dims) add(d);
  for (const Dim& d : p.loops) add(d);
  const detail::Ops* ops = detail::find(backend);
  std::unique_ptr<Executor<T>> e;
  if (p.kind == Kind::R2R && !ops->r2r)  // through the backend's complex DFT (local/r2r_by_dft.cpp)
    e = detail::r2r_by_dft<T>(backend, p);
  else if constexpr (std::is_same_v<T, double>)
    e = ops->plan_double(p, plan_in, plan_out, effort);
  else
    e = ops->plan_float(p, plan_in, plan_out, effort);
  if (!e)
    throw Error(std::string("the local FFT backend '") + name(backend) + "' could not plan the " + describe(p),
                ErrorCode::Unavailable);
  exec_ = std::move(e);
}

template class Transform<double>;
template class Transform<float>;

}  // namespace nbfft::local
