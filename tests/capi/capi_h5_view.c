/* Planes, subsampled fields, the box-length and XDMF options and background writes through
 * the C API (nbfft/nbfft_h5.h). Planes and subsamples are read by a serial HDF5 reader on
 * rank 0 and checked point by point against the field, and read back by
 * nbfft_h5_read_plane / _read_subsampled (physical and spectral, on other decompositions)
 * into boxes of sentinels that must change at exactly their points; a file written by
 * nbfft_h5_write_start (copied and borrowed) reads back bit for bit like a blocking one;
 * bad input (a plane outside the grid, a zero stride, a bad axis, bad options, a closed
 * file, a second wait) fails with the same status on every rank.
 *
 *   test_capi_h5_view DIR           MPI_THREAD_MULTIPLE: everything
 *   test_capi_h5_view DIR --single  plain MPI_Init: background writes need no thread level
 *                                   (non-blocking MPI-IO, no I/O thread) */
#include <nbfft/nbfft.h>

#ifdef NBFFT_TEST_SERIAL_HDF5
#include <hdf5.h>
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_h5_expect.h"

static const int64_t N[3] = {8, 6, 5}; /* nx, ny, nz: uneven on 2-3 ranks */

/* Exactly representable values that name their global point. */
static double value(int64_t x, int64_t y, int64_t z) { return x + 16.0 * y + 256.0 * z; }

/* A regular cut of the grid: per axis x, y, z the points first + k step (k >= 0); step 0
 * is the point `first` alone (a plane's axis). */
typedef struct {
  int64_t first[3], step[3];
} cut_t;
static const cut_t whole = {{0, 0, 0}, {1, 1, 1}};
/* Below every value(): a point that no read has set. */
static const double SENTINEL = -1.0;

static int in_cut(const cut_t* c, const int64_t g[3]) {
  int a;
  for (a = 0; a < 3; ++a) {
    const int64_t off = g[a] - c->first[a];
    if (c->step[a] == 0 ? off != 0 : off < 0 || off % c->step[a] != 0) return 0;
  }
  return 1;
}

/* Fills (fill = 1) every point of this rank's box of a double r2c plan's layout (the input
 * real, the output complex: value - i value), or checks it: the points of `cut` must hold
 * their value + shift and every other point SENTINEL (both parts), bit for bit. Returns
 * the number of wrong elements. */
static long cut_values(nbfft_plan plan, nbfft_layout layout, double* data, int fill, double shift, const cut_t* cut) {
  const int parts = layout == NBFFT_LAYOUT_OUTPUT ? 2 : 1;
  int64_t lo[3], n[3], i[3], stride[3];
  int order[3], p;
  long wrong = 0;
  nbfft_plan_box(plan, layout, lo, n, order);
  stride[order[0]] = 1;
  stride[order[1]] = n[order[0]];
  stride[order[2]] = n[order[0]] * n[order[1]];
  for (i[2] = 0; i[2] < n[2]; ++i[2])
    for (i[1] = 0; i[1] < n[1]; ++i[1])
      for (i[0] = 0; i[0] < n[0]; ++i[0]) {
        const int64_t at = (i[0] * stride[0] + i[1] * stride[1] + i[2] * stride[2]) * parts;
        const int64_t g[3] = {lo[0] + i[0], lo[1] + i[1], lo[2] + i[2]};
        const double v = value(g[0], g[1], g[2]) + shift;
        const int set = fill || in_cut(cut, g);
        for (p = 0; p < parts; ++p) {
          const double want = !set ? SENTINEL : p ? -v : v;
          if (fill) data[at + p] = want;
          else if (memcmp(&data[at + p], &want, 8) != 0) ++wrong;
        }
      }
  return wrong;
}

/* Fills (fill = 1) or checks this rank's whole input box. */
static long box_values(nbfft_plan plan, double* data, int fill, double shift) {
  return cut_values(plan, NBFFT_LAYOUT_INPUT, data, fill, shift, &whole);
}

static void fill_sentinel(double* data, size_t bytes) {
  size_t k;
  for (k = 0; k < bytes / 8; ++k) data[k] = SENTINEL;
}

