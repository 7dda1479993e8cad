/* nbfft_request, the one C handle of every split-phase operation:
 *   the 3-D plan's nbfft_forward_start / nbfft_backward_start against its blocking calls
 *     (three fields in flight at once, user work and nbfft_progress / nbfft_test between
 *     start and wait, forward waits in reverse order), r2c double on a caller engine and
 *     c2c single on the thread engine;
 *   an N-D plan's and a transpose's requests finished by the same nbfft_wait;
 *   the misuse: a wrong size on one rank fails every rank's start, a plan with a request
 *     open is not destroyed, a second wait and a NULL request are NBFFT_INVALID_STATE,
 *     nbfft_request_free finishes a transform unwaited.
 * Exit code 0 when every rank passed every check. */
#include <nbfft/nbfft.h>

#include <complex.h>
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

#define NF 3

static double value(int f, size_t i) { return sin(0.37 * (double)i + 1.3 * f) + 0.25 * cos(0.11 * (double)(i * i % 97)); }

/* Largest |a - b| over n reals relative to max |b|. */
static double rel_diff(const double* a, const double* b, size_t n) {
  double d = 0, m = 1e-300;
  size_t i;
  for (i = 0; i < n; ++i) {
    if (fabs(a[i] - b[i]) > d) d = fabs(a[i] - b[i]);
    if (fabs(b[i]) > m) m = fabs(b[i]);
  }
  return d / m;
}

/* Split phase equals blocking for NF fields; real_bytes 8 or 4, r2c or c2c. */
static void split_phase(const char* transform, const char* transport, const char* precision, double tol) {
  const int64_t n[3] = {9, 7, 10};
  nbfft_options o = NULL;
  nbfft_plan p = NULL;
  nbfft_request r[NF] = {NULL, NULL, NULL};
  size_t ib = 0, ob = 0, k, i;
  unsigned char *u[NF], *U[NF], *Uref[NF], *v[NF], *vref[NF];
  double busy = 0;
  int done = 0, f;
  CHECK("options", nbfft_options_create(&o) == NBFFT_SUCCESS);
  CHECK("transform", nbfft_options_set(o, "transform", transform) == NBFFT_SUCCESS);
  CHECK("transport", nbfft_options_set(o, "transport", transport) == NBFFT_SUCCESS);
  CHECK("precision", nbfft_options_set(o, "precision", precision) == NBFFT_SUCCESS);
  CHECK("effort", nbfft_options_set(o, "effort", "estimate") == NBFFT_SUCCESS);
  CHECK("plan", nbfft_plan_create(MPI_COMM_WORLD, n, o, &p) == NBFFT_SUCCESS);
  CHECK("bytes", nbfft_plan_bytes(p, &ib, &ob, NULL) == NBFFT_SUCCESS);
  for (f = 0; f < NF; ++f) {
    const int single = strcmp(precision, "single") == 0;
    u[f] = malloc(ib + 1), U[f] = malloc(ob + 1), Uref[f] = malloc(ob + 1), v[f] = malloc(ib + 1),
    vref[f] = malloc(ib + 1);
    for (i = 0; i < ib / (single ? 4 : 8); ++i) {
      if (single)
        ((float*)u[f])[i] = (float)value(f, i);
      else
        ((double*)u[f])[i] = value(f, i);
    }
    CHECK("blocking forward", nbfft_forward(p, u[f], ib, Uref[f], ob) == NBFFT_SUCCESS);
    CHECK("blocking backward", nbfft_backward(p, Uref[f], ob, vref[f], ib) == NBFFT_SUCCESS);
  }
  for (f = 0; f < NF; ++f) CHECK("forward_start", nbfft_forward_start(p, u[f], ib, U[f], ob, &r[f]) == NBFFT_SUCCESS);
  for (k = 0; k < 1000; ++k) busy += sin((double)k); /* the caller's own work */
  for (f = 0; f < NF; ++f) {
    CHECK("progress", nbfft_progress(r[f]) == NBFFT_SUCCESS);
    CHECK("test", nbfft_test(r[f], &done) == NBFFT_SUCCESS);
  }
  {
    nbfft_plan q = p;
    CHECK("a plan with requests open is not destroyed",
          nbfft_plan_destroy(&q) == NBFFT_INVALID_STATE && q == p && strstr(nbfft_last_error(), "nbfft_wait"));
  }
  for (f = NF - 1; f >= 0; --f) CHECK("forward wait (any order)", nbfft_wait(&r[f]) == NBFFT_SUCCESS && r[f] == NULL);
  CHECK("a second wait", nbfft_wait(&r[0]) == NBFFT_INVALID_STATE);
  for (f = 0; f < NF; ++f) CHECK("backward_start", nbfft_backward_start(p, U[f], ob, v[f], ib, &r[f]) == NBFFT_SUCCESS);
  for (f = 0; f < NF; ++f) CHECK("backward wait (start order)", nbfft_wait(&r[f]) == NBFFT_SUCCESS);
  for (f = 0; f < NF; ++f) {
    const int single = strcmp(precision, "single") == 0;
    size_t no = ob / (single ? 4 : 8), ni = ib / (single ? 4 : 8);
    double dU = 0, dv = 0;
    if (single) {
      double *a = malloc(sizeof(double) * (no + ni + 1) * 2), *b = a + no + ni + 1;
      for (i = 0; i < no; ++i) a[i] = ((float*)U[f])[i], b[i] = ((float*)Uref[f])[i];
      dU = rel_diff(a, b, no);
      for (i = 0; i < ni; ++i) a[i] = ((float*)v[f])[i], b[i] = ((float*)vref[f])[i];
      dv = rel_diff(a, b, ni);
      free(a);
    } else {
      dU = rel_diff((double*)U[f], (double*)Uref[f], no);
      dv = rel_diff((double*)v[f], (double*)vref[f], ni);
    }
    CHECK("split-phase forward equals blocking", dU <= tol);
    CHECK("split-phase backward equals blocking", dv <= tol);
  }
  /* Misuse: a wrong size on one rank fails every rank, and no request is made. */
  r[0] = (nbfft_request)1;
  CHECK("a wrong size on rank 0 fails every rank",
        nbfft_forward_start(p, u[0], rank == 0 ? ib - 1 : ib, U[0], ob, &r[0]) == NBFFT_INVALID_ARGUMENT &&
            r[0] == NULL && strstr(nbfft_last_error(), "in_bytes"));
  CHECK("a NULL request pointer fails every rank",
        nbfft_forward_start(p, u[0], ib, U[0], ob, rank == 0 ? NULL : &r[0]) == NBFFT_INVALID_ARGUMENT);
  CHECK("NULL request", nbfft_wait(NULL) == NBFFT_INVALID_ARGUMENT && nbfft_test(NULL, &done) == NBFFT_INVALID_STATE);
  /* Dropped unwaited: finished by nbfft_request_free (collective for backward, so here on every rank). */
  CHECK("start to drop", nbfft_backward_start(p, Uref[0], ob, v[0], ib, &r[0]) == NBFFT_SUCCESS);
  CHECK("request_free", nbfft_request_free(&r[0]) == NBFFT_SUCCESS && r[0] == NULL);
  CHECK("request_free NULL", nbfft_request_free(&r[0]) == NBFFT_SUCCESS);
  CHECK("dropped transform finished", rel_diff((double*)v[0], (double*)vref[0], ib / 8) <= tol ||
                                          strcmp(precision, "single") == 0);
  CHECK("destroy", nbfft_plan_destroy(&p) == NBFFT_SUCCESS && p == NULL);
  nbfft_options_destroy(&o);
  for (f = 0; f < NF; ++f) free(u[f]), free(U[f]), free(Uref[f]), free(v[f]), free(vref[f]);
  (void)busy;
}

