// The option table (include/nbfft/fft/option_table.hpp): one row per plan option.
#include "nbfft/fft/option_table.hpp"

#include "nbfft/error.hpp"
#include "fft/text.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <tuple>

namespace nbfft::fft {

namespace {

// Integer text in [lo, hi] (whole string, no sign tricks beyond a leading '-').
bool int_in(std::string_view v, long lo, long hi, long* out) {
  const std::string s(v);
  if (s.empty() || s.size() > 20) return false;
  char* end = nullptr;
  errno = 0;
  const long x = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  if (x < lo || x > hi) return false;
  if (out) *out = x;
  return true;
}

// true/false and the usual synonyms; -1 for anything else.
int bool_word(std::string_view v) {
  const std::string l = lower_case(v);
  if (l == "true" || l == "1" || l == "yes" || l == "on") return 1;
  if (l == "false" || l == "0" || l == "no" || l == "off") return 0;
  return -1;
}

// A finite number in [lo, hi] (the whole string).
bool real_in(std::string_view v, double lo, double hi) {
  const std::string s(v);
  if (s.empty() || s.size() > 40 || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double x = std::strtod(s.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(x) && x >= lo && x <= hi;
}

// The shortest text that reads back as x ("10", "2.5", "0.1").
std::string real_str(double x) {
  char buf[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

int to_int(std::string_view v) { return static_cast<int>(std::strtol(std::string(v).c_str(), nullptr, 10)); }
bool to_bool(std::string_view v) { return bool_word(v) == 1; }
std::string bool_str(bool b) { return b ? "true" : "false"; }

// "auto" (or "0x0") lets the plan choose; "M1xM2" with entries >= 0, a 0 derived from the
// other entry (Options::m1, m2).
std::pair<int, int> grid_of(std::string_view v) {
  if (lower_case(v) == "auto") return {0, 0};
  // Ranks per axis of the input, numpy order (z, y, x): the spelling every plan reads. The
  // input's x pencils keep x whole.
  if (std::count(v.begin(), v.end(), 'x') == 2) {
    std::vector<int> e;
    try {
      e = parse_ranks_per_axis(v);
    } catch (const Error&) {
      e.clear();
    }
    const bool blank =
        std::any_of(v.begin(), v.end(), [](char ch) { return std::isspace(static_cast<unsigned char>(ch)) != 0; });
    if (blank || e.size() != 3 || e[0] > 1 << 20 || e[1] > 1 << 20 || e[2] > 1 << 20)
      throw Error("not a process grid (ranks per axis PZxPYxPX are integers >= 1, e.g. 2x3x1)");
    if (e[2] != 1)
      throw Error("a 3-D plan's input keeps x whole on every rank: ranks per axis PZxPYx1 (" + std::string(v) +
                  " splits x over " + std::to_string(e[2]) + ")");
    return {e[1], e[0]};
  }
  try {
    return parse_proc_grid(v, 0);  // the one M1xM2 parser (options.cpp), zeros allowed here
  } catch (const Error&) {
    throw Error("not a process grid (auto, or M1xM2 with integers >= 0, e.g. 2x4)");
  }
}

std::string grid_str(const Options& o) {
  if (!o.m1 && !o.m2) return "auto";
  return std::to_string(o.m1) + "x" + std::to_string(o.m2);
}

// The seed 002 kernel the COL settings spell, or "transport" (col_transport as given).
std::string kernel_of(const Options& o) {
  for (const auto& k : col_kernels())
    if (o.col_transport.label == k.name &&
        (k.per_plane ? o.col_chunk_planes >= 1 && o.col_depth == 1 : o.col_chunk_planes == 0 && o.col_depth == 0))
      return k.name;
  return "transport";
}

std::string choices_of_kernels() {
  std::string s = "transport";
  for (const auto& k : col_kernels()) s += std::string("|") + k.name;
  return s;
}

constexpr long kIntMax = INT_MAX;

// Columns: key, type, allowed, doc, agreed, tuned, shorthand, lo, hi, aliases, example, get, set[, tuning].
std::vector<OptionRow> make_rows() {
  using T = OptionType;
  using S = OptionScope;
  static const std::string kernels = choices_of_kernels();
  return {
      {"precision", T::Choice, "double|single", "floating-point precision of the data", true, false, false, 0, 0, "",
       "single", [](const Options& o) -> std::string { return name(o.precision); },
       [](Options& o, std::string_view v) { o.precision = parse_precision(v); }},
      {"transform", T::Choice, "r2c|c2c", "r2c: forward real-to-complex, backward complex-to-real; c2c: complex both ways",
       true, false, false, 0, 0, "kind", "c2c", [](const Options& o) -> std::string { return name(o.transform); },
       [](Options& o, std::string_view v) { o.transform = parse_transform(v); }},
      {"kinds", T::Choice, "KIND|KIND,KIND,...",
       "forward transform of each transformed axis (one for all): periodic or an r2r kind dct1..dct4, dst1..dst4 "
       "(FFTW's REDFT00, REDFT10, REDFT01, REDFT11, RODFT00, RODFT10, RODFT01, RODFT11); the 3-D plan lists x,y,z, "
       "an N-D plan its axes in the order given",
       true, false, false, 0, 0, "", "periodic,dct2,dst1",
       [](const Options& o) { return kinds_str(o.kinds); },
       [](Options& o, std::string_view v) { o.kinds = parse_axis_kinds(v); }},
      {"norm", T::Choice, "backward|none|forward|ortho",
       "scaling as numpy.fft's norm (backward: backward scaled by 1/N, the default); none: neither (FFTW)", true,
       false, false, 0, 0, "", "ortho", [](const Options& o) -> std::string { return name(o.norm); },
       [](Options& o, std::string_view v) { o.norm = parse_norm(v); }},
      {"padding", T::Ratios, "R|R,R,...",
       "dealiasing: physical grid floor(n*R) per axis, the spectrum keeps n's modes (backward zero-pads, forward "
       "truncates; 1: none, 1.5: the 3/2 rule); one ratio for all, or one per axis: the 3-D plan's x,y,z, an N-D "
       "plan's listed axes in the order given (periodic axes only)",
       true, false, false, 0, 0, "", "1.5,1,2", [](const Options& o) { return padding_str(o.padding); },
       [](Options& o, std::string_view v) { o.padding = parse_padding(v); }},
      {"proc_grid", T::Grid, "auto|P0xP1x...|M1xM2",
       "process grid: ranks along each axis of the input, axis 0 first (numpy order; a 3-D plan's input keeps x "
       "whole: PZxPYx1); the 3-D plan also reads and prints M1xM2 (M1 ranks split y, M2 split z, a 0 derived from "
       "the other); auto: chosen (the 3-D plan: slabs when they fit, else the squarest)",
       true, true, false, 0, 0, "grid", "2x3", [](const Options& o) { return grid_str(o); },
       [](Options& o, std::string_view v) { std::tie(o.m1, o.m2) = grid_of(v); }},
      {"row_transport", T::Transport, "PRESET|ALGORITHM[:WINDOW]@ENGINE",
       "how the ROW exchange moves data (the 3-D plan's x<->y, an N-D plan's first): a preset (blocking, native, "
       "caller, thread, rma) or e.g. pairwise:4@thread",
       true, true, false, 0, 0, "", "pairwise:4@caller", [](const Options& o) { return o.row_transport.str(); },
       [](Options& o, std::string_view v) { o.row_transport = coll::Transport::parse(v); }},
      {"col_transport", T::Transport, "PRESET|ALGORITHM[:WINDOW]@ENGINE",
       "how the COL exchanges move data (the 3-D plan's y<->z, an N-D plan's after the first)", true, true, false, 0,
       0, "", "linear@caller", [](const Options& o) { return o.col_transport.str(); },
       [](Options& o, std::string_view v) { o.col_transport = coll::Transport::parse(v); }},
      {"transport", T::Transport, "PRESET|ALGORITHM[:WINDOW]@ENGINE|mixed",
       "every exchange's transport; on the 3-D plan a shorthand: sets row_transport and col_transport, reads mixed "
       "when they differ (setting mixed leaves them)",
       false, false, true, 0, 0,
       "", "pairwise:2@caller",
       [](const Options& o) -> std::string {
         return o.row_transport.str() == o.col_transport.str() ? o.row_transport.str() : "mixed";
       },
       [](Options& o, std::string_view v) {
         if (lower_case(v) != "mixed") o.transport(v);
       }},
      {"col_kernel", T::Choice, kernels.c_str(),
       "shorthand: one of seed 002's COL exchanges (sets col_transport, col_chunk_planes, col_depth); transport: "
       "leave them",
       false, false, true, 0, 0, "", "overlap", [](const Options& o) { return kernel_of(o); },
       [](Options& o, std::string_view v) {
         if (lower_case(v) != "transport") o.col_kernel(v);
       }},
      {"effort", T::Choice, "measure|estimate|patient|exhaustive",
       "planning effort of the local FFT backend (FFTW's planner; kept by wisdom)", false, false, false, 0, 0, "",
       "estimate", [](const Options& o) -> std::string { return name(o.effort); },
       [](Options& o, std::string_view v) { o.effort = parse_effort(v); }},
      {"backend", T::Choice, "auto|fftw|mkl|B,B,B",
       "local FFT library (one for all; per x,y,z stage on the 3-D plan); auto: FFTW when built (always for r2r "
       "kinds), else MKL; the 3-D plan's options() name the one each stage runs",
       true, true, false, 0, 0, "", "fftw,mkl,mkl", [](const Options& o) { return backends_str(o.backends); },
       [](Options& o, std::string_view v) { o.backends = parse_backends(v); }},
      {"allow_empty", T::Bool, "true|false", "let process grids leave some ranks without points", true, false, false,
       0, 0, "", "false", [](const Options& o) { return bool_str(o.allow_empty); },
       [](Options& o, std::string_view v) { o.allow_empty = to_bool(v); }},
      {"progress_chunks", T::Int, "0..2147483647",
       "caller-progress calls per stage while an exchange is in flight (0: 64)", true, true, false, 0, kIntMax, "",
       "7", [](const Options& o) { return std::to_string(o.progress_chunks); },
       [](Options& o, std::string_view v) { o.progress_chunks = to_int(v); }},
      {"col_chunk_planes", T::Int, "0..2147483647",
       "plane-pipelined COL exchange in chunks of this many planes (an N-D plan's: of axis 0; 0: one bulk exchange)",
       true, true, false, 0,
       kIntMax, "chunk_planes", "3", [](const Options& o) { return std::to_string(o.col_chunk_planes); },
       [](Options& o, std::string_view v) { o.col_chunk_planes = to_int(v); }},
      {"col_depth", T::Int, "0..2147483647", "COL chunks in flight at once (0: all of them)", true, true, false, 0,
       kIntMax, "", "2", [](const Options& o) { return std::to_string(o.col_depth); },
       [](Options& o, std::string_view v) { o.col_depth = to_int(v); }},
      {"fields_in_flight", T::Int, "1..64",
       "fields forward_many/backward_many pipeline (a workspace each; 2 overlaps each field's exchange; a blocking "
       "transport runs them one after the other)", true, true,
       false, 1, 64, "", "3", [](const Options& o) { return std::to_string(o.fields_in_flight); },
       [](Options& o, std::string_view v) { o.fields_in_flight = to_int(v); }},
      {"lean_workspace", T::Bool, "true|false",
       "plan buffers of about 1x the local data instead of 2-3x; transforms then run in place only", true, false,
       false, 0, 0, "", "true", [](const Options& o) { return bool_str(o.lean_workspace); },
       [](Options& o, std::string_view v) { o.lean_workspace = to_bool(v); }},
      {"pipeline_row", T::Bool, "true|false", "pencils with fields in flight also pipeline the ROW exchange", true,
       true, false, 0, 0, "", "true", [](const Options& o) { return bool_str(o.pipeline_row); },
       [](Options& o, std::string_view v) { o.pipeline_row = to_bool(v); }, false, S::Plan3D},
      {"output_order", T::Choice, "transposed|natural",
       "the spectrum's memory order: transposed [ky][kz][kx] (FFTW-MPI's, the fastest) or natural [kz][ky][kx] "
       "(numpy's; one local copy more)",
       true, false, false, 0, 0, "", "natural", [](const Options& o) -> std::string { return name(o.output_order); },
       [](Options& o, std::string_view v) { o.output_order = parse_output_order(v); }},
      {"device", T::Choice, "host|cuda|emulated",
       "where the arrays live: host memory, a CUDA GPU's (cuFFT; transforms take device pointers) or emulated "
       "(the GPU plan's path on host memory, for tests)",
       true, false, false, 0, 0, "", "emulated", [](const Options& o) -> std::string { return name(o.device); },
       [](Options& o, std::string_view v) { o.device = parse_device(v); }, false, S::Plan3D},
      {"device_id", T::Int, "-1..1023",
       "the GPU of device=cuda; -1: the rank's node-local index modulo the GPUs it sees", false, false, false, -1,
       1023, "", "0", [](const Options& o) { return std::to_string(o.device_id); },
       [](Options& o, std::string_view v) { o.device_id = to_int(v); }, false, S::Plan3D},
      {"device_exchange", T::Choice, "staged|ipc|mpi|nccl",
       "how a device plan's exchanges move blocks: staged through pinned host memory and MPI, ipc (ranks read "
       "each other's GPU memory: ranks sharing a GPU), mpi (GPU memory to a CUDA-aware MPI) or nccl (NCCL on "
       "the GPU's streams: one GPU per rank)",
       true, true, false, 0, 0, "", "ipc", [](const Options& o) -> std::string { return name(o.device_exchange); },
       [](Options& o, std::string_view v) { o.device_exchange = parse_device_exchange(v); }, false, S::Plan3D},
      {"threads", T::Int, "0..1024",
       "threads per rank sharing each stage's FFTs and copies; 0: NBFFT_THREADS, else OMP_NUM_THREADS, else 1",
       false, true, false, 0, 1024, "", "2", [](const Options& o) { return std::to_string(o.threads); },
       [](Options& o, std::string_view v) { o.threads = to_int(v); }},
      {"engine_own_core", T::Bool, "true|false",
       "with the thread engine: leave one of the rank's CPUs to its agent thread (at most CPUs - 1 compute "
       "threads) instead of sharing them",
       false, true, false, 0, 0, "", "true", [](const Options& o) { return bool_str(o.engine_own_core); },
       [](Options& o, std::string_view v) { o.engine_own_core = to_bool(v); }},
      // The tuner's own settings (fft/tune.hpp): agreed like every plan option, never searched
      // nor remembered by it (the last column marks them).
      {"tune", T::Choice, "none|quick|thorough|exhaustive",
       "plan-time tuning: time candidates of the rows the tuner searches and make the plan with the fastest "
       "(collective; none: the plan as asked)",
       true, false, false, 0, 0, "", "quick", [](const Options& o) -> std::string { return name(o.tune); },
       [](Options& o, std::string_view v) { o.tune = parse_tune_effort(v); }, true},
      {"tune_budget", T::Real, "seconds > 0", "seconds the tuner's trials may take; the fastest found so far wins",
       true, false, false, 0, 1000000, "", "2.5", [](const Options& o) { return real_str(o.tune_budget); },
       [](Options& o, std::string_view v) {
         const double x = std::strtod(std::string(v).c_str(), nullptr);
         if (!(x > 0)) throw Error("'" + std::string(v) + "' is not a number of seconds > 0");
         o.tune_budget = x;
       },
       true},
      {"tune_fields", T::Int, "1..4096", "fields per forward_many/backward_many call the tuner times", true, false,
       false, 1, 4096, "", "3", [](const Options& o) { return std::to_string(o.tune_fields); },
       [](Options& o, std::string_view v) { o.tune_fields = to_int(v); }, true},
      {"tune_wisdom", T::Text, "PATH|\"\"",
       "file where the tuner remembers its choices across runs (read and written by rank 0; empty: this process "
       "only)",
       true, false, false, 0, 0, "", "nbfft-tune.txt", [](const Options& o) { return o.tune_wisdom; },
       [](Options& o, std::string_view v) {
         if (v.find_first_of(std::string("\n\t\0", 3)) != std::string_view::npos)
           throw Error("a path with a newline, tab or NUL is not accepted");
         o.tune_wisdom = std::string(v);
       },
       true},
      {"tune_log", T::Int, "0..2",
       "what the tuner prints on rank 0's stderr: 0 nothing, 1 progress lines with an ETA and the choice, 2 also "
       "every trial",
       true, false, false, 0, 2, "", "1", [](const Options& o) { return std::to_string(o.tune_log); },
       [](Options& o, std::string_view v) { o.tune_log = to_int(v); }, true},
      // N-D plans only (nbfft/nd/options_text.hpp maps it onto nd::Options; no 3-D field).
      {"batch_axis", T::Choice, "none|AXIS",
       "an axis of the array that holds a batch of fields (numpy order, negative from the end; not among the "
       "axes): each slice along it is a field, whole on every rank, transformed through the multi-field pipeline",
       true, false, false, 0, 0, "", "0", nullptr, nullptr, false, S::PlanND},
  };
}

bool spelled(std::string_view want, const OptionRow& r) {
  if (want == r.key) return true;
  std::istringstream is(r.aliases);
  std::string a;
  while (std::getline(is, a, ','))
    if (!a.empty() && want == a) return true;
  return false;
}

}  // namespace

const char* name(OptionType t) {
  switch (t) {
    case OptionType::Choice: return "choice";
    case OptionType::Int: return "int";
    case OptionType::Bool: return "bool";
    case OptionType::Grid: return "grid";
    case OptionType::Transport: return "transport";
    case OptionType::Real: return "real";
    case OptionType::Text: return "text";
    case OptionType::Ratios: return "ratios";
  }
  return "?";
}

const std::vector<OptionRow>& option_rows() {
  static const std::vector<OptionRow> rows = make_rows();
  return rows;
}

const OptionRow* find_option_row(std::string_view key) {
  std::string k = lower_case(key);
  std::replace(k.begin(), k.end(), '-', '_');
  for (const auto& r : option_rows())
    if (spelled(k, r)) return &r;
  return nullptr;
}

const OptionRow& option_row(std::string_view key) {
  if (const OptionRow* r = find_option_row(key)) return *r;
  std::string keys;
  for (const auto& r : option_rows()) keys += std::string(keys.empty() ? "" : ", ") + r.key;
  throw Error("unknown option '" + std::string(key) + "' (use " + keys + ")");
}

namespace {

// A row of N-D plans only, set or read on the 3-D plan's options.
Error not_3d(const OptionRow& r) {
  return Error("option " + std::string(r.key) + " applies to N-D plans only (nbfft::nd::Plan, NdPlan, "
               "nbfft_plan_create_nd); the 3-D plan has no " + r.key, ErrorCode::InvalidArgument);
}

}  // namespace

const char* name(OptionScope s) {
  switch (s) {
    case OptionScope::All: return "all";
    case OptionScope::Plan3D: return "3-D";
    case OptionScope::PlanND: return "N-D";
  }
  return "?";
}

bool applies_to_3d(OptionScope s) { return s != OptionScope::PlanND; }
bool applies_to_nd(OptionScope s) { return s != OptionScope::Plan3D; }

void set_option(Options& o, std::string_view key, std::string_view value) {
  const OptionRow& r = option_row(key);
  if (!r.set) throw not_3d(r);
  const std::string v(value);
  auto bad = [&](const std::string& why) {
    return Error("option " + std::string(r.key) + ": '" + v + "' " + why + " (allowed: " + r.allowed + ")");
  };
  if (r.type == OptionType::Int && !int_in(v, r.lo, r.hi, nullptr))
    throw bad("is not an integer in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]");
  if (r.type == OptionType::Bool && bool_word(v) < 0) throw bad("is not true or false");
  if (r.type == OptionType::Real && !real_in(v, static_cast<double>(r.lo), static_cast<double>(r.hi)))
    throw bad("is not a number in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]");
  try {
    r.set(o, v);
  } catch (const Error& e) {
    throw Error("option " + std::string(r.key) + ": " + e.message() + " (allowed: " + r.allowed + ")", e.code());
  }
}

void for_each_pair(std::string_view text, const std::function<void(std::string_view, std::string_view)>& f) {
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
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
      throw Error("'" + std::string(pair) + "' is not key=value", ErrorCode::InvalidArgument);
    pairs.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    at = end;
  }
  for (const auto& [k, v] : pairs) f(k, v);
}

std::string get_option(const Options& o, std::string_view key) {
  const OptionRow& r = option_row(key);
  if (!r.get) throw not_3d(r);
  return r.get(o);
}

std::vector<std::pair<std::string, std::string>> option_values(const Options& o, bool (*keep)(const OptionRow&)) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& r : option_rows())
    if (!r.shorthand && r.get && (!keep || keep(r))) out.emplace_back(r.key, r.get(o));
  return out;
}

}  // namespace nbfft::fft
