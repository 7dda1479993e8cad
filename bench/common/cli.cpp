#include "bench/common/cli.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/atomic_file.hpp"
#include "nbfft/error.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nbfft::bench {

namespace {
[[noreturn]] void bad(const std::string& option, const std::string& why) {
  throw Error((option.empty() ? std::string() : "--" + option + ": ") + why, ErrorCode::InvalidArgument);
}
}  // namespace

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (;;) {
    std::size_t next = text.find(sep, pos);
    out.push_back(text.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
    if (next == std::string::npos) return out;
    pos = next + 1;
  }
}

std::vector<std::string> split_items(const std::string& option, const std::string& text, char sep) {
  if (text.empty()) bad(option, "the value is empty");
  auto items = split(text, sep);
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].empty())
      bad(option, "item " + std::to_string(i + 1) + " of '" + text + "' is empty (a stray '" + std::string(1, sep) +
                      "'?)");
  return items;
}

long parse_long(const std::string& option, const std::string& text, long min, long max) {
  // from_chars: no leading spaces, no base prefixes; '+' is accepted here by hand.
  const char* b = text.data();
  const char* e = b + text.size();
  if (b != e && *b == '+') ++b;
  long v = 0;
  auto [end, ec] = std::from_chars(b, e, v);
  if (text.empty() || b == e || ec == std::errc::invalid_argument || end != e)
    bad(option, "'" + text + "' is not an integer");
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    std::string range = min == LONG_MIN ? "" : ">= " + std::to_string(min);
    if (max != LONG_MAX) range += (range.empty() ? "<= " : " and <= ") + std::to_string(max);
    bad(option, "'" + text + "' is out of range" + (range.empty() ? "" : " (it must be " + range + ")"));
  }
  return v;
}

std::array<std::int64_t, 3> parse_grid(const Args& args, const std::string& fallback, long max) {
  std::string text = args.get("grid", fallback);
  std::replace(text.begin(), text.end(), 'x', ',');
  auto parts = split_items("grid", text, ',');
  if (parts.size() == 1) parts = {parts[0], parts[0], parts[0]};
  if (parts.size() != 3) bad("grid", "expected N or NX,NY,NZ, got '" + args.get("grid", fallback) + "'");
  std::array<std::int64_t, 3> n{};
  for (int d = 0; d < 3; ++d) n[d] = parse_long("grid", parts[d], 1, max);
  return n;
}

double parse_double(const std::string& option, const std::string& text, double min, double max) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) bad(option, "'" + text + "' is not a number");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0') bad(option, "'" + text + "' is not a number");
  if (!std::isfinite(v) || errno == ERANGE || v < min || v > max)
    bad(option, "'" + text + "' is out of range (it must be a finite number in [" + std::to_string(min) + ", " +
                    std::to_string(max) + "])");
  return v;
}

Args::Args(int argc, char** argv, std::vector<std::string> flags) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      positional_.push_back(a);
      continue;
    }
    a = a.substr(2);
    std::string name, value;
    const auto eq = a.find('=');
    const bool is_flag = std::find(flags.begin(), flags.end(), a.substr(0, eq)) != flags.end();
    if (eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      if (is_flag) bad(name, "takes no value (got '" + value + "')");
    } else if (is_flag) {
      name = a;
      value = "1";
    } else if (i + 1 >= argc || std::string(argv[i + 1]).rfind("--", 0) == 0) {
      // The last argument, or one followed by another option (no value here starts with
      // "--"): told in allow_only(), after unknown names, so that a misspelt option is
      // called unknown rather than short of a value.
      if (missing_value_.empty()) missing_value_ = a;
      continue;
    } else {
      name = a;
      value = argv[++i];
    }
    if (name.empty()) bad("", "'" + std::string(argv[i]) + "' is not an option (an option is --name or --name=value)");
    if (values_.count(name)) bad(name, "given twice ('" + values_[name] + "' and '" + value + "')");
    values_[name] = value;
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long Args::get_long(const std::string& name, long fallback, long min, long max) const {
  return has(name) ? parse_long(name, get(name, ""), min, max) : fallback;
}

double Args::get_double(const std::string& name, double fallback, double min, double max) const {
  return has(name) ? parse_double(name, get(name, ""), min, max) : fallback;
}

std::vector<std::string> Args::get_list(const std::string& name, const std::string& fallback) const {
  return split_items(name, get(name, fallback), ',');
}

std::vector<long> Args::get_long_list(const std::string& name, const std::string& fallback, long min,
                                      long max) const {
  std::vector<long> out;
  for (const auto& s : get_list(name, fallback)) out.push_back(parse_long(name, s, min, max));
  return out;
}

void Args::allow_only(const std::vector<std::string>& known) const {
  if (!positional_.empty())
    bad("", "unexpected argument '" + positional_.front() + "' (options are written --name value)");
  std::vector<std::string> names;
  for (const auto& kv : values_) names.push_back(kv.first);
  if (!missing_value_.empty()) names.push_back(missing_value_);
  for (const auto& k : names)
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string list;
      for (const auto& n : known) list += " --" + n;
      bad("", "unknown option --" + k + " (options:" + list + ")");
    }
  if (!missing_value_.empty()) bad(missing_value_, "needs a value");
}

bool print_help(MPI_Comm comm, const Args& args, const char* help) {
  if (!args.has("help")) return false;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::fputs(help, stdout);
  return true;
}

void check_outputs(MPI_Comm comm, const std::vector<std::pair<std::string, std::string>>& outputs) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string error;
  for (const auto& [option, path] : outputs) {
    if (rank != 0 || path.empty() || !error.empty()) continue;
    try {
      check_writable(path);
    } catch (const Error& e) {
      error = option + ": " + e.message();
    }
  }
  agree_message(comm, error, ErrorCode::Io);
}

Args parse_agreed(MPI_Comm comm, const std::string& what, int argc, char** argv, std::vector<std::string> flags) {
  Args args = agree(comm, [&] { return Args(argc, argv, flags); });
  // An option without its value is told later (allow_only: after unknown names) where
  // every rank has the same one; where ranks differ it is a syntax error of some ranks, and
  // every rank reports it as such now.
  const std::vector<std::string> missing = allgather_strings(comm, args.missing_value());
  if (std::any_of(missing.begin(), missing.end(), [&](const std::string& m) { return m != missing.front(); }))
    agree_message(comm, args.missing_value().empty() ? "" : "--" + args.missing_value() + ": needs a value");
  ConfigFields fields;
  for (const auto& [k, v] : args.values()) fields.emplace_back("--" + k, v);
  for (std::size_t i = 0; i < args.positional().size(); ++i)
    fields.emplace_back("argument " + std::to_string(i + 1), args.positional()[i]);
  if (!args.missing_value().empty()) fields.emplace_back("--" + args.missing_value(), "(no value)");
  check_same(comm, what + " options", fields);
  return args;
}

}  // namespace nbfft::bench
