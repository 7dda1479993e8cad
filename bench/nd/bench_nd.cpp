// nbfft-bench-nd: nbfft::nd::Plan against its peers on the same work, interleaved in rounds
// in one MPI job (issue 24's benchmarks; bench/nd/bench_nd.py adds mpi4py-fft and prints the
// table). Each round times one forward + backward pair of every contestant, the order
// rotated each round, each time the slowest rank's; the job prints one line per contestant:
//   RESULT {"case": "2d", "who": "nd", "n": 8192, "batch": 1, "ranks": 2, "times": [...]}
//
//   --case 2d     an n x n r2c transform: nd::Plan in natural order ([y][kx]: nd) and
//                 transposed ([kx][y]: nd-transposed; in place, one array in and out as
//                 FFTW-MPI's: nd-transposed-inplace; and so with the lean workspace:
//                 nd-transposed-lean) against FFTW-MPI's 2-D plan, transposed
//                 out (its fastest form) and in natural order (fftw-mpi-natural)
//   --case batch  `batch` r2c transforms of n^3 fields: nd::Plan over the 4-D array
//                 [batch][n][n][n] with axes (1, 2, 3) (nd: the batch an ordinary axis, the
//                 ranks on it; nd-batch: Options::batch_axis = 0, every rank holding every
//                 field, fields_in_flight 2; nd-batch-f1: the same one field at a time;
//                 nd-batch-whole: two in flight, each FFT step whole, progress_chunks 1, which
//                 with a caller engine gives its exchanges progress only between steps)
//                 against fftw_mpi_plan_many_dft_r2c with howmany = batch (FFTW's layout holds
//                 the batch innermost, [n][n][n][batch])
//   --case 3d     an n^3 r2c transform over all axes: nd::Plan (which runs on the 3-D plan:
//                 nd, nd-transposed; and on its own steps, Options::use_3d_plan = false:
//                 nd-own, nd-own-transposed) against nbfft::fft::Plan in its default
//                 (transposed) and natural output orders
//   --transport T the nd plans' exchanges (default blocking)
//
// Every contestant runs unnormalized (FFTW-MPI has no norm) with the same FFTW effort;
// FFTW-MPI in place, nd (but nd-transposed-inplace) and the 3-D plan out of place from the
// caller's arrays.
#include "bench/common/cli.hpp"
#include "bench/common/main.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/nd/plan.hpp"

#include <fftw3-mpi.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cplx = std::complex<double>;

struct Args {
  std::string which = "2d";
  std::int64_t n = 256, batch = 1;
  int rounds = 5;
  std::string effort = "measure";
  std::string transport = "blocking";
  bool help = false;  // asked for and printed: nothing to run
};

const char* const kHelp = R"(nbfft-bench-nd: nbfft::nd::Plan against FFTW-MPI and the 3-D plan, interleaved in
rounds; one RESULT line of JSON per contestant (bench/nd/bench_nd.py prints the table).

usage: mpirun -n P nbfft-bench-nd [options]

  --case 2d|batch|3d  the work (default 2d; the comment atop bench/nd/bench_nd.cpp says more)
  --n N               points per axis (default 256)
  --batch B           fields of the batch case (default 1)
  --rounds R          timed rounds after one warm-up (default 5)
  --effort E          FFTW effort of every contestant (default measure)
  --transport T       the nd plans' exchanges (default blocking)
)";

// The options, checked (the same on every rank: parse_agreed).
Args parse(MPI_Comm world, int argc, char** argv) {
  const nbfft::bench::Args args = nbfft::bench::parse_agreed(world, "nbfft-bench-nd", argc, argv);
  args.allow_only({"case", "n", "batch", "rounds", "effort", "transport", "help"});
  Args a;
  a.help = nbfft::bench::print_help(world, args, kHelp);
  if (a.help) return a;
  a.which = args.get("case", a.which);
  if (a.which != "2d" && a.which != "batch" && a.which != "3d")
    throw nbfft::Error("--case: '" + a.which + "' is not 2d, batch or 3d");
  a.n = args.get_long("n", a.n, 1, 1L << 31);
  a.batch = args.get_long("batch", a.batch, 1, 1L << 20);
  a.rounds = static_cast<int>(args.get_long("rounds", a.rounds, 1, 1000000));
  a.effort = args.get("effort", a.effort);
  a.transport = args.get("transport", a.transport);
  return a;
}

// A contestant: one forward + backward pair on its own arrays.
struct Contestant {
  std::string who, note;
  std::function<void()> pair;
  std::vector<double> times;
};

void fill(double* p, std::size_t n, int rank) {
  for (std::size_t i = 0; i < n; ++i) p[i] = std::sin(0.001 * double(i) + rank);
}

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};

