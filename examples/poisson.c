/* Spectral Poisson solve with nbfft's C API: -lap u = f on the periodic box [0, 2pi)^3.
 *
 * f is built from sin/cos products whose exact solution u is known; u = IFFT(FFT(f) / |k|^2)
 * (the k = 0 mode, the mean, set to 0). Prints the largest error against the exact u and
 * exits non-zero when it exceeds 1e-10. Usage: mpiexec -n P poisson_c [transport [M1xM2]]
 */
#include <nbfft/nbfft.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    nbfft_status st_ = (call);                                                                 \
    if (st_ != NBFFT_SUCCESS) {                                                                \
      fprintf(stderr, "%s: %s: %s\n", #call, nbfft_status_string(st_), nbfft_last_error());   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                            \
    }                                                                                          \
  } while (0)

static double exact(double x, double y, double z) { return sin(x) * cos(2 * y) * sin(3 * z) + cos(3 * x) * sin(y); }
static double source(double x, double y, double z) {
  return 14 * sin(x) * cos(2 * y) * sin(3 * z) + 10 * cos(3 * x) * sin(y);
}

int main(int argc, char** argv) {
  const int64_t n[3] = {24, 20, 18};
  const double pi = 3.14159265358979323846;
  const char* transport = argc > 1 ? argv[1] : "blocking";
  nbfft_options opts;
  nbfft_plan plan;
  int level, provided, rank, size, m1, m2, d;
  int64_t lo[3], m[3], olo[3], om[3], p[3], a, b, c;
  int order[3], oorder[3];
  size_t in_bytes, out_bytes, at;
  double *u, *uh, *k[3], err = 0, maxerr;

  CHECK(nbfft_options_create(&opts));
  CHECK(nbfft_options_set(opts, "norm", "backward")); /* backward scaled by 1/N (the default) */
  CHECK(nbfft_options_set(opts, "effort", "estimate"));
  CHECK(nbfft_options_set(opts, "transport", transport));
  if (argc > 2) CHECK(nbfft_options_set(opts, "proc_grid", argv[2]));
  CHECK(nbfft_required_thread_level(opts, &level));
  MPI_Init_thread(&argc, &argv, level, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CHECK(nbfft_plan_create(MPI_COMM_WORLD, n, opts, &plan));
  CHECK(nbfft_plan_grid(plan, NULL, &m1, &m2));
  CHECK(nbfft_plan_box(plan, NBFFT_LAYOUT_INPUT, lo, m, order));
  CHECK(nbfft_plan_box(plan, NBFFT_LAYOUT_OUTPUT, olo, om, oorder));
  CHECK(nbfft_plan_bytes(plan, &in_bytes, &out_bytes, NULL));
  u = malloc(in_bytes + 1);
  uh = malloc(out_bytes + 1);
  for (d = 0; d < 3; ++d) k[d] = malloc(sizeof(double) * (size_t)om[d] + 1);

  /* f on this rank's input box, visited in memory order (order[0] fastest). */
  at = 0;
  for (c = 0; c < m[order[2]]; ++c)
    for (b = 0; b < m[order[1]]; ++b)
      for (a = 0; a < m[order[0]]; ++a, ++at) {
        p[order[0]] = lo[order[0]] + a, p[order[1]] = lo[order[1]] + b, p[order[2]] = lo[order[2]] + c;
        u[at] = source(2 * pi * p[0] / n[0], 2 * pi * p[1] / n[1], 2 * pi * p[2] / n[2]);
      }
  CHECK(nbfft_forward(plan, u, in_bytes, uh, out_bytes));

  /* Divide each coefficient (interleaved re, im) by |k|^2 on the output box. */
  CHECK(nbfft_wavenumbers(plan, NULL, k[0], k[1], k[2]));
  at = 0;
  for (c = 0; c < om[oorder[2]]; ++c)
    for (b = 0; b < om[oorder[1]]; ++b)
      for (a = 0; a < om[oorder[0]]; ++a, ++at) {
        double k2;
        p[oorder[0]] = a, p[oorder[1]] = b, p[oorder[2]] = c; /* offsets inside the box */
        k2 = k[0][p[0]] * k[0][p[0]] + k[1][p[1]] * k[1][p[1]] + k[2][p[2]] * k[2][p[2]];
        uh[2 * at] = k2 > 0 ? uh[2 * at] / k2 : 0;
        uh[2 * at + 1] = k2 > 0 ? uh[2 * at + 1] / k2 : 0;
      }
  CHECK(nbfft_backward(plan, uh, out_bytes, u, in_bytes));

  at = 0;
  for (c = 0; c < m[order[2]]; ++c)
    for (b = 0; b < m[order[1]]; ++b)
      for (a = 0; a < m[order[0]]; ++a, ++at) {
        double e;
        p[order[0]] = lo[order[0]] + a, p[order[1]] = lo[order[1]] + b, p[order[2]] = lo[order[2]] + c;
        e = fabs(u[at] - exact(2 * pi * p[0] / n[0], 2 * pi * p[1] / n[1], 2 * pi * p[2] / n[2]));
        if (e > err) err = e;
      }
  MPI_Allreduce(&err, &maxerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("poisson (C): %dx%dx%d grid on %d ranks (%dx%d), transport %s: max error %.3g\n", (int)n[0], (int)n[1],
           (int)n[2], size, m1, m2, transport, maxerr);

  for (d = 0; d < 3; ++d) free(k[d]);
  free(u);
  free(uh);
  CHECK(nbfft_plan_destroy(&plan));
  CHECK(nbfft_options_destroy(&opts));
  MPI_Finalize();
  return maxerr < 1e-10 ? 0 : 1;
}
