/* Layouts through C (nbfft/nbfft_h5.h "Layouts"): an N-D r2c plan's input and transposed
 * spectrum (blocking and background writes), a transpose's Y pencils, a 3-D plan's input
 * and a user's 2-D complex block in column-major memory order, written at P ranks and read
 * back at every k <= P ranks through other layouts of the same arrays (the N-D spectrum in
 * natural order, the Z pencils, the 3-D plan's own nbfft_h5_read, the user array cut by
 * columns), element by element, bit for bit. Bad layouts (one rank's block outside the
 * shape, one rank's byte count, a NULL or destroyed handle, an unknown dtype) fail with
 * the same status on every rank, naming the problem. */
#include <nbfft/nbfft.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_h5_expect.h"

static const int64_t SHAPE[3] = {6, 5, 7};   /* (z, y, x), numpy order: uneven on 2-4 ranks */
static const int64_t XYZ[3] = {7, 5, 6};     /* the same grid as (nx, ny, nz) */
static const int64_t USER[2] = {9, 4};       /* the user's 2-D complex64 array */

/* Exactly representable values that name their global point. */
static double value(int ndim, const int64_t* g, int part) {
  double v = 0.5 * part, w = 1;
  int a;
  for (a = ndim - 1; a >= 0; --a, w *= 16) v += w * (double)g[a];
  return v;
}

/* Fills (or checks) a block: lo, n per axis (numpy order), order the axes in memory,
 * slowest first (NULL: C order), parts 1 (real) or 2 (complex), reals of real_bytes.
 * Returns the number of wrong elements. */
static long block_values(int ndim, const int64_t* lo, const int64_t* n, const int* order, int parts, int real_bytes,
                         void* data, int fill) {
  int64_t count = 1, m, g[8], idx[8];
  long wrong = 0;
  int a, k, p;
  for (a = 0; a < ndim; ++a) count *= n[a];
  for (m = 0; m < count; ++m) {
    int64_t rest = m;
    for (k = ndim - 1; k >= 0; --k) {
      a = order ? order[k] : k;
      idx[a] = rest % n[a];
      rest /= n[a];
    }
    for (a = 0; a < ndim; ++a) g[a] = lo[a] + idx[a];
    for (p = 0; p < parts; ++p) {
      const double want = value(ndim, g, p);
      if (real_bytes == 8) {
        double* d = (double*)data + m * parts + p;
        if (fill) *d = want;
        else if (memcmp(d, &want, 8) != 0) ++wrong;
      } else {
        const float w = (float)want;
        float* f = (float*)data + m * parts + p;
        if (fill) *f = w;
        else if (memcmp(f, &w, 4) != 0) ++wrong;
      }
    }
  }
  return wrong;
}

/* An N-D plan's block of a side and its memory order. */
static void nd_block(nbfft_nd_plan p, int spectrum, int64_t lo[3], int64_t n[3], int order[3]) {
  EXPECT(nbfft_nd_plan_box(p, spectrum ? NBFFT_LAYOUT_OUTPUT : NBFFT_LAYOUT_INPUT, lo, n), NBFFT_SUCCESS);
  if (spectrum) EXPECT(nbfft_nd_plan_out_order(p, order), NBFFT_SUCCESS);
  else order[0] = 0, order[1] = 1, order[2] = 2;
}

/* A pencil's block as (z, y, x): pencils are stored x fastest, then y, then z. */
static void pencil_block(nbfft_pencils p, nbfft_pencil which, int64_t lo[3], int64_t n[3]) {
  int64_t l[3], s[3];
  int a;
  EXPECT(nbfft_pencils_box(p, which, l, s), NBFFT_SUCCESS);
  for (a = 0; a < 3; ++a) lo[a] = l[2 - a], n[a] = s[2 - a];
}

/* A 3-D plan's input block as (z, y, x) and its memory order, slowest first. */
static void plan_block(nbfft_plan p, int64_t lo[3], int64_t n[3], int order[3]) {
  int64_t l[3], s[3];
  int o[3], a;
  EXPECT(nbfft_plan_box(p, NBFFT_LAYOUT_INPUT, l, s, o), NBFFT_SUCCESS); /* o[0]: the fastest of x, y, z */
  for (a = 0; a < 3; ++a) lo[a] = l[2 - a], n[a] = s[2 - a], order[a] = 2 - o[2 - a];
}

/* This rank's share [lo, lo + n) of `total` split over `parts` ranks. */
static void share(int64_t total, int parts, int r, int64_t* lo, int64_t* n) {
  *lo = total * r / parts;
  *n = total * (r + 1) / parts - *lo;
}

