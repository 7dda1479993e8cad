/* Fields to disk and back through the C API (nbfft/nbfft_h5.h). Written at P ranks (the
 * physical field r2c double, its spectrum, a single-precision c2c field), read back at
 * every k <= P ranks on slabs and on pencils, bit for bit; the file's global arrays checked
 * in natural order (z, y, x) by a serial HDF5 read on rank 0; the queries; bad input from
 * C (byte counts, one rank wrong, handles, modes, options) with the same status on every
 * rank. A build without parallel HDF5 checks the Unavailable answer instead. */
#include <nbfft/nbfft.h>

#ifdef NBFFT_TEST_SERIAL_HDF5
#include <hdf5.h>
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_h5_expect.h"

static const int64_t N[3] = {8, 6, 5}; /* nx, ny, nz: uneven on 2-4 ranks */

/* Exactly representable values that name their global point: bit-identical comparisons. */
static double value(int64_t x, int64_t y, int64_t z, int part) { return x + 16.0 * y + 256.0 * z + 0.5 * part; }

/* Fills (or checks) a rank's box of a layout: real (1 part) or complex (2 parts) of
 * `real_bytes`; returns the number of wrong elements. */
static long box_values(nbfft_plan plan, nbfft_layout layout, void* data, int parts, int real_bytes, int fill,
                       double shift) {
  int64_t lo[3], n[3], i[3], stride[3];
  int order[3], d, p;
  long wrong = 0;
  nbfft_plan_box(plan, layout, lo, n, order);
  stride[order[0]] = 1;
  stride[order[1]] = n[order[0]];
  stride[order[2]] = n[order[0]] * n[order[1]];
  for (i[2] = 0; i[2] < n[2]; ++i[2])
    for (i[1] = 0; i[1] < n[1]; ++i[1])
      for (i[0] = 0; i[0] < n[0]; ++i[0]) {
        int64_t at = 0;
        for (d = 0; d < 3; ++d) at += i[d] * stride[d];
        for (p = 0; p < parts; ++p) {
          const double want = value(lo[0] + i[0], lo[1] + i[1], lo[2] + i[2], p) + shift;
          const int64_t k = at * parts + p;
          if (real_bytes == 8) {
            if (fill) ((double*)data)[k] = want;
            else if (memcmp(&((double*)data)[k], &want, 8) != 0) ++wrong;
          } else {
            const float w = (float)want;
            if (fill) ((float*)data)[k] = w;
            else if (memcmp(&((float*)data)[k], &w, 4) != 0) ++wrong;
          }
        }
      }
  return wrong;
}

static nbfft_plan make_plan(MPI_Comm comm, const char* precision, const char* transform, const char* grid) {
  nbfft_options o = NULL;
  nbfft_plan p = NULL;
  EXPECT(nbfft_options_create(&o), NBFFT_SUCCESS);
  EXPECT(nbfft_options_set(o, "precision", precision), NBFFT_SUCCESS);
  EXPECT(nbfft_options_set(o, "transform", transform), NBFFT_SUCCESS);
  if (grid) EXPECT(nbfft_options_set(o, "proc_grid", grid), NBFFT_SUCCESS);
  EXPECT(nbfft_plan_create(comm, N, o, &p), NBFFT_SUCCESS);
  nbfft_options_destroy(&o);
  return p;
}

