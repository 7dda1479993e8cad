/* Bad input to N-D plans and pencil transposes through C, each answered on every rank:
 * shapes whose element counts overflow (NBFFT_INVALID_ARGUMENT naming the shape; a 3-D array
 * over all axes, which runs on the 3-D plan, alike), a shape no rank can allocate
 * (NBFFT_OUT_OF_MEMORY), a lean plan with user boxes transformed in place (bit for bit the
 * default plan on the same boxes, out of place refused; its in-place calls all failed on the
 * 3-D plan before), and transposes whose pencil is none on one rank (a hang before) or whose
 * element size overflows the pencils' bytes. Exit 0 when every rank passed. */
#include "nd_reference.h"

#include <string.h>

static int has(const char* words) { return strstr(nbfft_last_error(), words) != NULL; }

static void sizes(void) {
  const int64_t t40 = (int64_t)1 << 40, t31 = (int64_t)1 << 31;
  const int64_t square[2] = {t40, t40}, cube[3] = {t31, t31, 4}, tall[2] = {(int64_t)1 << 46, 2};
  const int one[1] = {1};
  nbfft_nd_plan p = NULL;
  CHECK("2^40 x 2^40: refused, naming the shape and the overflow",
        nbfft_nd_plan_create(MPI_COMM_WORLD, 2, square, 0, NULL, NULL, &p) == NBFFT_INVALID_ARGUMENT &&
            has("shape 1099511627776x1099511627776: 2^80 elements overflow a 64-bit count") && p == NULL);
  CHECK("3-D over all axes (the 3-D plan's case): nd's message",
        nbfft_nd_plan_create(MPI_COMM_WORLD, 3, cube, 0, NULL, NULL, &p) == NBFFT_INVALID_ARGUMENT &&
            has("shape 2147483648x2147483648x4: 2^64 elements overflow a 64-bit count"));
  CHECK("a shape beyond every rank's memory: out of memory",
        nbfft_nd_plan_create(MPI_COMM_WORLD, 2, tall, 1, one, "kind=c2c", &p) == NBFFT_OUT_OF_MEMORY &&
            has("cannot allocate") && p == NULL);
}

/* Rank r's slab of n points along an axis: [lo, lo + len). */
static void slab(int64_t n, int size, int64_t* lo, int64_t* len) {
  *lo = n * rank / size;
  *len = n * (rank + 1) / size - *lo;
}

/* 2-D (6, 10): nd's own steps; 3-D (6, 5, 8) over all axes: the 3-D plan's. The input in
 * slabs of axis 1, the spectrum in slabs of axis 0 (neither the plan's own blocks). */
