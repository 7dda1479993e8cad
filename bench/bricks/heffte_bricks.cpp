// nbfft-bench-bricks-heffte: nbfft's user boxes against heFFTe's brick interface, on the same
// bricks, in one interleaved run (round-robin over the cases, so drift of the machine hits
// them alike). Built only when CMake finds heFFTe (-DHeffte_DIR=.../lib/cmake/Heffte); never
// part of the tests. Two groups:
//
//   reshape   one real double field from px x py x pz bricks (x fastest) to nbfft's X-pencils
//             of the same grid: nbfft's Reshape (geometry/reshape.hpp, the exchange a brick plan
//             runs before its forward transform) against heFFTe's make_reshape3d with each
//             of its algorithms (alltoallv, alltoall, p2p, p2p_plined);
//   spectrum  one complex double field from nbfft's spectrum pencils (stored x, z, y) to
//             bricks of the spectrum (x, y, z): the reshape after a brick plan's forward;
//   r2c       forward + backward r2c transforms: nbfft and heFFTe each on their native
//             pencils (in: the X-pencils, out: the plan's spectrum pencils, same boxes and
//             memory order for both) and on bricks in and out.
//
// Prints, per case, the median over rounds of the max over ranks of the time per call (ms),
// and checks every case (reshape: each point's value; r2c: backward(forward(u)) == u).
//
//   mpirun -n 4 nbfft-bench-bricks-heffte --grid 128 --rounds 9 --iters 5 --transport blocking,native
// (--transport: a list; a reshape case per transport, the transforms on the first.)
#include "brick_layout.hpp"
#include "bench/common/stats.hpp"
#include "geometry/reshape.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/fft/fft.hpp"

#include <heffte.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace nbfft::fft;
using nbfft::bench::brick;
using nbfft::bench::brick_grid;
using nbfft::bench::median;
using hbox = heffte::box3d<int>;

hbox to_heffte(const Box3& b) {
  std::array<int, 3> lo{}, hi{};
  for (int d = 0; d < 3; ++d) {
    lo[d] = static_cast<int>(b.lo[d]);
    hi[d] = static_cast<int>(b.lo[d] + b.n[d] - 1);
  }
  return hbox(lo, hi, b.order);  // order[0]: the fastest dimension, in both libraries
}

double f(std::int64_t x, std::int64_t y, std::int64_t z, std::int64_t n) {
  return std::sin(2 * M_PI * x / n) * std::cos(4 * M_PI * y / n) + 0.01 * z;
}

std::vector<double> fill(const Box3& b, std::int64_t n) {
  std::vector<double> u(static_cast<std::size_t>(b.count()));
  for (std::int64_t z = 0; z < b.n[2]; ++z)
    for (std::int64_t y = 0; y < b.n[1]; ++y)
      for (std::int64_t x = 0; x < b.n[0]; ++x)
        u[b.index(b.lo[0] + x, b.lo[1] + y, b.lo[2] + z)] = f(b.lo[0] + x, b.lo[1] + y, b.lo[2] + z, n);
  return u;
}