#ifdef NBFFT_TEST_SERIAL_HDF5
/* Dataset `name` of `path` as a serial reader sees it: (nz', ny', nx') points, point
 * (k, j, i) equal to value(x0 + i sx, y0 + j sy, z0 + k sz) + shift; first/step in x, y, z. */
static void serial_check(const char* path, const char* name, const int64_t first[3], const int64_t step[3],
                         const int64_t count[3], double shift) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t ds = file < 0 ? -1 : H5Dopen2(file, name, H5P_DEFAULT);
  hid_t sp = ds < 0 ? -1 : H5Dget_space(ds);
  hsize_t dims[3] = {0, 0, 0};
  double* all = malloc(sizeof(double) * (size_t)(N[0] * N[1] * N[2]));
  int64_t i, j, k;
  long wrong = 0;
  CHECK(sp >= 0, "cannot open %s in %s", name, path);
  if (sp < 0) {
    free(all);
    return;
  }
  H5Sget_simple_extent_dims(sp, dims, NULL);
  CHECK(dims[0] == (hsize_t)count[2] && dims[1] == (hsize_t)count[1] && dims[2] == (hsize_t)count[0],
        "%s: dims %llu %llu %llu, expected %lld %lld %lld", name, (unsigned long long)dims[0],
        (unsigned long long)dims[1], (unsigned long long)dims[2], (long long)count[2], (long long)count[1],
        (long long)count[0]);
  if (dims[0] * dims[1] * dims[2] <= (hsize_t)(N[0] * N[1] * N[2]) &&
      H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0) {
    for (k = 0; k < (int64_t)dims[0]; ++k)
      for (j = 0; j < (int64_t)dims[1]; ++j)
        for (i = 0; i < (int64_t)dims[2]; ++i) {
          const double v = value(first[0] + i * step[0], first[1] + j * step[1], first[2] + k * step[2]) + shift;
          if (all[(k * (int64_t)dims[1] + j) * (int64_t)dims[2] + i] != v) ++wrong;
        }
  } else {
    ++wrong;
  }
  CHECK(wrong == 0, "serial read of %s: %ld points differ from the field", name, wrong);
  free(all);
  H5Sclose(sp), H5Dclose(ds), H5Fclose(file);
}
#endif

/* A double r2c plan on comm with the process grid `grid` ("1x3"; NULL: nbfft's). */
static nbfft_plan make_plan_on(MPI_Comm comm, const char* grid) {
  nbfft_options o = NULL;
  nbfft_plan p = NULL;
  EXPECT(nbfft_options_create(&o), NBFFT_SUCCESS);
  if (grid) EXPECT(nbfft_options_set(o, "proc_grid", grid), NBFFT_SUCCESS);
  EXPECT(nbfft_plan_create(comm, N, o, &p), NBFFT_SUCCESS);
  nbfft_options_destroy(&o);
  return p;
}

static nbfft_plan make_plan(void) { return make_plan_on(MPI_COMM_WORLD, NULL); }