/* Writes `data` (a block of lo, n, order, filled here) through layout l as /<field>/<step>. */
static void* filled(nbfft_io_layout l, int ndim, const int64_t* lo, const int64_t* n, const int* order, int parts,
                    int real_bytes, size_t* bytes) {
  void* data;
  EXPECT(nbfft_io_layout_bytes(l, bytes), NBFFT_SUCCESS);
  data = malloc(*bytes + 16);
  block_values(ndim, lo, n, order, parts, real_bytes, data, 1);
  return data;
}

static void write_file(const char* path) {
  nbfft_h5file f = NULL;
  nbfft_nd_plan nd = NULL;
  nbfft_pencils pen = NULL;
  nbfft_plan p3 = NULL;
  nbfft_io_layout lu = NULL, lU = NULL, ly = NULL, l3 = NULL, lw = NULL, bad = NULL, gone = NULL;
  nbfft_request req = NULL;
  int64_t lo[3], n[3], wlo[2], wn[2];
  int order[3], wcols[2] = {1, 0};
  size_t ub, Ub, yb, b3, wb, in_b3 = 0;
  void *u, *U, *y, *u3, *w;
  nbfft_options o = NULL;

  EXPECT(nbfft_nd_plan_create(MPI_COMM_WORLD, 3, SHAPE, 3, NULL, "kind=r2c output_order=transposed", &nd),
         NBFFT_SUCCESS);
  EXPECT(nbfft_io_layout_of_nd_plan(nd, NBFFT_SPACE_PHYSICAL, &lu), NBFFT_SUCCESS);
  EXPECT(nbfft_io_layout_of_nd_plan(nd, NBFFT_SPACE_SPECTRAL, &lU), NBFFT_SUCCESS);
  nd_block(nd, 0, lo, n, order);
  u = filled(lu, 3, lo, n, order, 1, 8, &ub);
  nd_block(nd, 1, lo, n, order);
  U = filled(lU, 3, lo, n, order, 2, 8, &Ub);

  EXPECT(nbfft_pencils_create(MPI_COMM_WORLD, XYZ, 0, 0, NULL, &pen), NBFFT_SUCCESS);
  EXPECT(nbfft_io_layout_of_pencils(pen, NBFFT_PENCIL_Y, NBFFT_DTYPE_FLOAT64, &ly), NBFFT_SUCCESS);
  pencil_block(pen, NBFFT_PENCIL_Y, lo, n);
  y = filled(ly, 3, lo, n, NULL, 1, 8, &yb);

  EXPECT(nbfft_options_create(&o), NBFFT_SUCCESS);
  EXPECT(nbfft_plan_create(MPI_COMM_WORLD, XYZ, o, &p3), NBFFT_SUCCESS);
  nbfft_options_destroy(&o);
  EXPECT(nbfft_io_layout_of_plan(p3, NBFFT_SPACE_PHYSICAL, &l3), NBFFT_SUCCESS);
  plan_block(p3, lo, n, order);
  u3 = filled(l3, 3, lo, n, order, 1, 8, &b3);
  nbfft_plan_bytes(p3, &in_b3, NULL, NULL);
  CHECK(in_b3 == b3, "the 3-D plan's layout holds %zu bytes, the plan %zu", b3, in_b3);

  /* The user's array: rows shared over the ranks, each block stored column-major. */
  share(USER[0], size, rank, &wlo[0], &wn[0]);
  wlo[1] = 0, wn[1] = USER[1];
  EXPECT(nbfft_io_layout_create(2, USER, wlo, wn, wcols, NBFFT_DTYPE_COMPLEX64, &lw), NBFFT_SUCCESS);
  w = filled(lw, 2, wlo, wn, wcols, 2, 4, &wb);

  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_CREATE, NULL, &f), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_layout(f, lu, "u", 1, 0.5, u, ub), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_layout(f, lU, "U", 1, 0.5, U, Ub), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_start_layout(f, lU, "U", 2, 1.0, U, Ub, 1, &req), NBFFT_SUCCESS);
  EXPECT(nbfft_wait(&req), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_layout(f, ly, "py", 0, 0.0, y, yb), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_layout(f, l3, "u3", 0, 0.0, u3, b3), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_layout(f, lw, "w", 0, 0.0, w, wb), NBFFT_SUCCESS);

  /* Bad layouts and calls: the same status on every rank. */
  {
    int64_t blo[2] = {wlo[0], rank == size - 1 ? 1 : 0};
    EXPECT(nbfft_io_layout_create(2, USER, blo, wn, wcols, NBFFT_DTYPE_COMPLEX64, &bad), NBFFT_SUCCESS);
    EXPECT(nbfft_h5_write_layout(f, bad, "w", 1, 0.0, w, wb), NBFFT_INVALID_ARGUMENT);
    EXPECT_MSG("lies outside its shape (9, 4) along axis 1");
    EXPECT_MSG("nbfft_h5_write_layout");
    EXPECT(nbfft_h5_write_start_layout(f, bad, "w", 1, 0.0, w, wb, 0, &req), NBFFT_INVALID_ARGUMENT);
    EXPECT_MSG("lies outside its shape");
    CHECK(req == NULL, "a failed start leaves a request");
    EXPECT(nbfft_io_layout_destroy(&bad), NBFFT_SUCCESS);
  }
  EXPECT(nbfft_h5_write_layout(f, lu, "u", 3, 0.0, u, ub - (rank == 0 ? 8 : 0)), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("needs exactly");
  EXPECT(nbfft_h5_write_layout(f, NULL, "u", 3, 0.0, u, ub), NBFFT_INVALID_STATE);
  EXPECT_MSG("the layout is NULL");
  EXPECT(nbfft_io_layout_create(2, USER, wlo, wn, NULL, (nbfft_dtype)9, &gone), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("NBFFT_DTYPE_FLOAT64");
  EXPECT(nbfft_io_layout_create(0, USER, wlo, wn, NULL, NBFFT_DTYPE_FLOAT64, &gone), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("ndim is 0");
  EXPECT(nbfft_io_layout_of_pencils(pen, (nbfft_pencil)5, NBFFT_DTYPE_FLOAT64, &gone), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("pencil 5");
  EXPECT(nbfft_io_layout_create(2, USER, wlo, wn, NULL, NBFFT_DTYPE_FLOAT64, &gone), NBFFT_SUCCESS);
  bad = gone;
  EXPECT(nbfft_io_layout_destroy(&gone), NBFFT_SUCCESS);
  CHECK(gone == NULL, "destroy leaves the handle set");
  EXPECT(nbfft_h5_write_layout(f, bad, "u", 3, 0.0, u, ub), NBFFT_INVALID_STATE);
  EXPECT_MSG("not a live handle");
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);

  nbfft_io_layout_destroy(&lu), nbfft_io_layout_destroy(&lU), nbfft_io_layout_destroy(&ly);
  nbfft_io_layout_destroy(&l3), nbfft_io_layout_destroy(&lw);
  nbfft_nd_plan_destroy(&nd), nbfft_pencils_destroy(&pen), nbfft_plan_destroy(&p3);
  free(u), free(U), free(y), free(u3), free(w);
}

/* Reads `field`/`step` through layout l into a fresh block and counts its wrong elements. */
static long read_back(nbfft_h5file f, nbfft_io_layout l, const char* field, int64_t step, int ndim,
                      const int64_t* lo, const int64_t* n, const int* order, int parts, int real_bytes) {
  size_t bytes = 0;
  long wrong;
  void* data;
  EXPECT(nbfft_io_layout_bytes(l, &bytes), NBFFT_SUCCESS);
  data = calloc(1, bytes + 16);
  EXPECT(nbfft_h5_read_layout(f, l, field, step, data, bytes), NBFFT_SUCCESS);
  wrong = block_values(ndim, lo, n, order, parts, real_bytes, data, 0);
  free(data);
  return wrong;
}

static void read_file(MPI_Comm comm, const char* path) {
  int k = 0, r = 0;
  nbfft_h5file f = NULL;
  nbfft_nd_plan nd = NULL;
  nbfft_pencils pen = NULL;
  nbfft_plan p3 = NULL;
  nbfft_options o = NULL;
  nbfft_io_layout lu = NULL, lU = NULL, lz = NULL, lw = NULL, wrong_type = NULL;
  int64_t lo[3], n[3], wlo[2], wn[2];
  int order[3];
  size_t b3 = 0;
  void* u3;
  MPI_Comm_size(comm, &k);
  MPI_Comm_rank(comm, &r);
  EXPECT(nbfft_h5_open(comm, path, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_SUCCESS);

  EXPECT(nbfft_nd_plan_create(comm, 3, SHAPE, 3, NULL, "kind=r2c output_order=natural", &nd), NBFFT_SUCCESS);
  EXPECT(nbfft_io_layout_of_nd_plan(nd, NBFFT_SPACE_PHYSICAL, &lu), NBFFT_SUCCESS);
  EXPECT(nbfft_io_layout_of_nd_plan(nd, NBFFT_SPACE_SPECTRAL, &lU), NBFFT_SUCCESS);
  nd_block(nd, 0, lo, n, order);
  CHECK(read_back(f, lu, "u", 1, 3, lo, n, order, 1, 8) == 0, "the N-D input read back at %d ranks differs", k);
  nd_block(nd, 1, lo, n, order);
  CHECK(read_back(f, lU, "U", 1, 3, lo, n, order, 2, 8) == 0, "the N-D spectrum read back at %d ranks differs", k);
  CHECK(read_back(f, lU, "U", 2, 3, lo, n, order, 2, 8) == 0, "the background-written spectrum differs at %d", k);

  EXPECT(nbfft_pencils_create(comm, XYZ, 0, 0, NULL, &pen), NBFFT_SUCCESS);
  EXPECT(nbfft_io_layout_of_pencils(pen, NBFFT_PENCIL_Z, NBFFT_DTYPE_FLOAT64, &lz), NBFFT_SUCCESS);
  pencil_block(pen, NBFFT_PENCIL_Z, lo, n);
  CHECK(read_back(f, lz, "py", 0, 3, lo, n, NULL, 1, 8) == 0, "the Y pencils read as Z pencils at %d differ", k);
  EXPECT(nbfft_io_layout_of_pencils(pen, NBFFT_PENCIL_Z, NBFFT_DTYPE_FLOAT32, &wrong_type), NBFFT_SUCCESS);
  EXPECT(nbfft_io_layout_bytes(wrong_type, &b3), NBFFT_SUCCESS);
  u3 = malloc(b3 + 8);
  EXPECT(nbfft_h5_read_layout(f, wrong_type, "py", 0, u3, b3), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("holds float64, the layout holds float32");
  free(u3);

  /* The 3-D plan's field, read by the plan call itself. */
  EXPECT(nbfft_options_create(&o), NBFFT_SUCCESS);
  EXPECT(nbfft_plan_create(comm, XYZ, o, &p3), NBFFT_SUCCESS);
  nbfft_options_destroy(&o);
  nbfft_plan_bytes(p3, &b3, NULL, NULL);
  u3 = calloc(1, b3 + 8);
  EXPECT(nbfft_h5_read(f, p3, NBFFT_SPACE_PHYSICAL, "u3", 0, u3, b3), NBFFT_SUCCESS);
  plan_block(p3, lo, n, order);
  CHECK(block_values(3, lo, n, order, 1, 8, u3, 0) == 0, "the 3-D plan's field read at %d ranks differs", k);
  free(u3);

  /* The user's array cut by columns now, in C order. */
  wlo[0] = 0, wn[0] = USER[0];
  share(USER[1], k, r, &wlo[1], &wn[1]);
  EXPECT(nbfft_io_layout_create(2, USER, wlo, wn, NULL, NBFFT_DTYPE_COMPLEX64, &lw), NBFFT_SUCCESS);
  CHECK(read_back(f, lw, "w", 0, 2, wlo, wn, NULL, 2, 4) == 0, "the user's array read by columns at %d differs", k);

  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
  nbfft_io_layout_destroy(&lu), nbfft_io_layout_destroy(&lU), nbfft_io_layout_destroy(&lz);
  nbfft_io_layout_destroy(&lw), nbfft_io_layout_destroy(&wrong_type);
  nbfft_nd_plan_destroy(&nd), nbfft_pencils_destroy(&pen), nbfft_plan_destroy(&p3);
}

int main(int argc, char** argv) {
  char path[256];
  int available = -1, k, world_failures = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  snprintf(path, sizeof path, "%s/capi_h5_layout_np%d.h5", argc > 1 ? argv[1] : ".", size);
  EXPECT(nbfft_h5_available(&available), NBFFT_SUCCESS);
  if (available) {
    write_file(path);
    for (k = 1; k <= size; ++k) {
      MPI_Comm sub;
      MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
      if (sub != MPI_COMM_NULL) {
        read_file(sub, path);
        MPI_Comm_free(&sub);
      }
    }
  }
  MPI_Allreduce(&failures, &world_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("capi_h5_layout at %d ranks: %s\n", size, world_failures ? "FAILED" : "ok");
  MPI_Finalize();
  return world_failures ? 1 : 0;
}
