// nd::Options from and to "key=value" text (nbfft/nd/options_text.hpp). One table of rows,
// each a key with its setter and getter: the parser, the printer, option_keys() and the
// error listing the keys all read it, so a new Options field is one row here.
#include "nbfft/nd/options_text.hpp"

#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/fft/r2r_kinds.hpp"
#include "nbfft/error.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <climits>
#include <cstdlib>
#include <functional>
#include <sstream>

namespace nbfft::nd {

namespace {

struct Row {
  const char* key;
  const char* allowed;  // for the error message
  std::function<void(Options&, const std::string&)> set;
  std::function<std::string(const Options&)> get;
};

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// "2x1x1" -> {2, 1, 1}; "auto" (or "") -> {} (the plan chooses).
std::vector<int> parse_grid(const std::string& v) {
  if (v.empty() || v == "auto") return {};
  std::vector<int> g;
  std::size_t at = 0;
  while (true) {
    const std::size_t x = v.find('x', at);
    const std::string part = v.substr(at, x == std::string::npos ? std::string::npos : x - at);
    char* end = nullptr;
    const long n = part.empty() ? 0 : std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || n < 1 || n > INT_MAX) throw Error("");
    g.push_back(static_cast<int>(n));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return g;
}

std::string grid_text(const std::vector<int>& g) {
  if (g.empty()) return "auto";
  std::string s;
  for (std::size_t i = 0; i < g.size(); ++i) s += (i ? "x" : "") + std::to_string(g[i]);
  return s;
}

// "dst2,periodic" -> one kind per listed axis; "periodic" alone -> {} (every axis periodic).
std::vector<fft::AxisKind> parse_kinds(const std::string& v) {
  std::vector<fft::AxisKind> k;
  std::size_t at = 0;
  while (true) {
    const std::size_t c = v.find(',', at);
    k.push_back(fft::parse_axis_kind(v.substr(at, c == std::string::npos ? std::string::npos : c - at)));
    if (c == std::string::npos) break;
    at = c + 1;
  }
  if (k.size() == 1 && k[0] == fft::AxisKind::Periodic) k.clear();
  return k;
}

std::string kinds_text(const std::vector<fft::AxisKind>& k) {
  if (k.empty()) return "periodic";
  std::string s;
  for (std::size_t i = 0; i < k.size(); ++i) s += (i ? "," : "") + std::string(fft::name(k[i]));
  return s;
}

// A key both plans have, with one meaning: parsed and printed by the 3-D plan's row
// (fft/option_table.cpp), so its words, aliases, range and error are the same in both
// (yes/on for booleans, tune_fields up to 4096, ...).
template <typename T>
Row shared(const char* key, T Options::*nd_field, T fft::Options::*fft_field) {
  const fft::OptionRow& row = fft::option_row(key);
  return {row.key, row.allowed,
          [=](Options& o, const std::string& v) {
            fft::Options f;
            try {
              fft::set_option(f, key, lower(v));  // words in any case, as the other rows
            } catch (const Error&) {
              throw Error("");  // set_option below names the key and what it takes
            }
            o.*nd_field = f.*fft_field;
          },
          [=](const Options& o) {
            fft::Options f;
            f.*fft_field = o.*nd_field;
            return fft::get_option(f, key);
          }};
}

const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      {"kind", "r2c or c2c",
       [](Options& o, const std::string& v) {
         const std::string w = lower(v);
         if (w != "r2c" && w != "c2c") throw Error("");
         o.kind = w == "r2c" ? Kind::R2C : Kind::C2C;
       },
       [](const Options& o) { return std::string(name(o.kind)); }},
      shared("norm", &Options::norm, &fft::Options::norm),
      {"backend", "auto, fftw or mkl (the local FFT library)",
       [](Options& o, const std::string& v) { o.backend = fft::parse_backend(v); },
       [](const Options& o) { return std::string(fft::name(o.backend)); }},
      shared("effort", &Options::effort, &fft::Options::effort),
      {"grid", "auto or ranks per axis, axis 0 first, e.g. 2x1x1",
       [](Options& o, const std::string& v) { o.grid = parse_grid(lower(v)); },
       [](const Options& o) { return grid_text(o.grid); }},
      shared("precision", &Options::precision, &fft::Options::precision),
      {"kinds", "periodic, or one kind per listed axis separated by commas (periodic, dct1..dct4, dst1..dst4)",
       [](Options& o, const std::string& v) { o.kinds = parse_kinds(lower(v)); },
       [](const Options& o) { return kinds_text(o.kinds); }},
      {"batch_axis", "none or an axis (negative: from the end)",
       [](Options& o, const std::string& v) {
         if (v.empty() || lower(v) == "none") {
           o.batch_axis.reset();
           return;
         }
         char* end = nullptr;
         const long a = std::strtol(v.c_str(), &end, 10);
         if (*end != '\0' || a < INT_MIN || a > INT_MAX) throw Error("");
         o.batch_axis = static_cast<int>(a);
       },
       [](const Options& o) { return o.batch_axis ? std::to_string(*o.batch_axis) : std::string("none"); }},
      shared("output_order", &Options::output_order, &fft::Options::output_order),
      shared("fields_in_flight", &Options::fields_in_flight, &fft::Options::fields_in_flight),
      shared("progress_chunks", &Options::progress_chunks, &fft::Options::progress_chunks),
      shared("allow_empty", &Options::allow_empty, &fft::Options::allow_empty),
      shared("lean_workspace", &Options::lean_workspace, &fft::Options::lean_workspace),
      shared("tune", &Options::tune, &fft::Options::tune),
      shared("tune_budget", &Options::tune_budget, &fft::Options::tune_budget),
      shared("tune_fields", &Options::tune_fields, &fft::Options::tune_fields),
      {"transport", "a preset (blocking, native, caller, thread, rma) or ALGORITHM[:WINDOW]@ENGINE",
       [](Options& o, const std::string& v) {
         coll::Transport::parse(v);  // validates; the plan keeps the words it was given
         o.transport = v;
       },
       [](const Options& o) { return o.transport; }},
  };
  return table;
}

