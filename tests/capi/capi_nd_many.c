/* Several fields and split-phase calls of N-D plans through C (nbfft_nd_forward_many /
 * _backward_many, nbfft_nd_forward_start / _backward_start, nbfft_nd_test, nbfft_nd_wait):
 * field k is (k + 1) times the test input, so its spectrum is (k + 1) times the serial DFT
 * of the whole array; each multi-field and split-phase result is checked against that and
 * bit for bit against the one-field call, and backward returns the input. 2-D, 3-D over two
 * axes on a non-blocking transport (exchanges really in flight), 4-D over three with a
 * transposed spectrum, 5-D with a batch axis, uneven shapes. Then the misuse, on every rank:
 * waiting twice (NULL, and a copy of the handle), destroying a plan with a transform not
 * waited for (refused, the plan still usable), ranks passing different field counts, a NULL
 * field, one rank's wrong size, a NULL pending pointer. Outputs start as NaN, so a call that
 * writes nothing fails. Exit 0 when every rank passed. */
#include "nd_reference.h"

#include <string.h>

#define NV 3

static void run_case(const char* name, int nd, const int64_t* shape, int na, const int* axes, const char* options) {
  nbfft_nd_plan p = NULL;
  nbfft_nd_pending pend[NV];
  int64_t ilo[MAXD], in_[MAXD], olo[MAXD], on[MAXD], nin = 0, nout = 0, i, bad;
  int cplx = 0, k, d, made = 0, made_axes[MAXD], order[MAXD], done = 0;
  double *G, *u[NV], *U[NV], *one[NV], *v[NV], scale = 1;
  const void* cin[NV];
  void* cout[NV];
  size_t bi, bo = 0;
  char what[200];
  if (nbfft_nd_plan_create(MPI_COMM_WORLD, nd, shape, na, axes, options, &p) != NBFFT_SUCCESS) {
    snprintf(what, sizeof what, "%s: create", name);
    CHECK(what, 0);
    return;
  }
  nbfft_nd_plan_elements(p, &cplx);
  nbfft_nd_plan_axes(p, &d, &made, made_axes);
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_INPUT, ilo, in_);
  nbfft_nd_plan_box(p, NBFFT_LAYOUT_OUTPUT, olo, on);
  nbfft_nd_plan_out_order(p, order);
  nbfft_nd_plan_counts(p, &nin, &nout);
  bi = (size_t)nin * (cplx ? 16 : 8), bo = (size_t)nout * 16;
  G = reference_spectrum(nd, shape, made, made_axes, cplx);
  for (i = 0; i < product(nd, shape) * 2; ++i) scale = fmax(scale, fabs(G[i]));
  for (k = 0; k < NV; ++k) {
    u[k] = nans(nin * 2), U[k] = nans(nout * 2), one[k] = nans(nout * 2), v[k] = nans(nin * 2);
    for (i = 0; i < nin; ++i) {
      const int64_t gi = global_index(nd, ilo, in_, shape, i);
      if (cplx)
        u[k][2 * i] = (k + 1) * value(gi, 0), u[k][2 * i + 1] = (k + 1) * value(gi, 1);
      else
        u[k][i] = (k + 1) * value(gi, 0);
    }
    cin[k] = u[k], cout[k] = U[k];
    CHECK(name, nbfft_nd_forward(p, u[k], bi, one[k], bo) == NBFFT_SUCCESS);
  }

  /* forward_many: every field its (k + 1) * DFT, and bit for bit the one-field result. */
  snprintf(what, sizeof what, "%s: forward_many", name);
  CHECK(what, nbfft_nd_forward_many(p, NV, cin, bi, cout, bo) == NBFFT_SUCCESS);
  for (k = 0, bad = 0; k < NV; ++k) {
    bad += mismatches(U[k], one[k], nout * 2, 0);
    for (i = 0; i < nout; ++i) {
      const int64_t gi = global_index_in(nd, olo, on, order, shape, i);
      bad += !(fabs(U[k][2 * i] - (k + 1) * G[2 * gi]) + fabs(U[k][2 * i + 1] - (k + 1) * G[2 * gi + 1]) <=
               1e-11 * (k + 1) * scale);
    }
  }
  snprintf(what, sizeof what, "%s: forward_many gives each field's DFT, as the one-field calls", name);
  CHECK(what, bad == 0);
  for (k = 0; k < NV; ++k) cin[k] = U[k], cout[k] = v[k];
  snprintf(what, sizeof what, "%s: backward_many returns every field", name);
  CHECK(what, nbfft_nd_backward_many(p, NV, cin, bo, cout, bi) == NBFFT_SUCCESS);
  for (k = 0, bad = 0; k < NV; ++k) bad += mismatches(v[k], u[k], nin * (cplx ? 2 : 1), 1e-12 * (k + 1));
  CHECK(what, bad == 0);

  /* Split phase: every field started, then tested and waited for in the same order. */
  for (k = 0; k < NV; ++k) {
    for (i = 0; i < nout * 2; ++i) U[k][i] = NAN;
    snprintf(what, sizeof what, "%s: forward_start field %d", name, k);
    CHECK(what, nbfft_nd_forward_start(p, u[k], bi, U[k], bo, &pend[k]) == NBFFT_SUCCESS && pend[k] != NULL);
  }
  for (k = 0; k < NV; ++k) {
    snprintf(what, sizeof what, "%s: test and wait field %d", name, k);
    CHECK(what, nbfft_nd_test(pend[k], &done) == NBFFT_SUCCESS && (done == 0 || done == 1));
    CHECK(what, nbfft_nd_wait(&pend[k]) == NBFFT_SUCCESS && pend[k] == NULL);
  }
  for (k = 0, bad = 0; k < NV; ++k) bad += mismatches(U[k], one[k], nout * 2, 0);
  snprintf(what, sizeof what, "%s: the split-phase spectra are the one-field calls'", name);
  CHECK(what, bad == 0);
  for (i = 0; i < nin * 2; ++i) v[0][i] = NAN;
  snprintf(what, sizeof what, "%s: backward_start and wait", name);
  CHECK(what, nbfft_nd_backward_start(p, U[0], bo, v[0], bi, &pend[0]) == NBFFT_SUCCESS &&
                  nbfft_nd_wait(&pend[0]) == NBFFT_SUCCESS);
  CHECK(what, mismatches(v[0], u[0], nin * (cplx ? 2 : 1), 1e-12) == 0);

  for (k = 0; k < NV; ++k) free(u[k]), free(U[k]), free(one[k]), free(v[k]);
  free(G);
  CHECK(name, nbfft_nd_plan_destroy(&p) == NBFFT_SUCCESS);
}

