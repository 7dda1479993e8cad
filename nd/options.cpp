// nd::Options from and to "key=value" text (nbfft/nd/options_text.hpp), on the one option
// table (nbfft/fft/option_table.hpp). The table owns the keys, their aliases, words, ranges
// and documentation, and says which plans each applies to; this file maps each key an N-D
// plan takes onto an nd::Options field. A key the two plans share with one meaning is
// parsed and printed by the table's own row, so its words and errors are the same in both.
#include "nbfft/nd/options_text.hpp"

#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/fft/r2r_kinds.hpp"
#include "nbfft/error.hpp"
#include "fft/text.hpp"

#include <climits>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

namespace nbfft::nd {

namespace {

// How an N-D plan reads and prints one key of the table.
struct Access {
  std::function<void(Options&, const std::string&)> set;
  std::function<std::string(const Options&)> get;
};

std::string grid_text(const std::vector<int>& g) {
  if (g.empty()) return "auto";
  std::string s;
  for (std::size_t i = 0; i < g.size(); ++i) s += (i ? "x" : "") + std::to_string(g[i]);
  return s;
}

// "dst2,periodic" -> one kind per listed axis; "periodic" alone -> {} (every axis periodic).
std::vector<fft::AxisKind> parse_kinds(const std::string& v) {
  std::vector<fft::AxisKind> k;
  for (std::string_view part : fft::split_commas(v)) k.push_back(fft::parse_axis_kind(part));
  if (k.size() == 1 && k[0] == fft::AxisKind::Periodic) k.clear();
  return k;
}

std::string kinds_text(const std::vector<fft::AxisKind>& k) {
  if (k.empty()) return "periodic";
  std::string s;
  for (std::size_t i = 0; i < k.size(); ++i) s += (i ? "," : "") + std::string(fft::name(k[i]));
  return s;
}

// A key both plans have with one meaning: the table's row parses and prints it.
template <typename T>
std::pair<const char*, Access> shared(const char* key, T Options::*nd_field, T fft::Options::*fft_field) {
  return {key,
          {[=](Options& o, const std::string& v) {
             fft::Options f;
             try {
               fft::set_option(f, key, fft::lower_case(v));  // words in any case, as the other rows
             } catch (const Error&) {
               throw Error("");  // set_option below names the key and what it takes
             }
             o.*nd_field = f.*fft_field;
           },
           [=](const Options& o) {
             fft::Options f;
             f.*fft_field = o.*nd_field;
             return fft::get_option(f, key);
           }}};
}

// Every key an N-D plan takes, by the table's key.
const std::map<std::string, Access>& access() {
  static const std::map<std::string, Access> table = {
      shared("precision", &Options::precision, &fft::Options::precision),
      shared("transform", &Options::kind, &fft::Options::transform),
      {"kinds",
       {[](Options& o, const std::string& v) { o.kinds = parse_kinds(fft::lower_case(v)); },
        [](const Options& o) { return kinds_text(o.kinds); }}},
      shared("norm", &Options::norm, &fft::Options::norm),
      {"padding",  // one ratio per listed axis (the 3-D plan's row takes one or x,y,z)
       {[](Options& o, const std::string& v) {
          o.padding = fft::parse_padding_list(v);
          if (o.padding.size() == 1 && o.padding[0] == 1.0) o.padding.clear();
        },
        [](const Options& o) { return fft::padding_list_str(o.padding); }}},
      {"proc_grid",
       {[](Options& o, const std::string& v) { o.grid = fft::parse_ranks_per_axis(fft::lower_case(v)); },
        [](const Options& o) { return grid_text(o.grid); }}},
      {"transport",  // every exchange's: sets both of the per-exchange ones, as on the 3-D plan
       {[](Options& o, const std::string& v) {
          if (fft::lower_case(v) == "mixed") return;  // as the 3-D plan: leaves them
          coll::Transport::parse(v);  // validates; the plan keeps the words it was given
          o.transport = v;
          o.row_transport.clear();
          o.col_transport.clear();
        },
        [](const Options& o) {  // as the 3-D plan prints it
          const std::string r = coll::Transport::parse(exchange_transport(o, 0)).str();
          return r == coll::Transport::parse(exchange_transport(o, 1)).str() ? r : std::string("mixed");
        }}},
      {"row_transport",
       {[](Options& o, const std::string& v) {
          coll::Transport::parse(v);
          o.row_transport = v;
        },
        [](const Options& o) { return coll::Transport::parse(exchange_transport(o, 0)).str(); }}},
      {"col_transport",
       {[](Options& o, const std::string& v) {
          coll::Transport::parse(v);
          o.col_transport = v;
        },
        [](const Options& o) { return coll::Transport::parse(exchange_transport(o, 1)).str(); }}},
      shared("effort", &Options::effort, &fft::Options::effort),
      {"backend",
       {[](Options& o, const std::string& v) {
          if (v.find(',') != std::string::npos)
            throw Error("one library for every local FFT; a library per stage is the 3-D plan's");
          o.backend = fft::parse_backend(v);
        },
        [](const Options& o) { return std::string(fft::name(o.backend)); }}},
      shared("allow_empty", &Options::allow_empty, &fft::Options::allow_empty),
      shared("progress_chunks", &Options::progress_chunks, &fft::Options::progress_chunks),
      shared("col_chunk_planes", &Options::col_chunk_planes, &fft::Options::col_chunk_planes),
      shared("col_depth", &Options::col_depth, &fft::Options::col_depth),
      {"col_kernel",  // a shorthand: the 3-D row sets the three it names, copied here
       {[](Options& o, const std::string& v) {
          fft::Options f;
          fft::set_option(f, "col_kernel", fft::lower_case(v));
          if (fft::lower_case(v) == "transport") return;
          o.col_transport = f.col_transport.str();
          o.col_chunk_planes = f.col_chunk_planes;
          o.col_depth = f.col_depth;
        },
        [](const Options& o) {
          // The kernel whose transport and chunking these are, as the 3-D row reads it; else
          // "transport" (so too when col_transport was never set: the default transport).
          if (o.col_transport.empty()) return std::string("transport");
          fft::Options f;
          f.col_transport = coll::Transport::parse(o.col_transport);
          f.col_chunk_planes = o.col_chunk_planes;
          f.col_depth = o.col_depth;
          for (const auto& k : fft::col_kernels()) {
            fft::Options g;
            g.col_kernel(k.name);
            if (g.col_transport.str() != f.col_transport.str()) continue;
            f.col_transport.label = k.name;
            if (fft::get_option(f, "col_kernel") == k.name) return std::string(k.name);
          }
          return std::string("transport");
        }}},
      shared("fields_in_flight", &Options::fields_in_flight, &fft::Options::fields_in_flight),
      shared("lean_workspace", &Options::lean_workspace, &fft::Options::lean_workspace),
      shared("output_order", &Options::output_order, &fft::Options::output_order),
      shared("tune", &Options::tune, &fft::Options::tune),
      shared("tune_budget", &Options::tune_budget, &fft::Options::tune_budget),
      shared("tune_fields", &Options::tune_fields, &fft::Options::tune_fields),
      {"tune_wisdom",  // a path: its case kept
       {[](Options& o, const std::string& v) {
          fft::Options f;
          fft::set_option(f, "tune_wisdom", v);
          o.tune_wisdom = f.tune_wisdom;
        },
        [](const Options& o) { return o.tune_wisdom; }}},
      shared("tune_log", &Options::tune_log, &fft::Options::tune_log),
      shared("threads", &Options::threads, &fft::Options::threads),
      shared("engine_own_core", &Options::engine_own_core, &fft::Options::engine_own_core),
      {"batch_axis",
       {[](Options& o, const std::string& v) {
          if (v.empty() || fft::lower_case(v) == "none") {
            o.batch_axis.reset();
            return;
          }
          char* end = nullptr;
          const long a = std::strtol(v.c_str(), &end, 10);
          if (*end != '\0' || a < INT_MIN || a > INT_MAX) throw Error("");
          o.batch_axis = static_cast<int>(a);
        },
        [](const Options& o) { return o.batch_axis ? std::to_string(*o.batch_axis) : std::string("none"); }}},
  };
  return table;
}

// The table's rows an N-D plan takes, in the table's order.
const std::vector<const fft::OptionRow*>& nd_rows() {
  static const std::vector<const fft::OptionRow*> rows = [] {
    std::vector<const fft::OptionRow*> r;
    for (const auto& row : fft::option_rows())
      if (fft::applies_to_nd(row.scope)) {
        if (!access().count(row.key)) throw Error(std::string("nd options: no field for the table's key ") + row.key);
        r.push_back(&row);
      }
    return r;
  }();
  return rows;
}

std::string key_list() {
  std::string s;
  for (const auto* r : nd_rows()) s += (s.empty() ? "" : ", ") + std::string(r->key);
  return s;
}

const fft::OptionRow& row_of(std::string_view key) {
  const fft::OptionRow* r = fft::find_option_row(key);
  if (!r) throw Error("nd options: unknown key '" + std::string(key) + "' (the keys: " + key_list() + ")");
  if (!fft::applies_to_nd(r->scope))
    throw Error("nd options: " + std::string(r->key) + " applies to the 3-D plan only (nbfft::fft::Plan); an N-D plan takes " +
                    key_list(),
                ErrorCode::InvalidArgument);
  return *r;
}

}  // namespace

void set_option(Options& o, std::string_view key, std::string_view value) {
  const fft::OptionRow& r = row_of(key);
  const std::string v(value);
  try {
    access().at(r.key).set(o, v);
  } catch (const Error& e) {
    // The parsers' own words say what they saw; ours name the key and what it takes.
    throw Error("nd options: " + std::string(r.key) + "='" + v + "' is not valid: expected " + r.allowed +
                    (e.message().empty() ? "" : " (" + e.message() + ")"),
                ErrorCode::InvalidArgument);
  }
}

std::string get_option(const Options& o, std::string_view key) { return access().at(row_of(key).key).get(o); }

void apply_options(Options& o, std::string_view text) {
  try {
    fft::for_each_pair(text, [&](std::string_view k, std::string_view v) { set_option(o, k, v); });
  } catch (const Error& e) {
    if (e.message().rfind("nd options:", 0) == 0) throw;
    throw Error("nd options: " + e.message() + " (the keys: " + key_list() + ")", ErrorCode::InvalidArgument);
  }
}

Options parse_options(std::string_view text) {
  Options o;
  apply_options(o, text);
  return o;
}

const std::string& exchange_transport(const Options& o, int index) {
  const std::string& own = index == 0 ? o.row_transport : o.col_transport;
  return own.empty() ? o.transport : own;
}

std::string options_text(const Options& o) {
  std::string s;
  for (const auto* r : nd_rows()) s += (s.empty() ? "" : " ") + std::string(r->key) + "=" + access().at(r->key).get(o);
  return s;
}

const std::vector<std::string>& option_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto* r : nd_rows()) k.push_back(r->key);
    return k;
  }();
  return keys;
}

}  // namespace nbfft::nd

