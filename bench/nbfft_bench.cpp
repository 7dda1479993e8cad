// nbfft-bench: the collective-layer experiments of the seed papers, one subcommand each.
#include "bench/common/cli.hpp"
#include "bench/common/main.hpp"
#include "bench/kernels/kernels.hpp"
#include "bench/nsloop/nsloop.hpp"
#include "bench/overlap/overlap.hpp"
#include "bench/primitives/primitives.hpp"
#include "nbfft/coll/coll.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/nd/options_text.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using nbfft::bench::Args;

// The registry as the markdown tables of docs/algorithms.md (scripts/check-docs.sh keeps
// the two equal).
void print_markdown() {
  std::printf("| algorithm | window | equal counts only | what it does and costs |\n|---|---|---|---|\n");
  for (const auto& a : nbfft::coll::alltoall_algorithms())
    std::printf("| `%s` | %s | %s | %s |\n", a.name, a.takes_window ? "yes" : "", a.uniform_only ? "yes" : "", a.summary);
  std::printf("\n| engine | needs MPI_THREAD_MULTIPLE | what drives progress |\n|---|---|---|\n");
  for (const auto& e : nbfft::coll::engines())
    std::printf("| `%s` | %s | %s |\n", e.name, e.needs_thread_multiple ? "yes" : "", e.summary);
  std::printf("\n| transport | means | for |\n|---|---|---|\n");
  for (const auto& t : nbfft::coll::transport_presets())
    std::printf("| `%s` | `%s` | %s |\n", t.name, t.expansion, t.summary);
}

int list_algorithms(const Args& args, MPI_Comm world) {
  args.allow_only({"markdown", "help"});
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (rank != 0) return 0;
  if (args.has("markdown")) {
    print_markdown();
    return 0;
  }
  std::printf("alltoall algorithms (--algorithm):\n");
  for (const auto& a : nbfft::coll::alltoall_algorithms()) {
    const char* why = a.unavailable ? a.unavailable() : nullptr;
    std::printf("  %-11s %s%s%s\n", a.name, a.summary, why ? "  [unavailable: " : "", why ? why : "");
    if (why) std::printf("]\n");
  }
  std::printf("progress engines (--progress):\n");
  for (const auto& e : nbfft::coll::engines()) std::printf("  %-11s %s\n", e.name, e.summary);
  std::printf("transport presets (ALGORITHM[:W]@ENGINE or a name):\n");
  for (const auto& t : nbfft::coll::transport_presets()) std::printf("  %-11s %-20s %s\n", t.name, t.expansion, t.summary);
  return 0;
}

// The plan options of fft/'s option table; --markdown: docs/fft.md's table
// (scripts/check-docs.sh keeps the two equal).
int list_options(const Args& args, MPI_Comm world) {
  args.allow_only({"markdown", "help"});
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (rank != 0) return 0;
  if (args.has("markdown")) {
    std::printf("%s", nbfft::nd::options_markdown().c_str());
    return 0;
  }
  const nbfft::fft::Options defaults;
  const nbfft::nd::Options nd_defaults;
  for (const auto& r : nbfft::fft::option_rows()) {
    const std::string d = r.get ? r.get(defaults) : nbfft::nd::get_option(nd_defaults, r.key);
    std::printf("  %-17s %-34s (default %s; %s plans)\n  %-17s %s\n", r.key, r.allowed, d.c_str(),
                nbfft::fft::name(r.scope), "", r.doc);
  }
  return 0;
}

struct Command {
  const char* name;
  const char* summary;
  const char* help;
  std::function<int(const Args&, MPI_Comm)> run;
};

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"overlap", "overlap of non-blocking alltoalls with compute (seed 000 Fig. 5, Table I, Fig. 10)",
       nbfft::bench::kOverlapHelp, nbfft::bench::run_overlap},
      {"kernels", "seed 002's five redistribution kernels as slab transposes: comm / comp breakdown",
       nbfft::bench::kKernelsHelp, nbfft::bench::run_kernels},
      {"primitives", "seed 003's primitives and barrier: latency and overlap, caller vs thread", nbfft::bench::kPrimitivesHelp, nbfft::bench::run_primitives},
      {"nsloop", "a Navier-Stokes-like loop: terms and forward transforms, blocking vs split-phase",
       nbfft::bench::kNsloopHelp, nbfft::bench::run_nsloop},
      {"algorithms", "list the alltoall algorithms, progress engines and transports",
       "nbfft-bench algorithms [--markdown]\n",
       list_algorithms},
      {"options", "list the plan options (the keys of C, Fortran, Python and nbfft-sine)",
       "nbfft-bench options [--markdown]\n", list_options},
  };
  return table;
}

void usage() {
  std::printf("usage: mpirun -n P nbfft-bench COMMAND [options]   (COMMAND --help for its options)\n");
  for (const auto& c : commands()) std::printf("  %-11s %s\n", c.name, c.summary);
}


int run(int argc, char** argv, MPI_Comm world) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  // Every rank must run the same command with the same options (an MPMD job can differ).
  nbfft::bench::parse_agreed(world, "nbfft-bench", argc, argv, {"help", "markdown"});
  if (argc >= 2 && (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h"))) {
    if (rank == 0) usage();
    return 0;
  }
  std::string names;
  for (const auto& c : commands()) names += std::string(names.empty() ? "" : ", ") + c.name;
  if (argc < 2) throw nbfft::Error("no command given (one of " + names + "; nbfft-bench --help says more)");
  const Command* cmd = nullptr;
  for (const auto& c : commands())
    if (c.name == std::string(argv[1])) cmd = &c;
  if (!cmd && std::string(argv[1]).rfind("-", 0) == 0)
    throw nbfft::Error(std::string("the command comes first, before options like '") + argv[1] + "' (one of " +
                       names + ")");
  if (!cmd) throw nbfft::Error(std::string("unknown command '") + argv[1] + "' (one of " + names + ")");
  Args args(argc - 1, argv + 1, {"help", "markdown"});
  if (args.has("help")) {
    if (rank == 0) std::printf("%s", cmd->help);
    return 0;
  }
  return cmd->run(args, world);
}

}  // namespace

int main(int argc, char** argv) {
  return nbfft::bench::run_main("nbfft-bench", argc, argv, MPI_THREAD_MULTIPLE,
                                [&](MPI_Comm world) { return run(argc, argv, world); });
}
