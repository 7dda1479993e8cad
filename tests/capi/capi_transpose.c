/* The C pencil transposes: X->Y->Z->Y->X (and the slab X<->Z) on 10x7x5 with 24-byte
 * elements, blocking, start/test/wait and a batch, each checked against the global array;
 * a short array on one rank, a bad pencil and a stale handle fail with the right status. */
#include <nbfft/nbfft.h>

#include "capi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { E = 24 };

static unsigned char value(int64_t x, int64_t y, int64_t z, int b, int f) {
  return (unsigned char)(x * 31 + y * 17 + z * 7 + b * 3 + f * 101);
}

static unsigned char* cut(nbfft_pencils p, nbfft_pencil w, int f, size_t* bytes) {
  int64_t lo[3], n[3], x, y, z;
  int b;
  unsigned char* v;
  nbfft_pencils_box(p, w, lo, n);
  *bytes = (size_t)(n[0] * n[1] * n[2]) * E;
  v = (unsigned char*)malloc(*bytes + 1);
  for (z = 0; z < n[2]; ++z)
    for (y = 0; y < n[1]; ++y)
      for (x = 0; x < n[0]; ++x)
        for (b = 0; b < E; ++b) v[((z * n[1] + y) * n[0] + x) * E + b] = value(x + lo[0], y + lo[1], z + lo[2], b, f);
  return v;
}

static void check_pencil(nbfft_pencils p, nbfft_pencil w, const unsigned char* got, int f, const char* what) {
  size_t bytes;
  unsigned char* want = cut(p, w, f, &bytes);
  CHECK(memcmp(want, got, bytes) == 0, "%s: wrong data", what);
  free(want);
}

static void run(nbfft_pencils p, nbfft_pencil a, nbfft_pencil b) {
  size_t ib, ob;
  unsigned char* in = cut(p, a, 0, &ib);
  unsigned char* out = cut(p, b, 0, &ob);
  unsigned char* in2 = cut(p, a, 1, &ib);
  unsigned char* out2 = cut(p, b, 1, &ob);
  const void* ins[2];
  void* outs[2];
  nbfft_transpose t = NULL;
  int done = 0;
  memset(out, 0, ob);
  CHECK(nbfft_transpose_run(p, a, b, in, ib, out, ob, E) == NBFFT_SUCCESS, "%s", nbfft_last_error());
  check_pencil(p, b, out, 0, "blocking");
  memset(out, 0, ob);
  CHECK(nbfft_transpose_start(p, a, b, in, ib, out, ob, E, &t) == NBFFT_SUCCESS, "%s", nbfft_last_error());
  CHECK(nbfft_transpose_test(t, &done) == NBFFT_SUCCESS, "%s", nbfft_last_error());
  CHECK(nbfft_transpose_wait(&t) == NBFFT_SUCCESS && t == NULL, "%s", nbfft_last_error());
  check_pencil(p, b, out, 0, "start/wait");
  memset(out, 0, ob);
  memset(out2, 0, ob);
  ins[0] = in;
  ins[1] = in2;
  outs[0] = out;
  outs[1] = out2;
  CHECK(nbfft_transpose_many(p, a, b, 2, ins, ib, outs, ob, E) == NBFFT_SUCCESS, "%s", nbfft_last_error());
  check_pencil(p, b, out, 0, "batch field 0");
  check_pencil(p, b, out2, 1, "batch field 1");
  free(in);
  free(out);
  free(in2);
  free(out2);
}

