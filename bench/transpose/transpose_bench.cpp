// nbfft-transpose-bench: nbfft's pencil transposes (nbfft/fft/transpose.hpp) against
// 2DECOMP&FFT-style blocking transposes (pack, MPI_Alltoallv, unpack, written plainly
// below), in one interleaved run, and the split-phase transpose overlapping a compute.
//
//   mpirun -n 4 nbfft-transpose-bench --grid 128 --iters 10 --transport blocking,thread
//
// Per iteration (the variants take turns, so drifts of a shared machine hit all alike):
//   baseline   X->Y->Z->Y->X with the plain pack / MPI_Alltoallv / unpack
//   nbfft T    the same four transposes with Pencils on transport T
//   overlap T  start Y->Z (X->Y when M2 = 1), a compute of about the transpose's time, wait; with the compute
//              alone timed in the same iteration (overlap %, hidden %: bench/common/overlap_metrics.hpp)
// Elements are complex doubles (16 bytes). Times are the slowest rank's; the report gives
// median and [min, max] over the iterations.
#include "common/cli.hpp"
#include "common/compute.hpp"
#include "common/main.hpp"
#include "common/overlap_metrics.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/transpose.hpp"

#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using nbfft::fft::Box3;
using nbfft::fft::Pencil;
using nbfft::fft::Pencils;
using C = std::complex<double>;

namespace {

Box3 intersect(const Box3& a, const Box3& b) {
  Box3 r;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.n[d] = std::max<std::int64_t>(0, std::min(a.lo[d] + a.n[d], b.lo[d] + b.n[d]) - r.lo[d]);
  }
  return r;
}

// The baseline: one blocking transpose as 2DECOMP&FFT writes it. Each peer's block is
// packed contiguously (x fastest, y, z), one MPI_Alltoallv moves all blocks, each received
// block is unpacked into the output pencil.
struct PlainTranspose {
  MPI_Comm comm = MPI_COMM_NULL;
  Box3 in, out;                // this rank's pencils
  std::vector<Box3> send, recv;  // per peer: in ∩ peer's out, peer's in ∩ out
  std::vector<int> sc, sd, rc, rd;  // bytes (fits: the bench grids are small enough)
  std::vector<C> sbuf, rbuf;

  PlainTranspose(MPI_Comm c, const Pencils& p, Pencil a, Pencil b, const std::vector<int>& world_ranks) : comm(c) {
    in = p.box(a);
    out = p.box(b);
    int off_s = 0, off_r = 0;
    for (int r : world_ranks) {
      send.push_back(intersect(in, p.box_of_rank(b, r)));
      recv.push_back(intersect(p.box_of_rank(a, r), out));
      sc.push_back(static_cast<int>(send.back().count() * sizeof(C)));
      rc.push_back(static_cast<int>(recv.back().count() * sizeof(C)));
      sd.push_back(off_s);
      rd.push_back(off_r);
      off_s += sc.back();
      off_r += rc.back();
    }
    sbuf.resize(static_cast<std::size_t>(off_s) / sizeof(C));
    rbuf.resize(static_cast<std::size_t>(off_r) / sizeof(C));
  }
  void run(const C* u, C* v) {
    C* s = sbuf.data();
    for (const Box3& b : send)  // pack
      for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
        for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y, s += b.n[0])
          std::memcpy(s, u + in.index(b.lo[0], y, z), sizeof(C) * b.n[0]);
    MPI_Alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(), rd.data(), MPI_BYTE, comm);
    const C* r = rbuf.data();
    for (const Box3& b : recv)  // unpack
      for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
        for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y, r += b.n[0])
          std::memcpy(v + out.index(b.lo[0], y, z), r, sizeof(C) * b.n[0]);
  }
};

struct Stats {
  std::vector<double> v;
  std::string str() const {
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    char buf[128];
    std::snprintf(buf, sizeof buf, "%8.2f ms [%7.2f, %7.2f]", 1e3 * s[s.size() / 2], 1e3 * s.front(), 1e3 * s.back());
    return buf;
  }
  double median() const {
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
  }
};

