// The object behind nbfft_options (capi/handles.hpp): one handle for every kind of plan, on
// the one option table. A key is set if any plan takes its value; each plan made from the
// handle then refuses, naming the key and why, a value it cannot take.
#include "capi/handles.hpp"

#include "nbfft/fft/option_table.hpp"
#include "nbfft/nd/options_text.hpp"

#include <algorithm>
#include <optional>

namespace {

namespace fft = nbfft::fft;
namespace nd = nbfft::nd;
using nbfft::Error;

// Runs f; the error it throws, if any.
template <typename F>
std::optional<Error> attempt(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

void nbfft_options_s::assign(std::string_view key, std::string_view value) {
  const fft::OptionRow& row = fft::option_row(key);  // unknown: every key listed
  const std::string k = row.key;
  fft::Options next = o;
  std::optional<Error> why_3d = attempt([&] { fft::set_option(next, k, value); });
  std::optional<Error> why_nd = attempt([&] {
    nd::Options scratch;
    nd::set_option(scratch, k, value);
  });
  if (why_3d && why_nd) throw fft::applies_to_3d(row.scope) ? *why_3d : *why_nd;
  if (!why_3d) o = next;
  set.erase(std::remove_if(set.begin(), set.end(), [&](const Setting& s) { return s.key == k; }), set.end());
  set.push_back({k, std::string(value), why_3d ? why_3d->message() : "", why_nd ? why_nd->message() : ""});
}

const nbfft_options_s::Setting* nbfft_options_s::find(std::string_view key) const {
  for (const Setting& s : set)
    if (s.key == key) return &s;
  return nullptr;
}

std::string nbfft_options_s::get(std::string_view key) const {
  const fft::OptionRow& row = fft::option_row(key);
  const Setting* s = find(row.key);
  if (row.get && !(s && !s->not_3d.empty())) return row.get(o);
  return nd::get_option(for_nd_unchecked(), row.key);
}

std::string nbfft_options_s::text() const {
  std::string s;
  for (const auto& r : fft::option_rows()) {
    if (r.shorthand || (r.tuning && o.tune == fft::TuneEffort::None)) continue;
    // A key of N-D plans only appears once it is set (the 3-D plan has no value for it).
    if (!r.get && !find(r.key)) continue;
    s += (s.empty() ? "" : " ") + std::string(r.key) + "=" + get(r.key);
  }
  return s;
}

const fft::Options& nbfft_options_s::for_3d() const {
  for (const Setting& s : set)
    if (!s.not_3d.empty())
      throw Error("a 3-D plan cannot take the option " + s.key + "=" + s.value + ": " + s.not_3d,
                  nbfft::ErrorCode::InvalidArgument);
  return o;
}

nd::Options nbfft_options_s::for_nd() const {
  for (const Setting& s : set)
    if (!s.not_nd.empty())
      throw Error("an N-D plan cannot take the option " + s.key + "=" + s.value + ": " + s.not_nd,
                  nbfft::ErrorCode::InvalidArgument);
  return for_nd_unchecked();
}

nd::Options nbfft_options_s::for_nd_unchecked() const {
  nd::Options n;
  for (const Setting& s : set)
    if (s.not_nd.empty()) nd::set_option(n, s.key, s.value);
  return n;
}
