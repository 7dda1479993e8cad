// A small command-line reader for the benchmarks: --name value / --name=value options,
// comma-separated lists, and errors that name the bad option. No dependency needed for this.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace nbfft::bench {

class Args {
 public:
  // `flags` are options that take no value (--help, --verify).
  Args(int argc, char** argv, std::vector<std::string> flags = {"help"});

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
  long get_long(const std::string& name, long fallback) const;
  double get_double(const std::string& name, double fallback) const;
  std::vector<std::string> get_list(const std::string& name, const std::string& fallback) const;
  std::vector<long> get_long_list(const std::string& name, const std::string& fallback) const;
  // Throws Error naming any option not in `known` (catches typos such as --size for --sizes).
  void allow_only(const std::vector<std::string>& known) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

std::vector<std::string> split(const std::string& text, char sep);
long parse_long(const std::string& option, const std::string& text);

}  // namespace nbfft::bench