/* The three fields of the file, written at the world's rank count. */
static void write_file(const char* path) {
  nbfft_plan d = make_plan(MPI_COMM_WORLD, "double", "r2c", NULL);
  nbfft_plan s = make_plan(MPI_COMM_WORLD, "single", "c2c", NULL);
  size_t in_b, out_b, sin_b;
  void *u, *U, *c;
  nbfft_h5file f = NULL;
  nbfft_plan_bytes(d, &in_b, &out_b, NULL);
  nbfft_plan_bytes(s, &sin_b, NULL, NULL);
  u = malloc(in_b + 8), U = malloc(out_b + 16), c = malloc(sin_b + 8);
  box_values(d, NBFFT_LAYOUT_INPUT, u, 1, 8, 1, 0);
  box_values(d, NBFFT_LAYOUT_OUTPUT, U, 2, 8, 1, 0);
  box_values(s, NBFFT_LAYOUT_INPUT, c, 2, 4, 1, 0);
  EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_CREATE, "alignment=4096 align_threshold=1024", &f),
         NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "u", 0, 0.0, u, in_b), NBFFT_SUCCESS);
  box_values(d, NBFFT_LAYOUT_INPUT, u, 1, 8, 1, 1000);
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "u", 10, 2.5, u, in_b), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_SPECTRAL, "U", 10, 2.5, U, out_b), NBFFT_SUCCESS);
  /* Bad input while writing: every rank gets the same status and message. */
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "u", 11, 2.5, u, in_b - (rank == size - 1 ? 8 : 0)),
         NBFFT_INVALID_ARGUMENT); /* one rank one element short */
  EXPECT_MSG("needs exactly");
  EXPECT_MSG("[rank");
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "u", 11, 2.5, u, in_b / 2), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_SPECTRAL, "U", 11, 2.5, U, out_b + 16), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("another element type or another box");
  EXPECT(nbfft_h5_write(f, d, (nbfft_space)7, "u", 11, 2.5, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("NBFFT_SPACE_PHYSICAL");
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, NULL, 11, 2.5, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "u", 10, 2.5, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("already holds /u/10");
  EXPECT(nbfft_h5_write(f, NULL, NBFFT_SPACE_PHYSICAL, "u", 11, 2.5, u, in_b), NBFFT_INVALID_STATE);
  EXPECT(nbfft_h5_write(f, s, NBFFT_SPACE_PHYSICAL, "c", 3, 0.125, c, sin_b), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
  CHECK(f == NULL, "close leaves the handle set");
  /* A closed file. */
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "u", 12, 3.0, u, in_b), NBFFT_INVALID_STATE);
  EXPECT_MSG("the file is NULL");
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS); /* a second close does nothing */
  free(u), free(U), free(c);
  nbfft_plan_destroy(&d);
  nbfft_plan_destroy(&s);
}

