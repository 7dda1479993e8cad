/* Transform kinds through the C API: the "kinds" key, a real-to-real plan through the byte
 * calls (element types from nbfft_plan_elements, sizes from nbfft_plan_bytes), its round
 * trip, the forward of a DCT-II/DST-II eigenmode landing on its one coefficient, the
 * wavenumbers per kind, and the bad words and sizes failing on every rank with a message.
 * Exit code 0 when every rank passed every check. */
#include <nbfft/nbfft.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, failures = 0;

#define CHECK(what, cond)                                                                              \
  do {                                                                                                 \
    if (!(cond)) fprintf(stderr, "FAIL rank %d: %s (%s)\n", rank, what, nbfft_last_error()), ++failures; \
  } while (0)

int main(int argc, char** argv) {
  const double pi = 3.14159265358979323846;
  int64_t n[3] = {8, 6, 5}, lo[3], cnt[3], one[3] = {8, 6, 1};
  int order[3], cin = -1, cout = -1, rb = 0, total = 0;
  size_t in_b = 0, out_b = 0, k, m;
  int64_t x, y, z;
  double *u, *U, *v, err = 0, peak = 0, kz[8], kx[8], ky[8];
  nbfft_options o = NULL;
  nbfft_plan plan = NULL, bad = NULL;
  nbfft_status st;
  int provided;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  nbfft_options_create(&o);
  nbfft_options_set(o, "effort", "estimate");
  CHECK("set kinds", nbfft_options_set(o, "kinds", "dct2,dst2,REDFT10") == NBFFT_SUCCESS);
  CHECK("plan", nbfft_plan_create(MPI_COMM_WORLD, n, o, &plan) == NBFFT_SUCCESS);
  CHECK("elements", nbfft_plan_elements(plan, &cin, &cout, &rb) == NBFFT_SUCCESS);
  CHECK("real in, real out, doubles", cin == 0 && cout == 0 && rb == 8);
  nbfft_plan_bytes(plan, &in_b, &out_b, NULL);
  u = calloc(in_b / 8 + 1, 8);
  v = calloc(in_b / 8 + 1, 8);
  U = calloc(out_b / 8 + 1, 8);
  /* u = cos(2 x) sin(3 y) cos(z) on cell centres: DCT-II mode 2, DST-II mode 2, DCT-II mode 1. */
  nbfft_plan_box(plan, NBFFT_LAYOUT_INPUT, lo, cnt, order);
  m = 0;
  for (z = lo[2]; z < lo[2] + cnt[2]; ++z)
    for (y = lo[1]; y < lo[1] + cnt[1]; ++y)
      for (x = lo[0]; x < lo[0] + cnt[0]; ++x)
        u[m++] = cos(2 * pi * (x + 0.5) / n[0]) * sin(3 * pi * (y + 0.5) / n[1]) * cos(pi * (z + 0.5) / n[2]);
  CHECK("forward", nbfft_forward(plan, u, in_b, U, out_b) == NBFFT_SUCCESS);
  nbfft_plan_box(plan, NBFFT_LAYOUT_OUTPUT, lo, cnt, order); /* stored x, z, y */
  m = 0;
  for (y = lo[1]; y < lo[1] + cnt[1]; ++y)
    for (z = lo[2]; z < lo[2] + cnt[2]; ++z)
      for (x = lo[0]; x < lo[0] + cnt[0]; ++x, ++m) {
        /* FFTW's unnormalized coefficient of the mode: n for each axis (2n * 1/2). */
        const double want = (x == 2 && y == 2 && z == 1) ? (double)(n[0] * n[1] * n[2]) : 0.0;
        if (fabs(U[m] - want) > err) err = fabs(U[m] - want);
        if (fabs(U[m]) > peak) peak = fabs(U[m]);
      }
  CHECK("the eigenmode's one coefficient", err < 1e-10 * n[0] * n[1] * n[2]);
  CHECK("backward", nbfft_backward(plan, U, out_b, v, in_b) == NBFFT_SUCCESS);
  err = 0;
  for (k = 0; k < in_b / 8; ++k)
    if (fabs(u[k] - v[k]) > err) err = fabs(u[k] - v[k]);
  CHECK("round trip", err < 1e-12);
  CHECK("complex output bytes refused", nbfft_forward(plan, u, in_b, U, 2 * out_b) == NBFFT_INVALID_ARGUMENT &&
                                            strstr(nbfft_last_error(), "double in, double out"));
  CHECK("wavenumbers", nbfft_wavenumbers(plan, NULL, kx, ky, kz) == NBFFT_SUCCESS);
  for (k = 0; k < (size_t)cnt[2]; ++k) CHECK("dct2 wavenumber k pi/2pi", fabs(kz[k] - 0.5 * (double)k) < 1e-15);
  for (k = 0; k < (size_t)cnt[1]; ++k)
    CHECK("dst2 wavenumber (k+1) pi/2pi", fabs(ky[k] - 0.5 * (double)(lo[1] + (int64_t)k + 1)) < 1e-15);

  /* Bad words and sizes: an error naming the problem, on every rank. */
  CHECK("unknown kind", nbfft_options_set(o, "kinds", "dct2,dct9,dst1") == NBFFT_INVALID_ARGUMENT &&
                            strstr(nbfft_last_error(), "unknown transform kind 'dct9'"));
  /* Two kinds are an N-D plan's value (one per listed axis): the handle keeps them, a 3-D
   * plan made from it refuses them, naming why. */
  CHECK("two kinds", nbfft_options_set(o, "kinds", "dct2,dst1") == NBFFT_SUCCESS);
  st = nbfft_plan_create(MPI_COMM_WORLD, one, o, &bad);
  CHECK("two kinds on a 3-D plan", st == NBFFT_INVALID_ARGUMENT && bad == NULL && strstr(nbfft_last_error(), "kinds") &&
                                       strstr(nbfft_last_error(), "has 2 entries"));
  nbfft_options_set(o, "kinds", "periodic,periodic,dct1");
  nbfft_options_set(o, "proc_grid", "auto");
  st = nbfft_plan_create(MPI_COMM_WORLD, one, o, &bad);
  CHECK("dct1 on one point", st == NBFFT_INVALID_ARGUMENT && bad == NULL &&
                                 strstr(nbfft_last_error(), "dct1 (REDFT00) on z needs nz >= 2, got 1"));

  nbfft_plan_destroy(&plan);
  nbfft_options_destroy(&o);
  free(u);
  free(v);
  free(U);
  (void)peak;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("capi r2r: %s\n", total ? "FAILED" : "all checks passed");
  MPI_Finalize();
  return total ? 1 : 0;
}