namespace nbfft::nd {

std::string options_markdown() {
  const fft::Options d3;
  const Options dn;
  std::ostringstream s;
  s << "| key | plans | type | values | default | ranks agree | tuner | meaning |\n";
  s << "|---|---|---|---|---|---|---|---|\n";
  auto code = [](const std::string& v) { return "`" + (v.empty() ? std::string("\"\"") : v) + "`"; };
  for (const auto& r : fft::option_rows()) {
    std::string esc;
    for (const char* c = r.allowed; *c; ++c) esc += *c == '|' ? std::string("\\|") : std::string(1, *c);
    // One default where both plans have the key and agree on it; each plan's where not.
    const bool in3 = fft::applies_to_3d(r.scope), innd = fft::applies_to_nd(r.scope);
    const std::string v3 = in3 ? r.get(d3) : "", vn = innd ? get_option(dn, r.key) : "";
    const std::string def = in3 && innd && v3 != vn ? "3-D " + code(v3) + ", N-D " + code(vn) : code(in3 ? v3 : vn);
    s << "| `" << r.key << "` | " << fft::name(r.scope) << " | " << fft::name(r.type) << " | " << esc << " | " << def
      << " | " << (r.agreed ? "yes" : "no") << " | " << (r.tuned ? "searches" : r.tuning ? "its setting" : "-")
      << " | " << r.doc;
    if (*r.aliases) s << " (also spelled `" << r.aliases << "`)";
    s << " |\n";
  }
  return s.str();
}

}  // namespace nbfft::nd
