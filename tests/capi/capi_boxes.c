/* User boxes through the C API (nbfft_plan_create_boxes): x-y bricks in, z slabs out
 * stored y fastest, an r2c forward whose two modes land on their coefficients, the round
 * trip, nbfft_plan_box/box_of answering the user's boxes, the natural output order option,
 * and overlapping boxes failing on every rank with a message naming both ranks.
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

/* Part k of n points over m parts (the first n % m parts one longer). */
static void part(int64_t n, int64_t m, int64_t k, int64_t* lo, int64_t* len) {
  *len = n / m + (k < n % m ? 1 : 0);
  *lo = k * (n / m) + (k < n % m ? k : n % m);
}

/* Offset of (x, y, z) in a box (lo, n, order fastest first). */
static int64_t at(const int64_t lo[3], const int64_t n[3], const int o[3], int64_t x, int64_t y, int64_t z) {
  const int64_t r[3] = {x - lo[0], y - lo[1], z - lo[2]};
  return r[o[0]] + n[o[0]] * (r[o[1]] + n[o[1]] * r[o[2]]);
}

int main(int argc, char** argv) {
  const double pi = 3.14159265358979323846;
  int64_t n[3] = {12, 10, 9}, ilo[3], in_[3], olo[3], on[3], blo[3], bn[3], x, y, z;
  int iorder[3] = {0, 1, 2}, oorder[3] = {1, 0, 2}, border[3], size = 1, px, py, total = 0;
  const int64_t N = 12 * 10 * 9;
  size_t in_b = 0, out_b = 0, k;
  double *u, *v, *U, err = 0, rt = 0;
  nbfft_options o = NULL;
  nbfft_plan plan = NULL, bad = NULL, nat = NULL;
  nbfft_status st;
  int provided;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nbfft_options_create(&o);
  nbfft_options_set(o, "effort", "estimate");
  /* Bricks in: px x py over x, y (2x2 on 4 ranks); out: z slabs of the 7x10x9 spectrum. */
  px = size % 2 == 0 ? 2 : 1;
  py = size / px;
  part(n[0], px, rank % px, &ilo[0], &in_[0]);
  part(n[1], py, rank / px, &ilo[1], &in_[1]);
  ilo[2] = 0;
  in_[2] = n[2];
  olo[0] = 0;
  on[0] = n[0] / 2 + 1;
  olo[1] = 0;
  on[1] = n[1];
  part(n[2], size, rank, &olo[2], &on[2]);
  CHECK("plan with boxes",
        nbfft_plan_create_boxes(MPI_COMM_WORLD, n, ilo, in_, iorder, olo, on, oorder, o, &plan) == NBFFT_SUCCESS);
  CHECK("in box", nbfft_plan_box(plan, NBFFT_LAYOUT_INPUT, blo, bn, border) == NBFFT_SUCCESS && blo[0] == ilo[0] &&
                      bn[1] == in_[1] && border[0] == 0);
  CHECK("out box", nbfft_plan_box(plan, NBFFT_LAYOUT_OUTPUT, blo, bn, border) == NBFFT_SUCCESS && blo[2] == olo[2] &&
                       bn[2] == on[2] && border[0] == 1 && border[1] == 0);
  CHECK("out box of the last rank",
        nbfft_plan_box_of(plan, NBFFT_LAYOUT_OUTPUT, size - 1, blo, bn, border) == NBFFT_SUCCESS &&
            blo[2] + bn[2] == n[2]);
  nbfft_plan_bytes(plan, &in_b, &out_b, NULL);
  CHECK("in bytes", in_b == (size_t)(in_[0] * in_[1] * in_[2]) * 8);
  u = calloc(in_b / 8 + 1, 8);
  v = calloc(in_b / 8 + 1, 8);
  U = calloc(out_b / 8 + 1, 8);
  /* u = cos(2 pi x / nx) + 2 sin(2 pi (2 y / ny + z / nz)). */
  for (z = ilo[2]; z < ilo[2] + in_[2]; ++z)
    for (y = ilo[1]; y < ilo[1] + in_[1]; ++y)
      for (x = ilo[0]; x < ilo[0] + in_[0]; ++x)
        u[at(ilo, in_, iorder, x, y, z)] =
            cos(2 * pi * x / n[0]) + 2 * sin(2 * pi * (2.0 * y / n[1] + (double)z / n[2]));
  CHECK("forward", nbfft_forward(plan, u, in_b, U, out_b) == NBFFT_SUCCESS);
  for (z = olo[2]; z < olo[2] + on[2]; ++z)
    for (y = olo[1]; y < olo[1] + on[1]; ++y)
      for (x = olo[0]; x < olo[0] + on[0]; ++x) {
        /* cos: N/2 at kx = 1; 2 sin: -i N at (0, 2, 1) and +i N at (0, ny-2, nz-1). */
        double re = 0, im = 0;
        const int64_t m = at(olo, on, oorder, x, y, z);
        if (x == 1 && y == 0 && z == 0) re = N / 2.0;
        if (x == 0 && y == 2 && z == 1) im = -(double)N;
        if (x == 0 && y == n[1] - 2 && z == n[2] - 1) im = (double)N;
        if (fabs(U[2 * m] - re) > err) err = fabs(U[2 * m] - re);
        if (fabs(U[2 * m + 1] - im) > err) err = fabs(U[2 * m + 1] - im);
      }
  CHECK("spectrum in the user's z slabs", err < 1e-9 * N);
  CHECK("backward", nbfft_backward(plan, U, out_b, v, in_b) == NBFFT_SUCCESS);
  for (k = 0; k < in_b / 8; ++k)
    if (fabs(u[k] - v[k]) > rt) rt = fabs(u[k] - v[k]);
  CHECK("round trip", rt < 1e-12);
  nbfft_plan_destroy(&plan);

  /* The natural order as an option: the output box says order {0, 1, 2}. */
  CHECK("set output_order", nbfft_options_set(o, "output_order", "natural") == NBFFT_SUCCESS);
  CHECK("natural plan", nbfft_plan_create(MPI_COMM_WORLD, n, o, &nat) == NBFFT_SUCCESS);
  CHECK("natural box", nbfft_plan_box(nat, NBFFT_LAYOUT_OUTPUT, blo, bn, border) == NBFFT_SUCCESS &&
                           border[0] == 0 && border[1] == 1 && border[2] == 2);
  nbfft_plan_destroy(&nat);
  nbfft_options_set(o, "output_order", "transposed");

  /* Every rank claims the whole input: overlap, an error on every rank naming ranks 0 and 1. */
  if (size > 1) {
    int64_t zero[3] = {0, 0, 0};
    st = nbfft_plan_create_boxes(MPI_COMM_WORLD, n, zero, n, NULL, NULL, NULL, NULL, o, &bad);
    CHECK("overlap fails", st == NBFFT_INVALID_ARGUMENT && bad == NULL);
    CHECK("overlap names the ranks", strstr(nbfft_last_error(), "in_box of ranks 0 and 1 overlap") != NULL);
  }
  /* lo without n: an error on every rank, before any plan is made. */
  st = nbfft_plan_create_boxes(MPI_COMM_WORLD, n, ilo, NULL, NULL, NULL, NULL, NULL, o, &bad);
  CHECK("half a box fails", st == NBFFT_INVALID_ARGUMENT && strstr(nbfft_last_error(), "give both lo and n") != NULL);

  free(u);
  free(v);
  free(U);
  nbfft_options_destroy(&o);
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failures\n", total ? "FAILED" : "passed", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
