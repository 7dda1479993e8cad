// nbfft-bench-iobg: how much of a checkpoint's write a background write hides in a
// solver loop, and what it costs the solver (issue 23, deliverable 5).
//
// One step of a Navier-Stokes-like loop: the three velocity components come back from
// their spectra (backward transforms), a pointwise nonlinear term of each is computed
// (--flops flops per point besides its reads and writes), and the terms go forward. Every
// --every steps (at steps 1, 1 + every, ...) the three physical components u (or, with
// --write U, their spectra, which this loop never changes and so may be lent with --stage
// borrow) are written as /u<c>/<step>. Variants, run
// in interleaved rounds (the order rotates, so a busy machine slows all alike), each in a
// fresh Mode::Create file opened and closed outside the timed loop:
//   none        no write: the solver alone
//   blocking    H5File::write of the three fields at each write step
//   background  H5File::write_start (--stage, Copy by default) of the three; they
//               are waited for at the next write step or at the end of the loop (timed)
//   iwrite      the bound for this design: MPI_File_iwrite_at_all of staged copies into a
//               raw file, one handle opened outside the loop (below)
//   iwrite3     (--raw-handles 3) the same with one handle per field
// Per round, the loop time is the slowest rank's. Reported, medians over rounds:
//   write cost  W = blocking - none: what the writes cost the loop when they block
//   hidden      (blocking - background) / W: the honest share: whatever the background
//               write takes from the solver's cores counts against it
//   io calls    the time the solver spends inside write_start + wait (background) and
//               inside write (blocking); flattering share hidden = 1 - bg calls / blocking
//               calls (it ignores the solver's slowdown)
//   slowdown    (background loop - its io calls) / none - 1: how much the steps themselves
//               slowed while the bytes went to disk
//   cpu         user and system CPU seconds of the loop, summed over ranks and their threads
//               (MPI-IO's AIO threads too): what the write costs in CPU, whoever pays it
#include "bench/common/cli.hpp"
#include "bench/common/clock.hpp"
#include "bench/common/main.hpp"
#include "bench/common/stats.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/io/hdf5.hpp"

#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using nbfft::bench::median;
using nbfft::bench::now_seconds;
using nbfft::io::H5File;
using nbfft::io::Space;
using C = std::complex<double>;

struct Args {
  std::int64_t n = 128;
  int rounds = 5, steps = 8, every = 4, flops = 16;
  std::string dir = "/tmp";
  // The sketch writes a fresh file each loop, as each H5File Create does (--raw reuse:
  // over the last loop's, whose pages are still in the page cache: far cheaper for the
  // kernel than new ones, so a flattering bound).
  bool fresh_raw = true;
  int raw_handles = 1;    // 3: also the sketch with one MPI-IO handle per field (iwrite3), as write_start opens
  bool spectral = false;  // write the spectra U (unchanged by the loop) instead of the velocities u
  H5File::Stage stage = H5File::Stage::Copy;
};

// The pointwise term: a few multiply-adds per point so that the step has compute to hide.
void term(const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& out, int flops) {
  const std::size_t n = a.size();
  for (std::size_t i = 0; i < n; ++i) {
    double x = a[i] * b[i], y = a[i];
    for (int f = 0; f < flops / 2; ++f) y = y * 0.999 + x * 1e-3;
    out[i] = y;
  }
}

struct Times {
  double loop = 0, io = 0;  // slowest rank's
  double start = 0, test = 0, wait = 0;  // io split: in write_start (or write), test, wait (slowest rank's each)
  double user = 0, sys = 0;  // CPU seconds of the loop, every thread of every rank (AIO threads included)
};

// This process's CPU time so far, user and system, all its threads.
std::pair<double, double> cpu_seconds() {
  struct rusage r {};
  getrusage(RUSAGE_SELF, &r);
  return {double(r.ru_utime.tv_sec) + 1e-6 * double(r.ru_utime.tv_usec),
          double(r.ru_stime.tv_sec) + 1e-6 * double(r.ru_stime.tv_usec)};
}