/* Planes and subsamples, the options, their bad input. */
static void views(const char* dir) {
  char path[256], xmf[300], buffer[300];
  nbfft_plan d = make_plan();
  nbfft_h5file f = NULL, copy;
  size_t in_b, needed = 0;
  double* u;
  double lengths[3] = {0, 0, 0};
  const int64_t stride[3] = {3, 2, 2}, zero[3] = {2, 0, 1};
  snprintf(path, sizeof path, "%s/capi_h5_view_np%d.h5", dir, size);
  snprintf(xmf, sizeof xmf, "%s/capi_h5_view_np%d.xmf", dir, size);
  nbfft_plan_bytes(d, &in_b, NULL, NULL);
  u = malloc(in_b + 8);
  box_values(d, u, 1, 0);

  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_CREATE, "box_lengths=1,2.5,3 xdmf=1", &f), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_box_lengths(f, lengths), NBFFT_SUCCESS);
  CHECK(lengths[0] == 1 && lengths[1] == 2.5 && lengths[2] == 3, "box lengths %g %g %g", lengths[0], lengths[1],
        lengths[2]);
  EXPECT(nbfft_h5_xdmf_path(f, buffer, sizeof buffer, &needed), NBFFT_SUCCESS);
  CHECK(strcmp(buffer, xmf) == 0 && needed == strlen(xmf) + 1, "xdmf path '%s', expected '%s'", buffer, xmf);
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "u", 0, 0.0, u, in_b), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, 0.0, NBFFT_AXIS_Z, 2, u, in_b), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_plane(f, d, NBFFT_SPACE_PHYSICAL, "ux7", 0, 0.0, NBFFT_AXIS_X, 7, u, in_b), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "us", 0, 0.0, stride, u, in_b), NBFFT_SUCCESS);
  /* Bad input, each on every rank (one rank's bad axis too) with the same status. */
  EXPECT(nbfft_h5_write_plane(f, d, NBFFT_SPACE_PHYSICAL, "bad", 0, 0.0, NBFFT_AXIS_Y, 6, u, in_b),
         NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("outside");
  EXPECT(nbfft_h5_write_plane(f, d, NBFFT_SPACE_PHYSICAL, "bad", 0, 0.0, NBFFT_AXIS_Y, -1, u, in_b),
         NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_h5_write_plane(f, d, NBFFT_SPACE_PHYSICAL, "bad", 0, 0.0, rank == 0 ? (nbfft_axis)7 : NBFFT_AXIS_Z, 0,
                              u, in_b),
         NBFFT_INVALID_ARGUMENT);
  if (rank == 0) EXPECT_MSG("NBFFT_AXIS_X");
  EXPECT(nbfft_h5_write_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "bad", 0, 0.0, zero, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("at least 1");
  EXPECT(nbfft_h5_write_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "bad", 0, 0.0, NULL, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("stride is NULL");
  EXPECT(nbfft_h5_write_plane(f, d, NBFFT_SPACE_PHYSICAL, "bad", 0, 0.0, NBFFT_AXIS_Z, 0, u, in_b - 8),
         NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("needs exactly");
  copy = f;
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write_plane(f, d, NBFFT_SPACE_PHYSICAL, "late", 0, 0.0, NBFFT_AXIS_Z, 0, u, in_b),
         NBFFT_INVALID_STATE);
  EXPECT(nbfft_h5_write_subsampled(copy, d, NBFFT_SPACE_PHYSICAL, "late", 0, 0.0, stride, u, in_b),
         NBFFT_INVALID_STATE);
  EXPECT_MSG("not a live handle");
  EXPECT(nbfft_h5_box_lengths(copy, lengths), NBFFT_INVALID_STATE);

#ifdef NBFFT_TEST_SERIAL_HDF5
  if (rank == 0) {
    const int64_t o[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    const int64_t zf[3] = {0, 0, 2}, zc[3] = {8, 6, 1}, xf[3] = {7, 0, 0}, xc[3] = {1, 6, 5}, sc[3] = {3, 3, 3};
    FILE* x = fopen(xmf, "r");
    CHECK(x != NULL, "no XDMF file %s beside the .h5", xmf);
    if (x) fclose(x);
    serial_check(path, "/u/0", o, one, N, 0);
    serial_check(path, "/uz2/0", zf, one, zc, 0);
    serial_check(path, "/ux7/0", xf, one, xc, 0);
    serial_check(path, "/us/0", o, stride, sc, 0);
  }
#endif

  /* Options wrong: the same status everywhere, naming the problem. */
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, "box_lengths=1,2", &f), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("Lx,Ly,Lz");
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, rank == 0 ? "box_lengths=1,-2,3" : NULL, &f),
         NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, "box_lengths=1,2,3,4", &f), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, "xdmf=yes", &f), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("neither 0 nor 1");
  /* Reading: the file's own lengths; no XDMF kept. */
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_box_lengths(f, lengths), NBFFT_SUCCESS);
  CHECK(lengths[0] == 1 && lengths[1] == 2.5 && lengths[2] == 3, "read box lengths %g %g %g", lengths[0], lengths[1],
        lengths[2]);
  EXPECT(nbfft_h5_xdmf_path(f, buffer, sizeof buffer, NULL), NBFFT_SUCCESS);
  CHECK(buffer[0] == '\0', "a file opened to read keeps the XDMF '%s'", buffer);
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
  /* xdmf=0: none beside the file. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) remove(path), remove(xmf);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_CREATE, "xdmf=0", &f), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_xdmf_path(f, buffer, sizeof buffer, NULL), NBFFT_SUCCESS);
  CHECK(buffer[0] == '\0', "xdmf=0 keeps '%s'", buffer);
  EXPECT(nbfft_h5_write_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, 0.0, NBFFT_AXIS_Z, 2, u, in_b), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
  if (rank == 0) {
    FILE* x = fopen(xmf, "r");
    CHECK(x == NULL, "xdmf=0 left %s", xmf);
    if (x) fclose(x);
    remove(path);
  }
  free(u);
  nbfft_plan_destroy(&d);
}

/* The planes and subsamples read_views writes and reads back: a plane has stride {0, 0, 0}. */
typedef struct {
  nbfft_space space;
  const char* name;
  nbfft_axis axis;
  int64_t index, stride[3];
} look_t;
static const look_t looks[] = {
    {NBFFT_SPACE_PHYSICAL, "uz2", NBFFT_AXIS_Z, 2, {0, 0, 0}}, {NBFFT_SPACE_PHYSICAL, "ux7", NBFFT_AXIS_X, 7, {0, 0, 0}},
    {NBFFT_SPACE_PHYSICAL, "uy5", NBFFT_AXIS_Y, 5, {0, 0, 0}}, {NBFFT_SPACE_PHYSICAL, "us", NBFFT_AXIS_X, 0, {3, 2, 2}},
    {NBFFT_SPACE_SPECTRAL, "Uy1", NBFFT_AXIS_Y, 1, {0, 0, 0}}, {NBFFT_SPACE_SPECTRAL, "Ux4", NBFFT_AXIS_X, 4, {0, 0, 0}},
    {NBFFT_SPACE_SPECTRAL, "Us", NBFFT_AXIS_X, 0, {2, 3, 2}},
};
enum { NLOOKS = sizeof looks / sizeof looks[0] };
/* No point at all: what a failed read must leave in a box of sentinels. */
static const cut_t nothing = {{-1, -1, -1}, {0, 0, 0}};

