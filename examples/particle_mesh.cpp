// A particle-mesh step on bricks (heFFTe's typical user: an MD or PIC code that owns a brick
// of space per rank and hands it to the FFT as it is):
//
//   deposit   each particle's charge onto the grid point nearest to it (its own brick)
//   forward   rho -> rho_k, bricks in, bricks of the spectrum out (nbfft reshapes)
//   solve     lap(phi) = rho:  phi_k = -rho_k / |k|^2,  E_k = -i k phi_k
//   backward  the three components of E, back on the bricks (one batch of three fields)
//   push      each particle gets E at its grid point: v += q E dt, x += v dt
//
// The charges are set so that rho = sin(x + 2y + 3z) on [0, 2pi)^3, whose field is
// E = (1, 2, 3) cos(x + 2y + 3z) / 14 exactly; the example checks E at every particle and
// exits non-zero on a mismatch.
//   mpirun -n 4 example_particle_mesh [N] [transport]
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/field.hpp"

#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using nbfft::fft::Box3;

namespace {

struct Particle {
  double x[3], v[3], q;
};

// The squarest px x py x pz = P bricks (px >= py >= pz).
std::array<int, 3> brick_grid(int P) {
  std::array<int, 3> best{P, 1, 1};
  for (int pz = 1; pz <= P; ++pz)
    for (int py = pz; py <= P / pz; ++py)
      if (P % (pz * py) == 0 && P / (pz * py) >= py) {
        const std::array<int, 3> c{P / (pz * py), py, pz};
        if (c[0] - c[2] < best[0] - best[2]) best = c;
      }
  return best;
}

// Brick (i, j, k) of grid g for rank = i + px (j + py k), x fastest in memory.
Box3 brick(const std::array<std::int64_t, 3>& g, const std::array<int, 3>& p, int rank) {
  using nbfft::fft::split;
  return Box3::from(split(g[0], p[0], rank % p[0]), split(g[1], p[1], (rank / p[0]) % p[1]),
                    split(g[2], p[2], rank / (p[0] * p[1])));
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t N = argc > 1 ? std::atoll(argv[1]) : 32;
  const std::string transport = argc > 2 ? argv[2] : "blocking";
  nbfft::fft::Options o;
  o.effort = nbfft::fft::Effort::Estimate;
  try {
    o.transport(transport);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_particle_mesh: %s\n", e.what());
    return 2;
  }
  int provided = 0;  // the thread engine needs MPI_THREAD_MULTIPLE
  MPI_Init_thread(&argc, &argv, nbfft::fft::required_thread_level(o), &provided);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const double h = nbfft::fft::kTwoPi / static_cast<double>(N), dt = 0.01;
  const std::array<std::int64_t, 3> grid{N, N, N}, spectrum{N / 2 + 1, N, N};
  const auto bg = brick_grid(P);
  const Box3 mine = brick(grid, bg, rank), mine_k = brick(spectrum, bg, rank);

  // One particle per grid point of the brick, somewhere in the point's cell, carrying the
  // charge of the point: the deposit then makes rho = sin(x + 2y + 3z) on the grid.
  std::mt19937 gen(1234u + static_cast<unsigned>(rank));
  std::uniform_real_distribution<double> jitter(-0.4 * h, 0.4 * h);
  std::vector<Particle> particles;
  nbfft::fft::for_each_point(mine, [&](std::int64_t, std::int64_t x, std::int64_t y, std::int64_t z) {
    Particle p{{x * h + jitter(gen), y * h + jitter(gen), z * h + jitter(gen)}, {0, 0, 0}, 0};
    p.q = std::sin(x * h + 2 * y * h + 3 * z * h);
    particles.push_back(p);
  });

  nbfft::fft::Plan plan(MPI_COMM_WORLD, grid, mine, mine_k, o);
  // The grid point nearest to a particle, as an offset into the brick's array.
  auto cell = [&](const Particle& p) {
    std::int64_t i[3];
    for (int d = 0; d < 3; ++d) i[d] = static_cast<std::int64_t>(std::floor(p.x[d] / h + 0.5)) % N;
    return mine.index(i[0], i[1], i[2]);
  };

  // Deposit (nearest grid point).
  std::vector<double> rho(static_cast<std::size_t>(plan.in_count()), 0.0);
  for (const Particle& p : particles) rho[static_cast<std::size_t>(cell(p))] += p.q;

  // Solve on the spectrum bricks: phi_k = -rho_k / |k|^2, E_k = -i k phi_k (the Nyquist
  // wavenumber of an even N has no sign: its derivative is dropped).
  std::vector<std::complex<double>> rho_k(static_cast<std::size_t>(plan.out_count()));
  plan.forward(rho, rho_k);
  const auto k = nbfft::fft::wavenumbers(plan);
  const auto& lo = plan.out_box().lo;
  std::vector<std::vector<std::complex<double>>> Ek(3, std::vector<std::complex<double>>(rho_k.size()));
  nbfft::fft::for_each_point(plan.out_box(), [&](std::int64_t at, std::int64_t x, std::int64_t y, std::int64_t z) {
    const double kk[3] = {k[0][x - lo[0]], k[1][y - lo[1]], k[2][z - lo[2]]};
    const double k2 = kk[0] * kk[0] + kk[1] * kk[1] + kk[2] * kk[2];
    const std::complex<double> phi = k2 > 0 ? -rho_k[at] / k2 : 0.0;
    for (int d = 0; d < 3; ++d) {
      const double kd = 2 * std::abs(kk[d]) == static_cast<double>(N) ? 0.0 : kk[d];
      Ek[d][at] = std::complex<double>(0, -kd) * phi;
    }
  });
  std::vector<std::vector<double>> E(3, std::vector<double>(rho.size()));
  plan.backward_many(Ek, E);

  // Push, and check E at every particle against the exact field.
  double err = 0;
  for (Particle& p : particles) {
    const auto at = static_cast<std::size_t>(cell(p));
    std::int64_t i[3];
    for (int d = 0; d < 3; ++d) i[d] = static_cast<std::int64_t>(std::floor(p.x[d] / h + 0.5)) % N;
    const double c = std::cos((i[0] + 2 * i[1] + 3 * i[2]) * h) / 14;
    for (int d = 0; d < 3; ++d) {
      err = std::max(err, std::abs(E[d][at] - (d + 1) * c));
      p.v[d] += p.q * E[d][at] * dt;
      p.x[d] += p.v[d] * dt;
    }
  }
  double worst = 0;
  MPI_Allreduce(&err, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const bool ok = worst < 1e-10;
  if (rank == 0)
    std::printf("particle-mesh on %lld^3, %d ranks, bricks %dx%dx%d in and out (%s): max |E - exact| = %.1e %s\n",
                static_cast<long long>(N), P, bg[0], bg[1], bg[2], transport.c_str(), worst, ok ? "ok" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}