std::string key_list() {
  std::string s;
  for (const auto& r : rows()) s += (s.empty() ? "" : ", ") + std::string(r.key);
  return s;
}

const Row& row_of(std::string_view key) {
  std::string k = lower(key);
  std::replace(k.begin(), k.end(), '-', '_');
  for (const auto& r : rows())
    if (k == r.key) return r;
  throw Error("nd options: unknown key '" + std::string(key) + "' (the keys: " + key_list() + ")");
}

}  // namespace

void set_option(Options& o, std::string_view key, std::string_view value) {
  const Row& r = row_of(key);
  const std::string v(value);
  try {
    r.set(o, v);
  } catch (const Error& e) {
    // The parsers' own words say what they saw; ours name the key and what it takes.
    throw Error("nd options: " + std::string(r.key) + "='" + v + "' is not valid: expected " + r.allowed +
                    (e.message().empty() ? "" : " (" + e.message() + ")"),
                ErrorCode::InvalidArgument);
  }
}

std::string get_option(const Options& o, std::string_view key) { return row_of(key).get(o); }

void apply_options(Options& o, std::string_view text) {
  std::size_t at = 0;
  const auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (at < text.size()) {
    if (blank(text[at])) {
      ++at;
      continue;
    }
    std::size_t end = at;
    while (end < text.size() && !blank(text[end])) ++end;
    const std::string_view pair = text.substr(at, end - at);
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw Error("nd options: '" + std::string(pair) + "' is not key=value (the keys: " + key_list() + ")");
    set_option(o, pair.substr(0, eq), pair.substr(eq + 1));
    at = end;
  }
}

Options parse_options(std::string_view text) {
  Options o;
  apply_options(o, text);
  return o;
}

std::string options_text(const Options& o) {
  std::string s;
  for (const auto& r : rows()) s += (s.empty() ? "" : " ") + std::string(r.key) + "=" + r.get(o);
  return s;
}

const std::vector<std::string>& option_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& r : rows()) k.push_back(r.key);
    return k;
  }();
  return keys;
}

}  // namespace nbfft::nd
