/* The serial references of the N-D C tests (capi_nd.c, capi_nd_fields.c, capi_nd_many.c):
 * the global input, a naive DFT and the dst2/dct2 transforms along one axis of a C-order
 * array, the global index of a point of a rank's block, NaN-filled buffers and a NaN-aware
 * comparison. Header-only (static): each test is
 * one C file. */
#ifndef NBFFT_TESTS_ND_REFERENCE_H
#define NBFFT_TESTS_ND_REFERENCE_H

#include <nbfft/nbfft.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int rank = -1, failures = 0;

#define CHECK(what, cond)                                                                                 \
  do {                                                                                                    \
    if (!(cond)) fprintf(stderr, "FAIL rank %d: %s (%s)\n", rank, what, nbfft_last_error()), ++failures; \
  } while (0)

#define MAXD 5

/* MPI up (MPI_THREAD_SINGLE), rank set; returns the number of ranks. */
static inline int begin_test(int* argc, char*** argv) {
  int provided, size = 1;
  MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/* Every rank's failures summed and printed on rank 0, MPI finalized; main's exit code. */
static inline int end_test(const char* name) {
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %s (%d failures)\n", name, all ? "FAILED" : "passed", all);
  MPI_Finalize();
  return all ? 1 : 0;
}

/* A padded plan's spectrum along axis a of a C-order complex array of extents n (interleaved
 * re, im): its n[a] coefficients (numpy's order) truncated to `to` < n[a], keeping the lowest
 * modes, index to/2 of an even `to` the sum of +to/2 and -to/2 (docs/fft.md "Padding"). A new
 * array (free it); n[a] becomes `to`. */
static inline double* truncate_axis(const double* g, int nd, int64_t* n, int a, int64_t to) {
  int64_t inner = 1, outer = 1, o, i, k;
  const int64_t m = n[a], h = (to + 1) / 2;
  double* t;
  int d;
  for (d = a + 1; d < nd; ++d) inner *= n[d];
  for (d = 0; d < a; ++d) outer *= n[d];
  t = calloc((size_t)(outer * to * inner) * 2, sizeof(double));
  for (o = 0; o < outer; ++o)
    for (i = 0; i < inner; ++i)
      for (k = 0; k < to; ++k) {
        const int64_t km = k < h ? k : k - to + m; /* mode k or k - to, at index km of m */
        const int64_t dst = (o * to + k) * inner + i, src = (o * m + km) * inner + i;
        t[2 * dst] = g[2 * src], t[2 * dst + 1] = g[2 * src + 1];
        if (to % 2 == 0 && k == to / 2) { /* + mode +to/2 */
          const int64_t pos = (o * m + to / 2) * inner + i;
          t[2 * dst] += g[2 * pos], t[2 * dst + 1] += g[2 * pos + 1];
        }
      }
  n[a] = to;
  return t;
}

/* A value of the global input at flat C-order index i (the same on every rank). */
static inline double value(int64_t i, int imag) { return sin(0.7 * (double)i + 1.3 * imag) + 0.25 * cos(0.11 * (double)(i * i % 97)); }

static inline int64_t product(int nd, const int64_t* n) {
  int64_t p = 1;
  int d;
  for (d = 0; d < nd; ++d) p *= n[d];
  return p;
}

/* In place, a forward DFT along axis a of a C-order complex array (interleaved re, im). */
static inline void dft_axis(double* g, int nd, const int64_t* n, int a) {
  const double pi = 3.14159265358979323846;
  int64_t inner = 1, outer = 1, i, j, k, m;
  double* t = malloc((size_t)n[a] * 2 * sizeof(double));
  int d;
  for (d = a + 1; d < nd; ++d) inner *= n[d];
  for (d = 0; d < a; ++d) outer *= n[d];
  for (i = 0; i < outer; ++i)
    for (j = 0; j < inner; ++j) {
      double* base = g + 2 * (i * n[a] * inner + j);
      for (k = 0; k < n[a]; ++k) {
        double re = 0, im = 0;
        for (m = 0; m < n[a]; ++m) {
          const double w = -2 * pi * (double)(k * m % n[a]) / (double)n[a];
          const double xr = base[2 * m * inner], xi = base[2 * m * inner + 1];
          re += xr * cos(w) - xi * sin(w);
          im += xr * sin(w) + xi * cos(w);
        }
        t[2 * k] = re;
        t[2 * k + 1] = im;
      }
      for (k = 0; k < n[a]; ++k) base[2 * k * inner] = t[2 * k], base[2 * k * inner + 1] = t[2 * k + 1];
    }
  free(t);
}

/* Flat index of the point at offset `r` (flat, inside a box lo/n) in an array of shape `g`. */
static inline int64_t global_index(int nd, const int64_t* lo, const int64_t* n, const int64_t* g, int64_t r) {
  int64_t idx[MAXD], flat = 0;
  int d;
  for (d = nd - 1; d >= 0; --d) idx[d] = lo[d] + r % n[d], r /= n[d];
  for (d = 0; d < nd; ++d) flat = flat * g[d] + idx[d];
  return flat;
}

/* The same for a block stored with its axes in `order` (slowest first): a transposed spectrum. */
static inline int64_t global_index_in(int nd, const int64_t* lo, const int64_t* n, const int* order, const int64_t* g, int64_t r) {
  int64_t idx[MAXD], flat = 0;
  int d;
  for (d = nd - 1; d >= 0; --d) idx[order[d]] = lo[order[d]] + r % n[order[d]], r /= n[order[d]];
  for (d = 0; d < nd; ++d) flat = flat * g[d] + idx[d];
  return flat;
}

/* In place along axis a of a C-order real array: FFTW's REDFT10 (dct2, dst = 0) or
 * RODFT10 (dst2, dst = 1), unnormalized: y_k = 2 sum_j x_j cos(pi (j + 1/2) k / n), or
 * sin(pi (j + 1/2) (k + 1) / n). */
static inline void r2r_axis(double* g, int nd, const int64_t* n, int a, int dst) {
  const double pi = 3.14159265358979323846;
  int64_t inner = 1, outer = 1, i, j, k, m;
  double* t = malloc((size_t)n[a] * sizeof(double));
  int d;
  for (d = a + 1; d < nd; ++d) inner *= n[d];
  for (d = 0; d < a; ++d) outer *= n[d];
  for (i = 0; i < outer; ++i)
    for (j = 0; j < inner; ++j) {
      double* base = g + i * n[a] * inner + j;
      for (k = 0; k < n[a]; ++k) {
        double y = 0;
        for (m = 0; m < n[a]; ++m) {
          const double w = pi * ((double)m + 0.5) * (double)(dst ? k + 1 : k) / (double)n[a];
          y += 2 * base[m * inner] * (dst ? sin(w) : cos(w));
        }
        t[k] = y;
      }
      for (k = 0; k < n[a]; ++k) base[k * inner] = t[k];
    }
  free(t);
}

/* Counts the elements of a and b (n doubles) that differ by more than tol (NaN counts). */
static inline int64_t mismatches(const double* a, const double* b, int64_t n, double tol) {
  int64_t i, bad = 0;
  for (i = 0; i < n; ++i) bad += !(fabs(a[i] - b[i]) <= tol);
  return bad;
}

static inline double* nans(int64_t n) {
  double* p = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  int64_t i;
  for (i = 0; i < n; ++i) p[i] = NAN;
  return p;
}

/* The test input as a whole array of `total` points (C order): value(i, 0), and value(i, 1)
 * interleaved when cplx; the caller frees it. */
static inline double* global_input(int64_t total, int cplx) {
  double* g = malloc((size_t)(total > 0 ? total : 1) * (cplx ? 2 : 1) * sizeof(double));
  int64_t i;
  for (i = 0; i < total; ++i) {
    if (cplx)
      g[2 * i] = value(i, 0), g[2 * i + 1] = value(i, 1);
    else
      g[i] = value(i, 0);
  }
  return g;
}

/* The test input's whole DFT along the listed axes (non-negative), untruncated: a C-order
 * complex array of `shape` (interleaved re, im); the caller frees it. */
static inline double* reference_spectrum(int nd, const int64_t* shape, int na, const int* axes, int cplx) {
  const int64_t total = product(nd, shape);
  double* G = calloc((size_t)total * 2, sizeof(double));
  int64_t i;
  int k;
  for (i = 0; i < total; ++i) G[2 * i] = value(i, 0), G[2 * i + 1] = cplx ? value(i, 1) : 0;
  for (k = 0; k < na; ++k) dft_axis(G, nd, shape, axes[k]);
  return G;
}

#endif