enum class Variant { None, Blocking, Background, IWrite, IWrite3 };
const char* name(Variant v) {
  return v == Variant::None ? "none" : v == Variant::Blocking ? "blocking" : v == Variant::Background ? "background" : v == Variant::IWrite ? "iwrite" : "iwrite3";
}

// The other design, measured for its data movement only: non-blocking collective MPI-IO
// (MPI_File_iwrite_at_all through a subarray view, as it would write a contiguous HDF5
// dataset at its H5Dget_offset), of a staged copy, progressed by MPI_Testall after every
// forward transform and waited for at the next write step. A raw file: no HDF5 metadata.
struct IWriter {
  std::vector<MPI_File> fhs;
  MPI_File fh = MPI_FILE_NULL;
  MPI_Datatype box = MPI_DATATYPE_NULL;
  std::int64_t count = 0, written = 0, global = 0;
  std::vector<std::vector<double>> snap;
  std::vector<MPI_Request> req;
  IWriter(const nbfft::fft::Plan& plan, const std::string& path, int handles) {
    const nbfft::fft::Box3 b = plan.in_box();  // x fastest: [z][y][x]
    const auto& d = plan.decomposition();
    int g[3] = {int(d.m[2]), int(d.m[1]), int(d.m[0])}, n[3] = {int(b.n[2]), int(b.n[1]), int(b.n[0])},
        lo[3] = {int(b.lo[2]), int(b.lo[1]), int(b.lo[0])};
    MPI_Type_create_subarray(3, g, n, lo, MPI_ORDER_C, MPI_DOUBLE, &box);
    MPI_Type_commit(&box);
    for (int h = 0; h < handles; ++h) {
      fhs.push_back(MPI_FILE_NULL);
      MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fhs.back());
      MPI_File_set_view(fhs.back(), 0, MPI_DOUBLE, box, "native", MPI_INFO_NULL);
    }
    fh = fhs[0];
    count = b.count();
    global = std::int64_t(g[0]) * g[1] * g[2];
    snap.assign(3, std::vector<double>(std::size_t(count)));
  }
  ~IWriter() {
    wait();
    // MPI-IO returns its errors by default: a sketch that wrote nothing would measure nothing.
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    if (size != MPI_Offset(written * global * 8)) {
      std::fprintf(stderr, "nbfft-bench-iobg: the iwrite file has %lld bytes, not %lld\n", (long long)size,
                   (long long)(written * global * 8));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (written > 0) {  // and the last field's bytes are this rank's box
      std::vector<double> back(static_cast<std::size_t>(count));
      MPI_File_read_at_all(fh, MPI_Offset((written - 1) * count), back.data(), int(count), MPI_DOUBLE,
                           MPI_STATUS_IGNORE);
      if (back != snap[2]) {
        std::fprintf(stderr, "nbfft-bench-iobg: the iwrite file does not hold the field written\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    for (auto& h : fhs) MPI_File_close(&h);
    MPI_Type_free(&box);
  }
  void start(const std::vector<std::vector<double>>& u) {
    wait();
    for (int c = 0; c < 3; ++c) {
      std::copy(u[c].begin(), u[c].end(), snap[c].begin());
      req.emplace_back();
      // The fields take the handles in turn (iwrite3: one each, as write_start once did).
      if (MPI_File_iwrite_at_all(fhs[std::size_t(c) % fhs.size()], MPI_Offset(written++ * count), snap[c].data(),
                                 int(count), MPI_DOUBLE, &req.back()) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  void test() {
    int done = 0;
    if (!req.empty()) MPI_Testall(int(req.size()), req.data(), &done, MPI_STATUSES_IGNORE);
    if (done) req.clear();
  }
  void wait() {
    if (!req.empty()) MPI_Waitall(int(req.size()), req.data(), MPI_STATUSES_IGNORE);
    req.clear();
  }
};

Times run(const Args& a, Variant v, nbfft::fft::Plan& plan, std::vector<std::vector<C>>& U,
          std::vector<std::vector<double>>& u, std::vector<std::vector<double>>& w, std::vector<std::vector<C>>& W,
          const std::string& path) {
  std::unique_ptr<H5File> f;
  std::unique_ptr<IWriter> iw;
  if (v == Variant::Blocking || v == Variant::Background)
    f = std::make_unique<H5File>(MPI_COMM_WORLD, path, H5File::Mode::Create);
  if (v == Variant::IWrite || v == Variant::IWrite3) {
    if (a.fresh_raw) {  // one rank deletes, then all open
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) std::remove((path + ".raw").c_str());
      MPI_Barrier(MPI_COMM_WORLD);
    }
    iw = std::make_unique<IWriter>(plan, path + ".raw", v == Variant::IWrite3 ? 3 : 1);
  }
  std::vector<H5File::Pending> pending;
  double io = 0, in_start = 0, in_test = 0, in_wait = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const auto c0 = cpu_seconds();
  const double t0 = now_seconds();
  for (int s = 1; s <= a.steps; ++s) {
    for (int c = 0; c < 3; ++c) plan.backward(U[c], u[c]);
    // Writes at steps 1, 1 + every, ...: each has `every` steps to go to disk.
    if (v != Variant::None && (s - 1) % a.every == 0) {
      const double i0 = now_seconds();
      for (auto& p : pending) p.wait();
      pending.clear();
      if (iw) iw->wait();
      const double i1 = now_seconds();
      in_wait += i1 - i0;
      if (iw) iw->start(u);
      for (int c = 0; iw == nullptr && c < 3; ++c) {
        const std::string field = "u" + std::to_string(c);
        if (a.spectral && v == Variant::Blocking)
          f->write(plan, Space::Spectral, field, s, 0.01 * s, U[c]);
        else if (a.spectral)
          pending.push_back(f->write_start(plan, Space::Spectral, field, s, 0.01 * s, U[c], a.stage));
        else if (v == Variant::Blocking)
          f->write(plan, Space::Physical, field, s, 0.01 * s, u[c]);
        else
          pending.push_back(f->write_start(plan, Space::Physical, field, s, 0.01 * s, u[c], a.stage));
      }
      io += now_seconds() - i0;
      in_start += now_seconds() - i1;
    }
    for (int c = 0; c < 3; ++c) {
      term(u[c], u[(c + 1) % 3], w[c], a.flops);
      plan.forward(w[c], W[c]);
      // Both non-blocking variants test their requests here: MPICH's ROMIO moves a
      // non-blocking write only inside MPI calls (Open MPI's AIO threads need none).
      if (iw || !pending.empty()) {
        const double i0 = now_seconds();
        if (iw) iw->test();
        for (auto& p : pending) p.test();
        io += now_seconds() - i0;
        in_test += now_seconds() - i0;
      }
    }
  }
  const double i0 = now_seconds();
  for (auto& p : pending) p.wait();
  if (iw) iw->wait();
  io += now_seconds() - i0;
  in_wait += now_seconds() - i0;
  Times t{now_seconds() - t0, io};
  const auto c1 = cpu_seconds();
  if (f) f->close();
  iw.reset();
  double mine[5] = {t.loop, t.io, in_start, in_test, in_wait}, most[5];
  MPI_Allreduce(mine, most, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double cpu[2] = {c1.first - c0.first, c1.second - c0.second}, sum[2];
  MPI_Allreduce(cpu, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return {most[0], most[1], most[2], most[3], most[4], sum[0], sum[1]};
}


const char* const kHelp = R"(nbfft-bench-iobg: how much of a checkpoint's write a background write hides in a
solver loop, and what it costs the solver (the comment atop bench/iobg/iobg.cpp says more).

usage: mpirun -n P nbfft-bench-iobg [options]

  --grid N             an N^3 grid (default 128)
  --rounds R           interleaved rounds (default 5)
  --steps S            steps per loop (default 8)
  --every K            write every K steps (default 4)
  --flops F            flops per point of the nonlinear term (default 16)
  --dir D              folder of the files written (default /tmp)
  --write u|U          the physical fields u (default) or their spectra U
  --stage copy|borrow  H5File::write_start's staging (default copy; borrow needs --write U)
  --raw fresh|reuse    the sketch's raw file: a new one per loop (default) or the last one
  --raw-handles 1|3    MPI-IO handles of the sketch (3 adds iwrite3)
)";

// One of the words `allowed` as the value of --option (its default when absent).
std::string word(const nbfft::bench::Args& args, const std::string& option, const std::vector<std::string>& allowed) {
  const std::string v = args.get(option, allowed.front());
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string list;
    for (const auto& w : allowed) list += (list.empty() ? "" : ", ") + w;
    throw nbfft::Error("--" + option + ": '" + v + "' is not one of " + list);
  }
  return v;
}

int run_bench(int argc, char** argv, MPI_Comm world) {
  const nbfft::bench::Args args = nbfft::bench::parse_agreed(world, "nbfft-bench-iobg", argc, argv);
  args.allow_only({"grid", "rounds", "steps", "every", "flops", "dir", "write", "stage", "raw", "raw-handles", "help"});
  int rank = 0, size = 1, provided = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  MPI_Query_thread(&provided);
  if (nbfft::bench::print_help(world, args, kHelp)) return 0;
  Args a;
  a.n = args.get_long("grid", a.n, 1, 1 << 20);
  a.rounds = static_cast<int>(args.get_long("rounds", a.rounds, 1, 1000000));
  a.steps = static_cast<int>(args.get_long("steps", a.steps, 1, 1000000));
  a.every = static_cast<int>(args.get_long("every", a.every, 1, 1000000));
  a.flops = static_cast<int>(args.get_long("flops", a.flops, 0, 1000000));
  a.dir = args.get("dir", a.dir);
  a.spectral = word(args, "write", {"u", "U"}) == "U";
  a.stage = word(args, "stage", {"copy", "borrow"}) == "copy" ? H5File::Stage::Copy : H5File::Stage::Borrow;
  a.fresh_raw = word(args, "raw", {"fresh", "reuse"}) == "fresh";
  a.raw_handles = word(args, "raw-handles", {"1", "3"}) == "3" ? 3 : 1;
  // The loop overwrites u every step: only the spectra it never changes may be borrowed.
  if (!a.spectral && a.stage == H5File::Stage::Borrow) throw nbfft::Error("--stage borrow needs --write U");
  {
    nbfft::fft::Options o;
    o.effort = nbfft::fft::Effort::Estimate;
    nbfft::fft::Plan plan(MPI_COMM_WORLD, {a.n, a.n, a.n}, o);
    std::vector<std::vector<C>> U(3), W(3);
    std::vector<std::vector<double>> u(3), w(3);
    for (int c = 0; c < 3; ++c) {
      U[c].resize(std::size_t(plan.out_count()));
      W[c].resize(U[c].size());
      u[c].resize(std::size_t(plan.in_count()));
      w[c].resize(u[c].size());
      for (std::size_t i = 0; i < U[c].size(); ++i) U[c][i] = C(std::sin(0.001 * double(i) + c), 0.5 * std::cos(0.002 * double(i)));
    }
    long pid = static_cast<long>(getpid());
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const std::string path = a.dir + "/nbfft-bench-iobg-" + std::to_string(pid) + ".h5";
    nbfft::bench::check_outputs(world, {{"--dir", path}});
    const Variant all[5] = {Variant::None, Variant::Blocking, Variant::Background, Variant::IWrite, Variant::IWrite3};
    const int nv = a.spectral ? 3 : a.raw_handles == 3 ? 5 : 4;  // the iwrite sketches write the physical field
    std::vector<Times> t[5];
    run(a, Variant::Background, plan, U, u, w, W, path);  // warm-up: plans, page cache, the MPI-IO handles
    for (int r = 0; r < a.rounds; ++r)
      for (int k = 0; k < nv; ++k) {
        const int vi = (k + r) % nv;
        t[vi].push_back(run(a, all[vi], plan, U, u, w, W, path));
      }
    if (rank == 0) std::remove(path.c_str());
    if (rank == 0) std::remove((path + ".raw").c_str());
    if (rank == 0) std::remove((path.substr(0, path.size() - 3) + ".xmf").c_str());  // the catalog beside it
    if (rank == 0) {
      auto loop = [&](int vi) {
        std::vector<double> x;
        for (auto& e : t[vi]) x.push_back(e.loop);
        return x;
      };
      auto ios = [&](int vi, double Times::*m = &Times::io) {
        std::vector<double> x;
        for (auto& e : t[vi]) x.push_back(e.*m);
        return x;
      };
      const double field = a.spectral ? double(a.n * a.n * (a.n / 2 + 1)) * 16 : double(a.n * a.n * a.n) * 8;
      const double bytes = 3.0 * field * ((a.steps + a.every - 1) / a.every);
      std::printf("grid %lld^3, %d ranks, %d steps, 3 %s fields written every %d steps (%.0f MiB per loop, "
                  "Stage::%s), %d rounds, MPI thread level %d, sketch file %s\n",
                  (long long)a.n, size, a.steps, a.spectral ? "spectral" : "physical", a.every, bytes / 1048576.0,
                  a.stage == H5File::Stage::Copy ? "Copy" : "Borrow", a.rounds, provided,
                  a.fresh_raw ? "fresh" : "reused");
      for (int vi = 0; vi < nv; ++vi) {
        auto x = loop(vi);
        std::printf("  %-10s loop %.3f s (min %.3f, max %.3f)   in io calls %.3f s (start %.3f, test %.3f, wait %.3f)   "
                    "cpu user %.2f + sys %.2f s\n",
                    name(all[vi]), median(x), *std::min_element(x.begin(), x.end()),
                    *std::max_element(x.begin(), x.end()), median(ios(vi)), median(ios(vi, &Times::start)),
                    median(ios(vi, &Times::test)), median(ios(vi, &Times::wait)), median(ios(vi, &Times::user)),
                    median(ios(vi, &Times::sys)));
        // Each round's loop and system CPU time: a round where the ranks' writes meet on the
        // file's inode lock shows as one with twice the system time.
        std::string rounds;
        for (auto& e : t[vi]) {
          char r[48];
          std::snprintf(r, sizeof r, " %.3f/%.2f", e.loop, e.sys);
          rounds += r;
        }
        std::printf("             rounds (loop/sys s):%s\n", rounds.c_str());
      }
      const double none = median(loop(0)), blk = median(loop(1));
      const double blk_io = median(ios(1));
      std::printf("  write cost (blocking - none) %.3f s\n", blk - none);
      for (int vi = 2; vi < nv; ++vi) {
        const double bg = median(loop(vi)), bg_io = median(ios(vi));
        // Per round, paired: the rounds share the machine's state.
        std::vector<double> hidden, slow;
        for (int r = 0; r < a.rounds; ++r) {
          const double wcost = t[1][r].loop - t[0][r].loop;
          hidden.push_back(wcost > 0 ? (t[1][r].loop - t[vi][r].loop) / wcost : 0);
          slow.push_back((t[vi][r].loop - t[vi][r].io) / t[0][r].loop - 1);
        }
        std::printf("  %s: hidden (honest) %.0f%% (median of rounds; %.0f%% from the medians); flattering (time in "
                    "io calls %.3f s vs blocking %.3f s) %.0f%%; the steps slowed by %.1f%%\n",
                    name(all[vi]), 100 * median(hidden), 100 * (blk - bg) / std::max(1e-9, blk - none), bg_io, blk_io,
                    100 * (1 - bg_io / std::max(1e-9, blk_io)), 100 * median(slow));
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return nbfft::bench::run_main("nbfft-bench-iobg", argc, argv, MPI_THREAD_MULTIPLE,
                                [&](MPI_Comm world) { return run_bench(argc, argv, world); });
}
