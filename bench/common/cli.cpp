#include "bench/common/cli.hpp"

#include "nbfft/error.hpp"

#include <algorithm>
#include <cstdlib>

namespace nbfft::bench {

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

long parse_long(const std::string& option, const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') throw Error("--" + option + ": '" + text + "' is not an integer");
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
    auto eq = a.find('=');
    if (eq != std::string::npos) {
      values_[a.substr(0, eq)] = a.substr(eq + 1);
    } else if (std::find(flags.begin(), flags.end(), a) != flags.end()) {
      values_[a] = "1";
    } else {
      if (i + 1 >= argc) throw Error("option --" + a + " needs a value");
      values_[a] = argv[++i];
    }
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long Args::get_long(const std::string& name, long fallback) const {
  return has(name) ? parse_long(name, get(name, "")) : fallback;
}

double Args::get_double(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  std::string t = get(name, "");
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0') throw Error("--" + name + ": '" + t + "' is not a number");
  return v;
}

std::vector<std::string> Args::get_list(const std::string& name, const std::string& fallback) const {
  return split(get(name, fallback), ',');
}

std::vector<long> Args::get_long_list(const std::string& name, const std::string& fallback) const {
  std::vector<long> out;
  for (const auto& s : get_list(name, fallback)) out.push_back(parse_long(name, s));
  return out;
}

void Args::allow_only(const std::vector<std::string>& known) const {
  for (const auto& [k, v] : values_)
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::string list;
      for (const auto& n : known) list += " --" + n;
      throw Error("unknown option --" + k + " (options:" + list + ")");
    }
}

}  // namespace nbfft::bench
