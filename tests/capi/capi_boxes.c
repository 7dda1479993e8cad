/* User boxes through the C API (nbfft_plan_create_boxes), each layout checked against a
 * plain serial DFT of the whole field computed here from pseudo-random data (every rank
 * generates the same global field and compares its own output box point by point):
 *   x-y bricks in (2x2x1 on 4 ranks; on 3 ranks y's 10 points split 4/3/3), z slabs of the
 *     spectrum out stored y fastest; one field, and three fields through
 *     nbfft_forward_many / nbfft_backward_many (the reshapes pipelined with the fields);
 *   z slabs in (9 = 3+2+2+2 on 4 ranks), x-y bricks of the spectrum out in the natural order;
 * the round trips, nbfft_plan_box/box_of answering the user's boxes, the natural output order
 * option, and overlapping boxes failing on every rank with a message naming both ranks.
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

static const int64_t n[3] = {12, 10, 9};

/* Part k of len points over m parts (the first len % m parts one longer). */
static void part(int64_t len, int64_t m, int64_t k, int64_t* lo, int64_t* count) {
  *count = len / m + (k < len % m ? 1 : 0);
  *lo = k * (len / m) + (k < len % m ? k : len % m);
}

/* Offset of (x, y, z) in a box (lo, n, order fastest first). */
static int64_t at(const int64_t lo[3], const int64_t bn[3], const int o[3], int64_t x, int64_t y, int64_t z) {
  const int64_t r[3] = {x - lo[0], y - lo[1], z - lo[2]};
  return r[o[0]] + bn[o[0]] * (r[o[1]] + bn[o[1]] * r[o[2]]);
}

/* Field f at global point (x, y, z): pseudo-random in [-1, 1), the same on every rank. */
static double value(int f, int64_t x, int64_t y, int64_t z) {
  uint64_t h = (uint64_t)(x + n[0] * (y + n[1] * z)) * 0x9E3779B97F4A7C15ull + (uint64_t)(f + 1) * 0xD1B54A32D192ED03ull;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return (double)(h >> 11) / 4503599627370496.0 - 1.0; /* 2^52 */
}

/* This rank's input box of field f. */
static void fill(int f, const int64_t lo[3], const int64_t bn[3], const int o[3], double* u) {
  int64_t x, y, z;
  for (z = lo[2]; z < lo[2] + bn[2]; ++z)
    for (y = lo[1]; y < lo[1] + bn[1]; ++y)
      for (x = lo[0]; x < lo[0] + bn[0]; ++x) u[at(lo, bn, o, x, y, z)] = value(f, x, y, z);
}

/* Largest |U - DFT(field f)| over this rank's output box (lo, bn, o): the plain serial
 * DFT sum over the whole grid for each of its points, divided by N. */
static double dft_error(int f, const int64_t lo[3], const int64_t bn[3], const int o[3], const double* U) {
  const double pi = 3.14159265358979323846;
  const int64_t N = n[0] * n[1] * n[2];
  double err = 0;
  int64_t kx, ky, kz, x, y, z;
  for (kz = lo[2]; kz < lo[2] + bn[2]; ++kz)
    for (ky = lo[1]; ky < lo[1] + bn[1]; ++ky)
      for (kx = lo[0]; kx < lo[0] + bn[0]; ++kx) {
        double re = 0, im = 0;
        const int64_t m = at(lo, bn, o, kx, ky, kz);
        for (z = 0; z < n[2]; ++z)
          for (y = 0; y < n[1]; ++y)
            for (x = 0; x < n[0]; ++x) {
              const double a = -2 * pi *
                               ((double)(kx * x % n[0]) / n[0] + (double)(ky * y % n[1]) / n[1] +
                                (double)(kz * z % n[2]) / n[2]);
              const double v = value(f, x, y, z);
              re += v * cos(a);
              im += v * sin(a);
            }
        if (fabs(U[2 * m] - re) / N > err) err = fabs(U[2 * m] - re) / N;
        if (fabs(U[2 * m + 1] - im) / N > err) err = fabs(U[2 * m + 1] - im) / N;
      }
  return err;
}

static double max_abs_diff(const double* a, const double* b, size_t count) {
  double d = 0;
  size_t k;
  for (k = 0; k < count; ++k)
    if (fabs(a[k] - b[k]) > d) d = fabs(a[k] - b[k]);
  return d;
}

/* One layout: a plan on (ilo, in_, iorder) in and (olo, on, oorder) out; forward of field 0
 * against the DFT and back; then `fields` fields through the many calls, each its own data. */