/* Reads every field back at the ranks of `comm` with the grid `grid` (NULL: nbfft's). */
static void read_file(MPI_Comm comm, const char* path, const char* grid) {
  nbfft_plan d = make_plan(comm, "double", "r2c", grid);
  nbfft_plan s = make_plan(comm, "single", "c2c", grid);
  size_t in_b, out_b, sin_b, count = 0;
  int64_t steps[4] = {-1, -1, -1, -1};
  double t = -1;
  char names[64];
  void *u, *U, *c;
  nbfft_h5file f = NULL;
  nbfft_plan_bytes(d, &in_b, &out_b, NULL);
  nbfft_plan_bytes(s, &sin_b, NULL, NULL);
  u = malloc(in_b + 8), U = malloc(out_b + 16), c = malloc(sin_b + 8);
  EXPECT(nbfft_h5_open(comm, path, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_SUCCESS);
  EXPECT(nbfft_h5_fields(f, names, sizeof names, NULL), NBFFT_SUCCESS);
  CHECK(strcmp(names, "U\nc\nu") == 0, "fields: '%s'", names);
  EXPECT(nbfft_h5_steps(f, "u", steps, 4, &count), NBFFT_SUCCESS);
  CHECK(count == 2 && steps[0] == 0 && steps[1] == 10, "steps of u: %zu (%lld, %lld)", count, (long long)steps[0],
        (long long)steps[1]);
  EXPECT(nbfft_h5_steps(f, "u", NULL, 0, &count), NBFFT_SUCCESS);
  CHECK(count == 2, "steps of u counted: %zu", count);
  EXPECT(nbfft_h5_time(f, "U", 10, &t), NBFFT_SUCCESS);
  CHECK(t == 2.5, "time of U/10: %g", t);
  EXPECT(nbfft_h5_read(f, d, NBFFT_SPACE_PHYSICAL, "u", 0, u, in_b), NBFFT_SUCCESS);
  CHECK(box_values(d, NBFFT_LAYOUT_INPUT, u, 1, 8, 0, 0) == 0, "u/0 differs");
  EXPECT(nbfft_h5_read(f, d, NBFFT_SPACE_PHYSICAL, "u", 10, u, in_b), NBFFT_SUCCESS);
  CHECK(box_values(d, NBFFT_LAYOUT_INPUT, u, 1, 8, 0, 1000) == 0, "u/10 differs");
  EXPECT(nbfft_h5_read(f, d, NBFFT_SPACE_SPECTRAL, "U", 10, U, out_b), NBFFT_SUCCESS);
  CHECK(box_values(d, NBFFT_LAYOUT_OUTPUT, U, 2, 8, 0, 0) == 0, "U/10 differs");
  EXPECT(nbfft_h5_read(f, s, NBFFT_SPACE_PHYSICAL, "c", 3, c, sin_b), NBFFT_SUCCESS);
  CHECK(box_values(s, NBFFT_LAYOUT_INPUT, c, 2, 4, 0, 0) == 0, "c/3 differs");
  /* Reading wrong: a missing field or step, another element type, a short buffer. */
  EXPECT(nbfft_h5_read(f, d, NBFFT_SPACE_PHYSICAL, "v", 0, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("has no field 'v' (its fields: U, c, u)");
  EXPECT(nbfft_h5_read(f, d, NBFFT_SPACE_PHYSICAL, "u", 7, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("its steps: 0, 10");
  EXPECT(nbfft_h5_read(f, s, NBFFT_SPACE_PHYSICAL, "u", 0, c, sin_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("holds float64");
  EXPECT(nbfft_h5_read(f, d, NBFFT_SPACE_PHYSICAL, "u", 0, u, in_b - 1), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "w", 0, 0.0, u, in_b), NBFFT_INVALID_ARGUMENT);
  EXPECT_MSG("opened for reading");
  EXPECT(nbfft_h5_time(f, "u", 3, &t), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_h5_steps(f, "u", NULL, 2, &count), NBFFT_INVALID_ARGUMENT);
  EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
  free(u), free(U), free(c);
  nbfft_plan_destroy(&d);
  nbfft_plan_destroy(&s);
}

#ifdef NBFFT_TEST_SERIAL_HDF5
/* The file as any serial HDF5 reader sees it: `name` is the global (nz, ny, nx) array, x
 * fastest, of value(x, y, z) + shift (real), or of value - i value (complex, the compound
 * {r, i}: an r2c spectrum's nx/2 + 1 columns). */
static void serial_check(const char* path, const char* name, double shift, int complex_) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t ds = file < 0 ? -1 : H5Dopen2(file, name, H5P_DEFAULT);
  hid_t sp = ds < 0 ? -1 : H5Dget_space(ds);
  hid_t ct = H5Tcreate(H5T_COMPOUND, 2 * sizeof(double));
  hsize_t dims[3] = {0, 0, 0};
  const int64_t nx = complex_ ? N[0] / 2 + 1 : N[0];
  double* all = malloc(sizeof(double) * 2 * (size_t)(N[0] * N[1] * N[2]));
  int64_t x, y, z;
  long wrong = 0;
  CHECK(sp >= 0, "cannot open %s in %s", name, path);
  if (sp < 0) return;
  H5Tinsert(ct, "r", 0, H5T_NATIVE_DOUBLE);
  H5Tinsert(ct, "i", sizeof(double), H5T_NATIVE_DOUBLE);
  H5Sget_simple_extent_dims(sp, dims, NULL);
  CHECK(dims[0] == (hsize_t)N[2] && dims[1] == (hsize_t)N[1] && dims[2] == (hsize_t)nx, "%s: dims %llu %llu %llu", name,
        (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2]);
  CHECK(H5Dread(ds, complex_ ? ct : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "reading %s", name);
  for (z = 0; z < N[2]; ++z)
    for (y = 0; y < N[1]; ++y)
      for (x = 0; x < nx; ++x) {
        const int64_t at = (z * N[1] + y) * nx + x;
        const double v = value(x, y, z, 0) + shift;
        if (complex_ ? all[2 * at] != v || all[2 * at + 1] != -v : all[at] != v) ++wrong;
      }
  CHECK(wrong == 0, "serial read of %s: %ld elements out of natural order", name, wrong);
  free(all);
  H5Tclose(ct), H5Sclose(sp), H5Dclose(ds), H5Fclose(file);
}

/* A quick look (nbfft_h5_write_plane / _subsampled) of the physical field of value(x, y, z)
 * as a serial reader sees it: dims (nz, ny, nx), point (z, y, x) = the field at
 * (z0 + z*s, y*s, x*s). */
static void serial_check_look(const char* path, const char* name, const hsize_t want[3], int64_t z0, int64_t s) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t ds = file < 0 ? -1 : H5Dopen2(file, name, H5P_DEFAULT);
  hid_t sp = ds < 0 ? -1 : H5Dget_space(ds);
  hsize_t dims[3] = {0, 0, 0};
  double* all = malloc(sizeof(double) * (size_t)(want[0] * want[1] * want[2]));
  hsize_t x, y, z;
  long wrong = 0;
  CHECK(sp >= 0, "cannot open %s in %s", name, path);
  if (sp < 0) return;
  H5Sget_simple_extent_dims(sp, dims, NULL);
  CHECK(dims[0] == want[0] && dims[1] == want[1] && dims[2] == want[2], "%s: dims %llu %llu %llu", name,
        (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2]);
  if (dims[0] == want[0] && dims[1] == want[1] && dims[2] == want[2]) {
    CHECK(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "reading %s", name);
    for (z = 0; z < dims[0]; ++z)
      for (y = 0; y < dims[1]; ++y)
        for (x = 0; x < dims[2]; ++x)
          if (all[(z * dims[1] + y) * dims[2] + x] != value((int64_t)x * s, (int64_t)y * s, z0 + (int64_t)z * s, 0))
            ++wrong;
    CHECK(wrong == 0, "serial read of %s: %ld wrong points", name, wrong);
  }
  free(all);
  H5Sclose(sp), H5Dclose(ds), H5Fclose(file);
}
#endif

int main(int argc, char** argv) {
  char path[256];
  int available = -1, k, world_failures = 0;
  nbfft_h5file f = NULL, copy;
  nbfft_plan d;
  size_t in_b;
  void* u;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef NBFFT_TEST_SERIAL_HDF5
  /* --check FILE: the file tests/capi/fortran_h5.f90 wrote, seen by a serial reader. */
  if (argc > 2 && strcmp(argv[1], "--check") == 0) {
    if (rank == 0) {
      const hsize_t plane[3] = {1, (hsize_t)N[1], (hsize_t)N[0]};
      const hsize_t half[3] = {(hsize_t)(N[2] + 1) / 2, (hsize_t)(N[1] + 1) / 2, (hsize_t)(N[0] + 1) / 2};
      serial_check(argv[2], "/u/10", 1000, 0), serial_check(argv[2], "/uh/0", 0, 1);
      serial_check(argv[2], "/ub/1", 0, 0);                    /* the background write */
      serial_check_look(argv[2], "/pz/0", plane, 2, 1);        /* Fortran's plane z = 3 */
      serial_check_look(argv[2], "/sub/0", half, 0, 2);        /* every other point */
    }
    MPI_Allreduce(&failures, &world_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s in natural order: %s\n", argv[2], world_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return world_failures ? 1 : 0;
  }
#endif
  snprintf(path, sizeof path, "%s/capi_h5_np%d.h5", argc > 1 ? argv[1] : ".", size);

  EXPECT(nbfft_h5_available(&available), NBFFT_SUCCESS);
  if (!available) {
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_CREATE, NULL, &f), NBFFT_UNAVAILABLE);
    EXPECT_MSG("built without parallel HDF5");
  } else {
    write_file(path);
#ifdef NBFFT_TEST_SERIAL_HDF5
    if (rank == 0) serial_check(path, "/u/10", 1000, 0);
#endif
    /* Every rank count k <= P (the first k ranks) with nbfft's grid; at P also slabs both
     * ways (at 4 ranks nbfft's grid is 2x2 pencils: three decompositions). Few enough
     * runs for MPICH, whose ranks busy-poll on these 2 cores. */
    for (k = 1; k <= size; ++k) {
      MPI_Comm sub;
      char grid[32];
      MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
      if (sub != MPI_COMM_NULL) {
        read_file(sub, path, NULL);
        if (k == size && k > 1) {
          snprintf(grid, sizeof grid, "1x%d", k);
          read_file(sub, path, grid);
          snprintf(grid, sizeof grid, "%dx1", k);
          read_file(sub, path, grid);
        }
        MPI_Comm_free(&sub);
      }
    }
    /* Opening wrong. */
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, "chunk=4x4", &f), NBFFT_INVALID_ARGUMENT);
    EXPECT_MSG("ZxYxX");
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, rank == 0 ? "colour=red" : NULL, &f),
           NBFFT_INVALID_ARGUMENT);
    EXPECT_MSG("unknown key 'colour'");
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, (nbfft_h5_mode)5, NULL, &f), NBFFT_INVALID_ARGUMENT);
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, NULL, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_INVALID_ARGUMENT);
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, "no/such/folder/x.h5", NBFFT_H5_MODE_CREATE, NULL, &f), NBFFT_IO_ERROR);
    CHECK(f == NULL, "a failed open leaves a handle");
    /* Append, and a stale copy of a closed handle. */
    d = make_plan(MPI_COMM_WORLD, "double", "r2c", NULL);
    nbfft_plan_bytes(d, &in_b, NULL, NULL);
    u = malloc(in_b + 8);
    box_values(d, NBFFT_LAYOUT_INPUT, u, 1, 8, 1, 0);
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_APPEND, NULL, &f), NBFFT_SUCCESS);
    EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "u", 20, 5.0, u, in_b), NBFFT_SUCCESS);
    copy = f;
    EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
    EXPECT(nbfft_h5_time(copy, "u", 20, NULL), NBFFT_INVALID_STATE);
    EXPECT_MSG("not a live handle");
    /* Discard: the previous file stays as it was (steps 0, 10, 20 of u). */
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_CREATE, NULL, &f), NBFFT_SUCCESS);
    EXPECT(nbfft_h5_write(f, d, NBFFT_SPACE_PHYSICAL, "only", 0, 0.0, u, in_b), NBFFT_SUCCESS);
    EXPECT(nbfft_h5_discard(&f), NBFFT_SUCCESS);
    EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_SUCCESS);
    {
      size_t count = 0;
      double t = 0;
      EXPECT(nbfft_h5_steps(f, "u", NULL, 0, &count), NBFFT_SUCCESS);
      CHECK(count == 3, "after append and discard u has %zu steps", count);
      EXPECT(nbfft_h5_time(f, "u", 20, &t), NBFFT_SUCCESS);
      CHECK(t == 5.0, "u/20 at %g", t);
    }
    EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
    /* Another grid in the file than the plan's. */
    {
      int64_t n2[3] = {8, 6, 4};
      nbfft_plan e = NULL;
      size_t e_b;
      void* v;
      EXPECT(nbfft_plan_create(MPI_COMM_WORLD, n2, NULL, &e), NBFFT_SUCCESS);
      nbfft_plan_bytes(e, &e_b, NULL, NULL);
      v = malloc(e_b + 8);
      EXPECT(nbfft_h5_open(MPI_COMM_WORLD, path, NBFFT_H5_MODE_READ, NULL, &f), NBFFT_SUCCESS);
      EXPECT(nbfft_h5_read(f, e, NBFFT_SPACE_PHYSICAL, "u", 0, v, e_b), NBFFT_INVALID_ARGUMENT);
      EXPECT_MSG("another grid");
      EXPECT(nbfft_h5_close(&f), NBFFT_SUCCESS);
      free(v);
      nbfft_plan_destroy(&e);
    }
    free(u);
    nbfft_plan_destroy(&d);
    if (rank == 0) remove(path);
  }
  MPI_Allreduce(&failures, &world_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("capi_h5 at %d ranks: %s (%d failures)\n", size, world_failures ? "FAILED" : "ok", world_failures);
  MPI_Finalize();
  return world_failures ? 1 : 0;
}