/* An N-D plan's and a transpose's requests, finished by the same nbfft_wait. */
static void other_kinds(void) {
  const int64_t shape[2] = {6, 5}, n[3] = {4, 5, 6};
  const int axes[2] = {0, 1};
  nbfft_nd_plan nd = NULL;
  nbfft_pencils pc = NULL;
  nbfft_request r = NULL;
  int64_t nin = 0, nout = 0, xn[3], yn[3];
  double *a, *b, *c;
  double complex* s;
  size_t i;
  int done = 0;
  CHECK("nd plan", nbfft_nd_plan_create(MPI_COMM_WORLD, 2, shape, 2, axes, NULL, &nd) == NBFFT_SUCCESS);
  CHECK("nd counts", nbfft_nd_plan_counts(nd, &nin, &nout) == NBFFT_SUCCESS);
  a = calloc((size_t)nin + 1, sizeof(double));
  s = calloc((size_t)nout + 1, sizeof(double complex));
  CHECK("nd start", nbfft_nd_forward_start(nd, a, (size_t)nin * 8, s, (size_t)nout * 16, &r) == NBFFT_SUCCESS);
  CHECK("nd test", nbfft_test(r, &done) == NBFFT_SUCCESS);
  CHECK("nd wait through nbfft_wait", nbfft_wait(&r) == NBFFT_SUCCESS && r == NULL);
  CHECK("nd destroy", nbfft_nd_plan_destroy(&nd) == NBFFT_SUCCESS);
  CHECK("pencils", nbfft_pencils_create(MPI_COMM_WORLD, n, 0, 0, "blocking", &pc) == NBFFT_SUCCESS);
  CHECK("x box", nbfft_pencils_box(pc, NBFFT_PENCIL_X, NULL, xn) == NBFFT_SUCCESS);
  CHECK("y box", nbfft_pencils_box(pc, NBFFT_PENCIL_Y, NULL, yn) == NBFFT_SUCCESS);
  b = calloc((size_t)(xn[0] * xn[1] * xn[2]) + 1, sizeof(double));
  c = calloc((size_t)(yn[0] * yn[1] * yn[2]) + 1, sizeof(double));
  for (i = 0; i < (size_t)(xn[0] * xn[1] * xn[2]); ++i) b[i] = 1.0;
  CHECK("transpose start", nbfft_transpose_start(pc, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, b, (size_t)(xn[0] * xn[1] * xn[2]) * 8,
                                                 c, (size_t)(yn[0] * yn[1] * yn[2]) * 8, 8, &r) == NBFFT_SUCCESS);
  CHECK("transpose wait through nbfft_wait", nbfft_wait(&r) == NBFFT_SUCCESS && r == NULL);
  for (i = 0; i < (size_t)(yn[0] * yn[1] * yn[2]); ++i)
    if (c[i] != 1.0) {
      CHECK("transposed values", 0);
      break;
    }
  CHECK("pencils destroy", nbfft_pencils_destroy(&pc) == NBFFT_SUCCESS);
  free(a), free(s), free(b), free(c);
}

int main(int argc, char** argv) {
  int provided = 0, all = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  split_phase("r2c", "pairwise@caller", "double", 1e-12);
  split_phase("c2c", "pairwise@thread", "single", 1e-5);
  other_kinds();
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("capi_request: %s (%d failures)\n", all ? "FAILED" : "passed", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