Contestant nd_contestant(const Args& a, const std::vector<std::int64_t>& shape, const std::vector<int>& axes,
                         const char* who = "nd", std::optional<int> batch_axis = std::nullopt, int in_flight = 2,
                         nbfft::fft::OutputOrder order = nbfft::fft::OutputOrder::Natural, bool use_3d = true,
                         bool in_place = false, int progress_chunks = 0, bool lean = false) {
  nbfft::nd::Options o;
  o.progress_chunks = progress_chunks;
  o.lean_workspace = lean;
  o.use_3d_plan = use_3d;
  o.output_order = order;
  o.norm = nbfft::fft::Norm::None;
  o.effort = nbfft::fft::parse_effort(a.effort);
  o.transport = a.transport;
  o.batch_axis = batch_axis;
  o.fields_in_flight = in_flight;
  auto p = std::make_shared<nbfft::nd::Plan>(MPI_COMM_WORLD, shape, axes, o);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (in_place) {  // one array holds the input and then the spectrum, as FFTW-MPI's does
    const std::size_t n = std::max({p->in_count(), 2 * p->out_count(), (p->inplace_bytes() + 7) / 8});
    std::shared_ptr<double> buf(static_cast<double*>(fftw_malloc(sizeof(double) * n)), FftwFree{});
    fill(buf.get(), p->in_count(), rank);
    Contestant c{who, p->describe() + ", in place", {}, {}};
    c.pair = [p, buf, n] {
      auto* r = buf.get();
      auto* c = reinterpret_cast<cplx*>(r);
      p->forward(r, n, c, n / 2);
      p->backward(c, n / 2, r, n);
    };
    return c;
  }
  auto u = std::make_shared<std::vector<double>>(p->in_count());
  auto uh = std::make_shared<std::vector<cplx>>(p->out_count());
  fill(u->data(), u->size(), rank);
  Contestant c{who, p->describe(), {}, {}};
  c.pair = [p, u, uh] {
    p->forward(u->data(), u->size(), uh->data(), uh->size());
    p->backward(uh->data(), uh->size(), u->data(), u->size());
  };
  return c;
}

unsigned fftw_flags(const std::string& e) {
  if (e == "estimate") return FFTW_ESTIMATE;
  if (e == "patient") return FFTW_PATIENT;
  if (e == "exhaustive") return FFTW_EXHAUSTIVE;
  return FFTW_MEASURE;
}

// FFTW-MPI's r2c of a rank-d array (n) with `howmany` interleaved transforms, in place,
// transposed out / in (or in natural order).
Contestant fftw_mpi_contestant(const Args& a, std::vector<ptrdiff_t> n, ptrdiff_t howmany, bool transposed = true) {
  const int d = static_cast<int>(n.size());
  std::vector<ptrdiff_t> nc(n);
  nc.back() = n.back() / 2 + 1;
  ptrdiff_t l0 = 0, s0 = 0, l1 = 0, s1 = 0;
  const ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(d, nc.data(), howmany, FFTW_MPI_DEFAULT_BLOCK,
                                                              FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &l0, &s0, &l1, &s1);
  std::shared_ptr<double> buf(static_cast<double*>(fftw_malloc(sizeof(double) * 2 * static_cast<std::size_t>(alloc))),
                              FftwFree{});
  auto* r = buf.get();
  auto* c = reinterpret_cast<fftw_complex*>(r);
  const unsigned f = fftw_flags(a.effort);
  auto fwd = fftw_mpi_plan_many_dft_r2c(d, n.data(), howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, r, c,
                                        MPI_COMM_WORLD, f | (transposed ? FFTW_MPI_TRANSPOSED_OUT : 0));
  auto bwd = fftw_mpi_plan_many_dft_c2r(d, n.data(), howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, c, r,
                                        MPI_COMM_WORLD, f | (transposed ? FFTW_MPI_TRANSPOSED_IN : 0));
  if (!fwd || !bwd) throw std::runtime_error("FFTW-MPI could not plan");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fill(r, 2 * static_cast<std::size_t>(alloc), rank);
  std::shared_ptr<fftw_plan_s> pf(fwd, fftw_destroy_plan), pb(bwd, fftw_destroy_plan);
  std::ostringstream note;
  note << "fftw_mpi_plan_many_dft_r2c rank " << d << " howmany " << howmany
       << (transposed ? ", transposed out" : ", natural order") << ", in place";
  Contestant k{transposed ? "fftw-mpi" : "fftw-mpi-natural", note.str(), {}, {}};
  k.pair = [pf, pb, buf] {
    fftw_execute(pf.get());
    fftw_execute(pb.get());
  };
  return k;
}