static void check_layout(const char* name, nbfft_options o, const int64_t ilo[3], const int64_t in_[3],
                         const int iorder[3], const int64_t olo[3], const int64_t on[3], const int oorder[3],
                         int fields) {
  nbfft_plan plan = NULL;
  size_t in_b = 0, out_b = 0;
  double *u[3], *v[3], *U[3];
  const void* cin[3];
  void* cout[3];
  void* back[3];
  char what[160];
  int f;
  snprintf(what, sizeof what, "%s: plan with boxes", name);
  CHECK(what, nbfft_plan_create_boxes(MPI_COMM_WORLD, n, ilo, in_, iorder, olo, on, oorder, o, &plan) == NBFFT_SUCCESS);
  if (!plan) return;
  nbfft_plan_bytes(plan, &in_b, &out_b, NULL);
  snprintf(what, sizeof what, "%s: in bytes", name);
  CHECK(what, in_b == (size_t)(in_[0] * in_[1] * in_[2]) * 8);
  for (f = 0; f < fields; ++f) {
    u[f] = calloc(in_b / 8 + 1, 8);
    v[f] = calloc(in_b / 8 + 1, 8);
    U[f] = calloc(out_b / 8 + 1, 8);
    fill(f, ilo, in_, iorder, u[f]);
    cin[f] = u[f];
    cout[f] = U[f];
    back[f] = v[f];
  }
  snprintf(what, sizeof what, "%s: forward", name);
  CHECK(what, nbfft_forward(plan, u[0], in_b, U[0], out_b) == NBFFT_SUCCESS);
  snprintf(what, sizeof what, "%s: spectrum against the serial DFT", name);
  CHECK(what, dft_error(0, olo, on, oorder, U[0]) < 1e-12);
  snprintf(what, sizeof what, "%s: backward", name);
  CHECK(what, nbfft_backward(plan, U[0], out_b, v[0], in_b) == NBFFT_SUCCESS);
  snprintf(what, sizeof what, "%s: round trip", name);
  CHECK(what, max_abs_diff(u[0], v[0], in_b / 8) < 1e-12);
  if (fields > 1) {
    memset(U[0], 0, out_b);
    memset(v[0], 0, in_b);
    snprintf(what, sizeof what, "%s: forward_many", name);
    CHECK(what, nbfft_forward_many(plan, (size_t)fields, cin, in_b, cout, out_b) == NBFFT_SUCCESS);
    for (f = 0; f < fields; ++f) {
      snprintf(what, sizeof what, "%s: field %d of forward_many against the serial DFT", name, f);
      CHECK(what, dft_error(f, olo, on, oorder, U[f]) < 1e-12);
    }
    snprintf(what, sizeof what, "%s: backward_many", name);
    CHECK(what, nbfft_backward_many(plan, (size_t)fields, (const void* const*)cout, out_b, back, in_b) == NBFFT_SUCCESS);
    for (f = 0; f < fields; ++f) {
      snprintf(what, sizeof what, "%s: field %d of backward_many", name, f);
      CHECK(what, max_abs_diff(u[f], v[f], in_b / 8) < 1e-12);
    }
  }
  for (f = 0; f < fields; ++f) {
    free(u[f]);
    free(v[f]);
    free(U[f]);
  }
  nbfft_plan_destroy(&plan);
}

int main(int argc, char** argv) {
  int64_t ilo[3], in_[3], olo[3], on[3], blo[3], bn[3];
  int iorder[3] = {0, 1, 2}, oorder[3] = {1, 0, 2}, natural[3] = {0, 1, 2}, border[3], size = 1, px, py, total = 0;
  nbfft_options o = NULL;
  nbfft_plan plan = NULL, bad = NULL, nat = NULL;
  nbfft_status st;
  int provided;

  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nbfft_options_create(&o);
  nbfft_options_set(o, "effort", "estimate");
  /* Bricks in: px x py over x, y (2x2 on 4 ranks, 1x3 on 3: y = 4+3+3); out: z slabs of the
   * 7x10x9 spectrum, stored y fastest. */
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
  nbfft_plan_destroy(&plan);
  check_layout("bricks in, z slabs out", o, ilo, in_, iorder, olo, on, oorder, 1);
  /* Three fields pipelined (two workspaces) on the caller engine, and on the thread engine. */
  nbfft_options_set(o, "fields_in_flight", "2");
  nbfft_options_set(o, "transport", "pairwise:1@caller");
  check_layout("bricks in, z slabs out, caller", o, ilo, in_, iorder, olo, on, oorder, 3);
  nbfft_options_set(o, "transport", "thread");
  check_layout("bricks in, z slabs out, thread", o, ilo, in_, iorder, olo, on, oorder, 3);
  nbfft_options_set(o, "transport", "blocking");
  nbfft_options_set(o, "fields_in_flight", "1");
  /* z slabs in (uneven: 9 over 4 = 3+2+2+2), x-y bricks of the spectrum out, natural order. */
  ilo[0] = 0;
  in_[0] = n[0];
  ilo[1] = 0;
  in_[1] = n[1];
  part(n[2], size, rank, &ilo[2], &in_[2]);
  part(n[0] / 2 + 1, px, rank % px, &olo[0], &on[0]);
  part(n[1], py, rank / px, &olo[1], &on[1]);
  olo[2] = 0;
  on[2] = n[2];
  check_layout("z slabs in, bricks out", o, ilo, in_, iorder, olo, on, natural, 3);

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

  nbfft_options_destroy(&o);
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failures\n", total ? "FAILED" : "passed", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