int main(int argc, char** argv) {
  int rank, size, m1, m2, g;
  int64_t n[3] = {10, 7, 5};
  nbfft_pencils p = NULL, stale;
  nbfft_transpose t = NULL;
  size_t xb, yb;
  unsigned char *x, *y;
  nbfft_status st;
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (g = 1; g <= size; ++g) {
    if (size % g) continue;
    CHECK(nbfft_pencils_create(MPI_COMM_WORLD, n, g, size / g, g == 1 ? "thread" : "pairwise:2@caller", &p) ==
              NBFFT_SUCCESS, "%s", nbfft_last_error());
    nbfft_pencils_grid(p, &m1, &m2);
    CHECK(m1 == g && m2 == size / g, "grid %dx%d", m1, m2);
    run(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y);
    run(p, NBFFT_PENCIL_Y, NBFFT_PENCIL_Z);
    run(p, NBFFT_PENCIL_Z, NBFFT_PENCIL_Y);
    run(p, NBFFT_PENCIL_Y, NBFFT_PENCIL_X);
    if (m1 == 1 || m2 == 1) {
      run(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Z);
      run(p, NBFFT_PENCIL_Z, NBFFT_PENCIL_X);
    }
    CHECK(nbfft_pencils_destroy(&p) == NBFFT_SUCCESS && p == NULL, "%s", nbfft_last_error());
    /* The same pencils from an options handle (the one convention of every plan). */
    {
      nbfft_options o = NULL;
      char grid[64];
      snprintf(grid, sizeof grid, "proc_grid=%dx%d transport=%s", g, size / g, g == 1 ? "thread" : "pairwise:2@caller");
      nbfft_options_create(&o);
      CHECK(nbfft_options_parse(o, grid) == NBFFT_SUCCESS, "%s", nbfft_last_error());
      CHECK(nbfft_plan_create_pencils(MPI_COMM_WORLD, n, o, &p) == NBFFT_SUCCESS, "from a handle: %s",
            nbfft_last_error());
      nbfft_pencils_grid(p, &m1, &m2);
      CHECK(m1 == g && m2 == size / g, "from a handle: grid %dx%d", m1, m2);
      run(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y);
      run(p, NBFFT_PENCIL_Y, NBFFT_PENCIL_Z);
      nbfft_pencils_destroy(&p);
      /* A transform's key in the handle: every rank fails, naming it. */
      nbfft_options_set(o, "padding", "1.5");
      CHECK(nbfft_plan_create_pencils(MPI_COMM_WORLD, n, o, &p) == NBFFT_INVALID_ARGUMENT && p == NULL &&
                strstr(nbfft_last_error(), "padding"),
            "pencils with padding: %s", nbfft_last_error());
      nbfft_options_destroy(&o);
    }
  }
  /* Errors: every rank gets the status of the one short array. */
  nbfft_pencils_create(MPI_COMM_WORLD, n, 0, 0, NULL, &p);
  x = cut(p, NBFFT_PENCIL_X, 0, &xb);
  y = cut(p, NBFFT_PENCIL_Y, 0, &yb);
  st = nbfft_transpose_run(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, x, xb, y, rank == size - 1 ? yb - 1 : yb, E);
  CHECK(st == NBFFT_INVALID_ARGUMENT && strstr(nbfft_last_error(), "output array has"), "short: %d %s", (int)st,
        nbfft_last_error());
  st = nbfft_transpose_run(p, NBFFT_PENCIL_X, (nbfft_pencil)7, x, xb, y, yb, E);
  CHECK(st == NBFFT_INVALID_ARGUMENT && strstr(nbfft_last_error(), "pencil 7"), "bad pencil: %s", nbfft_last_error());
  st = nbfft_transpose_start(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, x, xb, y, yb, E, rank == size - 1 ? NULL : &t);
  CHECK(st == NBFFT_INVALID_ARGUMENT && t == NULL && strstr(nbfft_last_error(), "transpose pointer is NULL"),
        "null result: %s", nbfft_last_error());
  stale = p;
  nbfft_pencils_destroy(&p);
  st = nbfft_transpose_run(stale, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, x, xb, y, yb, E);
  CHECK(st == NBFFT_INVALID_STATE && strstr(nbfft_last_error(), "not a live handle"), "stale: %s", nbfft_last_error());
  free(x);
  free(y);
  {
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("capi_transpose: %s\n", all ? "FAILED" : "passed");
    MPI_Finalize();
    return all ? 1 : 0;
  }
}