Contestant plan3d_contestant(const Args& a, nbfft::fft::OutputOrder order = nbfft::fft::OutputOrder::Transposed) {
  nbfft::fft::Options o;
  o.output_order = order;
  o.norm = nbfft::fft::Norm::None;
  o.effort = nbfft::fft::parse_effort(a.effort);
  auto p = std::make_shared<nbfft::fft::Plan>(MPI_COMM_WORLD, std::array<std::int64_t, 3>{a.n, a.n, a.n}, o);
  auto u = std::make_shared<std::vector<double>>(static_cast<std::size_t>(p->in_count()));
  auto uh = std::make_shared<std::vector<cplx>>(static_cast<std::size_t>(p->out_count()));
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fill(u->data(), u->size(), rank);
  const bool natural = order == nbfft::fft::OutputOrder::Natural;
  Contestant c{natural ? "fft::Plan-natural" : "fft::Plan",
               natural ? "the 3-D plan, default options but norm none, output_order natural"
                       : "the 3-D plan, default options but norm none (output_order transposed)",
               {}, {}};
  c.pair = [p, u, uh] {
    p->forward(u->data(), u->size(), uh->data(), uh->size());
    p->backward(uh->data(), uh->size(), u->data(), u->size());
  };
  return c;
}

std::string json_times(const std::vector<double>& t) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < t.size(); ++i) os << (i ? ", " : "") << t[i];
  return os.str() + "]";
}

int run(int argc, char** argv, MPI_Comm world) {
  int rank = 0, size = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const Args a = parse(world, argc, argv);
  if (a.help) return 0;
  fftw_mpi_init();
  struct Cleanup {
    ~Cleanup() { fftw_mpi_cleanup(); }
  } cleanup;
  std::vector<Contestant> cs;
  if (a.which == "2d") {
    cs.push_back(nd_contestant(a, {a.n, a.n}, {0, 1}));
    cs.push_back(nd_contestant(a, {a.n, a.n}, {0, 1}, "nd-transposed", std::nullopt, 2,
                               nbfft::fft::OutputOrder::Transposed));
    cs.push_back(nd_contestant(a, {a.n, a.n}, {0, 1}, "nd-transposed-inplace", std::nullopt, 2,
                               nbfft::fft::OutputOrder::Transposed, true, true));
    cs.push_back(nd_contestant(a, {a.n, a.n}, {0, 1}, "nd-transposed-lean", std::nullopt, 2,
                               nbfft::fft::OutputOrder::Transposed, true, true, 0, true));
    cs.push_back(fftw_mpi_contestant(a, {a.n, a.n}, 1));
    cs.push_back(fftw_mpi_contestant(a, {a.n, a.n}, 1, false));
  } else if (a.which == "batch") {
    cs.push_back(nd_contestant(a, {a.batch, a.n, a.n, a.n}, {1, 2, 3}));
    cs.push_back(nd_contestant(a, {a.batch, a.n, a.n, a.n}, {1, 2, 3}, "nd-batch", 0, 2));
    cs.push_back(nd_contestant(a, {a.batch, a.n, a.n, a.n}, {1, 2, 3}, "nd-batch-f1", 0, 1));
    cs.push_back(nd_contestant(a, {a.batch, a.n, a.n, a.n}, {1, 2, 3}, "nd-batch-whole", 0, 2,
                               nbfft::fft::OutputOrder::Natural, true, false, 1));
    cs.push_back(fftw_mpi_contestant(a, {a.n, a.n, a.n}, a.batch));
  } else {
    using nbfft::fft::OutputOrder;
    cs.push_back(nd_contestant(a, {a.n, a.n, a.n}, {0, 1, 2}));
    cs.push_back(nd_contestant(a, {a.n, a.n, a.n}, {0, 1, 2}, "nd-transposed", std::nullopt, 2,
                               OutputOrder::Transposed));
    cs.push_back(nd_contestant(a, {a.n, a.n, a.n}, {0, 1, 2}, "nd-own", std::nullopt, 2, OutputOrder::Natural, false));
    cs.push_back(nd_contestant(a, {a.n, a.n, a.n}, {0, 1, 2}, "nd-own-transposed", std::nullopt, 2,
                               OutputOrder::Transposed, false));
    cs.push_back(plan3d_contestant(a));
    cs.push_back(plan3d_contestant(a, OutputOrder::Natural));
  }
  for (auto& c : cs) c.pair();  // warm up
  for (int r = 0; r < a.rounds; ++r)
    for (std::size_t j = 0; j < cs.size(); ++j) {
      Contestant& c = cs[(j + static_cast<std::size_t>(r)) % cs.size()];
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      c.pair();
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      c.times.push_back(t);
    }
  if (rank == 0)
    for (const auto& c : cs)
      std::printf("RESULT {\"case\": \"%s\", \"who\": \"%s\", \"n\": %lld, \"batch\": %lld, \"ranks\": %d, "
                  "\"note\": \"%s\", \"times\": %s}\n",
                  a.which.c_str(), c.who.c_str(), static_cast<long long>(a.n), static_cast<long long>(a.batch), size,
                  c.note.c_str(), json_times(c.times).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nbfft::bench::run_main("nbfft-bench-nd", argc, argv, MPI_THREAD_MULTIPLE,  // the thread engine needs it
                                [&](MPI_Comm world) { return run(argc, argv, world); });
}
