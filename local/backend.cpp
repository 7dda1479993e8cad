// The backends this build has (NBFFT_LOCAL_FFTW / NBFFT_LOCAL_MKL come from the build lines
// in local/CMakeLists.txt), and the names and queries every layer above uses.
#include "local/backend.hpp"

#include "nbfft/error.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace nbfft::local {

namespace detail {

namespace {
std::vector<const Ops*> table() {
  std::vector<const Ops*> t;
#if NBFFT_LOCAL_FFTW
  t.push_back(&fftw_ops());
#endif
#if NBFFT_LOCAL_MKL
  t.push_back(&mkl_ops());
#endif
  return t;
}
const std::vector<const Ops*>& built_table() {
  static const std::vector<const Ops*> t = table();
  return t;
}
}  // namespace

const Ops* find(Backend b) {
  for (const Ops* o : built_table())
    if (o->id == b) return o;
  return nullptr;
}

}  // namespace detail

const char* name(Backend b) {
  switch (b) {
    case Backend::Fftw: return "fftw";
    case Backend::Mkl: return "mkl";
  }
  return "?";
}

namespace {
std::string built_list() {
  std::string s;
  for (Backend b : built_backends()) s += (s.empty() ? "" : ", ") + std::string(name(b));
  return s;
}
}  // namespace

Backend parse_backend(const std::string& s) {
  std::string l(s);
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (int i = 0; i < kBackends; ++i)
    if (l == name(static_cast<Backend>(i))) return static_cast<Backend>(i);
  throw Error("unknown local FFT backend '" + s + "' (use fftw or mkl; this build has " + built_list() + ")",
              ErrorCode::InvalidArgument);
}

bool built(Backend b) { return detail::find(b) != nullptr; }

std::vector<Backend> built_backends() {
  std::vector<Backend> v;
  for (const detail::Ops* o : detail::built_table()) v.push_back(o->id);
  return v;
}

Backend default_backend() { return built(Backend::Fftw) ? Backend::Fftw : built_backends().at(0); }

void require_built(Backend b) {
  if (!built(b))
    throw Error(std::string("the local FFT backend '") + name(b) + "' is not built into this nbfft (it has " +
                    built_list() + "; see docs/install.md for building with " + name(b) + ")",
                ErrorCode::Unavailable);
}

std::string version(Backend b) {
  const detail::Ops* o = detail::find(b);
  return o ? o->version() : std::string("not built");
}

bool supports_r2r(Backend b) {
  const detail::Ops* o = detail::find(b);
  return o && o->r2r;
}

template <>
int misalignment<double>(Backend b, const void* p) {
  const detail::Ops* o = detail::find(b);
  return o ? o->misalignment_double(p) : 0;
}
template <>
int misalignment<float>(Backend b, const void* p) {
  const detail::Ops* o = detail::find(b);
  return o ? o->misalignment_float(p) : 0;
}

std::string export_knowledge(Backend b, bool single) {
  const detail::Ops* o = detail::find(b);
  return o ? o->export_knowledge(single) : std::string();
}

bool import_knowledge(Backend b, bool single, const std::string& text) {
  const detail::Ops* o = detail::find(b);
  return o && o->import_knowledge(single, text);
}

}  // namespace nbfft::local