double slowest(double t) {
  double m = 0;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

template <typename F>
double timed(F&& f) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  f();
  return slowest(MPI_Wtime() - t0);
}

const char* const kHelp = R"(nbfft-transpose-bench: nbfft's pencil transposes against 2DECOMP&FFT-style pack,
MPI_Alltoallv and unpack, and the split-phase transpose overlapping a compute.

usage: mpirun -n P nbfft-transpose-bench [options]

  --grid N            an N^3 grid of complex doubles (default 64)
  --iters N           measured iterations (default 10), after one warm-up
  --transport LIST    nbfft transports, each run beside the baseline (default blocking,thread)
  --proc-grid M1xM2   process grid (default: Pencils' choice)
)";

int run(int argc, char** argv, MPI_Comm world) {
  const nbfft::bench::Args args = nbfft::bench::parse_agreed(world, "nbfft-transpose-bench", argc, argv);
  args.allow_only({"grid", "iters", "transport", "proc-grid", "help"});
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  if (nbfft::bench::print_help(world, args, kHelp)) return 0;
  const std::int64_t n = args.get_long("grid", 64, 1, 1 << 20);
  const int iters = static_cast<int>(args.get_long("iters", 10, 1, 1000000));
  const std::vector<std::string> names = args.get_list("transport", "blocking,thread");
  int m1 = 0, m2 = 0;
  if (args.has("proc-grid")) std::tie(m1, m2) = nbfft::fft::parse_proc_grid(args.get("proc-grid", ""));
  std::vector<Pencils> pencils;
  for (const auto& t : names) {
    Pencils::Options o;
    o.m1 = m1;
    o.m2 = m2;
    o.transport(t);
    pencils.emplace_back(MPI_COMM_WORLD, std::array<std::int64_t, 3>{n, n, n}, o);
  }
  const Pencils& p = pencils[0];
  const int i = p.row(), j = p.col(), M1 = p.m1(), M2 = p.m2();
  MPI_Comm row, col;
  MPI_Comm_split(MPI_COMM_WORLD, j, i, &row);
  MPI_Comm_split(MPI_COMM_WORLD, i, j, &col);
  std::vector<int> row_ranks, col_ranks;
  for (int q = 0; q < M1; ++q) row_ranks.push_back(q + j * M1);
  for (int q = 0; q < M2; ++q) col_ranks.push_back(i + q * M1);
  PlainTranspose xy(row, p, Pencil::X, Pencil::Y, row_ranks), yz(col, p, Pencil::Y, Pencil::Z, col_ranks),
      zy(col, p, Pencil::Z, Pencil::Y, col_ranks), yx(row, p, Pencil::Y, Pencil::X, row_ranks);

  std::vector<C> ux(static_cast<std::size_t>(p.count(Pencil::X))), uy(static_cast<std::size_t>(p.count(Pencil::Y))),
      uz(static_cast<std::size_t>(p.count(Pencil::Z))), vx(ux.size());
  for (std::size_t k = 0; k < ux.size(); ++k) ux[k] = C(double(k % 977), double(rank));

  nbfft::bench::Compute compute(nbfft::bench::ComputeKind::Cache);
  const double unit = compute.calibrate();
  // The overlapped transpose is the first that moves data: Y->Z unless the COL has one rank.
  const Pencil oa = M2 > 1 ? Pencil::Y : Pencil::X, ob = M2 > 1 ? Pencil::Z : Pencil::Y;
  std::vector<C>& oin = M2 > 1 ? uy : ux;
  std::vector<C>& oout = M2 > 1 ? uz : uy;
  // Compute sized to that blocking transpose (after a warm-up call, agreed).
  p.transpose(oa, ob, oin, oout);
  const double t_xy = timed([&] { p.transpose(oa, ob, oin, oout); });
  long units = std::max<long>(1, static_cast<long>(t_xy / unit));
  MPI_Bcast(&units, 1, MPI_LONG, 0, MPI_COMM_WORLD);

  Stats base_rt;
  std::map<std::string, Stats> rt, xy_alone, xy_total, xy_overhead, comp_alone;
  bool ok = true;
  for (int it = 0; it < iters + 1; ++it) {  // iteration 0 warms up
    const bool keep = it > 0;
    const double tb = timed([&] {
      xy.run(ux.data(), uy.data());
      yz.run(uy.data(), uz.data());
      zy.run(uz.data(), uy.data());
      yx.run(uy.data(), vx.data());
    });
    if (keep) base_rt.v.push_back(tb);
    ok = ok && vx == ux;
    for (std::size_t k = 0; k < names.size(); ++k) {
      const Pencils& q = pencils[k];
      std::fill(vx.begin(), vx.end(), C());
      const double tr = timed([&] {
        q.transpose(Pencil::X, Pencil::Y, ux, uy);
        q.transpose(Pencil::Y, Pencil::Z, uy, uz);
        q.transpose(Pencil::Z, Pencil::Y, uz, uy);
        q.transpose(Pencil::Y, Pencil::X, uy, vx);
      });
      ok = ok && vx == ux;
      const double ta = timed([&] { q.transpose(oa, ob, oin, oout); });
      const double tc = timed([&] { compute.run(units); });
      double overhead = 0;
      const double tt = timed([&] {
        const double a = MPI_Wtime();
        auto pend = q.start(oa, ob, oin, oout);
        const double b = MPI_Wtime();
        // The caller engine moves data only when polled: poll between compute slices.
        const long slices = 8;
        double in_poll = 0;
        for (long s = 0; s < slices; ++s) {
          compute.run(units / slices + (s < units % slices ? 1 : 0));
          const double c0 = MPI_Wtime();
          pend.progress();
          in_poll += MPI_Wtime() - c0;
        }
        const double c = MPI_Wtime();
        pend.wait();
        overhead = (b - a) + in_poll + (MPI_Wtime() - c);
      });
      overhead = slowest(overhead);
      if (keep) {
        rt[names[k]].v.push_back(tr);
        xy_alone[names[k]].v.push_back(ta);
        comp_alone[names[k]].v.push_back(tc);
        xy_total[names[k]].v.push_back(tt);
        xy_overhead[names[k]].v.push_back(overhead);
      }
    }
  }
  int all_ok = 0, mine = ok ? 1 : 0;
  MPI_Allreduce(&mine, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("nbfft-transpose-bench: %lldx%lldx%lld complex double, %d ranks (%dx%d), %d iterations (interleaved)\n",
                static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(n), size, M1, M2, iters);
    std::printf("round trip X->Y->Z->Y->X, median [min, max]:\n");
    std::printf("  %-26s %s\n", "2decomp-style alltoallv", base_rt.str().c_str());
    for (const auto& t : names)
      std::printf("  %-26s %s  (%.2fx the baseline)\n", ("nbfft " + t).c_str(), rt[t].str().c_str(),
                  rt[t].median() / base_rt.median());
    std::printf("split-phase %s->%s overlapping a compute (%ld units):\n", name(oa), name(ob), units);
    for (const auto& t : names) {
      std::vector<double> ov, hid;
      for (std::size_t s = 0; s < xy_total[t].v.size(); ++s) {
        const auto m = nbfft::bench::overlap_metrics(xy_alone[t].v[s], xy_total[t].v[s], xy_overhead[t].v[s],
                                                     comp_alone[t].v[s]);
        ov.push_back(m.overlap_pct);
        hid.push_back(m.hidden_pct);
      }
      std::sort(ov.begin(), ov.end());
      std::sort(hid.begin(), hid.end());
      std::printf("  %-18s transpose %s  compute %s  both %s  overlap %5.1f%% [%5.1f, %5.1f]  hidden %6.1f%% [%6.1f, %6.1f]\n",
                  t.c_str(), xy_alone[t].str().c_str(), comp_alone[t].str().c_str(), xy_total[t].str().c_str(),
                  ov[ov.size() / 2], ov.front(), ov.back(), hid[hid.size() / 2], hid.front(), hid.back());
    }
    std::printf("%s\n", all_ok ? "verified: every round trip returned its input" : "FAILED: a round trip differs");
  }
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return nbfft::bench::run_main("nbfft-transpose-bench", argc, argv, MPI_THREAD_MULTIPLE,
                                [&](MPI_Comm world) { return run(argc, argv, world); });
}