struct Case {
  std::string group, name;
  std::function<void()> call;
  std::function<double()> error;  // after the timed calls: max deviation from the truth
  std::vector<double> per_round;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  std::int64_t n = 128;
  int rounds = 9, iters = 5;
  std::string transport = "blocking";
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--grid") n = std::atoll(v.c_str());
    else if (k == "--rounds") rounds = std::atoi(v.c_str());
    else if (k == "--iters") iters = std::atoi(v.c_str());
    else if (k == "--transport") transport = v;
    else {
      if (rank == 0)
        std::fprintf(stderr, "nbfft-bench-bricks-heffte: unknown option %s (--grid --rounds --iters --transport)\n",
                     k.c_str());
      MPI_Finalize();
      return 2;
    }
  }
  const std::array<std::int64_t, 3> N{n, n, n}, S{n / 2 + 1, n, n};
  const auto bg = brick_grid(P);
  const std::string bricks = std::to_string(bg[0]) + "x" + std::to_string(bg[1]) + "x" + std::to_string(bg[2]);
  Options o;
  o.effort = Effort::Measure;
  o.transport(transport.substr(0, transport.find(',')));  // the transforms: the first transport
  std::unique_ptr<Plan> native, brick_plan;
  try {
    native = std::make_unique<Plan>(MPI_COMM_WORLD, N, o);
    brick_plan = std::make_unique<Plan>(MPI_COMM_WORLD, N, brick(N, bg, rank), brick(S, bg, rank), o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::vector<Box3> in_bricks, out_bricks, xs, zs;
  std::vector<hbox> h_in_bricks, h_xs;
  for (int r = 0; r < P; ++r) {
    in_bricks.push_back(brick(N, bg, r));
    out_bricks.push_back(brick(S, bg, r));
    xs.push_back(native->in_box_of(r));
    zs.push_back(native->out_box_of(r));
    h_in_bricks.push_back(to_heffte(in_bricks.back()));
    h_xs.push_back(to_heffte(xs.back()));
  }
  const Box3 mine = in_bricks[static_cast<std::size_t>(rank)], myx = xs[static_cast<std::size_t>(rank)];
  const std::vector<double> ubrick = fill(mine, n), uxw = fill(myx, n);
  std::vector<Case> cases;

  // ---- reshape: bricks -> X-pencils -------------------------------------------------------
  auto check_x = [&uxw](const std::vector<double>& v) {
    double e = 0;
    for (std::size_t k = 0; k < v.size(); ++k) e = std::max(e, std::abs(v[k] - uxw[k]));
    return e;
  };
  std::vector<nbfft::Box> from, to;
  for (int r = 0; r < P; ++r) {
    from.push_back(nbfft::fft::to_box(in_bricks[static_cast<std::size_t>(r)]));
    to.push_back(nbfft::fft::to_box(xs[static_cast<std::size_t>(r)]));
  }
  using nbfft::geometry::Reshape;
  auto rs = std::make_shared<Reshape>(from, to, rank, sizeof(double));
  std::vector<std::shared_ptr<nbfft::coll::Comm>> comms;  // outlive the cases' collectives
  for (const nbfft::coll::Transport& tr : nbfft::coll::parse_transports(transport)) {
    comms.push_back(std::make_shared<nbfft::coll::Comm>(MPI_COMM_WORLD, tr.engine));
    auto st = std::shared_ptr<Reshape::Staging>(rs->staging(*comms.back(), tr).release());
    auto out = std::make_shared<std::vector<double>>(uxw.size());
    cases.push_back({"reshape", "nbfft Reshape " + tr.label, [&, rs, st, out] {
                       rs->run(ubrick.data(), out->data(), *st);
                     },
                     [&, out] { return check_x(*out); }, {}});
  }
  const std::pair<heffte::reshape_algorithm, const char*> algs[] = {
      {heffte::reshape_algorithm::alltoallv, "alltoallv"},
      {heffte::reshape_algorithm::alltoall, "alltoall"},
      {heffte::reshape_algorithm::p2p, "p2p"},
      {heffte::reshape_algorithm::p2p_plined, "p2p_plined"}};
  for (const auto& [alg, name] : algs) {
    heffte::plan_options po = heffte::default_options<heffte::backend::fftw>();
    po.algorithm = alg;
    std::shared_ptr<heffte::reshape3d_base<int>> hr(
        heffte::make_reshape3d<heffte::backend::fftw>(nullptr, h_in_bricks, h_xs, MPI_COMM_WORLD, po).release());
    auto out = std::make_shared<std::vector<double>>(uxw.size());
    auto work = std::make_shared<std::vector<double>>(hr ? hr->size_workspace() : 0);
    cases.push_back({"reshape", std::string("heFFTe reshape3d ") + name, [&, hr, out, work] {
                       hr->apply(1, ubrick.data(), out->data(), work->data());
                     },
                     [&, out] { return check_x(*out); }, {}});
  }

  // ---- reshape: the spectrum's Z-pencils (stored x, z, y) -> bricks (x, y, z), complex ---------
  // The reshape a brick plan runs after its forward transform: the sender walks a transposing
  // pattern (the two memory orders differ).
  std::vector<hbox> h_zs, h_out_bricks;
  for (int r = 0; r < P; ++r) {
    h_zs.push_back(to_heffte(zs[static_cast<std::size_t>(r)]));
    h_out_bricks.push_back(to_heffte(out_bricks[static_cast<std::size_t>(r)]));
  }
  using cd = std::complex<double>;
  const Box3 myz = zs[static_cast<std::size_t>(rank)], myob = out_bricks[static_cast<std::size_t>(rank)];
  auto cfill = [n](const Box3& b) {
    std::vector<cd> v(static_cast<std::size_t>(b.count()));
    for (std::int64_t z = 0; z < b.n[2]; ++z)
      for (std::int64_t y = 0; y < b.n[1]; ++y)
        for (std::int64_t x = 0; x < b.n[0]; ++x) {
          const std::int64_t X = b.lo[0] + x, Y = b.lo[1] + y, Z = b.lo[2] + z;
          v[b.index(X, Y, Z)] = cd(f(X, Y, Z, n), static_cast<double>(X + 1000 * Y + 1000000 * Z));
        }
    return v;
  };
  const std::vector<cd> zsrc = cfill(myz), bwant = cfill(myob);
  auto check_b = [&bwant](const std::vector<cd>& v) {
    double e = 0;
    for (std::size_t k = 0; k < v.size(); ++k) e = std::max(e, std::abs(v[k] - bwant[k]));
    return e;
  };
  auto rz = std::make_shared<Reshape>(zs, out_bricks, rank, sizeof(cd));
  {
    std::size_t k = 0;
    for (const nbfft::coll::Transport& tr : nbfft::coll::parse_transports(transport)) {
      auto st = std::shared_ptr<Reshape::Staging>(rz->staging(*comms[k++], tr).release());
      auto out = std::make_shared<std::vector<cd>>(bwant.size());
      cases.push_back({"spectrum", "nbfft Reshape " + tr.label, [&, rz, st, out] {
                         rz->run(zsrc.data(), out->data(), *st);
                       },
                       [&, out] { return check_b(*out); }, {}});
    }
  }
  for (const auto& [alg, name] : algs) {
    heffte::plan_options po = heffte::default_options<heffte::backend::fftw>();
    po.algorithm = alg;
    std::shared_ptr<heffte::reshape3d_base<int>> hr(
        heffte::make_reshape3d<heffte::backend::fftw>(nullptr, h_zs, h_out_bricks, MPI_COMM_WORLD, po).release());
    auto out = std::make_shared<std::vector<cd>>(bwant.size());
    auto work = std::make_shared<std::vector<cd>>(hr ? hr->size_workspace() : 0);
    cases.push_back({"spectrum", std::string("heFFTe reshape3d ") + name, [&, hr, out, work] {
                       hr->apply(1, zsrc.data(), out->data(), work->data());
                     },
                     [&, out] { return check_b(*out); }, {}});
  }

  // ---- r2c forward + backward -------------------------------------------------------------
  for (Plan* p : {native.get(), brick_plan.get()}) {
    auto u = std::make_shared<std::vector<double>>(fill(p->in_box(), n));
    auto v = std::make_shared<std::vector<double>>(u->size());
    auto U = std::make_shared<std::vector<std::complex<double>>>(static_cast<std::size_t>(p->out_count()));
    cases.push_back({"r2c", std::string("nbfft ") + (p == native.get() ? "native pencils" : "bricks " + bricks),
                     [p, u, v, U] {
                       p->forward(*u, *U);
                       p->backward(*U, *v);
                     },
                     [u, v] {
                       double e = 0;
                       for (std::size_t k = 0; k < u->size(); ++k) e = std::max(e, std::abs((*u)[k] - (*v)[k]));
                       return e;
                     },
                     {}});
  }
  for (int kind = 0; kind < 2; ++kind) {
    const Box3 ib = kind == 0 ? myx : mine;
    const Box3 ob = kind == 0 ? zs[static_cast<std::size_t>(rank)] : out_bricks[static_cast<std::size_t>(rank)];
    auto h = std::make_shared<heffte::fft3d_r2c<heffte::backend::fftw>>(to_heffte(ib), to_heffte(ob), 0,
                                                                        MPI_COMM_WORLD);
    auto u = std::make_shared<std::vector<double>>(fill(ib, n));
    auto v = std::make_shared<std::vector<double>>(u->size());
    auto U = std::make_shared<std::vector<std::complex<double>>>(h->size_outbox());
    auto W = std::make_shared<std::vector<std::complex<double>>>(h->size_workspace());
    cases.push_back({"r2c", std::string("heFFTe ") + (kind == 0 ? "native pencils" : "bricks " + bricks),
                     [h, u, v, U, W] {
                       h->forward(u->data(), U->data(), W->data());
                       h->backward(U->data(), v->data(), W->data(), heffte::scale::full);
                     },
                     [u, v] {
                       double e = 0;
                       for (std::size_t k = 0; k < u->size(); ++k) e = std::max(e, std::abs((*u)[k] - (*v)[k]));
                       return e;
                     },
                     {}});
  }

  for (Case& c : cases) c.call();  // warm-up
  for (int round = 0; round < rounds; ++round)
    for (Case& c : cases) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) c.call();
      double dt = (MPI_Wtime() - t0) / iters, mx = 0;
      MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      c.per_round.push_back(mx);
    }
  if (rank == 0)
    std::printf("grid %lld^3 double on %d ranks, bricks %s, nbfft transport %s, %d rounds x %d calls, interleaved\n"
                "(reshape: bricks -> nbfft's X-pencils, one real field; spectrum: nbfft's Z-pencils (x, z, y) -> bricks\n"
                " (x, y, z), one complex field; r2c: forward + backward)\n"
                "group     case                                median ms  [min, max]        vs first   max error\n",
                static_cast<long long>(n), P, bricks.c_str(), transport.c_str(), rounds, iters);
  int bad = 0;
  std::string group;
  double base = 0;
  for (Case& c : cases) {
    double e = c.error(), me = 0;
    MPI_Allreduce(&e, &me, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (me > 1e-9) ++bad;
    const double m = median(c.per_round);
    if (c.group != group) {
      group = c.group;
      base = m;
    }
    const auto [lo, hi] = std::minmax_element(c.per_round.begin(), c.per_round.end());
    if (rank == 0)
      std::printf("%-9s %-35s %9.3f  [%7.3f, %7.3f]  %7.2fx   %.1e\n", c.group.c_str(), c.name.c_str(), 1e3 * m,
                  1e3 * *lo, 1e3 * *hi, m / base, me);
  }
  cases.clear();
  comms.clear();
  native.reset();
  brick_plan.reset();
  MPI_Finalize();
  return bad ? 1 : 0;
}