static void misuse(int size) {
  const int64_t n[3] = {5, 4, 6};
  const int axes[2] = {0, 2};
  nbfft_nd_plan p = NULL;
  nbfft_nd_pending pend = NULL, copy;
  int64_t nin = 0, nout = 0, i;
  double *u, *U, *U1;
  const void* cin[2];
  void* cout[2];
  size_t bi, bo;
  if (nbfft_nd_plan_create(MPI_COMM_WORLD, 3, n, 2, axes, "transport=pairwise:2@caller", &p) != NBFFT_SUCCESS) {
    CHECK("misuse: create", 0);
    return;
  }
  nbfft_nd_plan_counts(p, &nin, &nout);
  bi = (size_t)nin * 8, bo = (size_t)nout * 16;
  u = nans(nin + 1), U = nans(2 * nout + 2), U1 = nans(2 * nout + 2);
  for (i = 0; i < nin; ++i) u[i] = value(i + 7 * rank, 0);

  CHECK("start", nbfft_nd_forward_start(p, u, bi, U, bo, &pend) == NBFFT_SUCCESS);
  copy = pend;
  CHECK("destroying a plan with a transform not waited for is refused",
        nbfft_nd_plan_destroy(&p) == NBFFT_INVALID_STATE && p != NULL && strstr(nbfft_last_error(), "nbfft_nd_wait"));
  CHECK("the plan is still usable", nbfft_nd_forward(p, u, bi, U1, bo) == NBFFT_SUCCESS);
  CHECK("wait", nbfft_nd_wait(&pend) == NBFFT_SUCCESS && pend == NULL);
  CHECK("the started transform is the one-field call's", mismatches(U, U1, 2 * nout, 0) == 0);
  CHECK("waiting twice (the handle NULL)",
        nbfft_nd_wait(&pend) == NBFFT_INVALID_STATE && strstr(nbfft_last_error(), "already waited for"));
  CHECK("waiting twice (a copy of the handle)",
        nbfft_nd_wait(&copy) == NBFFT_INVALID_STATE && strstr(nbfft_last_error(), "not a live handle"));
  CHECK("testing a waited-for transform", nbfft_nd_test(copy, NULL) == NBFFT_INVALID_STATE);
  CHECK("a NULL pending pointer on the last rank fails every rank",
        nbfft_nd_forward_start(p, u, bi, U, bo, rank == size - 1 ? NULL : &pend) == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "the pending pointer is NULL") && pend == NULL);
  CHECK("a wrong size on rank 0 fails every rank",
        nbfft_nd_forward_start(p, u, bi + (rank == 0 ? 8 : 0), U, bo, &pend) == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "in_bytes") && pend == NULL);

  cin[0] = cin[1] = u, cout[0] = U, cout[1] = U1;
  if (size > 1)
    CHECK("ranks passing different field counts",
          nbfft_nd_forward_many(p, rank == 0 ? 1 : 2, cin, bi, cout, bo) == NBFFT_RANKS_DISAGREE);
  if (size > 1)
    CHECK("one rank passing no fields",
          nbfft_nd_forward_many(p, rank == 0 ? 0 : 2, rank == 0 ? NULL : cin, bi, cout, bo) == NBFFT_RANKS_DISAGREE);
  cout[1] = rank == size - 1 ? NULL : U1;
  CHECK("a NULL output field on the last rank",
        nbfft_nd_forward_many(p, 2, cin, bi, cout, bo) == NBFFT_INVALID_ARGUMENT && strstr(nbfft_last_error(), "null"));
  cout[1] = U;
  CHECK("two fields writing one array",
        nbfft_nd_forward_many(p, 2, cin, bi, cout, bo) == NBFFT_INVALID_ARGUMENT &&
            strstr(nbfft_last_error(), "the same array"));
  CHECK("a NULL list of fields", nbfft_nd_backward_many(p, 2, NULL, bo, cout, bi) == NBFFT_INVALID_ARGUMENT);
  CHECK("no fields is nothing to do", nbfft_nd_forward_many(p, 0, NULL, bi, NULL, bo) == NBFFT_SUCCESS);
  CHECK("destroy after the wait", nbfft_nd_plan_destroy(&p) == NBFFT_SUCCESS && p == NULL);
  CHECK("wait of NULL", nbfft_nd_wait(NULL) == NBFFT_INVALID_ARGUMENT);
  free(u), free(U), free(U1);
}

int main(int argc, char** argv) {
  const int size = begin_test(&argc, &argv);
  {
    const int64_t s2[2] = {7, 6}, s3[3] = {5, 4, 6}, s4[4] = {3, 5, 4, 6}, s5[5] = {2, 3, 4, 3, 5};
    const int a3[2] = {0, 2}, a4[3] = {1, 2, 3}, a5[2] = {1, 3};
    run_case("2-D r2c", 2, s2, 0, NULL, NULL);
    run_case("3-D c2c over (0, 2), pairwise", 3, s3, 2, a3, "kind=c2c transport=pairwise:2@caller fields_in_flight=2");
    run_case("4-D r2c over (1, 2, 3), transposed", 4, s4, 3, a4, "output_order=transposed transport=caller");
    run_case("5-D c2c over (1, 3), batch axis 0", 5, s5, 2, a5, "kind=c2c batch_axis=0 transport=pairwise:2@caller");
    misuse(size);
  }
  return end_test("capi_nd_many");
}