static cut_t cut_of(const look_t* l) {
  cut_t c = whole;
  int a;
  if (l->stride[0] == 0) { /* NBFFT_AXIS_X, _Y, _Z are 0, 1, 2: the index of x, y, z */
    c.first[l->axis] = l->index;
    c.step[l->axis] = 0;
  } else {
    for (a = 0; a < 3; ++a) c.step[a] = l->stride[a];
  }
  return c;
}

/* Reads each look back at the ranks of `comm` with the grid `grid` (NULL: nbfft's) into a
 * box of sentinels: exactly its points are set, to the values written. */
static void read_looks(MPI_Comm comm, const char* path, const char* grid) {
  nbfft_plan r = make_plan_on(comm, grid);
  nbfft_h5file f = NULL;
  size_t in_b, out_b;
  double *u, *U;
  int k;
  nbfft_plan_bytes(r, &in_b, &out_b, NULL);
  u = malloc(in_b + 8), U = malloc(out_b + 16);
  EXPECT(nbfft_h5_open(comm, path, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_SUCCESS);
  for (k = 0; k < NLOOKS; ++k) {
    const look_t* l = &looks[k];
    const int phys = l->space == NBFFT_SPACE_PHYSICAL;
    double* data = phys ? u : U;
    const size_t bytes = phys ? in_b : out_b;
    const cut_t c = cut_of(l);
    fill_sentinel(data, bytes);
    if (l->stride[0] == 0)
      EXPECT(nbfft_h5_read_plane(f, r, l->space, l->name, 0, l->axis, l->index, data, bytes), NBFFT_SUCCESS);
    else
      EXPECT(nbfft_h5_read_subsampled(f, r, l->space, l->name, 0, l->stride, data, bytes), NBFFT_SUCCESS);
    CHECK(cut_values(r, phys ? NBFFT_LAYOUT_INPUT : NBFFT_LAYOUT_OUTPUT, data, 0, 0, &c) == 0,
          "%s read back on grid %s: points of the cut wrong or points outside it set", l->name, grid ? grid : "nbfft's");
  }
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
  free(u), free(U);
  nbfft_plan_destroy(&r);
}

/* nbfft_h5_read_plane / _read_subsampled: what nbfft_h5_write_plane / _subsampled wrote at
 * P ranks, physical and spectral, read back at P ranks on nbfft's grid and on slabs both
 * ways and on rank 0 alone; bad input fails on every rank and leaves the buffer as it was. */
static void read_views(const char* dir) {
  char path[256];
  nbfft_plan d = make_plan();
  nbfft_h5file f = NULL;
  size_t in_b, out_b;
  double *u, *U;
  const int64_t zero[3] = {2, 0, 1}, other[3] = {3, 2, 1};
  int k;
  snprintf(path, sizeof path, "%s/capi_h5_read_np%d.h5", dir, size);
  nbfft_plan_bytes(d, &in_b, &out_b, NULL);
  u = malloc(in_b + 8), U = malloc(out_b + 16);
  cut_values(d, NBFFT_LAYOUT_INPUT, u, 1, 0, &whole);
  cut_values(d, NBFFT_LAYOUT_OUTPUT, U, 1, 0, &whole);
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_CREATE, "xdmf=0", &f), NBFFT_SUCCESS);
  for (k = 0; k < NLOOKS; ++k) {
    const look_t* l = &looks[k];
    const int phys = l->space == NBFFT_SPACE_PHYSICAL;
    if (l->stride[0] == 0)
      EXPECT(nbfft_h5_write_plane(f, d, l->space, l->name, 0, 0.0, l->axis, l->index, phys ? u : U,
                                  phys ? in_b : out_b),
             NBFFT_SUCCESS);
    else
      EXPECT(nbfft_h5_write_subsampled(f, d, l->space, l->name, 0, 0.0, l->stride, phys ? u : U, phys ? in_b : out_b),
             NBFFT_SUCCESS);
  }
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);

  read_looks(MPI_COMM_WORLD, path, NULL);
  if (size > 1) {
    char grid[32];
    MPI_Comm first;
    snprintf(grid, sizeof grid, "1x%d", size);
    read_looks(MPI_COMM_WORLD, path, grid);
    snprintf(grid, sizeof grid, "%dx1", size);
    read_looks(MPI_COMM_WORLD, path, grid);
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, rank, &first);
    if (first != MPI_COMM_NULL) {
      read_looks(first, path, NULL);
      MPI_Comm_free(&first);
    }
  }

  /* Reading wrong: the same status on every rank (one rank's mistake too), and the buffer
   * left as it was. */
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_SUCCESS);
  fill_sentinel(u, in_b);
  EXPECT(nbfft_h5_read_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, NBFFT_AXIS_Z, 2, u, in_b - 8),
         NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("needs exactly");
  EXPECT(nbfft_h5_read_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "us", 0, looks[3].stride, u,
                                  in_b - (rank == size - 1 ? 8 : 0)),
         NBFFT_INVALID_ARGUMENT); /* one rank one element short */
  EXPECT_MSG("[rank");
  EXPECT(nbfft_h5_read_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, NBFFT_AXIS_Z, 2, NULL, in_b),
         NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("data is NULL");
  EXPECT(nbfft_h5_read_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, rank == 0 ? (nbfft_axis)7 : NBFFT_AXIS_Z, 2, u,
                             in_b),
         NBFFT_INVALID_ARGUMENT);
  if (rank == 0) EXPECT_MSG("NBFFT_AXIS_X");
  EXPECT(nbfft_h5_read_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, NBFFT_AXIS_Z, 5, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("outside");
  EXPECT(nbfft_h5_read_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, NBFFT_AXIS_Z, 3, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("is the plane z = 2");
  EXPECT(nbfft_h5_read_plane(f, d, NBFFT_SPACE_SPECTRAL, "uz2", 0, NBFFT_AXIS_Z, 2, U, out_b),
         NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("asked for a spectral one");
  EXPECT(nbfft_h5_read_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "us", 0, NULL, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("stride is NULL");
  EXPECT(nbfft_h5_read_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "us", 0, zero, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("at least 1");
  EXPECT(nbfft_h5_read_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "us", 0, other, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("subsampled by 3,2,2");
  EXPECT(nbfft_h5_read_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, other, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("is the plane z = 2");
  EXPECT(nbfft_h5_read_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 1, NBFFT_AXIS_Z, 2, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("has no step 1");
  CHECK(cut_values(d, NBFFT_LAYOUT_INPUT, u, 0, 0, &nothing) == 0, "a failed read changed the buffer");
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_read_plane(f, d, NBFFT_SPACE_PHYSICAL, "uz2", 0, NBFFT_AXIS_Z, 2, u, in_b), NBFFT_INVALID_STATE);
  EXPECT(nbfft_h5_read_subsampled(f, d, NBFFT_SPACE_PHYSICAL, "us", 0, looks[3].stride, u, in_b),
         NBFFT_INVALID_STATE);
  EXPECT_MSG("the file is NULL");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) remove(path);
  free(u), free(U);
  nbfft_plan_destroy(&d);
}

/* Background writes: copied (the buffer scribbled at once) and borrowed, read back bit for
 * bit; the request's misuse. */
/* The --single run's files differ from the other run's: ctest -j runs them side by side. */
static const char* g_tag = "";

static void background(const char* dir) {
  char path[256];
  nbfft_plan d = make_plan();
  nbfft_h5file f = NULL;
  nbfft_h5request r1 = NULL, r2 = NULL, stale;
  size_t in_b;
  double *u, *v;
  int done = -1;
  snprintf(path, sizeof path, "%s/capi_h5_bg%s_np%d.h5", dir, g_tag, size);
  nbfft_plan_bytes(d, &in_b, NULL, NULL);
  u = malloc(in_b + 8), v = malloc(in_b + 8);
  box_values(d, u, 1, 0);
  box_values(d, v, 1, 1000);
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_CREATE, "xdmf=0", &f), NBFFT_SUCCESS);
  {
    EXPECT(nbfft_h5_write_start(f, d, NBFFT_SPACE_PHYSICAL, "u", 0, 0.5, u, in_b, 0, &r1), NBFFT_SUCCESS);
    box_values(d, u, 1, -7); /* copied: scribbling now changes nothing in the file */
    EXPECT(nbfft_h5_write_start(f, d, NBFFT_SPACE_PHYSICAL, "u", 1, 1.5, v, in_b, 1, &r2), NBFFT_SUCCESS);
    EXPECT(nbfft_h5_test(r1, &done), NBFFT_SUCCESS);
    CHECK(done == 0 || done == 1, "test gave %d", done);
    /* Another call on the file while writes are in flight: refused, saying why. */
    EXPECT(nbfft_h5_steps(f, "u", NULL, 0, NULL), NBFFT_INVALID_STATE);
    /* The ranks wait in different orders (the completion rule, nbfft/nbfft_h5.h): the first
     * wait settles both writes on every rank, the second returns at once. */
    if (rank % 2) {
      EXPECT(nbfft_h5_wait(r2), NBFFT_SUCCESS);
      EXPECT(nbfft_h5_wait(r1), NBFFT_SUCCESS);
    } else {
      EXPECT(nbfft_h5_wait(r1), NBFFT_SUCCESS);
      EXPECT(nbfft_h5_wait(r2), NBFFT_SUCCESS);
    }
    EXPECT(nbfft_h5_wait(r1), NBFFT_INVALID_STATE);
    EXPECT_MSG("already waited");
    EXPECT(nbfft_h5_test(r1, &done), NBFFT_INVALID_STATE);
    stale = r1;
    EXPECT(nbfft_h5_request_free(&r1), NBFFT_SUCCESS);
    CHECK(r1 == NULL, "free leaves the request");
    EXPECT(nbfft_h5_request_free(&r1), NBFFT_SUCCESS); /* NULL: nothing */
    EXPECT(nbfft_h5_wait(stale), NBFFT_INVALID_STATE);
    EXPECT_MSG("not a live handle");
    EXPECT(nbfft_h5_wait(NULL), NBFFT_INVALID_STATE);
    EXPECT(nbfft_h5_request_free(&r2), NBFFT_SUCCESS);
    /* A request freed unwaited completes this rank's part (free is local); the write is
     * settled by the next wait or the close. Its plan may be destroyed at once: the wait
     * needs nothing of it. */
    {
      nbfft_plan e = make_plan();
      EXPECT(nbfft_h5_write_start(f, e, NBFFT_SPACE_PHYSICAL, "u", 2, 2.5, v, in_b, 0, &r1), NBFFT_SUCCESS);
      nbfft_plan_destroy(&e);
    }
    EXPECT(nbfft_h5_request_free(&r1), NBFFT_SUCCESS);
    /* A step already in the file: refused at the start (the dataset is made there), on
     * every rank, and nothing starts. */
    EXPECT(nbfft_h5_write_start(f, d, NBFFT_SPACE_PHYSICAL, "u", 1, 1.5, v, in_b, 0, &r1), NBFFT_INVALID_ARGUMENT);
    EXPECT_MSG("already holds");
    CHECK(r1 == NULL, "a failed start leaves a request");
    /* Bad start arguments: nothing starts. */
    EXPECT(nbfft_h5_write_start(f, d, NBFFT_SPACE_PHYSICAL, "u", 3, 0.0, v, in_b - 8, 0, &r1),
           NBFFT_INVALID_ARGUMENT);
    CHECK(r1 == NULL, "a failed start leaves a request");
    EXPECT(nbfft_h5_write_start(f, d, NBFFT_SPACE_PHYSICAL, "u", 3, 0.0, v, in_b, 0, NULL), NBFFT_INVALID_ARGUMENT);
    EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
    /* Read back: what was started, bit for bit (the copy taken at start). */
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_SUCCESS);
    {
      size_t count = 0;
      double t = 0;
      EXPECT(nbfft_h5_steps(f, "u", NULL, 0, &count), NBFFT_SUCCESS);
      CHECK(count == 3, "u has %zu steps, expected 3", count);
      EXPECT(nbfft_h5_time(f, "u", 1, &t), NBFFT_SUCCESS);
      CHECK(t == 1.5, "u/1 at %g", t);
    }
    EXPECT(nbfft_h5_read(f, d, NBFFT_SPACE_PHYSICAL, "u", 0, u, in_b), NBFFT_SUCCESS);
    CHECK(box_values(d, u, 0, 0) == 0, "u/0 written in the background differs");
    EXPECT(nbfft_h5_read(f, d, NBFFT_SPACE_PHYSICAL, "u", 1, u, in_b), NBFFT_SUCCESS);
    CHECK(box_values(d, u, 0, 1000) == 0, "u/1 (borrowed) differs");
    EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
#ifdef NBFFT_TEST_SERIAL_HDF5
    if (rank == 0) {
      const int64_t o[3] = {0, 0, 0}, one[3] = {1, 1, 1};
      serial_check(path, "/u/0", o, one, N, 0);
      serial_check(path, "/u/2", o, one, N, 1000);
    }
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) remove(path);
  }
  free(u), free(v);
  nbfft_plan_destroy(&d);
}

int main(int argc, char** argv) {
  int available = 0, provided = 0, world_failures = 0;
  const int single = argc > 2 && strcmp(argv[2], "--single") == 0;
  const char* dir = argc > 1 ? argv[1] : ".";
  if (single) g_tag = "_single";
  if (single) MPI_Init(&argc, &argv), MPI_Query_thread(&provided);
  else MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT(nbfft_h5_available(&available), NBFFT_SUCCESS);
  if (available) {
    if (!single) {
      CHECK(provided == MPI_THREAD_MULTIPLE, "this MPI gives thread level %d", provided);
      views(dir);
      read_views(dir);
    }
    background(dir);
  }
  MPI_Allreduce(&failures, &world_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("capi_h5_view%s at %d ranks: %s (%d failures)\n", single ? " --single" : "", size,
           world_failures ? "FAILED" : "ok", world_failures);
  MPI_Finalize();
  return world_failures ? 1 : 0;
}
