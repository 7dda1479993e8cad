#include "bench/sine/options.hpp"

#include "nbfft/fft/option_table.hpp"
#include "nbfft/fft/tune.hpp"

#include "nbfft/error.hpp"

#include <algorithm>
#include <tuple>
#include <climits>

namespace nbfft::sine {

const char* const kHelp = R"(nbfft-sine: the P3DFFT test_sine kernel on nbfft's distributed 3D FFT.

usage: mpirun -n P nbfft-sine [options]

  --grid N | NX,NY,NZ      global grid (default 128)
  --proc-grid LIST         process grids M1xM2, comma-separated, or "auto" (default auto:
                           slabs when they fit). M1 splits y of the input (ROW exchange),
                           M2 splits z (COL exchange); 1xP = slabs.
  --precision double|single   (default double)
  --transform r2c|c2c      r2c = forward r2c, backward c2r (default r2c)
  --transport LIST         comma-separated transports, each run and reported separately
                           (default blocking). A transport is a preset (blocking, native,
                           caller, thread, rma) or ALGORITHM[:WINDOW]@ENGINE, e.g.
                           pairwise:4@thread. It is used for both exchanges unless
                           --row-transport says otherwise.
  --row-transport T        transport of the ROW exchange for every run (default: the
                           run's --transport); seed 000 overlaps only the COL exchange
  --fields NV              fields per iteration (default 1): NV sine fields (field v scaled
                           by v+1) through forward_many/backward_many, pipelined as in
                           seed 000 Fig. 4. With `blocking` in --transport the summary adds
                           Table II: improvement over blocking, the pipeline bound and
                           the gap each transport closes
  --progress-chunks LIST   progress calls per stage while an exchange is in flight (the
                           stage's planes in K chunks; default 0 = the plan's default,
                           64). A list runs every transport once per value (labels
                           TRANSPORT/kK), to measure the choice
  --chunk-planes LIST      plane-pipelined COL exchange (seed 001 §5) in chunks of N
                           planes (default 0: one bulk exchange). A list runs every
                           transport once per value (labels TRANSPORT/pN)
  --workspace LIST         default and/or lean (default: default). lean = the plan's
                           Options::lean_workspace (about 1x the local data, transforms
                           in place); a list runs every transport once per value
                           (labels TRANSPORT/lean), to measure the trade-off
  --threads T              threads per rank (the table's `threads` row; default: NBFFT_THREADS,
                           else OMP_NUM_THREADS, else 1); the FFTW-MPI baseline plans with
                           as many FFTW threads. Bind each rank to T cores (docs/fft.md)
  --KEY VALUE              any other plan option of nbfft's option table, '_' written '-'
                           (--col-depth 1, --fields-in-flight 3, --pipeline-row true,
                           --col-kernel overlap, ...; `nbfft-bench options` lists them):
                           applied to every run. The words above are the table's keys
                           too (--chunk-planes is col_chunk_planes, --workspace lean is
                           lean_workspace) but take lists; norm stays forward (test_sine)
  --iters N                timed iterations per run (default 10)
  --warmup N               untimed iterations first (default 1)
  --effort E               FFTW planner effort: estimate, measure, patient, exhaustive
                           (default measure); the baseline uses the same
  --wisdom FILE            load FFTW wisdom from FILE before planning, save it after
  --baseline fftw-mpi|auto also run FFTW's MPI transform (FFTW_MPI_TRANSPOSED_OUT/IN) on
                           the same grid and report nbfft's time as a ratio of it; auto:
                           when this build has it (MPICH builds do not), else say so
  --seed-run               also run seed 000's configuration: the most square pencils
                           (2x2 on 4 ranks), ROW exchange blocking, COL exchange
                           pairwise:4@caller (non-blocking, progressed inside the compute;
                           with --fields > 1 two fields in flight), labelled seed-M1xM2
  --sequential             run each configuration's iterations back to back instead of
                           interleaving them round-robin
  --flush-subnormals       x86: flush subnormal results and inputs to zero in every thread
                           (FTZ/DAZ), nbfft's and FFTW-MPI's alike. Single-precision spectra
                           of the sine field reach the subnormal range, where arithmetic can
                           be several times slower (docs/performance.md)
  --autotune LIST          also run the configuration the plan-time tuner picks for this grid,
                           ranks and --fields with each effort (quick, thorough, exhaustive):
                           it prints what it tried and why; runs are labelled tuned-EFFORT,
                           so "quick,exhaustive" measures the greedy choice against the full
                           sweep's in one run. (Not --tune: Open MPI's mpirun takes that.)
  --autotune-budget S      seconds the tuner may spend (default 20)
  --autotune-wisdom FILE   remember the tuner's choice in FILE; a later run with the same
                           grid, ranks, fields, MPI and host reuses it without trials
  --autotune-log N         0: the report only; 1: progress lines with an ETA on stderr;
                           2: also a line per trial. These are the option table's tuning
                           rows (tune, tune_budget, tune_wisdom, tune_log; tune_fields is
                           --fields) under nbfft-sine's words.
  --json FILE              write one JSON record per run to FILE (a JSON array)
  --help                   this text

N-D runs (nbfft::nd::Plan, docs/nd.md): --shape makes the run an array of any number of
axes, transformed along --axes, one run per --transport, with the field a product of
cos(2 pi i / n) over the transformed axes; each run's spectrum is checked point by point
against the analytic one (not with r2r kinds) and its round trip against the field.
  --shape N0,N1,...        the global array, slowest axis first (numpy order)
  --axes A,B,...           the axes to transform (default all; negative from the end; real
                           input: the last listed is the r2c axis, as numpy's rfftn)
  --proc-grid AxBx...      ranks per axis (numpy order; default chosen by the plan)
  --kinds K,... --batch-axis A --fields-in-flight K --output-order natural|transposed
                           nd::Options keys (docs/nd.md); --precision, --transform,
                           --transport, --fields, --iters, --warmup, --effort, --wisdom,
                           --sequential, --flush-subnormals and --json as above;
                           --autotune EFFORT [--autotune-budget S]: one more run, the plan
                           the N-D tuner picks (grid, transport, fields in flight) from the
                           first transport's options, its report printed. The 3-D runs'
                           other options (--grid, --baseline, --autotune-wisdom, ...) are
                           errors here.
  e.g. mpirun -n 4 nbfft-sine --shape 512,384 --transport blocking,thread
       mpirun -n 3 nbfft-sine --shape 24,20,6,18 --axes 0,1,3 --transform c2c
  --version                (alone) nbfft's version, MPI, FFTW, build options and transports

Memory: "peak MiB" is each run's peak resident memory per rank (max over ranks): the RSS
before any run plus how far the high-water mark rose while the run was planned (the
tuner's trials included) and ran its first iteration, i.e. what a process holding only
that run would need. A line per tuned run sets its peak against the default plan's and
the tuner's target (the default plan plus one of its workspaces), and says how far tuning
alone raised the RSS (what a caller whose arrays exist while it tunes adds). The JSON
records add peak_rss_bytes_per_rank, tuning_rss_bytes_per_rank (tuned runs) and the whole
process's process_peak_rss_bytes_per_rank (every run at once).

The last line is a summary: each nbfft run against FFTW-MPI (or, without it, against the
first run, nbfft's default plan when --proc-grid and --transport are left alone): the
ratio of the median times (as the table's column), the middle half of the per-round
ratios of the interleaved iterations ("within noise" when it spans 1), the fastest run
and the max error.

Each iteration is forward + normalize (1/N, fused into nbfft's z FFT) + backward. Phase
times are seconds per iteration, max over ranks, then min / median / max over iterations.
GFlop/s uses 2.5 N log2 N per r2c or c2r transform of N points (5 N log2 N for c2c),
times NV. The exit code is 1 when any run's max error exceeds 1e-8 (double) or 1e-3
(single).

Table II (with blocking among the transports), per process grid. Per direction d
(forward, backward), per field: C_d = the blocking run's local work (FFTs, pack, unpack;
slowest rank, median) + the fastest ROW exchange alone; T_d = the fastest COL exchange
alone. "Alone" = NV exchanges back to back after a barrier with nothing else running,
slowest rank, median of 3-5 repetitions, measured for every run and (with NV > 1) for the
reference transports blocking, native, caller and thread, so the bound does not depend on
--transport. Pipeline bound = sum over d of max(NV*C_d, NV*T_d + C_d): the CPU must do all
the work, and the network cannot start before the first field's pre-exchange work nor
finish before the last field's post-exchange work. gap closed = (t_blocking - t) /
(t_blocking - bound). JSON records add pipeline_bound_s, gap_closed, improvement_pct,
compute_per_field_s, exchange_per_field_s, blocking_time_s, col_alone_s and row_alone_s.
)";

namespace {

// Bounds of the counts: far beyond any sensible run, and small enough that the vectors
// sized by them (a time per iteration, a field per --fields) can be allocated.
constexpr long kMaxIters = 1000000;
constexpr long kMaxFields = 4096;

// An integer in [lo, hi], checked before it is narrowed to int (4294967296 is out of
// range, never 0).
int int_in(const std::string& opt, const std::string& v, long lo, long hi = INT_MAX) {
  const long x = bench::parse_long(opt, v);
  if (x < lo || x > hi)
    throw Error("--" + opt + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "], got '" + v + "'");
  return static_cast<int>(x);
}

std::vector<int> int_list(const bench::Args& args, const std::string& opt, long lo, long hi) {
  std::vector<int> out;
  for (const auto& x : args.get_list(opt, "0")) out.push_back(int_in(opt, x, lo, hi));
  return out;
}

}  // namespace

// The table's keys nbfft-sine reads with its own words (lists to sweep; the tuner's rows as
// --autotune*), or fixes (norm: test_sine normalizes after the forward transform); every
// other key is --KEY VALUE.
bool own_word(const fft::OptionRow& r) {
  if (r.tuning) return true;  // --autotune, --autotune-budget, ... (a run of its own, not every plan's)
  for (const char* k : {"precision", "transform", "norm", "proc_grid", "transport", "row_transport",
                        "progress_chunks", "col_chunk_planes", "effort", "lean_workspace"})
    if (std::string(r.key) == k) return true;
  return false;
}

std::string cli_word(const char* key) {
  std::string w = key;
  std::replace(w.begin(), w.end(), '_', '-');
  return w;
}

SineArgs parse_sine_args(const bench::Args& args) {
  std::vector<std::string> known = {"grid", "proc-grid", "precision", "transform", "transport", "row-transport",
                                    "fields", "progress-chunks", "chunk-planes", "iters", "warmup", "effort",
                                    "wisdom", "baseline", "sequential", "json", "autotune", "autotune-budget",
                                    "autotune-wisdom", "autotune-log", "workspace", "seed-run", "flush-subnormals", "help"};
  for (const auto& r : fft::option_rows())
    if (!own_word(r)) known.push_back(cli_word(r.key));
  if (args.has("axes")) throw Error("--axes needs --shape (an N-D run; the 3-D runs transform every axis)");
  args.allow_only(known);
  if (!args.positional().empty()) {
    if (args.positional()[0] != "-h") throw Error("unexpected argument '" + args.positional()[0] + "' (see --help)");
  }
  SineArgs a;
  a.help = args.has("help") || !args.positional().empty();
  a.sequential = args.has("sequential");
  a.seed_run = args.has("seed-run");
  a.flush_subnormals = args.has("flush-subnormals");
  a.n = bench::parse_grid(args);
  if (args.has("proc-grid")) {
    a.grids.clear();
    for (const auto& g : args.get_list("proc-grid", "auto"))
      a.grids.push_back(g == "auto" ? std::make_pair(0, 0) : fft::parse_proc_grid(g));
  }
  a.precision = fft::parse_precision(args.get("precision", "double"));
  a.transform = fft::parse_transform(args.get("transform", "r2c"));
  const std::string transports = args.get("transport", "blocking");
  a.transports = coll::parse_transports(transports);
  a.transport_names = bench::split(transports, ',');
  if (args.has("row-transport")) {
    a.row_transport = args.get("row-transport", "");
    coll::Transport::parse(a.row_transport);  // validates
  }
  a.fields = int_in("fields", args.get("fields", "1"), 1, kMaxFields);
  a.progress_chunks = int_list(args, "progress-chunks", 0, 1 << 20);
  a.chunk_planes = int_list(args, "chunk-planes", 0, INT_MAX);
  a.lean.clear();
  for (const auto& w : args.get_list("workspace", "default")) {
    if (w != "default" && w != "lean") throw Error("--workspace: expected default or lean, got '" + w + "'");
    a.lean.push_back(w == "lean");
  }
  a.iters = int_in("iters", args.get("iters", "10"), 1, kMaxIters);
  a.warmup = int_in("warmup", args.get("warmup", "1"), 0, kMaxIters);
  a.effort = fft::parse_effort(args.get("effort", "measure"));
  a.wisdom = args.get("wisdom", "");
  a.json = args.get("json", "");
  const std::string b = args.get("baseline", "none");
  if (b != "fftw-mpi" && b != "auto" && b != "cufft" && b != "none")
    throw Error("--baseline: only 'fftw-mpi', 'auto', 'cufft' (or 'none') is known, got '" + b + "'");
  a.baseline = b == "none" ? "" : b;
  if (args.has("autotune")) {
    a.tune = args.get_list("autotune", "quick");
    for (const auto& e : a.tune)
      if (fft::parse_tune_effort(e) == fft::TuneEffort::None)  // validates
        throw Error("--autotune: 'none' runs no tuner; leave --autotune out instead");
  }
  a.tune_budget = args.get_double("autotune-budget", 20, 0.001, 1e6);
  a.tune_wisdom = args.get("autotune-wisdom", "");
  // The table's rows check the words (the same errors as every front end's).
  fft::Options check;
  for (const auto& [word, key, value] : {std::tuple<const char*, const char*, std::string>{
                                             "autotune-wisdom", "tune_wisdom", a.tune_wisdom},
                                         {"autotune-log", "tune_log", args.get("autotune-log", "0")}}) {
    try {
      fft::set_option(check, key, value);
    } catch (const Error& e) {
      throw Error(std::string("--") + word + ": " + e.message(), e.code());
    }
  }
  a.tune_log = check.tune_log;
  for (const auto& r : fft::option_rows()) {
    if (own_word(r) || !args.has(cli_word(r.key))) continue;
    const std::string v = args.get(cli_word(r.key), "");
    fft::Options check;
    fft::set_option(check, r.key, v);  // throws naming the key, the value and what is allowed
    a.plan_extra.emplace_back(r.key, v);
  }
  return a;
}

bool SineArgs::needs_thread_multiple() const {
  if (!tune.empty()) return true;  // the tuner tries the thread engine where MPI allows it
  for (const auto& t : transports)
    if (t.engine == coll::EngineKind::Thread) return true;
  return !row_transport.empty() && coll::Transport::parse(row_transport).engine == coll::EngineKind::Thread;
}

fft::Options plan_options(const SineArgs& a, int m1, int m2, const coll::Transport& t, int progress_chunks,
                          int chunk_planes) {
  fft::Options o;
  o.precision = a.precision;
  o.transform = a.transform;
  o.norm = fft::Norm::Forward;  // test_sine normalizes after the forward transform
  o.m1 = m1;
  o.m2 = m2;
  o.row_transport = o.col_transport = t;
  if (!a.row_transport.empty()) o.row_transport = coll::Transport::parse(a.row_transport);
  o.effort = a.effort;
  o.progress_chunks = progress_chunks;
  o.col_chunk_planes = chunk_planes;
  o.fields_in_flight = a.fields > 1 ? 2 : 1;  // seed 000 Fig. 4 pipelines two fields
  for (const auto& [k, v] : a.plan_extra) fft::set_option(o, k, v);
  return o;
}

}  // namespace nbfft::sine
