// A small command-line reader for the benchmarks: --name value / --name=value options,
// comma-separated lists, and errors that name the bad option. No dependency needed for this.
//
// Parsing is strict, because a silently misread option wastes a cluster allocation:
// integers are decimal, range-checked, with nothing after them ("10k", "1e3", "9x" and
// values past the range are errors, never truncated); lists have no empty items
// ("--grid 12,3,4," is an error); an option given twice is an error; and every error is an
// Error of kind InvalidArgument that names the option. Counts (the get_long* default
// range) are >= 0; pass a range where an option needs another.
#pragma once

#include <mpi.h>

#include <array>
#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace nbfft::bench {

class Args {
 public:
  Args() = default;
  // `flags` are options that take no value (--help, --verify).
  Args(int argc, char** argv, std::vector<std::string> flags = {"help"});

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
  long get_long(const std::string& name, long fallback, long min = 0, long max = LONG_MAX) const;
  // A finite number in [min, max].
  double get_double(const std::string& name, double fallback, double min = -1e308, double max = 1e308) const;
  // Items of a comma-separated list; an empty item is an error.
  std::vector<std::string> get_list(const std::string& name, const std::string& fallback) const;
  std::vector<long> get_long_list(const std::string& name, const std::string& fallback, long min = 0,
                                  long max = LONG_MAX) const;
  // Throws Error naming any option not in `known` (catches typos such as --size for
  // --sizes), any positional argument (nothing takes one), and then a last option given
  // without its value (so that a misspelt last option is called unknown). Every program
  // calls it before reading its options.
  void allow_only(const std::vector<std::string>& known) const;
  const std::vector<std::string>& positional() const { return positional_; }
  const std::map<std::string, std::string>& values() const { return values_; }
  const std::string& missing_value() const { return missing_value_; }  // "" or that option's name

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
  std::string missing_value_;
};

// Parses the options on every rank of `comm` and checks that every rank was given the
// same ones (an MPMD job "mpirun -n 1 A : -n 1 B" can pass each rank different options):
// on a mismatch every rank throws RanksDisagree naming the first differing option; a
// syntax error on any rank is thrown on every rank. `what` names the program and command
// ("nbfft-bench overlap"). Collective over comm.
Args parse_agreed(MPI_Comm comm, const std::string& what, int argc, char** argv,
                  std::vector<std::string> flags = {"help"});

// --help: the program's help text on rank 0's stdout; true when it was asked for (the
// program then exits 0 without running).
bool print_help(MPI_Comm comm, const Args& args, const char* help);

// The files a run writes at its end ({"--json", path}, ...; "" = not asked for), checked on
// rank 0 of comm before the run starts (nbfft/atomic_file.hpp check_writable) and agreed:
// a missing or read-only folder is an Io Error naming the option on every rank now, not
// after the run. Collective.
void check_outputs(MPI_Comm comm, const std::vector<std::pair<std::string, std::string>>& outputs);

// Splits at `sep`, keeping empty items (callers that must reject them use split_items).
std::vector<std::string> split(const std::string& text, char sep);
// Splits a list option's value; an empty item is an Error naming the option.
std::vector<std::string> split_items(const std::string& option, const std::string& text, char sep = ',');
// A decimal integer in [min, max] (optional sign, no spaces, nothing after it).
long parse_long(const std::string& option, const std::string& text, long min = LONG_MIN, long max = LONG_MAX);
// A finite decimal number in [min, max] (no spaces, nothing after it, no inf/nan).
double parse_double(const std::string& option, const std::string& text, double min = -1e308, double max = 1e308);

// The --grid option every benchmark takes: "N" (an N^3 cube), "NX,NY,NZ" or "NXxNYxNZ",
// each size in [1, max]; `fallback` when absent. Errors name --grid and the bad item.
std::array<std::int64_t, 3> parse_grid(const Args& args, const std::string& fallback = "128", long max = INT_MAX);

}  // namespace nbfft::bench
