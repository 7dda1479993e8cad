// nbfft::nd::Options as text: "kind=c2c norm=ortho grid=2x1x1 transport=pairwise:4@caller".
// The C API and the Fortran module pass N-D plan options as one such string, so a field
// added to nd::Options needs one row in nd/options.cpp and no new entry point in C, Fortran
// or the bindings above them.
//
// Keys ('-' and '_' alike): kind r2c|c2c, norm backward|forward|ortho|none, effort
// estimate|measure|patient|exhaustive, grid auto|AxBx... (ranks per axis, numpy order:
// axis 0 first), transport as the 3-D plan's ("blocking", "pairwise:4@thread", ...),
// precision double|single, kinds periodic|K1,K2,..., batch_axis none|AXIS (numpy order,
// negative from the end), fields_in_flight 1..64, allow_empty true|false, tune
// none|quick|thorough|exhaustive,
// tune_budget SECONDS, tune_fields 1..64.
// Pairs are separated by blanks (spaces, tabs, newlines); a later key overrides an earlier one.
#pragma once

#include "nbfft/nd/plan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace nbfft::nd {

// Sets one field. Throws nbfft::Error (InvalidArgument) naming the key, the value and
// what is allowed.
void set_option(Options& o, std::string_view key, std::string_view value);
// The value of one key as text set_option accepts.
std::string get_option(const Options& o, std::string_view key);

// Applies every "key=value" pair of text (blank-separated) to o, in order. Throws naming
// the pair that is malformed or the key or value that is wrong.
void apply_options(Options& o, std::string_view text);
// Defaults with text applied.
Options parse_options(std::string_view text);

// Every key as "key=value", blank-separated, in the order of option_keys(): parse_options
// of it gives o back.
std::string options_text(const Options& o);
const std::vector<std::string>& option_keys();

// The table of every option key (markdown, docs/fft.md "Options"; scripts/check-docs.sh
// compares it): which plans it applies to and its default on each, from the one option table
// (nbfft/fft/option_table.hpp).
std::string options_markdown();

}  // namespace nbfft::nd
