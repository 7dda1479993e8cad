// The option table: one row per plan option, read by every front end.
//
// Each row is a key (the one spelling everywhere: the C key, the Python keyword, the
// Fortran key and nbfft-sine's --word with '_' written '-'), its documentation, its type and
// allowed values, a getter (the value as text) and a parsing setter (text -> value, an
// InvalidArgument naming the key, the value and what is allowed), and whether ranks must
// agree on it and whether the tuner chooses it. Printing, rank agreement, the tuner's
// wisdom, the C setter/getter, the Fortran setter/getter, nbfft-sine and Python's keyword
// arguments and `plan.options` all walk this table (as coll/'s algorithm registry is walked
// by the CLI, the tests and docs/algorithms.md), so a new option is one row here plus the
// code that uses it. docs/fft.md carries the table, checked by the docs.options test.
//
// The table is read at plan time only; transforms never look at it.
#pragma once

#include "nbfft/fft/options.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nbfft::fft {

enum class OptionType { Choice, Int, Bool, Grid, Transport, Real, Text, Ratios };
// Which plans a key applies to: every plan (the 3-D nbfft::fft::Plan and the N-D
// nbfft::nd::Plan), the 3-D plan only, or N-D plans only. A row of one plan is an error,
// naming the plans it applies to, when set on the other.
enum class OptionScope { All, Plan3D, PlanND };
const char* name(OptionScope s);  // "all", "3-D", "N-D"
bool applies_to_3d(OptionScope s);
bool applies_to_nd(OptionScope s);
// "choice", "int", "bool", "grid", "transport", "real", "text", "ratios" (one number >= 1, or x,y,z)
const char* name(OptionType t);

struct OptionRow {
  const char* key;
  OptionType type;
  const char* allowed;  // the values as shown to users: "double|single", "0..2147483647"
  const char* doc;      // one line
  // Rank agreement: every rank must pass the same value (checked when a plan is made).
  bool agreed;
  // The tuner chooses it (fft/tune.hpp); the chosen value is stored in tuning wisdom. The
  // rows it does not choose are part of the wisdom key.
  bool tuned;
  // A shorthand sets other rows (`transport` sets both transports, `col_kernel` three
  // fields): it is not printed, agreed or stored itself, the rows it sets are.
  bool shorthand;
  long lo, hi;           // the range of an Int or Real row
  const char* aliases;   // other accepted spellings, comma-separated ("" = none)
  // A valid value other than the default: the front ends' tests set every row to it and
  // read it back, so a new row is tested in every language without a test edit.
  const char* example;
  std::string (*get)(const Options&);
  void (*set)(Options&, std::string_view value);  // `value` is already known to be in range
  // A setting of the tuner itself (tune, tune_budget, ...; fft/tune.hpp): never chosen by
  // it, never part of its wisdom key nor stored in its wisdom.
  bool tuning = false;
  // The plans it applies to. get and set above are the 3-D plan's (nullptr on an N-D-only
  // row); an N-D plan reads its rows through nbfft/nd/options_text.hpp, by the same key,
  // words and range.
  OptionScope scope = OptionScope::All;
};

// Every row, in the order printed.
const std::vector<OptionRow>& option_rows();

// The row of `key` ('-' reads as '_', aliases accepted), or nullptr.
const OptionRow* find_option_row(std::string_view key);
// The row of `key`; throws InvalidArgument listing every key when there is none.
const OptionRow& option_row(std::string_view key);

// Parses and sets; throws InvalidArgument "option KEY: 'VALUE' is not ... (allowed: ...)".
void set_option(Options& o, std::string_view key, std::string_view value);
std::string get_option(const Options& o, std::string_view key);

// (key, value) of every row of the 3-D plan that is not a shorthand: what operator<< prints
// and, filtered by a row's flag, what ranks agree on and what tuning wisdom stores.
std::vector<std::pair<std::string, std::string>> option_values(const Options& o, bool (*keep)(const OptionRow&));

// Calls f(key, value) for each "key=value" pair of text, in order (pairs separated by blanks:
// spaces, tabs, newlines). Throws InvalidArgument "'PAIR' is not key=value" for a pair
// without '=' or key, before calling f for any pair.
void for_each_pair(std::string_view text, const std::function<void(std::string_view, std::string_view)>& f);

// The docs table of every row (markdown) is nbfft::nd::options_markdown(), which knows both
// plans' defaults (nbfft/nd/options_text.hpp).

}  // namespace nbfft::fft
