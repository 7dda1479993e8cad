/* nbfft from C alone: a known spectrum and a round trip on a 12x10x9 grid (see ../README.md).
 * Any nbfft error aborts every rank (MPI_Abort), so no rank waits forever on one that failed. */
#include <nbfft/nbfft.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    nbfft_status st_ = (call);                                                                   \
    if (st_ != NBFFT_SUCCESS) {                                                                  \
      fprintf(stderr, "%s: %s: %s\n", #call, nbfft_status_string(st_), nbfft_last_error());     \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                              \
    }                                                                                            \
  } while (0)

/* The offset of global point p in a box (lo, m, order), or -1 when the box does not hold it. */
static long offset(const int64_t p[3], const int64_t lo[3], const int64_t m[3], const int order[3]) {
  int d;
  int64_t r[3];
  for (d = 0; d < 3; ++d) {
    r[d] = p[d] - lo[d];
    if (r[d] < 0 || r[d] >= m[d]) return -1;
  }
  return (long)(r[order[0]] + m[order[0]] * (r[order[1]] + m[order[1]] * r[order[2]]));
}

int main(int argc, char** argv) {
  const int64_t n[3] = {12, 10, 9}, k0[3] = {0, 0, 0}, k1[3] = {1, 2, 8};
  const double pi = 3.14159265358979323846, N = 12 * 10 * 9;
  nbfft_options opts;
  nbfft_plan plan;
  int level, provided, rank, size, ok, order[3], oorder[3];
  int64_t lo[3], m[3], olo[3], om[3], in_n, out_n, i, x, y, z;
  /* summed over ranks: sum |F|^2, holders of k0, error there, holders of k1, error there */
  double *u, *v, *uh, sums[5] = {0, 0, 0, 0, 0}, energy, roundtrip = 0;
  long at;

  CHECK(nbfft_options_create(&opts));
  CHECK(nbfft_options_set(opts, "norm", "backward")); /* forward unscaled, backward by 1/N */
  CHECK(nbfft_required_thread_level(opts, &level));
  MPI_Init_thread(&argc, &argv, level, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(nbfft_plan_create(MPI_COMM_WORLD, n, opts, &plan));
  CHECK(nbfft_plan_box(plan, NBFFT_LAYOUT_INPUT, lo, m, order));
  CHECK(nbfft_plan_box(plan, NBFFT_LAYOUT_OUTPUT, olo, om, oorder));
  CHECK(nbfft_plan_counts(plan, &in_n, &out_n));
  u = malloc(sizeof(double) * (size_t)(in_n + 1));
  v = malloc(sizeof(double) * (size_t)(in_n + 1));
  uh = malloc(2 * sizeof(double) * (size_t)(out_n + 1));
  if (!u || !v || !uh) MPI_Abort(MPI_COMM_WORLD, 2);

  for (z = 0; z < m[2]; ++z) /* the input box is x fastest, then y, then z */
    for (y = 0; y < m[1]; ++y)
      for (x = 0; x < m[0]; ++x)
        u[x + m[0] * (y + m[1] * z)] =
            3 + cos(2 * pi * ((double)(lo[0] + x) / n[0] + 2.0 * (lo[1] + y) / n[1] - (double)(lo[2] + z) / n[2]));
  CHECK(nbfft_forward(plan, u, sizeof(double) * (size_t)in_n, uh, 2 * sizeof(double) * (size_t)out_n));
  for (i = 0; i < out_n; ++i) sums[0] += uh[2 * i] * uh[2 * i] + uh[2 * i + 1] * uh[2 * i + 1];
  if ((at = offset(k0, olo, om, oorder)) >= 0) sums[1] = 1, sums[2] = fabs(uh[2 * at] - 3 * N) + fabs(uh[2 * at + 1]);
  if ((at = offset(k1, olo, om, oorder)) >= 0) sums[3] = 1, sums[4] = fabs(uh[2 * at] - N / 2) + fabs(uh[2 * at + 1]);
  CHECK(nbfft_backward(plan, uh, 2 * sizeof(double) * (size_t)out_n, v, sizeof(double) * (size_t)in_n));
  for (i = 0; i < in_n; ++i) roundtrip = fmax(roundtrip, fabs(v[i] - u[i]));
  MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &roundtrip, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  energy = fabs(sums[0] / (N * N) - 9.25);
  ok = energy < 1e-12 && sums[1] == 1 && sums[2] < 1e-9 && sums[3] == 1 && sums[4] < 1e-9 && roundtrip < 1e-12;
  if (rank == 0)
    printf("roundtrip (C), %d ranks: sum |F|^2 error %.2g, F(0,0,0) error %.2g, F(1,2,8) error %.2g, round trip %.2g: %s\n",
           size, energy, sums[2], sums[4], roundtrip, ok ? "ok" : "WRONG");
  free(u), free(v), free(uh);
  CHECK(nbfft_plan_destroy(&plan));
  CHECK(nbfft_options_destroy(&opts));
  MPI_Finalize();
  return ok ? 0 : 1;
}