static void lean_user_boxes(int size, int nd) {
  const int64_t shape[3] = {6, nd == 3 ? 5 : 10, nd == 3 ? 8 : 1};
  int64_t in_lo[3] = {0, 0, 0}, in_n[3], out_lo[3] = {0, 0, 0}, out_n[3];
  int64_t nin = 0, nout = 0, i, j, k, at;
  nbfft_nd_plan plain = NULL, lean = NULL;
  size_t inplace = 0, n_in, n_out;
  int is_lean = 0, d;
  double *u, *U, *v, *w, *other;
  char what[200];
  for (d = 0; d < 3; ++d) in_n[d] = out_n[d] = shape[d];
  out_n[nd - 1] = shape[nd - 1] / 2 + 1;
  slab(shape[1], size, &in_lo[1], &in_n[1]);
  slab(shape[0], size, &out_lo[0], &out_n[0]);
  if (nbfft_nd_plan_create_boxes(MPI_COMM_WORLD, nd, shape, 0, NULL, in_lo, in_n, out_lo, out_n, NULL, &plain) !=
          NBFFT_SUCCESS ||
      nbfft_nd_plan_create_boxes(MPI_COMM_WORLD, nd, shape, 0, NULL, in_lo, in_n, out_lo, out_n, "lean_workspace=true",
                                 &lean) != NBFFT_SUCCESS) {
    snprintf(what, sizeof what, "lean with user boxes (%d-D): create (%s)", nd, nbfft_last_error());
    CHECK(what, 0);
    return;
  }
  nbfft_nd_plan_counts(lean, &nin, &nout);
  nbfft_nd_plan_memory(lean, &inplace, NULL, &is_lean);
  n_in = (size_t)nin * 8, n_out = (size_t)nout * 16;
  u = nans(nin), U = nans(2 * nout), v = nans(nin);
  w = nans((int64_t)(inplace / 8) + 2), other = nans((int64_t)(inplace / 8) + 2);
  for (i = 0; i < in_n[0]; ++i)
    for (j = 0; j < in_n[1]; ++j)
      for (k = 0; k < in_n[2]; ++k) {
        at = (i * in_n[1] + j) * in_n[2] + k;
        u[at] = value(((in_lo[0] + i) * shape[1] + in_lo[1] + j) * shape[2] + k, 0);
      }
  CHECK("lean with user boxes: the plain plan's forward and backward",
        nbfft_nd_forward(plain, u, n_in, U, n_out) == NBFFT_SUCCESS &&
            nbfft_nd_backward(plain, U, n_out, v, n_in) == NBFFT_SUCCESS);
  snprintf(what, sizeof what, "lean with user boxes (%d-D): in place in an array of the larger box", nd);
  CHECK(what, inplace >= (n_in > n_out ? n_in : n_out));
  memcpy(w, u, n_in);
  snprintf(what, sizeof what, "lean with user boxes (%d-D): forward in place, bit for bit", nd);
  CHECK(what, nbfft_nd_forward(lean, w, inplace, w, inplace) == NBFFT_SUCCESS && memcmp(w, U, n_out) == 0);
  snprintf(what, sizeof what, "lean with user boxes (%d-D): backward in place, bit for bit", nd);
  CHECK(what, nbfft_nd_backward(lean, w, inplace, w, inplace) == NBFFT_SUCCESS && memcmp(w, v, n_in) == 0);
  if (is_lean) {
    snprintf(what, sizeof what, "lean with user boxes (%d-D): out of place refused", nd);
    CHECK(what, nbfft_nd_forward(lean, w, n_in, other, n_out) == NBFFT_INVALID_ARGUMENT &&
                    has("transforms in place only"));
  }
  free(u), free(U), free(v), free(w), free(other);
  nbfft_nd_plan_destroy(&plain);
  nbfft_nd_plan_destroy(&lean);
}

static void transposes(int size) {
  const int64_t n[3] = {6, 5, 4};
  nbfft_pencils p = NULL;
  nbfft_transpose t = NULL;
  double a[256], b[256];
  const nbfft_pencil bad_here = rank == 0 ? (nbfft_pencil)7 : NBFFT_PENCIL_X;
  if (nbfft_pencils_create(MPI_COMM_WORLD, n, 0, 0, NULL, &p) != NBFFT_SUCCESS) {
    CHECK("pencils: create", 0);
    return;
  }
  memset(a, 0, sizeof a);
  CHECK("a pencil that is none on rank 0 fails every rank",
        nbfft_transpose_run(p, bad_here, NBFFT_PENCIL_Y, a, sizeof a, b, sizeof b, 8) ==
            (size > 1 ? NBFFT_RANKS_DISAGREE : NBFFT_INVALID_ARGUMENT));
  CHECK("a pencil that is none: named",
        nbfft_transpose_run(p, NBFFT_PENCIL_X, (nbfft_pencil)9, a, sizeof a, b, sizeof b, 8) ==
                NBFFT_INVALID_ARGUMENT &&
            has("pencil 9 is not X (0), Y (1) or Z (2)"));
  CHECK("a split-phase start with a pencil that is none",
        nbfft_transpose_start(p, (nbfft_pencil)-3, NBFFT_PENCIL_Y, a, sizeof a, b, sizeof b, 8, &t) ==
                NBFFT_INVALID_ARGUMENT &&
            has("pencil -3") && t == NULL);
  CHECK("an element size whose pencils' bytes overflow",
        nbfft_transpose_run(p, NBFFT_PENCIL_Y, NBFFT_PENCIL_Z, a, sizeof a, b, sizeof b, SIZE_MAX) ==
                NBFFT_INVALID_ARGUMENT &&
            has("element size 18446744073709551615 bytes"));
  CHECK("a transpose in step afterwards",
        nbfft_transpose_run(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, a, sizeof a, b, sizeof b, 8) == NBFFT_SUCCESS);
  nbfft_pencils_destroy(&p);
}

int main(int argc, char** argv) {
  const int size = begin_test(&argc, &argv);
  sizes();
  lean_user_boxes(size, 2);
  lean_user_boxes(size, 3);
  transposes(size);
  return end_test("capi_nd_badinput");
}
